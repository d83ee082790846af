//! The play loop: capture → settle → read → mirror → solve → key → verify, until a stop reason,
//! on a board of any shape the reader finds (3 to 9 rows and columns).
//!
//! [`play`] runs over anything that is a [`FrameSource`] (frames), a [`KeySink`] (keys) and a
//! [`GameUi`] (the window-level extras: what covers the game, closing a win dialog, clicking
//! "Keep going"). The live game is [`live::LiveGame`]; tests use [`ReplayGame`] (recorded frames
//! and a recording key sink). The solver is built once the start board's shape is known, through
//! the caller's [`SolverFor`].
//!
//! Learning by playing (issue 24): a settled frame whose only fault is cells the reader could
//! not read where the engine knows the tile (a merged or slid tile, never the new one) has those
//! cells' looks learned ([`Reader::learn`]) and taken as the engine's values, when they look like
//! such tiles; the reader reads them for the rest of the run, and `bot2048 play` saves what was
//! learned as a profile. A cell that reads otherwise (another value, empty) is still a desync.
//!
//! Per move: the solver decides on the mirror's board (having pondered the afterstate's chance
//! node during the animation, [`ponder`]); the key is pressed and its effect verified
//! by a small state machine ([`step`], driven by `turn`): afterstate + one new 2/4 counts; the old
//! board on the same pixels is a dropped key, pressed again at most `key_retries` times; anything
//! else is re-read up to `rereads` times, then a desync stops the loop with a dump (frames,
//! expected and read boards).
//!
//! The loop never presses a key on a board it does not understand: no key before the start board
//! is read completely, and none after a desync.
//!
//! Files: `start` (the start board), `run` (the loop), `turn` (one move through [`step`]),
//! `win` (the 2048 tile), `stop` ([`StopReason`]), `summary` ([`Summary`]), `dump` (the
//! desync dump), `cover` ([`Cover`], [`GameUi`]), [`mirror`], [`ponder`]; [`recording`]: `--record` ([`record`]),
//! the recording played back ([`ReplayGame`]) and checked against the engine ([`verify`]).
use crate::capture::{FrameSource, Rect, SettleOptions};
use crate::engine::Shape;
use crate::input::KeySink;
use crate::solver::{Budget, Solver, SolverError};
use crate::vision::{Reader, Reading};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

pub mod advise;
pub mod calibrate;
mod cover;
mod dump;
pub mod learn;
pub mod live;
pub mod mirror;
pub mod ponder;
pub mod recording;
mod run;
mod start;
pub mod step;
mod stop;
mod summary;
mod turn;
mod win;

pub use cover::{Cover, GameUi, GameUiError};
pub use dump::dump_root;
pub use mirror::ReadGrid;
pub use ponder::Ponder;
pub use recording::{record, verify, ReplayGame};
pub use step::CONFIRM_QUIET_MS;
pub use stop::StopReason;
pub use summary::{BoardMove, Summary};
pub use win::{OnWin, WIN_TILE};

use record::Recorder;
use stop::Stop;

/// Builds the solver for a board shape: called once, when the start board's shape is known
/// (e.g. a closure over `--solver` and its options calling
/// [`crate::solver::registry::build`]).
pub type SolverFor<'a> = dyn FnMut(Shape) -> Result<Box<dyn Solver>, SolverError> + 'a;

/// After a key, a frame still for this long (ms) is used at once when it reads as exactly the
/// mirror's afterstate plus one new 2 or 4 ([`SettleOptions::early_quiet_ms`]). The shortest of
/// the values tried on the real games (BENCHMARKS.md, "Constants of the code").
pub const DEFAULT_EARLY_MS: u64 = 5;

/// Receives the loop's progress line before each move and once at the end: a status line that
/// starts with `\r` and has no newline, e.g. `\rmoves    12  score      36  max      8   1.20
/// moves/s  desyncs 0  retries 0`. The caller decides where it goes (`bot2048 play` prints it on
/// a terminal's stderr, and a newline after [`play`] returns).
#[derive(Clone)]
pub struct ProgressSink(Arc<dyn Fn(&str) + Send + Sync>);

impl ProgressSink {
    /// A sink calling `f` with each line.
    pub fn new(f: impl Fn(&str) + Send + Sync + 'static) -> ProgressSink {
        ProgressSink(Arc::new(f))
    }

    /// Hands `line` to the sink.
    pub fn send(&self, line: &str) {
        (self.0)(line)
    }
}

impl std::fmt::Debug for ProgressSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProgressSink")
    }
}

/// Knobs of [`play`].
#[derive(Clone, Debug)]
pub struct PlayConfig {
    /// What to do at the win tile.
    pub on_win: OnWin,
    /// The tile value at which the game shows its win screen: [`WIN_TILE`] (2048), or
    /// gnome-2048's `target-value` setting (a power of two from 4).
    pub win_tile: u64,
    /// Stop when a tile of this value appears.
    pub goal: Option<u64>,
    /// Stop after this many moves.
    pub max_moves: Option<u64>,
    /// Settle knobs (the region is set by the loop once the board is found).
    pub settle: SettleOptions,
    /// Re-reads after a read that disagrees with the mirror, before stopping.
    pub rereads: u32,
    /// Presses of the same key after it had no visible effect, before stopping.
    pub key_retries: u32,
    /// Where the progress line goes (`None`: nowhere); the library prints nothing itself.
    pub progress: Option<ProgressSink>,
    /// Where the run's notes go, one line each without a newline (`None`: nowhere): what was
    /// learned while playing (issue 24), e.g. `learning: row 1, column 0: a 16 (background
    /// #4fae7f, digits #ffffff): ...`.
    pub notes: Option<ProgressSink>,
    /// Where to write frames and the log (`--record`).
    pub record: Option<PathBuf>,
    /// Replace a recording already in `record` (`--force`); otherwise such a directory is refused.
    pub record_force: bool,
    /// Stop saving frames once the saved ones hold this many bytes (`--record-max-mb`).
    pub record_max_bytes: Option<u64>,
    /// Where to write a dump on a desync when not recording (default: a new folder under the
    /// state directory, see [`dump_root`]).
    pub dump_dir: Option<PathBuf>,
    /// Set by Ctrl-C: stop before the next key.
    pub stop: Arc<AtomicBool>,
    /// The solver's budget for each decision (once the settled frame is read).
    pub budget: Budget,
    /// Pondering during the game's animation, before the frame is read (`--animation-ms`).
    pub ponder: Ponder,
    /// Learn no tile's look while playing (`--no-learn`): a cell the reader cannot read stays
    /// unreadable even where the engine knows its value (read again, then a desync).
    pub no_learn: bool,
}

impl Default for PlayConfig {
    fn default() -> Self {
        PlayConfig {
            on_win: OnWin::Continue,
            win_tile: WIN_TILE,
            goal: None,
            max_moves: None,
            settle: SettleOptions {
                early_quiet_ms: Some(DEFAULT_EARLY_MS),
                ..SettleOptions::default()
            },
            rereads: 4,
            key_retries: 3,
            progress: None,
            notes: None,
            record: None,
            record_force: false,
            record_max_bytes: None,
            dump_dir: None,
            stop: Arc::new(AtomicBool::new(false)),
            budget: Budget::default(),
            ponder: Ponder::Measured,
            no_learn: false,
        }
    }
}

/// Converts a reading into a read grid of its own shape.
///
/// # Errors
/// [`crate::engine::BoardError`] when the reading's shape is outside 2..=9 rows and columns or
/// its cell count does not match it.
pub fn read_grid(r: &Reading) -> Result<ReadGrid, crate::engine::BoardError> {
    let shape = Shape::new(r.grid.rows, r.grid.cols)?;
    ReadGrid::new(
        shape,
        r.cells.iter().map(|c| c.value.map(u64::from)).collect(),
    )
}

/// The grid rectangle of a reading, in image pixels.
pub fn grid_rect(r: &Reading) -> Rect {
    Rect {
        x: r.grid.x as i32,
        y: r.grid.y as i32,
        width: r.grid.width,
        height: r.grid.height,
    }
}

/// Fewest pixels an edge of the grid must shift for the board to count as moved
/// ([`board_moved`]); a fresh search on an unmoved board finds its edges within a pixel or two.
pub const BOARD_MOVED_MIN_PX: u32 = 4;

/// Whether the grid found at `to` is another place than `from` (both image pixels, as
/// [`grid_rect`] gives them): one of its four edges shifted by more than [`BOARD_MOVED_MIN_PX`]
/// and by more than 1/40 of the grid's width (for a side edge) or height (for the top or
/// bottom edge); 12 px on the web game's 470-pixel grid. Smaller shifts are found again by the
/// reader on its own and change nothing that matters for play.
pub fn board_moved(from: Rect, to: Rect) -> bool {
    let edges = |r: Rect| {
        [
            i64::from(r.x),
            i64::from(r.y),
            i64::from(r.x) + i64::from(r.width),
            i64::from(r.y) + i64::from(r.height),
        ]
    };
    let limit = |side: u32| i64::from(BOARD_MOVED_MIN_PX.max(side / 40));
    let (a, b) = (edges(from), edges(to));
    (0..4).any(|i| {
        let side = if i % 2 == 0 { from.width } else { from.height };
        (a[i] - b[i]).abs() > limit(side)
    })
}

/// The frame `image` searched afresh for the board ([`Reader::read_afresh`], on a copy of
/// `reader`, which stays as it was): that copy and its reading when the grid it found is at
/// another place than `grid` (image pixels, [`board_moved`]); `None` when no board is found or
/// it is where it was. For a board that moved in its window (issue 24): the caller takes the
/// copy as its reader when the read at the new place is one it can use.
fn search_elsewhere(
    reader: &Reader,
    image: &image::RgbaImage,
    grid: Rect,
) -> Option<(Reader, Reading)> {
    let mut fresh = reader.clone();
    let found = fresh.read_afresh(image).ok()?;
    board_moved(grid, grid_rect(&found)).then_some((fresh, found))
}

/// Reads one frame's image into its reading and read grid; the error in words.
fn read_image(
    reader: &mut Reader,
    image: &image::RgbaImage,
) -> Result<(Reading, ReadGrid), String> {
    let r = reader.read(image).map_err(|e| e.to_string())?;
    let g = read_grid(&r).map_err(|e| e.to_string())?;
    Ok((r, g))
}

/// Plays until a stop reason; see the module doc. The solver is built by `solver_for` for the
/// start board's shape (a failure stops the loop with [`StopReason::Error`] before any key).
pub fn play<T: FrameSource + KeySink + GameUi>(
    game: &mut T,
    reader: &mut Reader,
    solver_for: &mut SolverFor<'_>,
    cfg: &PlayConfig,
) -> Summary {
    let rec = match &cfg.record {
        Some(dir) => match Recorder::create(dir, cfg.record_force, cfg.record_max_bytes) {
            Ok(r) => Some(r),
            Err(e) => {
                let why = format!("cannot create the recording: {e}");
                return run::Run::new(cfg, None).finish(Stop::new(StopReason::Error, why));
            }
        },
        None => None,
    };
    let mut run = run::Run::new(cfg, rec);
    // `play_on` returns only through its error side (the `Ok` type is uninhabited)
    let Err(stop) = run::play_on(game, reader, solver_for, &mut run);
    run.finish(stop)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rect(x: i32, y: i32, width: u32, height: u32) -> Rect {
        Rect {
            x,
            y,
            width,
            height,
        }
    }

    /// The limits worked out by hand: a 470-pixel grid (2048-qt's) moves past 470 / 40 = 11
    /// pixels, a 100-pixel one past the 4-pixel floor; any edge counts, so does a resize.
    #[test]
    fn a_board_moved_past_a_fortieth_of_its_side_or_4_pixels() {
        let qt = rect(40, 231, 470, 470);
        assert!(!board_moved(qt, qt));
        assert!(!board_moved(qt, rect(40, 220, 470, 470)), "11 px up");
        assert!(board_moved(qt, rect(40, 219, 470, 470)), "12 px up");
        assert!(board_moved(qt, rect(40, 110, 470, 470)), "one cell up");
        assert!(!board_moved(qt, rect(51, 231, 470, 470)), "11 px right");
        assert!(board_moved(qt, rect(40, 231, 482, 470)), "12 px wider");
        assert!(!board_moved(qt, rect(41, 232, 469, 469)), "a pixel off");
        let small = rect(10, 10, 100, 100);
        assert!(!board_moved(small, rect(14, 10, 100, 100)));
        assert!(board_moved(small, rect(15, 10, 100, 100)));
    }
}
