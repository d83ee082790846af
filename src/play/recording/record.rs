//! `--record DIR`: the frames the loop used and a JSON-lines log, written by a background thread
//! so that PNG encoding (20–50 ms a frame) does not slow the game down.
//!
//! Layout: `DIR/frames/NNNNNN.png` (6-digit sequence, one per settled frame the loop read, in
//! order: the start, then one per key whose effect was read), `DIR/log.jsonl`, `DIR/summary.json`
//! at the end, and `DIR/desync/` after a desync. A `--record` directory replays with
//! [`crate::capture::ReplaySource::from_dir`] and is checked by `bot2048 replay`.
//!
//! `log.jsonl` holds two kinds of line, told apart by the key `seq` ([`LogRecord`], which both
//! the recorder and `bot2048 replay`'s check, [`super::verify`], use):
//! - a frame line ([`LogLine`], has `seq`): the board read on frame `seq`, the move chosen on it;
//!   `event` is `start` or `spawned`;
//! - an event line ([`LogEvent`], no `seq`): what happened besides moves, `event` naming it
//!   (`reread`, `retry`, `win_passed`, `frames_capped`, `learned`, `board_moved`, `stop`) and `moves` the moves made
//!   before it.
//!
//! A directory that already holds a recording is refused ([`check_dir`]) unless forced; forced,
//! the old recording's files are removed first, so no stale frame is left beside the new ones.
//! With a cap on the frames' bytes ([`Recorder::create`]'s `max_bytes`), frames past it are not
//! saved (their lines still are), and a `frames_capped` event says from which frame.
use crate::capture::Rect;
use crate::fsio::{self, Existing};
use crate::play::stop::StopReason;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread::JoinHandle;

/// The files and folders of a recording (besides `frames/`), removed by a forced re-recording.
const RECORDING_FILES: [&str; 4] = ["log.jsonl", "summary.json", "desync", "rereads"];

/// Why a recording directory cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The directory already holds a recording and `force` was not given.
    #[error("{} already holds a recording ({found}); pass --force to replace it, or choose another directory", dir.display())]
    Exists {
        /// The directory.
        dir: PathBuf,
        /// What was found there (`log.jsonl`, `frames/`, ...).
        found: String,
    },
    /// The path exists and is not a directory.
    #[error("{} is not a directory", .0.display())]
    NotADirectory(PathBuf),
    /// Creating or clearing the directory failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// Checks that `dir` can take a new recording: absent, empty of recording files, or `force`.
///
/// # Errors
/// [`RecordError::Exists`] when `dir` holds `log.jsonl`, `summary.json`, `desync/` or a
/// non-empty `frames/` and `force` is false; [`RecordError::NotADirectory`] for a file.
pub fn check_dir(dir: &Path, force: bool) -> Result<(), RecordError> {
    if !dir.exists() {
        return Ok(());
    }
    if !dir.is_dir() {
        return Err(RecordError::NotADirectory(dir.to_path_buf()));
    }
    let mut found: Vec<String> = RECORDING_FILES
        .iter()
        .filter(|f| dir.join(f).exists())
        .map(|f| f.to_string())
        .collect();
    let frames = dir.join("frames");
    let frame_count = std::fs::read_dir(&frames).map_or(0, |d| d.count());
    if frame_count > 0 {
        found.push(format!("frames/ with {frame_count} files"));
    }
    if found.is_empty() || force {
        return Ok(());
    }
    Err(RecordError::Exists {
        dir: dir.to_path_buf(),
        found: found.join(", "),
    })
}

/// Removes an old recording's files from `dir` (the PNGs of `frames/`, `log.jsonl`,
/// `summary.json`, `desync/`); other files are left alone.
fn clear(dir: &Path) -> Result<(), RecordError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| RecordError::Io { path, source }
    };
    for f in RECORDING_FILES {
        let p = dir.join(f);
        if p.is_dir() {
            std::fs::remove_dir_all(&p).map_err(io(&p))?;
        } else if p.exists() {
            std::fs::remove_file(&p).map_err(io(&p))?;
        }
    }
    let frames = dir.join("frames");
    if let Ok(entries) = std::fs::read_dir(&frames) {
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "png") {
                std::fs::remove_file(&p).map_err(io(&p))?;
            }
        }
    }
    Ok(())
}

/// An event line of `log.jsonl`: what happened besides a move (see the module doc).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum LogEvent {
    /// A frame after a key was read again instead of being used.
    Reread {
        /// Moves made before (the move being verified is `moves + 1`).
        moves: u64,
        /// What the frame showed: `unreadable`, `disagrees`, `unchanged`, `timed_out`,
        /// `dialog_closed`.
        why: String,
        /// The settled frame's board-region hash (16 hex digits; two reads on the same pixels
        /// have the same hash); absent for `timed_out` and `dialog_closed`, and in logs written
        /// before it was added.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hash: Option<String>,
        /// What disagreed with the mirror (the cells, expected and read), or why the frame could
        /// not be read; absent when nothing did.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mismatch: Option<String>,
        /// The settled frame's capture time after the last key press, ms.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        after_key_ms: Option<f64>,
        /// Where the frame was saved, relative to the recording (`rereads/…png`), for
        /// `unreadable` and `disagrees`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        frame: Option<String>,
    },
    /// The key had no visible effect and was pressed again.
    Retry {
        /// Moves made before.
        moves: u64,
        /// The key (`up`, `down`, `left`, `right`).
        key: String,
        /// Which press this is (2 = the first retry).
        press: u32,
    },
    /// The game's win screen was passed (`--on-win continue`).
    WinPassed {
        /// Moves made before.
        moves: u64,
        /// Sequence number of the last frame line written before it (the frame the 2048 was
        /// first seen on, or, when the win dialog opened during the move, the frame before it).
        after_seq: Option<u64>,
    },
    /// The frames' bytes reached the cap: from frame `from_seq` on, frames are not saved.
    FramesCapped {
        /// The first frame not saved.
        from_seq: u64,
        /// Bytes of the frames saved.
        bytes: u64,
        /// The cap, bytes.
        max_bytes: u64,
    },
    /// The look of a tile the reader could not read was learned from the engine's value
    /// (issue 24: learning by playing).
    Learned {
        /// Moves made before (the move being verified is `moves + 1`).
        moves: u64,
        /// Row of the cell, 0 = top.
        row: usize,
        /// Column of the cell, 0 = left.
        col: usize,
        /// The tile's value (the engine's).
        value: u32,
        /// Its background colour, `#rrggbb`.
        background: String,
        /// Its digits' colour, `#rrggbb`.
        text: String,
    },
    /// The board was found at another place in the frame than where it was read before (issue
    /// 24: a browser's infobar opened or closed above the page, the window was resized), and
    /// play went on there: the read at the new place fitted the mirror.
    BoardMoved {
        /// Moves made before (the move whose frame showed it is `moves + 1`).
        moves: u64,
        /// Where the grid of cells was, image pixels (the top-left of the first cell to the
        /// bottom-right of the last).
        from: Rect,
        /// Where it is now, image pixels.
        to: Rect,
    },
    /// The run stopped.
    Stop {
        /// Moves made.
        moves: u64,
        /// The reason (as in `summary.json`'s `stop_reason`).
        reason: StopReason,
        /// The reason in words.
        message: String,
    },
}

/// A frame line of `log.jsonl`. Read back, the fields a recording made before they existed
/// are `null` or 0.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LogLine {
    /// Sequence number of the frame (file `frames/{seq:06}.png`).
    pub seq: u64,
    /// Moves made before this frame was read.
    pub moves: u64,
    /// What happened: "start" (the start frame) or "spawned" (a move verified); the other events
    /// are event lines ([`LogEvent`]).
    pub event: String,
    /// Board read from the frame, rows of values (`read[r][c]`, the board's own shape),
    /// `null` = unreadable.
    pub read: Vec<Vec<Option<u64>>>,
    /// Board the mirror expected (afterstate before the spawn), rows of values; `null` at the start.
    pub expected: Option<Vec<Vec<u64>>>,
    /// The move chosen on this frame's board, if any.
    pub chosen: Option<String>,
    /// Each direction's value from the solver (up, down, left, right), `null` = illegal.
    pub values: Option<[Option<f64>; 4]>,
    /// Solver nodes searched.
    pub nodes: Option<u64>,
    /// Solver depth reached.
    pub depth: Option<u32>,
    /// Time the solver took, ms (the decision, once this frame was read).
    pub solve_ms: Option<f64>,
    /// Time the solver pondered the move that led to this frame before the frame was read, ms
    /// (`null`: no pondering, e.g. at the start).
    pub ponder_ms: Option<f64>,
    /// Nodes searched while pondering that move.
    pub ponder_nodes: Option<u64>,
    /// The depth pondering made ready for every likeliest spawn of that move (0: not one full
    /// depth); `depth` is what the decision on this frame reached with it.
    pub ponder_depth: Option<u32>,
    /// Time spent waiting for this frame to settle, ms.
    pub settle_ms: f64,
    /// Time from this frame's capture to the key, ms.
    pub frame_to_key_ms: Option<f64>,
    /// Keys pressed again for the move that led to this frame (its key had no visible effect).
    #[serde(default)]
    pub retries: u32,
    /// Extra reads for the move that led to this frame (mid-animation or disagreeing frames).
    #[serde(default)]
    pub rereads: u32,
}

/// Any line of `log.jsonl`: a frame line or an event line (see the module doc).
#[derive(Clone, Debug)]
pub enum LogRecord {
    /// A frame line (it has `seq`).
    Frame(Box<LogLine>),
    /// An event line (no `seq`).
    Event(LogEvent),
}

impl LogRecord {
    /// Parses one line of `log.jsonl`: a frame line when it has the key `seq`, else an event.
    ///
    /// # Errors
    /// The line is not JSON, or not a frame line or an event line as the recorder writes them.
    pub fn parse(line: &str) -> Result<LogRecord, serde_json::Error> {
        /// Just enough of a line to tell its kind.
        #[derive(Deserialize)]
        struct Kind {
            seq: Option<serde::de::IgnoredAny>,
        }
        match serde_json::from_str::<Kind>(line)?.seq {
            Some(_) => serde_json::from_str(line).map(|l| LogRecord::Frame(Box::new(l))),
            None => serde_json::from_str(line).map(LogRecord::Event),
        }
    }
}

impl LogLine {
    /// The line of a frame read as `read` after `moves` moves: `event`, the board `expected`
    /// (rows), and `settle_ms`; the decision fields empty and no retries or re-reads.
    pub fn new(
        moves: u64,
        event: &str,
        read: Vec<Vec<Option<u64>>>,
        expected: Option<Vec<Vec<u64>>>,
        settle_ms: f64,
    ) -> LogLine {
        LogLine {
            seq: 0,
            moves,
            event: event.to_string(),
            read,
            expected,
            chosen: None,
            values: None,
            nodes: None,
            depth: None,
            solve_ms: None,
            ponder_ms: None,
            ponder_nodes: None,
            ponder_depth: None,
            settle_ms,
            frame_to_key_ms: None,
            retries: 0,
            rereads: 0,
        }
    }
}

/// The background writer: writes each queued frame and line until the channel closes, leaving
/// out the frames past `max_bytes` (with a `frames_capped` event at the first).
fn write_jobs(
    rx: mpsc::Receiver<Job>,
    mut log: std::fs::File,
    max_bytes: Option<u64>,
) -> WriterEnd {
    let mut capped: Option<u64> = None;
    let mut first_err = None;
    let mut bytes = 0u64;
    let line = |log: &mut std::fs::File, s: &str| {
        writeln!(log, "{s}").map_err(|e| format!("log.jsonl: {e}"))
    };
    for job in rx {
        let r = match job {
            Job::Frame(seq, path, img) => match max_bytes.filter(|&m| bytes >= m) {
                Some(max) if capped.is_none() => {
                    capped = Some(seq);
                    let ev = LogEvent::FramesCapped {
                        from_seq: seq,
                        bytes,
                        max_bytes: max,
                    };
                    let s = serde_json::to_string(&ev).unwrap_or_default();
                    line(&mut log, &s)
                }
                Some(_) => Ok(()),
                None => fsio::write_png(&path, &img, Existing::Replace)
                    .map_err(|e| e.to_string())
                    .map(|()| {
                        bytes += std::fs::metadata(&path).map_or(0, |m| m.len());
                    }),
            },
            // past the cap, extra frames are left out without a line of their own
            Job::Extra(_, _) if max_bytes.is_some_and(|m| bytes >= m) => Ok(()),
            Job::Extra(path, img) => path
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .map_err(|e| format!("{}: {e}", path.display()))
                .and_then(|()| {
                    fsio::write_png(&path, &img, Existing::Replace).map_err(|e| e.to_string())
                })
                .map(|()| {
                    bytes += std::fs::metadata(&path).map_or(0, |m| m.len());
                }),
            Job::Line(s) => line(&mut log, &s),
        };
        if let Err(e) = r {
            first_err.get_or_insert(e);
        }
    }
    if let Err(e) = log.flush() {
        return (Err(e.to_string()), capped);
    }
    (first_err.map_or(Ok(()), Err), capped)
}

/// A write queued for the background writer.
enum Job {
    Frame(u64, PathBuf, image::RgbaImage),
    /// A frame outside the sequence (a re-read's), at this path.
    Extra(PathBuf, image::RgbaImage),
    Line(String),
}

/// What the background writer ends with: its first error, and the first frame the cap left out.
type WriterEnd = (Result<(), String>, Option<u64>);

/// Writes a recording in the background.
pub struct Recorder {
    dir: PathBuf,
    tx: Option<mpsc::Sender<Job>>,
    worker: Option<JoinHandle<WriterEnd>>,
    seq: u64,
    /// The first frame not saved because of the cap, once the writer is joined.
    capped_from: Option<u64>,
    /// The background writer's result, once joined.
    write_result: Option<Result<(), String>>,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("dir", &self.dir)
            .field("seq", &self.seq)
            .finish()
    }
}

impl Recorder {
    /// Creates `dir/frames` and `dir/log.jsonl`, after [`check_dir`]`(dir, force)`; with `force`,
    /// an old recording's files are removed first. Frames stop being saved once the saved
    /// frames hold `max_bytes` bytes (`None`: no cap).
    ///
    /// # Errors
    /// As [`check_dir`], and the I/O error of clearing or creating the files.
    pub fn create(
        dir: &Path,
        force: bool,
        max_bytes: Option<u64>,
    ) -> Result<Recorder, RecordError> {
        check_dir(dir, force)?;
        if dir.exists() {
            clear(dir)?;
        }
        let frames = dir.join("frames");
        std::fs::create_dir_all(&frames).map_err(|source| RecordError::Io {
            path: frames.clone(),
            source,
        })?;
        let log_path = dir.join("log.jsonl");
        let log = std::fs::File::create(&log_path).map_err(|source| RecordError::Io {
            path: log_path,
            source,
        })?;
        let (tx, rx) = mpsc::channel::<Job>();
        let worker = std::thread::spawn(move || write_jobs(rx, log, max_bytes));
        Ok(Recorder {
            dir: dir.to_path_buf(),
            tx: Some(tx),
            worker: Some(worker),
            seq: 0,
            capped_from: None,
            write_result: None,
        })
    }

    /// Queues an event line.
    pub fn event(&mut self, event: &LogEvent) {
        if let (Some(tx), Ok(s)) = (&self.tx, serde_json::to_string(event)) {
            let _ = tx.send(Job::Line(s));
        }
    }

    /// The sequence number of the last frame queued, if any.
    pub fn last_seq(&self) -> Option<u64> {
        self.seq.checked_sub(1)
    }

    /// Waits for every queued write; returns the first frame left out by the cap, if any.
    /// Nothing can be queued afterwards.
    pub fn close(&mut self) -> Option<u64> {
        self.tx = None;
        if let Some(w) = self.worker.take() {
            let (result, capped) = w
                .join()
                .unwrap_or_else(|_| (Err("the recording thread panicked".to_string()), None));
            self.write_result = Some(result);
            self.capped_from = capped;
        }
        self.capped_from
    }

    /// The recording directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Queues a frame and its log line; returns the sequence number used.
    pub fn frame(&mut self, image: &image::RgbaImage, mut line: LogLine) -> u64 {
        let seq = self.seq;
        self.seq += 1;
        line.seq = seq;
        if let Some(tx) = &self.tx {
            let path = self.dir.join("frames").join(format!("{seq:06}.png"));
            let _ = tx.send(Job::Frame(seq, path, image.clone()));
            if let Ok(s) = serde_json::to_string(&line) {
                let _ = tx.send(Job::Line(s));
            }
        }
        seq
    }

    /// Queues `image` as `rereads/NAME.png` (a re-read frame, outside the sequence; left out
    /// past the cap); returns that path relative to the recording.
    pub fn reread_frame(&mut self, name: &str, image: &image::RgbaImage) -> String {
        let rel = format!("rereads/{name}.png");
        if let Some(tx) = &self.tx {
            let _ = tx.send(Job::Extra(self.dir.join(&rel), image.clone()));
        }
        rel
    }

    /// Waits for every queued write ([`Recorder::close`]), then writes `summary.json`.
    ///
    /// # Errors
    /// The first write error, as text.
    pub fn finish<S: Serialize>(&mut self, summary: &S) -> Result<(), String> {
        self.close();
        self.write_result.take().unwrap_or(Ok(()))?;
        let text = serde_json::to_string_pretty(summary).map_err(|e| e.to_string())?;
        let path = self.dir.join("summary.json");
        fsio::write_bytes(&path, text.as_bytes(), Existing::Replace).map_err(|e| e.to_string())
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.tx = None;
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}
