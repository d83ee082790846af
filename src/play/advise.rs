//! The advise loop: watch a game the user plays, and after each change of the board, ask the
//! solver for the best move. It presses nothing: it takes a [`FrameSource`] only, no key sink.
//!
//! Per step: settle the board region (quiet for `quiet_ms`), read it, and if every cell is read
//! and the board differs from the last one advised on, hand the solver's [`Decision`] to the
//! caller. A frame that cannot be read (a dialog, a half-drawn board, black occlusion) is skipped
//! and waited out; with [`AdviseConfig::once`] it ends the loop instead. The board may have any
//! shape the reader finds; the solver is built for it through the caller's [`SolverFor`], and
//! built again when the user starts a game of another shape.
//!
//! Learning (issue 24): a frame with cells the reader cannot read, after the one move from the
//! last board read whole that explains it once those cells are the engine's tiles
//! ([`learn::the_move`]), has those cells' looks learned ([`Reader::learn`]), as `play` does.
use super::mirror::ReadGrid;
use super::{grid_rect, learn, read_grid, SolverFor};
use crate::capture::{self, CaptureError, FrameSource, SettleOptions};
use crate::engine::{AnyBoard, Position};
use crate::solver::{Budget, Decision, Solver};
use crate::vision::{ReadError, Reader};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Knobs of [`advise`].
#[derive(Clone, Debug, Default)]
pub struct AdviseConfig {
    /// Settle knobs (the region is set once the board is found).
    pub settle: SettleOptions,
    /// Advise on the first board read, then end ([`AdviseEnd::Limit`]); an unreadable frame ends
    /// the loop instead of being waited out ([`AdviseEnd::NoBoard`], [`AdviseEnd::Unreadable`],
    /// [`AdviseEnd::Covered`]).
    pub once: bool,
    /// End after advising on this many boards.
    pub max_boards: Option<u64>,
    /// Set (by Ctrl-C) to end the loop before the next frame.
    pub stop: Arc<AtomicBool>,
    /// Pause between two looks at the game when nothing changed, ms.
    pub poll_ms: u64,
    /// The solver's budget for each decision.
    pub budget: Budget,
    /// Where the loop's notes go, one line each (`None`: nowhere): what was learned (issue 24:
    /// a tile the reader could not read, after the one move from the last board that fits).
    pub notes: Option<super::ProgressSink>,
    /// Learn no tile's look (`--no-learn`): a board with a cell the reader cannot read is
    /// skipped even where the engine knows the cell's value.
    pub no_learn: bool,
}

/// One piece of advice: a board as read, and the solver's decision on it.
#[derive(Clone, Debug)]
pub struct Advice {
    /// The board read (every cell), of the game's own shape.
    pub board: AnyBoard,
    /// The solver's decision: best move (`None` = game over) and each direction's value.
    pub decision: Decision,
}

/// Why [`advise`] ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AdviseEnd {
    /// `stop` was raised.
    Stopped,
    /// `once` or `max_boards` was reached.
    Limit,
    /// The game window is gone.
    WindowGone,
    /// A replayed source ran out of frames.
    EndOfReplay,
    /// With `once`: no board was found (or the window is minimised; the message says why).
    NoBoard(String),
    /// With `once`: a board was found but some cells could not be read (the message says which).
    Unreadable(String),
    /// With `once`: something covers the board (the message says what).
    Covered(String),
    /// No solver could be built for the board's shape, or it failed (the message says why).
    Solver(String),
}

/// One look at the game.
enum Look {
    /// A board read completely.
    Board(AnyBoard),
    /// Settle again at once (the board did not hold still).
    Again,
    /// Nothing usable this time: the end of a `once` run it makes, and how long to wait, ms.
    Skip(AdviseEnd, u64),
    /// The loop ends.
    End(AdviseEnd),
}

/// Watches `src` and calls `on_advice` once per distinct board read, until an [`AdviseEnd`].
/// The solver comes from `solver_for`, for the first board's shape and again whenever the shape
/// changes.
///
/// # Errors
/// A capture error other than a vanished window, the end of a replay, or (unless `once`) an
/// occluded or minimised window, which are waited out.
pub fn advise(
    src: &mut dyn FrameSource,
    reader: &mut Reader,
    solver_for: &mut SolverFor<'_>,
    cfg: &AdviseConfig,
    on_advice: &mut dyn FnMut(&Advice),
) -> Result<AdviseEnd, CaptureError> {
    // black outside the board (a --region reaching past the window) is no cover: the black check
    // applies to the grid after each read, not to the whole frame
    let mut opts = SettleOptions {
        max_black: 1.0,
        ..cfg.settle.clone()
    };
    let pause = Duration::from_millis(cfg.poll_ms);
    let mut last: Option<AnyBoard> = None;
    let mut solver: Option<Box<dyn Solver>> = None;
    let mut count = 0u64;
    while !cfg.stop.load(Ordering::SeqCst) {
        let board = match look(src, reader, cfg, &mut opts, last.as_ref())? {
            Look::Board(b) => b,
            Look::End(end) => return Ok(end),
            Look::Again => continue,
            Look::Skip(end, _) if cfg.once => return Ok(end),
            Look::Skip(_, ms) => {
                std::thread::sleep(Duration::from_millis(ms));
                continue;
            }
        };
        if last != Some(board) {
            last = Some(board);
            let decision = match decide(&mut solver, solver_for, &board, &cfg.budget) {
                Ok(d) if d.stopped => return Ok(AdviseEnd::Stopped),
                Ok(d) => d,
                Err(e) => return Ok(AdviseEnd::Solver(e)),
            };
            on_advice(&Advice { board, decision });
            count += 1;
            if cfg.once || cfg.max_boards.is_some_and(|n| count >= n) {
                return Ok(AdviseEnd::Limit);
            }
        }
        std::thread::sleep(pause);
    }
    Ok(AdviseEnd::Stopped)
}

/// Settles and reads one frame; `opts.region` follows the board. Cells it cannot read are
/// learned (issue 24) when exactly one move from `last` (the last board read whole) explains
/// the frame with the engine's values in them ([`learn::the_move`]).
fn look(
    src: &mut dyn FrameSource,
    reader: &mut Reader,
    cfg: &AdviseConfig,
    opts: &mut SettleOptions,
    last: Option<&AnyBoard>,
) -> Result<Look, CaptureError> {
    let s = match capture::settle(src, opts) {
        Ok(s) => s,
        Err(CaptureError::WindowGone) => return Ok(Look::End(AdviseEnd::WindowGone)),
        Err(CaptureError::EndOfReplay) => return Ok(Look::End(AdviseEnd::EndOfReplay)),
        Err(e @ CaptureError::Minimized) => {
            return Ok(Look::Skip(
                AdviseEnd::NoBoard(e.to_string()),
                cfg.poll_ms.max(100),
            ))
        }
        Err(e) => return Err(e),
    };
    if s.timed_out {
        return Ok(Look::Again);
    }
    let skip = |end: AdviseEnd| Look::Skip(end, cfg.poll_ms.max(50));
    let read = reader
        .read(&s.frame.image)
        .map_err(|e| match e {
            ReadError::NoBoard(_) | ReadError::NoLattice(_) => AdviseEnd::NoBoard(e.to_string()),
            ReadError::Unreadable { .. } => AdviseEnd::Unreadable(e.to_string()),
        })
        .and_then(|r| {
            let g = read_grid(&r).map_err(|e| AdviseEnd::NoBoard(e.to_string()))?;
            Ok((r, g))
        });
    let (r, g) = match read {
        Ok(x) => x,
        Err(end) => {
            reader.forget_grid();
            opts.region = None;
            return Ok(skip(end));
        }
    };
    opts.region = Some(grid_rect(&r));
    if let Err(e) = capture::check_not_covered(&s.frame.image, opts.region, cfg.settle.max_black) {
        return Ok(skip(AdviseEnd::Covered(e.to_string())));
    }
    let g = match last
        .filter(|_| !cfg.no_learn)
        .and_then(|b| learn::the_move(b, &g))
    {
        Some((before, after)) => learn_unread(reader, cfg, &s.frame.image, &before, &after, g),
        None => g,
    };
    if g.board().is_none() {
        if let Some(moved) = found_elsewhere(reader, &s.frame.image, grid_rect(&r)) {
            opts.region = Some(grid_rect(&moved.0));
            return Ok(Look::Board(moved.1));
        }
    }
    Ok(g.board().map_or_else(
        || {
            skip(AdviseEnd::Unreadable(format!(
                "the board could not be read completely (cells {:?})",
                r.unreadable_cells()
            )))
        },
        Look::Board,
    ))
}

/// A board that moved in its window (issue 24), for a frame not read whole at the remembered
/// grid `grid` (image pixels): the whole frame searched afresh ([`Reader::read_afresh`], on a
/// copy of the reader), a grid at another place ([`super::board_moved`]) read whole is taken,
/// and the reader goes on with it. `None` otherwise (nothing changes).
fn found_elsewhere(
    reader: &mut Reader,
    image: &image::RgbaImage,
    grid: crate::capture::Rect,
) -> Option<(crate::vision::Reading, AnyBoard)> {
    let (fresh, r) = super::search_elsewhere(reader, image, grid)?;
    let board = read_grid(&r).ok()?.board()?;
    *reader = fresh;
    Some((r, board))
}

/// Learns the cells of `g` the reader could not read, as the engine knows them after the move
/// from `before` to `after` (see [`learn::learn_after`]); says what it learned, or why not,
/// through [`AdviseConfig::notes`]. Returns the grid with them, or `g` as it was.
fn learn_unread(
    reader: &mut Reader,
    cfg: &AdviseConfig,
    image: &image::RgbaImage,
    before: &AnyBoard,
    after: &AnyBoard,
    g: ReadGrid,
) -> ReadGrid {
    let note = |line: String| {
        if let Some(sink) = &cfg.notes {
            sink.send(&line);
        }
    };
    match learn::learn_after(reader, image, before, after, &g) {
        None => g,
        Some(Ok((taken, lessons))) => {
            for l in &lessons {
                note(format!(
                    "learning: {l}: the reader could not read it, the engine knows it; read so from now on"
                ));
            }
            taken
        }
        Some(Err(e)) => {
            note(format!("not learned: {e}"));
            g
        }
    }
}

/// The decision on `board`, building the solver for its shape first when there is none yet or
/// the shape changed (a new game of another size).
fn decide(
    solver: &mut Option<Box<dyn Solver>>,
    solver_for: &mut SolverFor<'_>,
    board: &AnyBoard,
    budget: &Budget,
) -> Result<Decision, String> {
    let shape = board.shape();
    if solver.as_ref().is_none_or(|s| s.shape() != shape) {
        let built =
            solver_for(shape).map_err(|e| format!("no solver for the {shape} board: {e}"))?;
        *solver = Some(built);
    }
    match solver {
        Some(s) => s.decide(board, budget).map_err(|e| e.to_string()),
        None => Err("no solver".into()),
    }
}
