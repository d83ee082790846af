//! The start board: a settled frame read completely, before any key. Up to `rereads + 1` tries,
//! 100 ms apart; a covered game, a game-over screen, or (with `--on-win stop`) a win screen stops
//! the loop instead.
use super::cover::{settle_frame, GameUi};
use super::run::Run;
use super::stop::{cover_stop, Stop, StopReason};
use super::win::OnWin;
use super::{grid_rect, read_image};
use crate::capture::{self, FrameSource, SettleOptions, Settled};
use crate::engine::AnyBoard;
use crate::input::KeySink;
use crate::vision::{BoardStatus, Reader, Reading};
use std::time::Duration;

/// The board the game starts from, read completely.
pub(super) struct Start {
    /// The board (its shape is the game's).
    pub board: AnyBoard,
    /// The reading it came from (grid rectangle, status).
    pub reading: Reading,
    /// The settled frame it was read on.
    pub settled: Settled,
}

/// One try at the start board.
enum Attempt {
    /// Read completely.
    Board(AnyBoard, Reading),
    /// Not (yet): why.
    Again(String),
}

/// Reads the start board; sets `run.last_read` (and `run.board` when a win screen stops it).
///
/// # Errors
/// The stop: a cover, game over, a win screen with `--on-win stop`, or no complete read.
pub(super) fn read_start<T: FrameSource + KeySink + GameUi>(
    game: &mut T,
    reader: &mut Reader,
    run: &mut Run<'_>,
) -> Result<Start, Stop> {
    // until the board is found, black outside it (a --region reaching past the window, a window
    // larger than its board) is no cover: the black check applies to the grid once it is known
    let whole = SettleOptions {
        max_black: 1.0,
        ..run.cfg.settle.clone()
    };
    let mut why = String::new();
    for _ in 0..=run.cfg.rereads {
        let settled = settle_frame(game, &whole, false).map_err(|(e, c)| cover_stop(e, c))?;
        match attempt(game, reader, run, &settled)? {
            Attempt::Board(board, reading) => {
                return Ok(Start {
                    board,
                    reading,
                    settled,
                })
            }
            Attempt::Again(w) => why = w,
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Err(Stop::new(
        StopReason::Unreadable,
        format!("cannot read the start board: {why}"),
    ))
}

/// Reads the start board from one settled frame.
fn attempt<T: FrameSource + KeySink + GameUi>(
    game: &mut T,
    reader: &mut Reader,
    run: &mut Run<'_>,
    s: &Settled,
) -> Result<Attempt, Stop> {
    let (r, g) = match read_image(reader, &s.frame.image) {
        Ok(x) => x,
        Err(e) => {
            reader.forget_grid();
            return Ok(Attempt::Again(e));
        }
    };
    run.last_read = Some(g.clone());
    let max_black = run.cfg.settle.max_black;
    if let Err(e) = capture::check_not_covered(&s.frame.image, Some(grid_rect(&r)), max_black) {
        return Err(cover_stop(e, game.cover(false)));
    }
    if r.status == BoardStatus::GameOver {
        return Err(Stop::new(StopReason::GameOver, "the game shows game over"));
    }
    let Some(board) = g.board() else {
        return Ok(Attempt::Again(format!(
            "cells unreadable: {:?}",
            r.unreadable_cells()
        )));
    };
    if r.status == BoardStatus::Won && run.cfg.on_win == OnWin::Stop {
        run.board = Some(board);
        return Err(Stop::new(StopReason::Won, "the game shows its win screen"));
    }
    Ok(Attempt::Board(board, r))
}
