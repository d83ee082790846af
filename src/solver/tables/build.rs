//! Building a table: dynamic programming over the small game of the free cells.
//!
//! The position of a table's game is a filling of the free cells (exponents 0..=g, the fixed
//! cells holding their placeholders, [`TableKey::placeholder_raw`]), with the player to move. Its
//! value is the probability of merging a 2^g into the anchor under optimal play:
//!
//! - max node: the best legal move that keeps every fixed tile in place (a move that merges a
//!   2^g into the anchor is worth 1; one that makes a tile above 2^g in the free cells is worth
//!   0); no such move: 0;
//! - chance node: the average over the empty free cells of 0.9 · (a 2 there) + 0.1 · (a 4 there).
//!
//! Why "the fixed cells hold the same tiles after the move" tells a move that keeps the block:
//! in every row and column the fixed cells are a run from one end (the block is a Young diagram
//! in the corner). A move toward that end cannot move them (no two fixed neighbours are equal, no
//! free tile is large enough to merge with one but a 2^g with the anchor, which is the success);
//! a move away from it changes the line only by emptying its first cell, a fixed one.
//!
//! Moves keep the sum of the free tiles (but the merge into the anchor, which ends the game);
//! a spawn adds 2 or 4. So a position depends only on positions of a larger sum, and the values
//! are computed one sum at a time, from the largest down; the positions of one sum are
//! independent and are shared among rayon's threads.
use super::{Layout, Outcome, Table, TableKey, ONE};
use crate::engine::{Board, Move};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU16, Ordering};

/// Positions handed to one rayon task at a time.
const CHUNK: usize = 4096;

/// Builds the table of `key`, calling `progress(done)` with the number of positions valued so
/// far after each sum (for a progress bar; the total is [`TableKey::entries`]).
pub fn build_table(key: &TableKey, progress: &(dyn Fn(u64) + Sync)) -> Table {
    let entries = key.entries() as usize;
    let values: Vec<AtomicU16> = (0..entries).map(|_| AtomicU16::new(0)).collect();
    let layout = Layout::new(key.clone());
    let free = key.formation.free_cells();
    let base = key.placeholder_raw();
    let top = free.len() as u64 * units(key.goal);
    let mut done = 0u64;
    let mut layer: Vec<u64> = Vec::new();
    for sum in (0..=top).rev() {
        layer.clear();
        positions_of_sum(&free, key.goal, sum, base, &mut layer);
        layer.par_chunks(CHUNK).for_each(|chunk| {
            for &raw in chunk {
                let index = layout.index(raw).expect("digits within the goal");
                let value = position_value(&layout, &values, raw);
                values[index as usize].store(value, Ordering::Relaxed);
            }
        });
        done += layer.len() as u64;
        progress(done);
    }
    let values = values.into_iter().map(AtomicU16::into_inner).collect();
    Table::new(key.clone(), values).expect("one value per entry")
}

/// A tile of exponent `e` in units of 2 (0 for an empty cell).
fn units(e: u8) -> u64 {
    if e == 0 {
        0
    } else {
        1 << (e - 1)
    }
}

/// Appends to `out` every position (raw board on `base`) whose free cells hold exponents 0..=g
/// summing to `sum` units of 2.
fn positions_of_sum(free: &[u8], goal: u8, sum: u64, base: u64, out: &mut Vec<u64>) {
    let Some((&cell, rest)) = free.split_first() else {
        if sum == 0 {
            out.push(base);
        }
        return;
    };
    // the cells after this one hold at most units(goal) each
    let room = units(goal) * rest.len() as u64;
    for e in 0..=goal {
        let u = units(e);
        if u > sum {
            break;
        }
        if sum - u <= room {
            positions_of_sum(rest, goal, sum - u, base | u64::from(e) << (4 * cell), out);
        }
    }
}

/// The value (65,535ths) of position `raw`, from the values of larger sums, already computed.
fn position_value(layout: &Layout, values: &[AtomicU16], raw: u64) -> u16 {
    let value = |i: u64| values[i as usize].load(Ordering::Relaxed);
    let mut best = 0.0f32;
    for m in Move::ALL {
        let Some(after) = Board::from_raw(raw).shifted(m) else {
            continue;
        };
        best = best.max(match layout.outcome(raw, after.raw(), value) {
            Outcome::Disturbs => continue,
            Outcome::Merged => 1.0,
            Outcome::Chance(p) => p,
        });
        if best >= 1.0 {
            break;
        }
    }
    (best * f32::from(ONE)).round() as u16
}
