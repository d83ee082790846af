//! The evaluation of article 001 ([`ArticleEval`]): monotonicity, smoothness, empty cells and the
//! largest tile in a corner, weighted and summed, on tile values.
//!
//! Source: `001_96f41e1b07365bc2.txt` (`AIPlayer.evaluate`: weights monotonicity 1.0, smoothness
//! 1.0, empty cells 2.7, max-in-corner 1.0), itself the weights of ovolve/2048-AI
//! (`ai.js`, `eval`), which works on log2 values; the article's code uses tile values.
//! Implemented from the description, not ported; where the article's code and text disagree:
//! - monotonicity is taken over the whole board per orientation, as the code does (one direction
//!   for all rows, one for all columns), over consecutive *tiles* of a line (empty cells skipped;
//!   the code compares an empty first cell as a 0);
//! - smoothness compares consecutive tiles of each row and column (empty cells skipped), so it is
//!   symmetric (the code also charges a tile for an empty cell on its right or below, but not on
//!   its left or above);
//! - the corner term counts when any corner holds the largest value (the code looks only at the
//!   first largest tile in reading order).
//!
//! Works on every [`crate::engine::Shape`]: lines of any length, the four corners of the grid.
use super::evaluation::NamedEvaluation;
use super::{Evaluator, SolverError};
use crate::engine::{Position, Shape};

/// Weights of the four terms of [`ArticleEval`], each multiplying a term in tile-value units
/// (points), except `empty`, which multiplies a count of cells.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ArticleWeights {
    /// Weight of the monotonicity term (≤ 0: minus the smaller of the rises and the falls).
    pub monotonicity: f32,
    /// Weight of the smoothness term (≤ 0: minus the differences between neighbouring tiles).
    pub smoothness: f32,
    /// Weight of each empty cell.
    pub empty: f32,
    /// Weight of the corner term (the largest tile's value when a corner holds it, else 0).
    pub corner: f32,
}

/// Article 001's weights: monotonicity 1.0, smoothness 1.0, empty 2.7, max-in-corner 1.0.
pub const ARTICLE_WEIGHTS: ArticleWeights = ArticleWeights {
    monotonicity: 1.0,
    smoothness: 1.0,
    empty: 2.7,
    corner: 1.0,
};

/// The unweighted terms of a board, in tile values (points) except `empty` (cells).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ArticleTerms {
    /// Rows: −min(sum of rises, sum of falls) left to right over all rows; plus the same for the
    /// columns top to bottom. ≤ 0; 0 for a board monotone in both orientations.
    pub monotonicity: f64,
    /// −Σ |a − b| over consecutive tiles a, b of every row and column (empty cells skipped). ≤ 0.
    pub smoothness: f64,
    /// Empty cells.
    pub empty: u32,
    /// The largest tile's value if one of the four corners holds it, else 0.
    pub corner: f64,
    /// The sum of all tile values (for [`ArticleEval`]'s offset).
    pub tile_sum: f64,
}

/// Rises, falls and total variation along one line of consecutive tiles.
#[derive(Clone, Copy, Default)]
struct LineSums {
    rises: f64,
    falls: f64,
}

/// Sums the rises and falls between consecutive tiles (empty cells skipped) of the cells
/// `start, start + step, …` (`len` of them) of `e`, in tile values.
fn line_sums(e: &[u8], start: usize, step: usize, len: usize) -> LineSums {
    let mut s = LineSums::default();
    let mut prev: Option<f64> = None;
    for k in 0..len {
        let x = e[start + k * step];
        if x == 0 {
            continue;
        }
        let v = (1u64 << x) as f64;
        if let Some(p) = prev {
            if v > p {
                s.rises += v - p;
            } else {
                s.falls += p - v;
            }
        }
        prev = Some(v);
    }
    s
}

/// Monotonicity and smoothness of one orientation: `lines` lines of `len` cells, line `i`
/// starting at `i * line_step`, cells `cell_step` apart.
fn orientation(
    e: &[u8],
    lines: usize,
    line_step: usize,
    len: usize,
    cell_step: usize,
) -> (f64, f64) {
    let (mut rises, mut falls) = (0.0, 0.0);
    for i in 0..lines {
        let s = line_sums(e, i * line_step, cell_step, len);
        rises += s.rises;
        falls += s.falls;
    }
    (-f64::min(rises, falls), -(rises + falls))
}

/// The terms of `board` (see [`ArticleTerms`]).
pub fn terms<P: Position>(board: P) -> ArticleTerms {
    let shape = board.shape();
    let (rows, cols) = (shape.rows(), shape.cols());
    let mut e = [0u8; crate::engine::MAX_CELLS];
    for (i, x) in e.iter_mut().enumerate().take(shape.cells()) {
        *x = board.exponent_at(i);
    }
    let (mono_r, smooth_r) = orientation(&e, rows, cols, cols, 1);
    let (mono_c, smooth_c) = orientation(&e, cols, 1, rows, cols);
    let cells = &e[..shape.cells()];
    let max = cells.iter().copied().max().unwrap_or(0);
    let tile_sum = cells
        .iter()
        .filter(|&&x| x > 0)
        .map(|&x| (1u64 << x) as f64)
        .sum();
    let corner = if max > 0 && corners(shape).iter().any(|&i| e[i] == max) {
        (1u64 << max) as f64
    } else {
        0.0
    };
    ArticleTerms {
        monotonicity: mono_r + mono_c,
        smoothness: smooth_r + smooth_c,
        empty: cells.iter().filter(|&&x| x == 0).count() as u32,
        corner,
        tile_sum,
    }
}

/// The indices of the four corner cells of `shape` (reading order).
fn corners(shape: Shape) -> [usize; 4] {
    let (r, c) = (shape.rows(), shape.cols());
    [0, c - 1, (r - 1) * c, r * c - 1]
}

/// Article 001's evaluation as written: `w.monotonicity·mono + w.smoothness·smooth +
/// w.empty·empty + w.corner·corner` over [`terms`], in points. Can be negative.
pub fn article_value<P: Position>(board: P, w: &ArticleWeights) -> f64 {
    let t = terms(board);
    f64::from(w.monotonicity) * t.monotonicity
        + f64::from(w.smoothness) * t.smoothness
        + f64::from(w.empty) * f64::from(t.empty)
        + f64::from(w.corner) * t.corner
}

/// Article 001's evaluation ([`article_value`]) as an [`Evaluator`], made positive for the
/// searches (which value a dead board at 0) by adding `(2·|w.monotonicity| + 4·|w.smoothness|)
/// · tile_sum + 1`.
///
/// Why that offset: in each orientation the falls and rises of a line add up to at most twice
/// the line's tile sum, so monotonicity ≥ −2·tile_sum and smoothness ≥ −4·tile_sum over the
/// board. A move keeps the tile sum, so the afterstates of one board share the offset and the
/// greedy choice is the article's; across rollouts, a longer game (more spawned tiles) adds to
/// it. Units: points.
#[derive(Clone, Copy, Debug)]
pub struct ArticleEval {
    weights: ArticleWeights,
}

impl ArticleEval {
    /// The evaluation with `weights` ([`ARTICLE_WEIGHTS`] for the article's).
    pub fn new(weights: ArticleWeights) -> ArticleEval {
        ArticleEval { weights }
    }
}

impl Default for ArticleEval {
    fn default() -> ArticleEval {
        ArticleEval::new(ARTICLE_WEIGHTS)
    }
}

impl<P: Position> Evaluator<P> for ArticleEval {
    fn evaluate(&self, afterstate: P) -> f32 {
        let w = &self.weights;
        let t = terms(afterstate);
        let offset = (2.0 * f64::from(w.monotonicity.abs()) + 4.0 * f64::from(w.smoothness.abs()))
            * t.tile_sum
            + 1.0;
        (article_value(afterstate, w) + offset) as f32
    }
}

impl NamedEvaluation for ArticleEval {
    const NAMES: &'static [(&'static str, &'static str)] = &[(
        "article",
        "article 001 on tile values: monotonicity 1.0, smoothness 1.0, empty cells 2.7, largest tile in a corner 1.0",
    )];
    type OnFour = ArticleEval;
    type OnGrid = ArticleEval;

    fn parse(name: &str) -> Option<Result<ArticleEval, SolverError>> {
        (name == Self::NAMES[0].0).then(|| Ok(ArticleEval::new(ARTICLE_WEIGHTS)))
    }

    fn on_four(&self) -> ArticleEval {
        *self
    }

    fn on_grid(&self, _solver: &str, _shape: Shape) -> Result<ArticleEval, SolverError> {
        Ok(*self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Board, GridBoard, Move};

    fn board(grid: [[u32; 4]; 4]) -> Board {
        Board::from_values(grid).unwrap()
    }

    #[test]
    fn terms_by_hand() {
        //   4   2   .   .
        //   2   .   .   .
        //   .   .   .   .
        //   .   .   .   8
        // rows: [4,2] falls 2; [2]; [8]: rises 0, falls 2 -> mono_r = -0.
        // cols: [4,2] falls 2; [2]; []; [8]: rises 0, falls 2 -> mono_c = -0.
        // smoothness: rows |4-2| = 2, cols |4-2| = 2 -> -4.
        // empty 12; the largest (8) is in the bottom-right corner -> corner 8. Sum 16.
        let b = board([[4, 2, 0, 0], [2, 0, 0, 0], [0; 4], [0, 0, 0, 8]]);
        let t = terms(b);
        assert_eq!(t.monotonicity, 0.0);
        assert_eq!(t.smoothness, -4.0);
        assert_eq!(t.empty, 12);
        assert_eq!(t.corner, 8.0);
        assert_eq!(t.tile_sum, 16.0);
        let v = article_value(b, &ARTICLE_WEIGHTS);
        assert!((v - (-4.0 + 2.7 * 12.0 + 8.0)).abs() < 1e-5, "{v}");
    }

    #[test]
    fn a_zigzag_row_pays_the_smaller_of_its_rises_and_falls() {
        // Row 0: 2 8 4 16 -> rises 6 + 12 = 18, falls 4 -> mono_r = -4; smoothness -(6+4+12) = -22.
        // Columns hold one tile each: nothing. The largest, 16, sits in the top-right corner.
        let b = board([[2, 8, 4, 16], [0; 4], [0; 4], [0; 4]]);
        let t = terms(b);
        assert_eq!(t.monotonicity, -4.0);
        assert_eq!(t.smoothness, -22.0);
        assert_eq!(t.corner, 16.0);
        // The largest tile off the corners: no corner term.
        let off = board([[2, 16, 4, 8], [0; 4], [0; 4], [0; 4]]);
        assert_eq!(terms(off).corner, 0.0);
    }

    #[test]
    fn the_evaluator_is_positive_and_ranks_siblings_as_the_article() {
        // A rough board: every rise and fall counts against it, yet the evaluator stays > 0.
        let b = board([
            [2, 64, 2, 64],
            [64, 2, 64, 2],
            [2, 64, 2, 64],
            [64, 2, 64, 0],
        ]);
        assert!(article_value(b, &ARTICLE_WEIGHTS) < 0.0);
        let e = ArticleEval::default();
        assert!(Evaluator::<Board>::evaluate(&e, b) > 0.0);
        // Afterstates of one board differ by exactly their article values (one tile sum).
        let start = board([[2, 2, 4, 0], [0, 8, 0, 0], [0; 4], [4, 0, 0, 2]]);
        let [up, _, left, _] = start.afterstates().map(Option::unwrap);
        let diff = Evaluator::<Board>::evaluate(&e, up) - Evaluator::<Board>::evaluate(&e, left);
        let want = article_value(up, &ARTICLE_WEIGHTS) - article_value(left, &ARTICLE_WEIGHTS);
        assert!((f64::from(diff) - want).abs() < 1e-3, "{diff} vs {want}");
    }

    #[test]
    fn a_grid_board_and_its_bitboard_score_the_same() {
        let b = board([[2, 4, 8, 16], [0, 2, 4, 8], [0, 0, 2, 4], [32, 0, 0, 2]]);
        let g = crate::engine::AnyBoard::Four(b).to_grid();
        assert_eq!(terms(b), terms(g));
        let after = b.shifted(Move::Left).unwrap();
        assert_eq!(terms(after), terms(g.shifted(Move::Left).unwrap()));
    }

    #[test]
    fn corners_of_a_3x5_board() {
        // 3x5: the 32 in the bottom-left corner (index 10) is the largest.
        let shape = Shape::new(3, 5).unwrap();
        let mut v = vec![0u64; 15];
        v[10] = 32;
        v[7] = 4;
        let g = GridBoard::from_values(shape, &v).unwrap();
        assert_eq!(corners(shape), [0, 4, 10, 14]);
        assert_eq!(terms(g).corner, 32.0);
        assert_eq!(terms(g).empty, 13);
    }
}
