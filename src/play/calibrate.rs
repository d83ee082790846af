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
use super::mirror::ReadGrid;
use super::{GameUi, SolverFor};
use crate::capture::{settle, settle::region_hash, SettleOptions, Settled};
use crate::engine::{AnyBoard, Move, Position};
use crate::input::KeySink;
use crate::solver::Budget;
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

/// The label of `board`: every cell known (rows of the board's own shape). A tile beyond
/// `u32::MAX` (only possible on boards of more than 30 cells) is left unlabelled.
fn label_of(board: &AnyBoard) -> Label {
    Label {
        cells: board
            .rows()
            .iter()
            .map(|r| r.iter().map(|&v| u32::try_from(v).ok()).collect())
            .collect(),
    }
}

/// Adds the tile values of `board` not yet in `values`.
fn note_values(values: &mut Vec<u32>, board: &AnyBoard) {
    for v in board.rows().iter().flatten() {
        if let Ok(v) = u32::try_from(*v) {
            if v > 0 && !values.contains(&v) {
                values.push(v);
            }
        }
    }
}

/// The search depth of the moves played while calibrating: 2 (quick, and good enough to keep the
/// game going for a few hundred moves).
pub const CALIBRATION_DEPTH: u32 = 2;

/// Reads of a frame after each move before the spawn is given up (a frame can still hold the end
/// of the new tile's pop animation), 150 ms apart.
const SPAWN_READS: u32 = 4;

/// Plays up to `max_moves` moves, stopping early once `until_tile` is on the board; see the
/// module doc. The solver is built by `solver_for` for the opening board's shape.
///
/// # Errors
/// A message when the opening board cannot be read or the game cannot be played at all.
pub fn collect(
    game: &mut LiveGame,
    reader: &mut Reader,
    solver_for: &mut SolverFor<'_>,
    settle_opts: &SettleOptions,
    max_moves: u64,
    until_tile: u32,
    stop: &AtomicBool,
) -> Result<Collected, String> {
    game.prepare().map_err(|e| e.to_string())?;
    let mut opts = SettleOptions {
        early_quiet_ms: None,
        ask_again_at_ms: None,
        ..settle_opts.clone()
    };
    let (mut board, s) = opening(game, reader, &mut opts)?;
    let mut solver = solver_for(board.shape()).map_err(|e| e.to_string())?;
    let mut samples = vec![(
        "live-000".to_string(),
        s.frame.image.clone(),
        label_of(&board),
    )];
    let mut hash = region_hash(&s.frame.image, opts.region);
    let mut values: Vec<u32> = Vec::new();
    note_values(&mut values, &board);
    let mut ended = format!("{max_moves} moves made");
    for n in 1..=max_moves {
        if stop.load(Ordering::SeqCst) {
            ended = "interrupted".into();
            break;
        }
        if board.max_value() >= u64::from(until_tile) {
            ended = format!("the {until_tile} tile was reached");
            break;
        }
        let decision = solver
            .decide(&board, &Budget::depth(CALIBRATION_DEPTH))
            .map_err(|e| e.to_string())?;
        let Some(m) = decision.best else {
            ended = "game over".into();
            break;
        };
        let Some((after, _)) = board.apply(m) else {
            break;
        };
        let s = match one_move(game, reader, &opts, hash, (n, m), &after) {
            Ok((next, s)) => {
                board = next;
                s
            }
            Err(Unlabelled::Error(e)) => return Err(e),
            Err(Unlabelled::End(why)) => {
                ended = why;
                break;
            }
        };
        hash = s.hash;
        note_values(&mut values, &board);
        samples.push((format!("live-{n:03}"), s.frame.image, label_of(&board)));
    }
    values.sort_unstable();
    Ok(Collected {
        samples,
        ended,
        values,
    })
}

/// Reads the opening board (every cell); sets `opts.region` to its grid.
fn opening(
    game: &mut LiveGame,
    reader: &mut Reader,
    opts: &mut SettleOptions,
) -> Result<(AnyBoard, Settled), String> {
    let s = settle(game, opts).map_err(|e| e.to_string())?;
    let reading = reader
        .read(&s.frame.image)
        .map_err(|e| format!("cannot find the board: {e}"))?;
    let grid = super::read_grid(&reading).map_err(|e| e.to_string())?;
    // an opening board holds only 2s and 4s, which the built-in looks and the digit reader know;
    // a game in progress works too when every tile on it can be read
    let board = grid.board().ok_or(
        "the board could not be read completely; start a new game (its opening board holds only 2s and 4s)",
    )?;
    let rect = super::grid_rect(&reading);
    game.board_found(rect);
    opts.region = Some(rect);
    Ok((board, s))
}

/// Why a move gave no labelled frame.
enum Unlabelled {
    /// Capture or input failed.
    Error(String),
    /// The collection ends: why.
    End(String),
}

/// Presses `m` (move number `n`) and labels the settled frame after it: the afterstate `after`
/// plus the one new tile read.
fn one_move(
    game: &mut LiveGame,
    reader: &mut Reader,
    opts: &SettleOptions,
    hash: u64,
    (n, m): (u64, Move),
    after: &AnyBoard,
) -> Result<(AnyBoard, Settled), Unlabelled> {
    let err = |e: String| Unlabelled::Error(e);
    game.press(m).map_err(|e| err(e.to_string()))?;
    let changed = SettleOptions {
        changed_from: Some(hash),
        ..opts.clone()
    };
    let mut s = settle(game, &changed).map_err(|e| err(e.to_string()))?;
    if !s.changed {
        return Err(Unlabelled::End(format!(
            "the key {m} had no effect; stopped"
        )));
    }
    let mut last_read = None;
    for attempt in 0..SPAWN_READS {
        if attempt > 0 {
            std::thread::sleep(std::time::Duration::from_millis(150));
            reader.forget_grid();
            s = settle(game, opts).map_err(|e| err(e.to_string()))?;
        }
        let Some(read) = reader
            .read(&s.frame.image)
            .ok()
            .and_then(|r| super::read_grid(&r).ok())
        else {
            continue;
        };
        if let Some((index, exp)) = the_spawn(after, &read) {
            return Ok((after.with_new_tile(index, exp), s));
        }
        last_read = Some(read);
    }
    let text = last_read.map_or_else(|| "nothing".to_string(), |g| g.to_string());
    Err(Unlabelled::End(format!(
        "after move {n} the new tile could not be told apart (read:\n{text})"
    )))
}

/// The new tile of `read` over the afterstate `after`: (cell index, exponent) when exactly one
/// cell empty after the move reads as a 2 or a 4 and every other such cell reads empty. The
/// other cells are not checked: the engine knows them (that is the point of calibrating).
fn the_spawn(after: &AnyBoard, read: &ReadGrid) -> Option<(usize, u8)> {
    if read.shape() != after.shape() {
        return None;
    }
    let empty: Vec<usize> = after.empties().collect();
    let spawns: Vec<(usize, u64)> = empty
        .iter()
        .filter_map(|&i| match read.cells()[i] {
            Some(v @ (2 | 4)) => Some((i, v)),
            _ => None,
        })
        .collect();
    let others_empty = empty
        .iter()
        .filter(|&&i| spawns.iter().all(|&(j, _)| j != i))
        .all(|&i| read.cells()[i] == Some(0));
    match (&spawns[..], others_empty) {
        ([(i, v)], true) => Some((*i, v.trailing_zeros() as u8)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spawn_on_a_3x5_board_is_the_one_empty_cell_that_reads_2_or_4() {
        // afterstate: 2 4 8 0 0 / 0 0 0 0 0 / 0 0 0 0 16
        let after =
            AnyBoard::from_rows(&[vec![2, 4, 8, 0, 0], vec![0; 5], vec![0, 0, 0, 0, 16]]).unwrap();
        let read = |rows: Vec<Vec<Option<u64>>>| ReadGrid::from_rows(&rows).unwrap();
        let mut rows: Vec<Vec<Option<u64>>> = after
            .rows()
            .iter()
            .map(|r| r.iter().map(|&v| Some(v)).collect())
            .collect();
        rows[1][3] = Some(4);
        assert_eq!(
            the_spawn(&after, &read(rows.clone())),
            Some((8, 2)),
            "row 1 col 3 = index 8"
        );
        // the known tiles may be unreadable: the engine labels them
        rows[2][4] = None;
        assert_eq!(the_spawn(&after, &read(rows.clone())), Some((8, 2)));
        // two candidates, or an empty cell unreadable: no label
        rows[0][4] = Some(2);
        assert_eq!(the_spawn(&after, &read(rows.clone())), None);
        rows[0][4] = None;
        assert_eq!(the_spawn(&after, &read(rows)), None);
        let label = label_of(&after.with_new_tile(8, 2));
        assert_eq!(
            label.cells[1],
            vec![Some(0), Some(0), Some(0), Some(4), Some(0)]
        );
        assert_eq!(label.cells[2][4], Some(16));
    }
}
