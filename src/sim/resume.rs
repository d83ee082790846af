//! Games played on from where earlier games stood: `sim --resume GAMES.jsonl --resume-at TILE`.
//!
//! Every line `sim --games-out` writes keeps, for each of the game's last
//! [`super::RESUME_POINTS`] largest tiles, where the game stood when that tile first stood on
//! the board ([`ResumePoint`]: the board, the score, the moves, and the position of the game's
//! spawn generator). [`read_resume_points`] takes the points of one tile from such a file; the run
//! then plays each game on from its point with the spawns the original game would have met
//! ([`crate::engine::Game::resume`]). A rule that changes only late play (after 32768, say) is so
//! measured on the same boards as before, without the 15,000 or so moves that lead to them, and
//! with the same solver a resumed game ends as the original did (at a fixed `--depth`; a search's
//! caches and the middle-game values in memory may differ, and with them a close decision).
use crate::engine::{AnyBoard, BoardError, GameState, Position, Shape, SpawnRule};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};

/// Where a game stood when one of its largest tiles first stood on the board, as a line of
/// `--games-out` keeps it (the game's seed is the line's).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResumePoint {
    /// Moves played until then.
    pub moves: u32,
    /// Score until then (points).
    pub score: u64,
    /// The board's tile values, row by row from the top, 0 for an empty cell.
    pub board: Vec<Vec<u64>>,
    /// The position of the game's spawn generator in its stream (32-bit words).
    pub spawn_position: u128,
}

impl ResumePoint {
    /// The point of `state`.
    pub fn of(state: &GameState<AnyBoard>) -> ResumePoint {
        ResumePoint {
            moves: state.moves,
            score: state.score,
            board: state.board.rows(),
            spawn_position: state.spawn_position,
        }
    }
}

/// A game to play on: where it stood, and the largest tiles it had made by then.
#[derive(Clone, Debug, PartialEq)]
pub struct ResumeFrom {
    /// Where the game stood (its seed, board, score, moves and spawn position).
    pub state: GameState<AnyBoard>,
    /// Each largest tile the game had made, with the moves played when it first stood on the
    /// board, up to the tile it is resumed at.
    pub first_reached: Vec<(u64, u32)>,
}

/// The games of a `--games-out` file to play on from one tile ([`read_resume_points`]).
#[derive(Clone, Debug)]
pub struct Resumable {
    /// The games with a point at the tile, in the file's order.
    pub games: Vec<ResumeFrom>,
    /// The games in the file.
    pub lines: usize,
    /// The games that made the tile but keep no point there (it was not among their last
    /// [`super::RESUME_POINTS`] largest tiles).
    pub without_point: usize,
}

/// What [`read_resume_points`] reads of a `--games-out` line (other keys are left alone).
#[derive(Deserialize)]
struct GameLineIn {
    solver: String,
    seed: u64,
    #[serde(default)]
    spawn: Option<SpawnRule>,
    first_reached: BTreeMap<u64, u32>,
    #[serde(default)]
    resume_points: BTreeMap<u64, ResumePoint>,
}

/// Why a `--resume` file gives no games to play (the underlying error, where there is one, is
/// the error's source: `{:#}` prints both).
#[derive(Debug, thiserror::Error)]
pub enum ResumeError {
    /// The file cannot be read.
    #[error("cannot read {}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A line is not a game as `sim --games-out` writes it.
    #[error("{}, line {line}: not a game of `sim --games-out`", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
        /// What is wrong with it.
        source: serde_json::Error,
    },
    /// A resume point's board is not a board.
    #[error("{}, line {line}: the board at {tile} is not a board", path.display())]
    Board {
        /// The file.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
        /// The tile whose point it is.
        tile: u64,
        /// What is wrong with it.
        source: BoardError,
    },
    /// A resume point's board does not hold its tile, or boards of two sizes.
    #[error("{}, line {line}: {why}", path.display())]
    Mismatch {
        /// The file.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
        /// What does not fit.
        why: String,
    },
    /// The file holds no game.
    #[error("{} holds no game (a file of `sim --games-out`, one game a line)", path.display())]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// The file holds the games of several solvers (a `--compare` run's).
    #[error(
        "{} holds the games of {} solvers ({}): resume one's, e.g. from the lines of \
         `grep '\"solver\":\"{}\"' FILE`",
        path.display(), names.len(), names.join(", "), names[0]
    )]
    Solvers {
        /// The file.
        path: PathBuf,
        /// The solvers' names, in the order first met.
        names: Vec<String>,
    },
    /// No game of the file has a point at the tile.
    #[error(
        "{}: none of its {games} games has a resume point at {tile} (a game keeps one for each \
         of its last 3 largest tiles; files written before this option have none)",
        path.display()
    )]
    NoneAt {
        /// The file.
        path: PathBuf,
        /// The games in it.
        games: usize,
        /// The tile asked for.
        tile: u64,
    },
}

/// The games of the `--games-out` file at `path` that have a resume point at `tile`, in the
/// file's order, each ready to play on from there.
///
/// # Errors
/// [`ResumeError`]: the file cannot be read, holds no game or the games of several solvers, a
/// line is not a game, a point's board is not a board, does not hold `tile` as its largest, or
/// differs in size from the others; or no game has a point at `tile`.
pub fn read_resume_points(path: &Path, tile: u64) -> Result<Resumable, ResumeError> {
    let io = |source| ResumeError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut set = Resumable {
        games: Vec::new(),
        lines: 0,
        without_point: 0,
    };
    let mut solvers: Vec<String> = Vec::new();
    for (i, text) in std::io::BufReader::new(file).lines().enumerate() {
        let text = text.map_err(io)?;
        if text.trim().is_empty() {
            continue;
        }
        set.lines += 1;
        let line: GameLineIn = serde_json::from_str(&text).map_err(|source| ResumeError::Line {
            path: path.to_path_buf(),
            line: i + 1,
            source,
        })?;
        if !solvers.contains(&line.solver) {
            solvers.push(line.solver.clone());
        }
        match resume_from(&line, tile).map_err(|e| e.at(path, i + 1))? {
            Some(from) => {
                check_same_shape(&set.games, &from).map_err(|e| e.at(path, i + 1))?;
                set.games.push(from);
            }
            None if line.first_reached.contains_key(&tile) => set.without_point += 1,
            None => {}
        }
    }
    let path = path.to_path_buf();
    if solvers.len() > 1 {
        return Err(ResumeError::Solvers {
            path,
            names: solvers,
        });
    }
    match (set.lines, set.games.is_empty()) {
        (0, _) => Err(ResumeError::Empty { path }),
        (games, true) => Err(ResumeError::NoneAt { path, games, tile }),
        _ => Ok(set),
    }
}

/// Refuses a game whose board differs in size from the games before it.
fn check_same_shape(before: &[ResumeFrom], from: &ResumeFrom) -> Result<(), LineError> {
    match before.first() {
        Some(first) if first.shape() != from.shape() => Err(LineError::Mismatch(format!(
            "a {} board where the games before are {}",
            from.shape(),
            first.shape()
        ))),
        _ => Ok(()),
    }
}

/// A line's fault, before the file and line are known.
enum LineError {
    Board(u64, BoardError),
    Mismatch(String),
}

impl LineError {
    fn at(self, path: &Path, line: usize) -> ResumeError {
        let path = path.to_path_buf();
        match self {
            LineError::Board(tile, source) => ResumeError::Board {
                path,
                line,
                tile,
                source,
            },
            LineError::Mismatch(why) => ResumeError::Mismatch { path, line, why },
        }
    }
}

/// The game of `line` resumed at `tile`, if it has a point there.
fn resume_from(line: &GameLineIn, tile: u64) -> Result<Option<ResumeFrom>, LineError> {
    let Some(point) = line.resume_points.get(&tile) else {
        return Ok(None);
    };
    let board = AnyBoard::from_rows(&point.board).map_err(|e| LineError::Board(tile, e))?;
    if board.max_value() != tile {
        return Err(LineError::Mismatch(format!(
            "the board at {tile} has {} as its largest tile",
            board.max_value()
        )));
    }
    let Some(spawn) = line.spawn else {
        return Err(LineError::Mismatch(format!(
            "the game has a point at {tile} but no spawn rule"
        )));
    };
    let first_reached = line
        .first_reached
        .iter()
        .filter(|&(&t, _)| t <= tile)
        .map(|(&t, &m)| (t, m))
        .collect();
    Ok(Some(ResumeFrom {
        state: GameState {
            board,
            score: point.score,
            moves: point.moves,
            seed: line.seed,
            spawn_position: point.spawn_position,
            rule: spawn,
        },
        first_reached,
    }))
}

impl ResumeFrom {
    /// The tile the game is resumed at (its largest).
    pub fn tile(&self) -> u64 {
        self.state.board.max_value()
    }

    /// The board's shape.
    pub fn shape(&self) -> Shape {
        self.state.board.shape()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Game;
    use crate::engine::SpawnRule;

    /// A `--games-out` line of a game of `seed` stopped after `moves` moves (fixed cycle of
    /// moves), with one resume point at its largest tile.
    fn line(seed: u64, shape: Shape, moves: usize) -> (String, GameState<AnyBoard>) {
        let mut game = Game::with_shape(shape, seed, SpawnRule::Classic);
        for i in 0..moves {
            let legal = (0..4).map(|k| crate::engine::Move::ALL[(i + k) % 4]);
            let m = legal.clone().find(|&m| game.board().apply(m).is_some());
            game.play(m.expect("the test game is not over"));
        }
        let state = game.state();
        let top = state.board.max_value();
        let point = serde_json::to_string(&ResumePoint::of(&state)).unwrap();
        let text = format!(
            r#"{{"solver":"expectimax","seed":{seed},"spawn":"classic","score":1,"max_tile":{top},"first_reached":{{"2":0,"{top}":{moves}}},"resume_points":{{"{top}":{point}}}}}"#
        );
        (text, state)
    }

    fn file_of(lines: &[String]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.jsonl");
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        (dir, path)
    }

    #[test]
    fn the_points_at_a_tile_are_read_back_as_written() {
        let (a, state_a) = line(11, Shape::FOUR, 40);
        let (b, _) = line(12, Shape::FOUR, 3);
        let tile = state_a.board.max_value();
        assert!(tile >= 16, "40 moves make at least a 16");
        // a game that made the tile, its point not kept
        let c = format!(
            r#"{{"solver":"expectimax","seed":13,"spawn":"classic","first_reached":{{"{tile}":9}},"resume_points":{{}}}}"#
        );
        let (_dir, path) = file_of(&[a, b, c]);
        let read = read_resume_points(&path, tile).unwrap();
        // the second game, 3 moves long, never made the first game's largest tile
        assert_eq!(
            (read.lines, read.without_point, read.games.len()),
            (3, 1, 1)
        );
        let game = &read.games[0];
        assert_eq!(game.state, state_a);
        assert_eq!(game.first_reached, vec![(2, 0), (tile, 40)]);
        assert_eq!((game.tile(), game.state.rule), (tile, SpawnRule::Classic));
    }

    #[test]
    fn an_empty_file_or_one_of_two_solvers_is_refused_with_its_name() {
        let (_dir, path) = file_of(&["".to_string()]);
        let e = read_resume_points(&path, 64).unwrap_err();
        assert!(matches!(e, ResumeError::Empty { .. }), "{e}");
        assert!(e.to_string().contains("games.jsonl holds no game"), "{e}");
        let (a, state) = line(11, Shape::FOUR, 40);
        let greedy = a.replace(r#""solver":"expectimax""#, r#""solver":"greedy""#);
        let (_dir, path) = file_of(&[a, greedy]);
        let e = read_resume_points(&path, state.board.max_value()).unwrap_err();
        assert!(
            matches!(e, ResumeError::Solvers { ref names, .. } if names.len() == 2),
            "{e}"
        );
        assert!(e.to_string().contains("(expectimax, greedy)"), "{e}");
    }

    #[test]
    fn a_file_without_a_point_at_the_tile_or_with_a_bad_line_is_refused_with_its_name() {
        let (a, _) = line(11, Shape::FOUR, 40);
        let (_dir, path) = file_of(std::slice::from_ref(&a));
        let e = read_resume_points(&path, 65536).unwrap_err();
        assert!(
            matches!(
                e,
                ResumeError::NoneAt {
                    games: 1,
                    tile: 65536,
                    ..
                }
            ),
            "{e}"
        );
        assert!(e.to_string().contains("games.jsonl"), "{e}");
        let (_dir, path) = file_of(&[a, r#"{"solver":"expectimax","seed":3}"#.to_string()]);
        let e = read_resume_points(&path, 2).unwrap_err();
        assert!(matches!(e, ResumeError::Line { line: 2, .. }), "{e}");
    }

    #[test]
    fn boards_of_two_sizes_are_refused() {
        let (a, state) = line(11, Shape::FOUR, 6);
        let tile = state.board.max_value();
        let mut rows = vec![vec![0; 5]; 5];
        rows[0][0] = tile;
        let five = ResumePoint {
            moves: 6,
            score: 0,
            board: rows,
            spawn_position: 0,
        };
        let b = format!(
            r#"{{"solver":"expectimax","seed":12,"spawn":"classic","first_reached":{{"{tile}":6}},"resume_points":{{"{tile}":{}}}}}"#,
            serde_json::to_string(&five).unwrap()
        );
        let (_dir, path) = file_of(&[a, b]);
        let e = read_resume_points(&path, tile).unwrap_err();
        assert!(matches!(e, ResumeError::Mismatch { line: 2, .. }), "{e}");
        assert!(e.to_string().contains("a 5x5 board"), "{e}");
    }
}
