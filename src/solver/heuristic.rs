//! The static evaluation [`RowHeuristic`]: a per-line heuristic summed over rows and columns.
//!
//! Source: nneonneo/2048-ai, `2048.cpp` (`init_tables`, `score_heur_board`), whose weights were
//! tuned by CMA-ES: a constant per line (the "lost penalty", so that any live board beats a dead
//! one, which the search values at 0), plus empty cells and merge chances, minus a monotonicity
//! penalty (power 4) and a sum penalty (power 3.5), all on log2 exponents.
//!
//! On 4×4 a line's value comes from a 65,536-entry table ([`ROW_VALUES`]); on other shapes each
//! line is computed by [`line_value`] (the same function, so a 4×4 [`GridBoard`] scores as its
//! [`Board`]). Exponents above 15 (65536 and up) are seen as 15, as in the bitboard's nibbles
//! ([`Board::raw`]), so the value stays finite and ordered.
use super::evaluation::NamedEvaluation;
use super::{Evaluator, SolverError};
use crate::engine::{column, Board, GridBoard, Position, Shape};
use std::sync::LazyLock;

/// Constant added per row (and per column): 200,000. A dead board is worth 0 in the search.
pub const LOST_PENALTY: f32 = 200_000.0;
/// Power applied to exponents in the monotonicity term: 4.
pub const MONOTONICITY_POWER: f32 = 4.0;
/// Weight of the monotonicity penalty: 47.
pub const MONOTONICITY_WEIGHT: f32 = 47.0;
/// Power applied to exponents in the sum penalty: 3.5.
pub const SUM_POWER: f32 = 3.5;
/// Weight of the sum penalty: 11.
pub const SUM_WEIGHT: f32 = 11.0;
/// Weight of adjacent equal tiles (merge chances): 700.
pub const MERGES_WEIGHT: f32 = 700.0;
/// Weight of each empty cell: 270.
pub const EMPTY_WEIGHT: f32 = 270.0;

/// The heuristic value of one line of exponents (any length; `line[0]` at one end), slow and
/// obvious; exponents above 15 count as 15.
///
/// `LOST_PENALTY + EMPTY_WEIGHT·empty + MERGES_WEIGHT·merges − MONOTONICITY_WEIGHT·min(inc, dec)
///  − SUM_WEIGHT·Σ e^SUM_POWER`, where a run of k ≥ 2 equal tiles (ignoring empty cells between
/// them) counts k merges, and `inc`/`dec` sum the rises/falls of e^MONOTONICITY_POWER along it.
pub fn line_value(line: &[u8]) -> f32 {
    let powers: &[[f32; 2]; 16] = &POWERS;
    let mut sum = 0.0f32;
    let mut empty = 0u32;
    let mut merges = 0u32;
    let mut prev = 0u8;
    let mut run = 0u32;
    for &e in line {
        let e = e.min(15);
        sum += powers[e as usize][0];
        if e == 0 {
            empty += 1;
            continue;
        }
        if e == prev {
            run += 1;
        } else {
            if run > 0 {
                merges += 1 + run;
            }
            run = 0;
        }
        prev = e;
    }
    if run > 0 {
        merges += 1 + run;
    }
    let mut falling = 0.0f32;
    let mut rising = 0.0f32;
    for pair in line.windows(2) {
        let (x, y) = (pair[0].min(15), pair[1].min(15));
        let a = powers[x as usize][1];
        let b = powers[y as usize][1];
        if x > y {
            falling += a - b;
        } else {
            rising += b - a;
        }
    }
    LOST_PENALTY + EMPTY_WEIGHT * empty as f32 + MERGES_WEIGHT * merges as f32
        - MONOTONICITY_WEIGHT * falling.min(rising)
        - SUM_WEIGHT * sum
}

/// `[e^SUM_POWER, e^MONOTONICITY_POWER]` for exponents 0..=15 (`powf` is not `const`).
static POWERS: LazyLock<[[f32; 2]; 16]> = LazyLock::new(|| {
    std::array::from_fn(|e| {
        let e = e as f32;
        [e.powf(SUM_POWER), e.powf(MONOTONICITY_POWER)]
    })
});

/// [`line_value`] of a row of four exponents.
pub fn row_value(line: [u8; 4]) -> f32 {
    line_value(&line)
}

/// [`row_value`] for all 65,536 rows (index = 16-bit row, lowest nibble = `line[0]`).
///
/// A fixed-size array, so that a 16-bit index needs no bounds check.
pub static ROW_VALUES: LazyLock<Box<[f32; 65536]>> = LazyLock::new(|| {
    let rows: Box<[f32]> = (0..=u16::MAX)
        .map(|row| row_value(crate::engine::tables::unpack_row(row)))
        .collect();
    rows.try_into().expect("65,536 rows")
});

/// The heuristic value of a 4×4 board: [`row_value`] summed over the four rows and the four
/// columns. Higher is better; a live board is above `8 · LOST_PENALTY − (penalties)`, always > 0
/// in practice.
#[inline]
pub fn evaluate(board: Board) -> f32 {
    evaluate_with(&ROW_VALUES, board.raw())
}

/// The heuristic value of a board of any shape: [`line_value`] summed over every row and column.
///
/// Lines of up to [`TABLED_LINE_MAX`] cells are looked up in a table of [`line_value`] built on
/// first use (16^len entries); longer lines are computed.
pub fn evaluate_grid(board: &GridBoard) -> f32 {
    sum_over_lines(board, line_value_fast)
}

/// `line` summed over every row of `board` (read from column 0) and every column (read from
/// row 0): the shape of both line heuristics on boards that are not 4×4.
pub fn sum_over_lines(board: &GridBoard, line: impl Fn(&[u8]) -> f32) -> f32 {
    let shape = board.shape();
    let (rows, cols) = (shape.rows(), shape.cols());
    let e = board.exponents();
    let mut total = 0.0;
    let mut col = [0u8; crate::engine::Shape::MAX_SIDE];
    for r in 0..rows {
        total += line(&e[r * cols..(r + 1) * cols]);
    }
    for c in 0..cols {
        for r in 0..rows {
            col[r] = e[r * cols + c];
        }
        total += line(&col[..rows]);
    }
    total
}

/// The longest line whose values [`evaluate_grid`] keeps in a table: 5 (16^5 entries, 4 MiB).
pub const TABLED_LINE_MAX: usize = 5;

/// [`line_value`] for every line of `len` cells (index: nibble `i` = cell `i`, capped at 15).
fn line_table(len: usize) -> Box<[f32]> {
    (0..1usize << (4 * len))
        .map(|index| {
            let line: Vec<u8> = (0..len).map(|i| ((index >> (4 * i)) & 0xf) as u8).collect();
            line_value(&line)
        })
        .collect()
}

/// Tables of [`line_value`] for lines of 0..=[`TABLED_LINE_MAX`] cells.
static LINE_TABLES: [LazyLock<Box<[f32]>>; TABLED_LINE_MAX + 1] = [
    LazyLock::new(|| line_table(0)),
    LazyLock::new(|| line_table(1)),
    LazyLock::new(|| line_table(2)),
    LazyLock::new(|| line_table(3)),
    LazyLock::new(|| line_table(4)),
    LazyLock::new(|| line_table(5)),
];

/// [`line_value`], from a table for short lines.
#[inline]
fn line_value_fast(line: &[u8]) -> f32 {
    if line.len() > TABLED_LINE_MAX {
        return line_value(line);
    }
    let index = line.iter().enumerate().fold(0usize, |acc, (i, &e)| {
        acc | (usize::from(e.min(15)) << (4 * i))
    });
    LINE_TABLES[line.len()][index]
}

/// nneonneo/2048-ai's heuristic as an [`Evaluator`]: [`evaluate`] (a table) on the bitboard,
/// [`evaluate_grid`] on other shapes. Values are in the heuristic's own units (about 1.6 M for a
/// good 4×4 board), higher is better.
///
/// Holds the table itself (built on first use), so the search's leaves pay no lazy-init check.
#[derive(Clone, Copy, Debug)]
pub struct RowHeuristic {
    table: &'static [f32; 65536],
}

impl RowHeuristic {
    /// The heuristic (builds [`ROW_VALUES`] on first use, about 10 ms).
    pub fn new() -> RowHeuristic {
        RowHeuristic { table: &ROW_VALUES }
    }
}

impl Default for RowHeuristic {
    fn default() -> RowHeuristic {
        RowHeuristic::new()
    }
}

impl Evaluator<Board> for RowHeuristic {
    #[inline(always)]
    fn evaluate(&self, afterstate: Board) -> f32 {
        evaluate_with(self.table, afterstate.raw())
    }
}

impl Evaluator<GridBoard> for RowHeuristic {
    #[inline]
    fn evaluate(&self, afterstate: GridBoard) -> f32 {
        evaluate_grid(&afterstate)
    }
}

/// [`evaluate`] on a raw `u64` of nibbles with the table passed in (the search's hot path).
#[inline(always)]
pub fn evaluate_with(table: &[f32; 65536], x: u64) -> f32 {
    table[(x & 0xffff) as usize]
        + table[((x >> 16) & 0xffff) as usize]
        + table[((x >> 32) & 0xffff) as usize]
        + table[(x >> 48) as usize]
        + table[column(x, 0) as usize]
        + table[column(x, 1) as usize]
        + table[column(x, 2) as usize]
        + table[column(x, 3) as usize]
}

impl NamedEvaluation for RowHeuristic {
    const NAMES: &'static [(&'static str, &'static str)] = &[(
        "heuristic",
        "nneonneo/2048-ai's per-line heuristic: empty cells, merges, monotonicity, tile sum",
    )];
    type OnFour = RowHeuristic;
    type OnGrid = RowHeuristic;

    fn parse(name: &str) -> Option<Result<RowHeuristic, SolverError>> {
        (name == Self::NAMES[0].0).then(|| Ok(RowHeuristic::new()))
    }

    fn on_four(&self) -> RowHeuristic {
        *self
    }

    fn on_grid(&self, _solver: &str, _shape: Shape) -> Result<RowHeuristic, SolverError> {
        Ok(*self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_worked_rows() {
        // Empty row: 4 empty cells, nothing else.
        assert_eq!(row_value([0, 0, 0, 0]), LOST_PENALTY + 4.0 * EMPTY_WEIGHT);
        // [2,2,0,0] in exponents [1,1,0,0]: 2 empty, a run of 2 equal = 2 merges,
        // sum 1+1, monotonic falling 1^4-0 = 1 vs rising 0 → min 0.
        let v = row_value([1, 1, 0, 0]);
        let want = LOST_PENALTY + 2.0 * EMPTY_WEIGHT + 2.0 * MERGES_WEIGHT - SUM_WEIGHT * 2.0;
        assert!((v - want).abs() < 1e-2, "{v} vs {want}");
        // [1,2,1,0]: falling (2^4-1) + (1-0) = 16, rising 2^4-1 = 15 → min 15; no merges.
        let v = row_value([1, 2, 1, 0]);
        let sum = 1.0 + 2f32.powf(3.5) + 1.0;
        let want = LOST_PENALTY + EMPTY_WEIGHT - MONOTONICITY_WEIGHT * 15.0 - SUM_WEIGHT * sum;
        assert!((v - want).abs() < 1e-1, "{v} vs {want}");
    }

    #[test]
    fn tabled_and_computed_lines_agree() {
        for line in [
            &[1u8, 2, 3][..],
            &[0, 0, 5, 5, 1],
            &[15, 17, 3, 0, 2],
            &[4, 4],
            &[1, 2, 3, 4, 5, 6, 7],
        ] {
            assert_eq!(line_value_fast(line), line_value(line), "{line:?}");
        }
        // a 4x4 GridBoard scores as its bitboard
        let b =
            Board::from_values([[2, 4, 8, 16], [0, 2, 4, 8], [0, 0, 65536, 4], [0; 4]]).unwrap();
        let g = crate::engine::AnyBoard::Four(b).to_grid();
        assert_eq!(evaluate_grid(&g), evaluate(b));
    }

    #[test]
    fn monotone_beats_zigzag_and_big_tiles_stay_finite() {
        assert!(row_value([4, 3, 2, 1]) > row_value([4, 1, 3, 2]));
        let b =
            Board::from_values([[131072, 65536, 32768, 16384], [2; 4], [0; 4], [0; 4]]).unwrap();
        assert!(evaluate(b).is_finite());
    }
}
