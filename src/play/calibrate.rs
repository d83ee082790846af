//! Live calibration (issue 4): learn a game's look by playing it, with the engine as the teacher.
//!
//! [`collect`] plays a few hundred moves on a [`LiveGame`] and returns (frame, board) pairs for
//! [`crate::vision::calibrate::Learner`]: the opening board is read (it holds only 2s and 4s,
//! which the built-in profiles and the digit reader know); after each move the engine knows every
//! tile (merges are predicted), and only the one spawned tile is new: it is the only cell that
//! was empty after the move and now reads as a 2 or a 4. So every new value (8, 16, …) is
//! labelled by the engine the first time it appears, not by the reader.
//!
//! Frames are taken only once the board has settled (full quiet window, no early accept); moves
//! are chosen by the given solver; a frame whose spawn cannot be told (no empty cell reads 2/4,
//! or several do) ends the collection, since the mirror would be lost.
use super::live::LiveGame;
use super::{mirror, GameUi};
use crate::capture::{settle, settle::region_hash, SettleOptions};
use crate::engine::{AnyBoard, Board};
use crate::input::KeySink;
use crate::solver::{Budget, Solver};
use crate::vision::labels::Label;
use crate::vision::Reader;
use std::sync::atomic::{AtomicBool, Ordering};

/// One labelled frame.
pub type Sample = (String, image::RgbaImage, Label);

/// What [`collect`] gathered and why it ended.
#[derive(Debug)]
pub struct Collected {
    /// The labelled frames, in order.
    pub samples: Vec<Sample>,
    /// Why the collection ended.
    pub ended: String,
    /// Distinct tile values seen, ascending.
    pub values: Vec<u32>,
}

fn label_of(board: Board) -> Label {
    Label {
        cells: board
            .to_values()
            .iter()
            .map(|r| r.iter().map(|&v| Some(v)).collect())
            .collect(),
    }
}

/// The search depth of the moves played while calibrating: 2 (quick, and good enough to keep the
/// game going for a few hundred moves).
pub const CALIBRATION_DEPTH: u32 = 2;

/// Plays up to `max_moves` moves, stopping early once `until_tile` is on the board; see the
/// module doc.
///
/// # Errors
/// A message when the opening board cannot be read or the game cannot be played at all.
pub fn collect(
    game: &mut LiveGame,
    reader: &mut Reader,
    solver: &mut dyn Solver,
    settle_opts: &SettleOptions,
    max_moves: u64,
    until_tile: u32,
    stop: &AtomicBool,
) -> Result<Collected, String> {
    game.prepare()?;
    let mut opts = SettleOptions {
        early_quiet_ms: None,
        ..settle_opts.clone()
    };
    let s = settle(game, &opts).map_err(|e| e.to_string())?;
    let reading = reader
        .read(&s.frame.image)
        .map_err(|e| format!("cannot find the board: {e}"))?;
    let grid = super::read_grid(&reading)?;
    // an opening board holds only 2s and 4s, which the built-in looks and the digit reader know;
    // a game in progress works too when every tile on it can be read
    let mut board = super::board_of(&grid)
        .ok_or("the board could not be read completely; start a new game (its opening board holds only 2s and 4s)")?;
    let rect = super::grid_rect(&reading);
    game.board_found(rect);
    opts.region = Some(rect);
    let mut samples = vec![(
        "live-000".to_string(),
        s.frame.image.clone(),
        label_of(board),
    )];
    let mut hash = region_hash(&s.frame.image, opts.region);
    let mut values: Vec<u32> = Vec::new();
    for v in board.to_values().iter().flatten() {
        if *v > 0 && !values.contains(v) {
            values.push(*v);
        }
    }
    let mut ended = format!("{max_moves} moves made");
    for n in 1..=max_moves {
        if stop.load(Ordering::SeqCst) {
            ended = "interrupted".into();
            break;
        }
        if board.max_value() >= until_tile {
            ended = format!("the {until_tile} tile was reached");
            break;
        }
        let decision = solver
            .decide(&AnyBoard::Four(board), &Budget::depth(CALIBRATION_DEPTH))
            .map_err(|e| e.to_string())?;
        let Some(m) = decision.best else {
            ended = "game over".into();
            break;
        };
        let Some((after, _)) = board.apply(m) else {
            break;
        };
        game.press(m).map_err(|e| e.to_string())?;
        let s = settle(
            game,
            &SettleOptions {
                changed_from: Some(hash),
                ..opts.clone()
            },
        )
        .map_err(|e| e.to_string())?;
        if !s.changed {
            ended = format!("the key {m} had no effect; stopped");
            break;
        }
        // the spawn: the one cell empty after the move that now reads 2 or 4 (read up to 4 times:
        // a frame can still hold the end of the new tile's pop animation)
        let av = after.to_values();
        let mut s = s;
        let mut found = None;
        let mut last_read = [[None; 4]; 4];
        for attempt in 0..4 {
            if attempt > 0 {
                std::thread::sleep(std::time::Duration::from_millis(150));
                reader.forget_grid();
                s = settle(game, &opts).map_err(|e| e.to_string())?;
            }
            let Some(Ok(read)) = reader
                .read(&s.frame.image)
                .ok()
                .map(|r| super::read_grid(&r))
            else {
                continue;
            };
            last_read = read;
            let spawns: Vec<(usize, usize, u32)> = (0..4)
                .flat_map(|r| (0..4).map(move |c| (r, c)))
                .filter(|&(r, c)| av[r][c] == 0)
                .filter_map(|(r, c)| match read[r][c] {
                    Some(v @ (2 | 4)) => Some((r, c, v)),
                    _ => None,
                })
                .collect();
            let others_empty = (0..4)
                .flat_map(|r| (0..4).map(move |c| (r, c)))
                .filter(|&(r, c)| {
                    av[r][c] == 0 && !spawns.iter().any(|&(sr, sc, _)| (sr, sc) == (r, c))
                })
                .all(|(r, c)| read[r][c] == Some(0));
            if let ([one], true) = (&spawns[..], others_empty) {
                found = Some(*one);
                break;
            }
        }
        let Some((r, c, v)) = found else {
            let grid_text = mirror::format_read(&last_read);
            ended =
                format!("after move {n} the new tile could not be told apart (read:\n{grid_text})");
            break;
        };
        board = after.with_exponent(r, c, v.trailing_zeros() as u8);
        hash = s.hash;
        for v in board.to_values().iter().flatten() {
            if *v > 0 && !values.contains(v) {
                values.push(*v);
            }
        }
        samples.push((format!("live-{n:03}"), s.frame.image, label_of(board)));
    }
    values.sort_unstable();
    Ok(Collected {
        samples,
        ended,
        values,
    })
}
