//! Checks a `--record` directory against the engine (`bot2048 replay`): every frame's board must be
//! the board before it, moved by the key chosen on it, plus exactly one new tile (a 2, or a 4
//! under the classic spawn rule) on a cell the move left empty.
//!
//! [`check`] reads `log.jsonl` ([`super::record`]): the frame lines (with `seq`) in order, and the
//! event lines between them. The start board must be read completely; after it the game is
//! followed on the engine's boards, and a cell the log has as `null` (unread) is taken from the
//! engine. The first step that does not fit ends the check with a [`Misfit`] naming the move and
//! the cells.
use super::record::{LogEvent, LogLine, LogRecord};
use crate::engine::{AnyBoard, Move, Position, SpawnRule};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Why a recording could not be checked at all.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// `log.jsonl` cannot be read.
    #[error("cannot read {}", path.display())]
    Io {
        /// The log's path.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A line of the log is not what `play --record` writes.
    #[error("{}, line {line}: {why}", path.display())]
    BadLine {
        /// The log's path.
        path: PathBuf,
        /// The line number, from 1.
        line: usize,
        /// What is wrong with it.
        why: String,
    },
    /// The log holds no frame line.
    #[error("{}: no frame lines (is this a `play --record` directory?)", .0.display())]
    Empty(PathBuf),
}

/// One frame line of the log, as the check needs it.
#[derive(Clone, Debug)]
struct FrameLine {
    seq: u64,
    read: Vec<Vec<Option<u64>>>,
    chosen: Option<Move>,
}

/// One move that fits.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Step {
    /// The move's number, from 1.
    #[serde(rename = "move")]
    pub number: u64,
    /// The key.
    pub key: Move,
    /// Points the move's merges made.
    pub gained: u64,
    /// The score after it (from 0 at the start frame).
    pub score: u64,
    /// The new tile: (row, column) from 0, and its value.
    pub spawn: Spawn,
    /// The board after the move and the new tile, rows of values.
    pub board: Vec<Vec<u64>>,
    /// The frame that shows it (`frames/{seq:06}.png`).
    pub seq: u64,
    /// The event lines logged while this move was verified (re-reads, retries, the win screen).
    pub events: Vec<LogEvent>,
}

/// Where a tile appeared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Spawn {
    /// Row, from 0.
    pub row: usize,
    /// Column, from 0.
    pub col: usize,
    /// 2 or 4.
    pub value: u64,
}

/// The first move that does not fit the engine.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Misfit {
    /// The move's number, from 1 (0: the start board).
    #[serde(rename = "move")]
    pub number: u64,
    /// Its key, when one was chosen.
    pub key: Option<Move>,
    /// The frame that does not fit.
    pub seq: u64,
    /// What does not fit, in words (cells as "row R col C", from 1).
    pub why: String,
}

/// What [`check`] found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// The start board, rows of values.
    pub start: Vec<Vec<u64>>,
    /// The moves that fit, in order.
    pub steps: Vec<Step>,
    /// The first move that does not fit, if any (the check stops there).
    pub misfit: Option<Misfit>,
    /// A key chosen on the last frame, which no frame shows the result of.
    pub unverified_last: Option<Move>,
    /// The event lines after the last frame (the stop).
    pub trailing_events: Vec<LogEvent>,
}

impl Report {
    /// The score after the last move that fits.
    pub fn score(&self) -> u64 {
        self.steps.last().map_or(0, |s| s.score)
    }
}

/// "row R col C" (from 1) of a cell index on a board `cols` wide.
fn cell_words(index: usize, cols: usize) -> String {
    format!("row {} col {}", index / cols + 1, index % cols + 1)
}

/// A log read back: each frame line with the event lines before it, and the event lines after
/// the last frame line.
struct Log {
    frames: Vec<(FrameLine, Vec<LogEvent>)>,
    trailing: Vec<LogEvent>,
}

/// Reads `dir/log.jsonl` into a [`Log`].
fn read_log(dir: &Path) -> Result<Log, VerifyError> {
    let path = dir.join("log.jsonl");
    let text = std::fs::read_to_string(&path).map_err(|source| VerifyError::Io {
        path: path.clone(),
        source,
    })?;
    let bad = |line: usize, why: String| VerifyError::BadLine {
        path: path.clone(),
        line,
        why,
    };
    let mut frames = Vec::new();
    let mut pending = Vec::new();
    for (i, l) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let line = match LogRecord::parse(l).map_err(|e| bad(i + 1, e.to_string()))? {
            LogRecord::Event(e) => {
                pending.push(e);
                continue;
            }
            LogRecord::Frame(line) => line,
        };
        let chosen = match &line.chosen {
            Some(c) => Some(
                c.parse::<Move>()
                    .map_err(|e| bad(i + 1, format!("chosen: {e}")))?,
            ),
            None => None,
        };
        let LogLine { seq, read, .. } = *line;
        frames.push((
            FrameLine { seq, read, chosen },
            std::mem::take(&mut pending),
        ));
    }
    if frames.is_empty() {
        return Err(VerifyError::Empty(path));
    }
    Ok(Log {
        frames,
        trailing: pending,
    })
}

/// Checks the recording in `dir` under the spawn rule `rule`; see the module doc.
///
/// # Errors
/// The log cannot be read or is not a `play --record` log. A move that does not fit is no
/// error: it is the report's [`Report::misfit`].
pub fn check(dir: &Path, rule: SpawnRule) -> Result<Report, VerifyError> {
    let Log {
        frames,
        trailing: trailing_events,
    } = read_log(dir)?;
    let mut report = Report {
        start: Vec::new(),
        steps: Vec::new(),
        misfit: None,
        unverified_last: None,
        trailing_events,
    };
    let (first, _) = &frames[0];
    let Some((mut board, rows)) = start_board(first) else {
        report.misfit = Some(Misfit {
            number: 0,
            key: None,
            seq: first.seq,
            why: "the start board is not read completely (or has no valid shape)".into(),
        });
        report.trailing_events.clear();
        return Ok(report);
    };
    report.start = rows;
    let mut score = 0;
    let mut chosen = first.chosen;
    for (n, (frame, events)) in frames.iter().enumerate().skip(1) {
        let number = n as u64;
        let misfit = |key, why: String| Misfit {
            number,
            key,
            seq: frame.seq,
            why,
        };
        let Some(key) = chosen else {
            report.misfit = Some(misfit(
                None,
                "no move was chosen on the frame before, yet another frame follows".into(),
            ));
            return Ok(report);
        };
        match step(&board, key, &frame.read, rule) {
            Ok((next, gained, spawn)) => {
                score += gained;
                board = next;
                report.steps.push(Step {
                    number,
                    key,
                    gained,
                    score,
                    spawn,
                    board: board.rows(),
                    seq: frame.seq,
                    events: events.clone(),
                });
            }
            Err(why) => {
                report.misfit = Some(misfit(Some(key), why));
                return Ok(report);
            }
        }
        chosen = frame.chosen;
    }
    report.unverified_last = chosen;
    Ok(report)
}

/// The start board of the first frame line and its rows, when every cell was read and the shape
/// is valid.
fn start_board(first: &FrameLine) -> Option<(AnyBoard, Vec<Vec<u64>>)> {
    let rows: Vec<Vec<u64>> = first
        .read
        .iter()
        .map(|r| r.iter().copied().collect())
        .collect::<Option<_>>()?;
    let board = AnyBoard::from_rows(&rows).ok()?;
    Some((board, rows))
}

/// The board after `key` on `before` and the one new tile that `read` shows, the points gained
/// and the spawn; or why `read` is not that.
fn step(
    before: &AnyBoard,
    key: Move,
    read: &[Vec<Option<u64>>],
    rule: SpawnRule,
) -> Result<(AnyBoard, u64, Spawn), String> {
    let Some((after, gained)) = before.apply(key) else {
        return Err(format!("{key} is not a legal move on the board before it"));
    };
    let shape = after.shape();
    let expect: Vec<u64> = after.rows().concat();
    let got: Vec<Option<u64>> = read.concat();
    if read.len() != shape.rows() || got.len() != expect.len() {
        return Err(format!(
            "the frame shows a {}-row board of {} cells, the game is {shape}",
            read.len(),
            got.len()
        ));
    }
    let cols = shape.cols();
    let allowed = |v: u64| v == 2 || (v == 4 && rule == SpawnRule::Classic);
    let mut spawns = Vec::new();
    let mut wrong = Vec::new();
    for (i, (&e, &g)) in expect.iter().zip(&got).enumerate() {
        match g {
            None => {} // unread: the engine's value stands
            Some(v) if v == e => {}
            Some(v) if e == 0 && allowed(v) => spawns.push((i, v)),
            Some(v) if e == 0 => wrong.push(format!(
                "{}: a new {v}, which the spawn rule ({rule}) never makes",
                cell_words(i, cols)
            )),
            Some(v) => wrong.push(format!(
                "{}: the move gives {e}, the frame shows {}",
                cell_words(i, cols),
                if v == 0 {
                    "it empty".to_string()
                } else {
                    v.to_string()
                }
            )),
        }
    }
    if !wrong.is_empty() {
        return Err(wrong.join("; "));
    }
    match spawns.as_slice() {
        [(i, v)] => {
            let mut cells = expect.clone();
            cells[*i] = *v;
            let rows: Vec<Vec<u64>> = cells.chunks(cols).map(<[u64]>::to_vec).collect();
            let next = AnyBoard::from_rows(&rows).map_err(|e| e.to_string())?;
            let spawn = Spawn {
                row: i / cols,
                col: i % cols,
                value: *v,
            };
            Ok((next, gained, spawn))
        }
        [] => Err("no new tile: the frame shows the board after the move and nothing else".into()),
        many => Err(format!(
            "{} new tiles, one expected: {}",
            many.len(),
            many.iter()
                .map(|(i, v)| format!("a {v} at {}", cell_words(*i, cols)))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// The event as a short phrase, e.g. `re-read (disagrees)`, `retry: left, press 2`.
pub fn describe_event(e: &LogEvent) -> String {
    match e {
        LogEvent::Reread { why, .. } => format!("re-read ({why})"),
        LogEvent::Retry { key, press, .. } => format!("key pressed again: {key}, press {press}"),
        LogEvent::WinPassed { .. } => "the win screen was passed".into(),
        LogEvent::FramesCapped { from_seq, .. } => {
            format!("frames from frame {from_seq} on not saved (--record-max-mb)")
        }
        LogEvent::Learned {
            row, col, value, ..
        } => format!("learned the look of the {value} at row {row}, column {col}"),
        LogEvent::BoardMoved { from, to, .. } => format!(
            "the board moved from {},{} ({}x{}) to {},{} ({}x{})",
            from.x, from.y, from.width, from.height, to.x, to.y, to.width, to.height
        ),
        LogEvent::Stop { message, .. } => format!("stopped: {message}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::StopReason;

    #[test]
    fn every_event_written_reads_back_in_words() {
        let read_back = |e: &LogEvent| match LogRecord::parse(&serde_json::to_string(e).unwrap()) {
            Ok(LogRecord::Event(back)) => back,
            other => panic!("{other:?}"),
        };
        let events = [
            LogEvent::Reread {
                moves: 1,
                why: "disagrees".into(),
                hash: None,
                mismatch: None,
                after_key_ms: None,
                frame: None,
            },
            LogEvent::Retry {
                moves: 1,
                key: "left".into(),
                press: 2,
            },
            LogEvent::WinPassed {
                moves: 3,
                after_seq: Some(3),
            },
            LogEvent::FramesCapped {
                from_seq: 9,
                bytes: 10,
                max_bytes: 5,
            },
            LogEvent::Learned {
                moves: 2,
                row: 1,
                col: 0,
                value: 16,
                background: "#4fae7f".into(),
                text: "#ffffff".into(),
            },
            LogEvent::BoardMoved {
                moves: 3,
                from: crate::capture::Rect {
                    x: 40,
                    y: 231,
                    width: 470,
                    height: 470,
                },
                to: crate::capture::Rect {
                    x: 40,
                    y: 191,
                    width: 470,
                    height: 470,
                },
            },
            LogEvent::Stop {
                moves: 4,
                reason: StopReason::GameOver,
                message: "game over: no legal move".into(),
            },
        ];
        let words: Vec<String> = events
            .iter()
            .map(|e| describe_event(&read_back(e)))
            .collect();
        assert_eq!(
            words,
            [
                "re-read (disagrees)",
                "key pressed again: left, press 2",
                "the win screen was passed",
                "frames from frame 9 on not saved (--record-max-mb)",
                "learned the look of the 16 at row 1, column 0",
                "the board moved from 40,231 (470x470) to 40,191 (470x470)",
                "stopped: game over: no legal move",
            ]
        );
    }

    fn b(rows: &[&[u64]]) -> AnyBoard {
        AnyBoard::from_rows(&rows.iter().map(|r| r.to_vec()).collect::<Vec<_>>()).unwrap()
    }

    fn r(rows: &[&[u64]]) -> Vec<Vec<Option<u64>>> {
        rows.iter()
            .map(|r| r.iter().map(|&v| Some(v)).collect())
            .collect()
    }

    #[test]
    fn a_step_needs_the_move_plus_exactly_one_legal_new_tile() {
        let before = b(&[&[2, 2, 0], &[0, 0, 0], &[0, 0, 4]]);
        // left: 4 . . / . . . / 4 . . ; a 2 at row 2 col 3
        let (next, gained, spawn) = step(
            &before,
            Move::Left,
            &r(&[&[4, 0, 0], &[0, 0, 2], &[4, 0, 0]]),
            SpawnRule::Classic,
        )
        .unwrap();
        assert_eq!(gained, 4);
        assert_eq!(
            spawn,
            Spawn {
                row: 1,
                col: 2,
                value: 2
            }
        );
        assert_eq!(next.rows(), [[4, 0, 0], [0, 0, 2], [4, 0, 0]]);
        let err = |read: &[&[u64]], rule| step(&before, Move::Left, &r(read), rule).unwrap_err();
        assert_eq!(
            err(&[&[4, 0, 0], &[0, 0, 4], &[4, 0, 0]], SpawnRule::TwosOnly),
            "row 2 col 3: a new 4, which the spawn rule (twos-only) never makes"
        );
        assert_eq!(
            err(&[&[4, 0, 0], &[0, 0, 0], &[4, 0, 0]], SpawnRule::Classic),
            "no new tile: the frame shows the board after the move and nothing else"
        );
        assert_eq!(
            err(&[&[4, 0, 2], &[0, 0, 2], &[4, 0, 0]], SpawnRule::Classic),
            "2 new tiles, one expected: a 2 at row 1 col 3, a 2 at row 2 col 3"
        );
        assert_eq!(
            err(&[&[8, 0, 0], &[0, 0, 2], &[0, 0, 0]], SpawnRule::Classic),
            "row 1 col 1: the move gives 4, the frame shows 8; row 3 col 1: the move gives 4, the frame shows it empty"
        );
        let lone = b(&[&[2, 0, 0], &[0, 0, 0], &[0, 0, 0]]);
        assert_eq!(
            step(
                &lone,
                Move::Left,
                &r(&[&[2, 0, 0], &[0; 3], &[0; 3]]),
                SpawnRule::Classic
            )
            .unwrap_err(),
            "left is not a legal move on the board before it"
        );
    }
}
