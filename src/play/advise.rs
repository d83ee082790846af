//! The advise loop: watch a game the user plays, and after each change of the board, ask the
//! solver for the best move. It presses nothing: it takes a [`FrameSource`] only, no key sink.
//!
//! Per step: settle the board region (quiet for `quiet_ms`), read it, and if every cell is read
//! and the board differs from the last one advised on, hand the solver's [`Decision`] to the
//! caller. A frame that cannot be read (a dialog, a half-drawn board, black occlusion) is skipped
//! and waited out; with [`AdviseConfig::once`] it ends the loop instead.
use super::{board_of, grid_rect, read_frame};
use crate::capture::{self, CaptureError, FrameSource, SettleOptions};
use crate::engine::AnyBoard;
use crate::engine::Board;
use crate::solver::{Budget, Decision, Solver};
use crate::vision::Reader;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Knobs of [`advise`].
#[derive(Clone, Debug, Default)]
pub struct AdviseConfig {
    /// Settle knobs (the region is set once the board is found).
    pub settle: SettleOptions,
    /// Advise on the first board read, then end ([`AdviseEnd::Limit`]); an unreadable frame ends
    /// the loop with [`AdviseEnd::Unreadable`] instead of being waited out.
    pub once: bool,
    /// End after advising on this many boards.
    pub max_boards: Option<u64>,
    /// Set (by Ctrl-C) to end the loop before the next frame.
    pub stop: Arc<AtomicBool>,
    /// Pause between two looks at the game when nothing changed, ms.
    pub poll_ms: u64,
    /// The solver's budget for each decision.
    pub budget: Budget,
}

/// One piece of advice: a board as read, and the solver's decision on it.
#[derive(Clone, Debug)]
pub struct Advice {
    /// The board read (every cell).
    pub board: Board,
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
    /// With `once`: the board could not be read (the message says why).
    Unreadable(String),
}

/// Watches `src` and calls `on_advice` once per distinct board read, until an [`AdviseEnd`].
///
/// # Errors
/// A capture error other than a vanished window, the end of a replay, or (unless `once`) an
/// occluded or minimised window, which are waited out.
pub fn advise(
    src: &mut dyn FrameSource,
    reader: &mut Reader,
    solver: &mut dyn Solver,
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
    let mut last: Option<Board> = None;
    let mut count = 0u64;
    while !cfg.stop.load(Ordering::SeqCst) {
        let s = match capture::settle(src, &opts) {
            Ok(s) => s,
            Err(CaptureError::WindowGone) => return Ok(AdviseEnd::WindowGone),
            Err(CaptureError::EndOfReplay) => return Ok(AdviseEnd::EndOfReplay),
            Err(e @ CaptureError::Minimized) => {
                if cfg.once {
                    return Ok(AdviseEnd::Unreadable(e.to_string()));
                }
                std::thread::sleep(pause.max(Duration::from_millis(100)));
                continue;
            }
            Err(e) => return Err(e),
        };
        if s.timed_out {
            continue;
        }
        let board = match read_frame(reader, &s.frame) {
            Ok((r, g)) => {
                opts.region = Some(grid_rect(&r));
                capture::check_not_covered(&s.frame.image, opts.region, cfg.settle.max_black)
                    .map_err(|e| e.to_string())
                    .and_then(|()| {
                        board_of(&g).ok_or_else(|| {
                            format!(
                                "the board could not be read completely (cells {:?})",
                                r.unreadable_cells()
                            )
                        })
                    })
            }
            Err(e) => {
                reader.forget_grid();
                opts.region = None;
                Err(e)
            }
        };
        let board = match board {
            Ok(b) => b,
            Err(e) if cfg.once => return Ok(AdviseEnd::Unreadable(e)),
            Err(_) => {
                std::thread::sleep(pause.max(Duration::from_millis(50)));
                continue;
            }
        };
        if last != Some(board) {
            last = Some(board);
            let decision = match solver.decide(&AnyBoard::Four(board), &cfg.budget) {
                Ok(d) => d,
                Err(e) => return Ok(AdviseEnd::Unreadable(e.to_string())),
            };
            if decision.stopped {
                return Ok(AdviseEnd::Stopped);
            }
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
