//! The static evaluation [`CornerHeuristic`] (`--eval corner`): every row and every column is
//! scored as a line that should fall away from one fixed corner, the top-left cell.
//!
//! Source: the idea of macroxue/2048-ai's search evaluation as its README describes it ("the
//! search drives large tiles to the top-left corner and the lookup figures out the moves to get
//! the next large tile"), and the perimeter-defence formation of 2048 masters
//! (<https://2048masters.com/lessons/>): the large tiles fill a corner block whose rows and
//! columns fall away from the corner, so the endgame tables' formations (`tables`) come about.
//! The weights here are this project's own, chosen by `sim` runs (BENCHMARKS.md).
//!
//! Measured (`sim --depth 3 --games 100 --seed 7`, 2026-12-03): 8192 in 67 % of games and 16384 in
//! 6 %, where the row heuristic reaches 67 % and 7 %: on its own it is not stronger. Inversion
//! weights 4, 12 and 24 gave 60–62 % (merge weight 1); merge weight 6 gave 60 %; a bonus of 500 a
//! line for each empty cell gave 36 %.
//!
//! A line `e[0..n]` (log2 exponents, `e[0]` nearest the corner) is worth
//!
//! `LINE_OFFSET + Σ_i w(e_i) + Σ_{i<n-1} step(e_i, e_{i+1})`, floored at 0, where
//! `w(e) = e · 2^e` (0 for an empty cell: it grows faster than the tile, so a merge gains),
//! `step(a, b) = w(a) + MERGE_WEIGHT · w(a)·[a = b > 0]` when `a ≥ b` (the line falls or holds:
//! each cell nearer the corner counts again), and `−INVERSION_WEIGHT · (w(b) − w(a))` when
//! `a < b` (a larger tile farther from the corner than a smaller one).
//!
//! A 4×4 board is the sum over its 4 rows (read from column 0) and 4 columns (read from row 0):
//! one 65,536-entry table, as the row heuristic. [`LINE_OFFSET`] keeps live boards above 0 (a dead
//! board is worth 0 in the search); the floor makes a line that is very wrong at most 0, so that
//! the 8-line sum stays below 2^26 and keeps an `f32`'s precision to a few units.
use super::evaluation::NamedEvaluation;
use super::heuristic::{evaluate_with, sum_over_lines};
use super::{Evaluator, SolverError};
use crate::engine::{Board, GridBoard, Shape};
use std::sync::LazyLock;

/// The value added to every line, so that live boards stay above 0: 2^22.
pub const LINE_OFFSET: f32 = 4_194_304.0;
/// The penalty factor for a larger tile farther from the corner than a smaller one: 12.
pub const INVERSION_WEIGHT: f32 = 12.0;
/// The extra weight of two equal neighbours (a merge in reach), times the tile's weight: 3.
pub const MERGE_WEIGHT: f32 = 3.0;

/// `w(e) = e · 2^e` for a tile of exponent `e` (0 for an empty cell), exponents above 15 as 15.
fn tile_weight(e: u8) -> f32 {
    let e = e.min(15);
    f32::from(e) * f32::from(1u16 << e)
}

/// The value of one line of exponents (`line[0]` nearest the corner), slow and obvious; see the
/// module doc.
pub fn line_value(line: &[u8]) -> f32 {
    let mut v: f32 = line.iter().map(|&e| tile_weight(e)).sum();
    for pair in line.windows(2) {
        let (a, b) = (pair[0].min(15), pair[1].min(15));
        let (wa, wb) = (tile_weight(a), tile_weight(b));
        v += if a >= b {
            wa + if a == b && a > 0 {
                MERGE_WEIGHT * wa
            } else {
                0.0
            }
        } else {
            -INVERSION_WEIGHT * (wb - wa)
        };
    }
    (LINE_OFFSET + v).max(0.0)
}

/// [`line_value`] for all 65,536 rows of four (index = 16-bit row, lowest nibble = `line[0]`).
static LINE_VALUES: LazyLock<Box<[f32; 65536]>> = LazyLock::new(|| {
    let rows: Box<[f32]> = (0..=u16::MAX)
        .map(|row| line_value(&crate::engine::tables::unpack_row(row)))
        .collect();
    rows.try_into().expect("65,536 rows")
});

/// The value of a board of any shape: [`line_value`] over every row (from column 0) and every
/// column (from row 0).
pub fn evaluate_grid(board: &GridBoard) -> f32 {
    sum_over_lines(board, line_value)
}

/// The corner heuristic as an [`Evaluator`]: a table on the bitboard, [`evaluate_grid`] on other
/// shapes. Values are in its own units (tile weights `e · 2^e`, plus 2^22 a line), higher is
/// better.
#[derive(Clone, Copy, Debug)]
pub struct CornerHeuristic {
    table: &'static [f32; 65536],
}

impl CornerHeuristic {
    /// The heuristic (builds its line table on first use, about 10 ms).
    pub fn new() -> CornerHeuristic {
        CornerHeuristic {
            table: &LINE_VALUES,
        }
    }
}

impl Default for CornerHeuristic {
    fn default() -> CornerHeuristic {
        CornerHeuristic::new()
    }
}

impl Evaluator<Board> for CornerHeuristic {
    #[inline(always)]
    fn evaluate(&self, afterstate: Board) -> f32 {
        evaluate_with(self.table, afterstate.raw())
    }
}

impl Evaluator<GridBoard> for CornerHeuristic {
    #[inline]
    fn evaluate(&self, afterstate: GridBoard) -> f32 {
        evaluate_grid(&afterstate)
    }
}

impl NamedEvaluation for CornerHeuristic {
    const NAMES: &'static [(&'static str, &'static str)] = &[(
        "corner",
        "rows and columns falling away from the top-left corner (tile weight e·2^e, inversions ×12)",
    )];
    type OnFour = CornerHeuristic;
    type OnGrid = CornerHeuristic;

    fn parse(name: &str) -> Option<Result<CornerHeuristic, SolverError>> {
        (name == Self::NAMES[0].0).then(|| Ok(CornerHeuristic::new()))
    }

    fn on_four(&self) -> CornerHeuristic {
        *self
    }

    fn on_grid(&self, _solver: &str, _shape: Shape) -> Result<CornerHeuristic, SolverError> {
        Ok(*self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_worked_lines() {
        // w(1) = 2, w(2) = 8, w(3) = 24, w(15) = 15 * 32768 = 491,520.
        assert_eq!(line_value(&[0, 0, 0, 0]), LINE_OFFSET);
        // 4 2 . .: tiles 8 + 2; steps 4≥2: +8, 2≥.: +2, .≥.: 0.
        assert_eq!(line_value(&[2, 1, 0, 0]), LINE_OFFSET + 20.0);
        // 2 4 . .: tiles 10; 2<4: -12 * (8 - 2) = -72; 4≥.: +8.
        assert_eq!(line_value(&[1, 2, 0, 0]), LINE_OFFSET - 54.0);
        // 8 8 . .: tiles 48; 8=8: +24 + 3 * 24 (merge); 8≥.: +24.
        assert_eq!(line_value(&[3, 3, 0, 0]), LINE_OFFSET + 168.0);
        // . . . 32768: -12 * 491,520 is below the offset: floored at 0.
        assert_eq!(line_value(&[0, 0, 0, 15]), 0.0);
        // exponents above 15 count as 15
        assert_eq!(line_value(&[17, 3, 0, 0]), line_value(&[15, 3, 0, 0]));
    }

    #[test]
    fn the_table_and_the_grid_agree_and_the_corner_is_top_left() {
        let b = Board::from_values([[2, 4, 8, 16], [0, 2, 4, 8], [0, 0, 1024, 4], [0; 4]]).unwrap();
        let g = crate::engine::AnyBoard::Four(b).to_grid();
        let eval = CornerHeuristic::new();
        assert_eq!(Evaluator::<Board>::evaluate(&eval, b), evaluate_grid(&g));
        // the same tiles, the 1024 in the top-left corner, or all turned by 180°
        let top_left =
            Board::from_values([[1024, 8, 4, 2], [8, 4, 0, 0], [4, 0, 0, 0], [2, 0, 0, 0]]);
        let bottom_right =
            Board::from_values([[0, 0, 0, 2], [0, 0, 0, 4], [0, 0, 4, 8], [2, 4, 8, 1024]]);
        assert!(eval.evaluate(top_left.unwrap()) > eval.evaluate(bottom_right.unwrap()));
    }
}
