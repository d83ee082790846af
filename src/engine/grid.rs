//! [`GridBoard`]: a board of any [`Shape`] (2 to 9 rows × 2 to 9 columns), one byte per cell.
//!
//! Exact and simple rather than fast: a move gathers each line into a small buffer, slides it
//! through [`slide_line`] (the slice twin of [`super::tables::slide_row_slow`]) and writes it
//! back. On a 4×4 shape it agrees with the bitboard [`super::Board`] on every board and move
//! (a property test checks it); 4×4 play uses the bitboard.
use super::{AnyBoard, BoardError, Move, Position, Shape};
use std::fmt;

/// The most cells a board has: 9 × 9.
pub const MAX_CELLS: usize = Shape::MAX_SIDE * Shape::MAX_SIDE;

/// Slides one line of log2 exponents toward index 0, merging equal neighbours the 2048 way, in
/// place; returns the merge score (the sum of the values of the tiles made, in points).
///
/// `line[0]` is the cell the tiles move toward; 0 is an empty cell. Tiles slide over empty cells;
/// two equal tiles meeting merge into one of exponent `e + 1`, each tile at most once per move,
/// pairs taken from the front (`[1,1,1,1]` → `[2,2,0,0]`). Two tiles of exponent `cap` (the
/// shape's largest, [`Shape::max_exponent`]) never merge.
///
/// ```
/// use bot2048::engine::slide_line;
/// let mut line = [1, 1, 2, 2, 0];
/// assert_eq!(slide_line(&mut line, 26), 4 + 8);
/// assert_eq!(line, [2, 3, 0, 0, 0]);
/// ```
pub fn slide_line(line: &mut [u8], cap: u8) -> u64 {
    let mut score = 0u64;
    let mut write = 0;
    // the tile written last, if it may still take a merge
    let mut open: Option<u8> = None;
    for read in 0..line.len() {
        let e = line[read];
        if e == 0 {
            continue;
        }
        line[read] = 0;
        if open == Some(e) && e < cap {
            line[write - 1] = e + 1;
            score += 1u64 << (e + 1);
            open = None;
        } else {
            line[write] = e;
            write += 1;
            open = Some(e);
        }
    }
    score
}

/// A 2048 board of any [`Shape`]: exponents in reading order, `cells[row * cols + col]`, row 0 on
/// top, 0 = empty, `e` = a tile of 2^e up to [`Shape::max_exponent`] (17 on 4×4, 26 on 5×5, 63 at
/// most). `Copy`, 83 bytes; cells beyond the shape's count stay 0, so derived equality and hashing
/// are exact.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct GridBoard {
    shape: Shape,
    cells: [u8; MAX_CELLS],
}

impl GridBoard {
    /// The empty board of `shape`.
    pub fn empty(shape: Shape) -> GridBoard {
        GridBoard {
            shape,
            cells: [0; MAX_CELLS],
        }
    }

    /// A board of `shape` from log2 exponents in reading order (0 = empty).
    ///
    /// # Errors
    /// [`BoardError::WrongCellCount`] unless `exps.len()` is the shape's cell count;
    /// [`BoardError::BadExponent`] for an exponent above [`Shape::max_exponent`].
    pub fn from_exponents(shape: Shape, exps: &[u8]) -> Result<GridBoard, BoardError> {
        if exps.len() != shape.cells() {
            return Err(BoardError::WrongCellCount {
                shape,
                want: shape.cells(),
                got: exps.len(),
            });
        }
        let max = shape.max_exponent();
        let mut b = GridBoard::empty(shape);
        for (i, &exp) in exps.iter().enumerate() {
            if exp > max {
                return Err(BoardError::BadExponent {
                    row: i / shape.cols(),
                    col: i % shape.cols(),
                    exp,
                    max,
                });
            }
            b.cells[i] = exp;
        }
        Ok(b)
    }

    /// A board of `shape` from tile values in reading order (0 = empty, else a power of two from
    /// 2 to the shape's largest tile).
    ///
    /// # Errors
    /// [`BoardError::WrongCellCount`], or [`BoardError::BadValue`] for any other value.
    pub fn from_values(shape: Shape, values: &[u64]) -> Result<GridBoard, BoardError> {
        let max = shape.max_exponent();
        let exps = values
            .iter()
            .enumerate()
            .map(|(i, &v)| match v {
                0 => Ok(0),
                v if v.is_power_of_two() && v >= 2 && v.trailing_zeros() as u8 <= max => {
                    Ok(v.trailing_zeros() as u8)
                }
                _ => Err(BoardError::BadValue {
                    row: i / shape.cols(),
                    col: i % shape.cols(),
                    value: v,
                    max: 1u64 << max,
                }),
            })
            .collect::<Result<Vec<u8>, _>>()?;
        GridBoard::from_exponents(shape, &exps)
    }

    /// The exponents in reading order (`shape().cells()` of them).
    pub fn exponents(&self) -> &[u8] {
        &self.cells[..self.shape.cells()]
    }

    /// The exponent at (row, col).
    ///
    /// # Panics
    /// If the cell is outside the shape.
    pub fn exponent(&self, row: usize, col: usize) -> u8 {
        assert!(
            row < self.shape.rows() && col < self.shape.cols(),
            "cell ({row}, {col}) is outside the {} board",
            self.shape
        );
        self.cells[row * self.shape.cols() + col]
    }

    /// The cell indices of line `k` for move `m`, listed from the side the tiles move toward
    /// (rows for left/right, columns for up/down), into `out`; returns how many.
    #[inline]
    fn line_indices(&self, m: Move, k: usize, out: &mut [usize; Shape::MAX_SIDE]) -> usize {
        let (rows, cols) = (self.shape.rows(), self.shape.cols());
        let (len, first, step): (usize, usize, isize) = match m {
            Move::Left => (cols, k * cols, 1),
            Move::Right => (cols, k * cols + cols - 1, -1),
            Move::Up => (rows, k, cols as isize),
            Move::Down => (rows, (rows - 1) * cols + k, -(cols as isize)),
        };
        for (j, slot) in out.iter_mut().take(len).enumerate() {
            *slot = (first as isize + j as isize * step) as usize;
        }
        len
    }

    /// The move on every line; `None` when nothing changed.
    fn slide(self, m: Move) -> Option<(GridBoard, u64)> {
        let lines = match m {
            Move::Left | Move::Right => self.shape.rows(),
            Move::Up | Move::Down => self.shape.cols(),
        };
        let cap = self.shape.max_exponent();
        let mut out = self;
        let mut score = 0;
        let mut idx = [0usize; Shape::MAX_SIDE];
        let mut buf = [0u8; Shape::MAX_SIDE];
        for k in 0..lines {
            let len = self.line_indices(m, k, &mut idx);
            for j in 0..len {
                buf[j] = self.cells[idx[j]];
            }
            score += slide_line(&mut buf[..len], cap);
            for j in 0..len {
                out.cells[idx[j]] = buf[j];
            }
        }
        (out.cells != self.cells).then_some((out, score))
    }

    /// A 64-bit hash of the cells (FxHash-style multiply-rotate over 8-byte words), for
    /// transposition tables.
    fn hash64(&self) -> u64 {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut h = (self.shape.rows() as u64) << 8 | self.shape.cols() as u64;
        for chunk in self.cells[..self.shape.cells()].chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
        }
        h ^ (h >> 29)
    }
}

impl Position for GridBoard {
    #[inline]
    fn shape(&self) -> Shape {
        self.shape
    }

    #[inline]
    fn from_any(board: &AnyBoard) -> Option<GridBoard> {
        Some(board.to_grid())
    }

    #[inline]
    fn exponent_at(&self, index: usize) -> u8 {
        assert!(
            index < self.shape.cells(),
            "cell {index} is outside the board"
        );
        self.cells[index]
    }

    #[inline]
    fn apply(self, m: Move) -> Option<(GridBoard, u64)> {
        self.slide(m)
    }

    #[inline]
    fn shifted(self, m: Move) -> Option<GridBoard> {
        self.slide(m).map(|(b, _)| b)
    }

    #[inline]
    fn count_empty(self) -> u32 {
        self.exponents().iter().filter(|&&e| e == 0).count() as u32
    }

    fn empties(self) -> impl Iterator<Item = usize> {
        let n = self.shape.cells();
        (0..n).filter(move |&i| self.cells[i] == 0)
    }

    #[inline]
    fn with_new_tile(self, index: usize, exp: u8) -> GridBoard {
        debug_assert!(index < self.shape.cells() && self.cells[index] == 0);
        let mut b = self;
        b.cells[index] = exp;
        b
    }

    #[inline]
    fn max_exponent(self) -> u8 {
        self.exponents().iter().copied().max().unwrap_or(0)
    }

    #[inline]
    fn table_key(self) -> Option<u64> {
        Some(self.hash64())
    }
}

impl fmt::Debug for GridBoard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GridBoard({} {:?})", self.shape, self.exponents())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(r: usize, c: usize) -> Shape {
        Shape::new(r, c).unwrap()
    }

    fn grid(r: usize, c: usize, values: &[u64]) -> GridBoard {
        GridBoard::from_values(shape(r, c), values).unwrap()
    }

    fn values(b: &GridBoard) -> Vec<u64> {
        b.exponents()
            .iter()
            .map(|&e| if e == 0 { 0 } else { 1u64 << e })
            .collect()
    }

    #[test]
    fn lines_of_every_length_slide_by_hand() {
        // (line before, after a move toward index 0, score), exponents: 1 = 2, 2 = 4, 3 = 8.
        let cases: &[(&[u8], &[u8], u64)] = &[
            (&[1, 1, 1], &[2, 1, 0], 4),
            (&[0, 1, 1], &[2, 0, 0], 4),
            (&[2, 1, 1], &[2, 2, 0], 4),
            (&[1, 1, 2, 2, 1], &[2, 3, 1, 0, 0], 12),
            (&[1, 0, 1, 0, 1], &[2, 1, 0, 0, 0], 4),
            (&[3, 3, 3, 3, 3, 3], &[4, 4, 4, 0, 0, 0], 48),
            (&[1, 2, 1, 2, 1, 2], &[1, 2, 1, 2, 1, 2], 0),
            (
                &[0, 0, 0, 0, 0, 0, 0, 0, 1],
                &[1, 0, 0, 0, 0, 0, 0, 0, 0],
                0,
            ),
            (
                &[1, 1, 1, 1, 1, 1, 1, 1, 1],
                &[2, 2, 2, 2, 1, 0, 0, 0, 0],
                16,
            ),
            (
                &[4, 0, 4, 5, 0, 5, 6, 0, 7],
                &[5, 6, 6, 7, 0, 0, 0, 0, 0],
                32 + 64,
            ),
        ];
        for &(before, after, score) in cases {
            let mut line = before.to_vec();
            assert_eq!(slide_line(&mut line, 63), score, "{before:?}");
            assert_eq!(line, after, "{before:?}");
        }
        // two tiles at the shape's cap never merge (3x3: 1024 = exponent 10)
        let mut line = [10, 10, 0];
        assert_eq!(slide_line(&mut line, 10), 0);
        assert_eq!(line, [10, 10, 0]);
    }

    #[test]
    fn a_3x3_board_moves_by_hand() {
        //  2 2 4
        //  . 4 4
        //  8 . 8
        let b = grid(3, 3, &[2, 2, 4, 0, 4, 4, 8, 0, 8]);
        let (left, s) = Position::apply(b, Move::Left).unwrap();
        assert_eq!(values(&left), [4, 4, 0, 8, 0, 0, 16, 0, 0]);
        assert_eq!(s, 4 + 8 + 16);
        let (right, s) = Position::apply(b, Move::Right).unwrap();
        assert_eq!(values(&right), [0, 4, 4, 0, 0, 8, 0, 0, 16]);
        assert_eq!(s, 4 + 8 + 16);
        let (up, s) = Position::apply(b, Move::Up).unwrap();
        assert_eq!(values(&up), [2, 2, 8, 8, 4, 8, 0, 0, 0]);
        assert_eq!(s, 8);
        let (down, s) = Position::apply(b, Move::Down).unwrap();
        assert_eq!(values(&down), [0, 0, 0, 2, 2, 8, 8, 4, 8]);
        assert_eq!(s, 8);
    }

    #[test]
    fn a_full_3x3_board_without_pairs_is_game_over() {
        let dead = grid(3, 3, &[2, 4, 2, 4, 2, 4, 2, 4, 2]);
        assert!(dead.is_game_over());
        assert_eq!(dead.legal_moves().count(), 0);
        let alive = grid(3, 3, &[2, 4, 2, 4, 2, 4, 2, 8, 8]);
        assert!(!alive.is_game_over());
        assert_eq!(
            alive.legal_moves().collect::<Vec<_>>(),
            vec![Move::Left, Move::Right]
        );
    }

    #[test]
    fn a_5x5_and_a_3x6_board_move_by_hand() {
        #[rustfmt::skip]
        let five = grid(5, 5, &[
            2, 2, 2, 2, 2,
            0, 0, 0, 0, 4,
            8, 0, 8, 0, 0,
            0, 0, 0, 0, 0,
            16, 0, 0, 0, 16,
        ]);
        let (left, s) = Position::apply(five, Move::Left).unwrap();
        #[rustfmt::skip]
        assert_eq!(values(&left), [
            4, 4, 2, 0, 0,
            4, 0, 0, 0, 0,
            16, 0, 0, 0, 0,
            0, 0, 0, 0, 0,
            32, 0, 0, 0, 0,
        ]);
        assert_eq!(s, 4 + 4 + 16 + 32);
        let (down, s) = Position::apply(five, Move::Down).unwrap();
        #[rustfmt::skip]
        assert_eq!(values(&down), [
            0, 0, 0, 0, 0,
            0, 0, 0, 0, 0,
            2, 0, 0, 0, 2,
            8, 0, 2, 0, 4,
            16, 2, 8, 2, 16,
        ]);
        assert_eq!(s, 0);
        #[rustfmt::skip]
        let wide = grid(3, 6, &[
            2, 2, 4, 4, 8, 8,
            0, 0, 0, 0, 0, 2,
            4, 0, 0, 0, 0, 4,
        ]);
        let (right, s) = Position::apply(wide, Move::Right).unwrap();
        #[rustfmt::skip]
        assert_eq!(values(&right), [
            0, 0, 0, 4, 8, 16,
            0, 0, 0, 0, 0, 2,
            0, 0, 0, 0, 0, 8,
        ]);
        assert_eq!(s, 4 + 8 + 16 + 8);
        let (up, s) = Position::apply(wide, Move::Up).unwrap();
        #[rustfmt::skip]
        assert_eq!(values(&up), [
            2, 2, 4, 4, 8, 8,
            4, 0, 0, 0, 0, 2,
            0, 0, 0, 0, 0, 4,
        ]);
        assert_eq!(s, 0);
    }

    #[test]
    fn a_9x9_board_moves_by_hand() {
        // row 0 holds nine 2s; column 8 holds a 2 on top of eight 4s
        let mut v = vec![0u64; 81];
        v[..9].fill(2);
        for r in 1..9 {
            v[r * 9 + 8] = 4;
        }
        let b = grid(9, 9, &v);
        let (left, s) = Position::apply(b, Move::Left).unwrap();
        assert_eq!(s, 16);
        assert_eq!(values(&left)[..9], [4, 4, 4, 4, 2, 0, 0, 0, 0]);
        for r in 1..9 {
            assert_eq!(values(&left)[r * 9..r * 9 + 9], [4, 0, 0, 0, 0, 0, 0, 0, 0]);
        }
        let (up, s) = Position::apply(b, Move::Up).unwrap();
        assert_eq!(s, 32);
        let col8: Vec<u64> = (0..9).map(|r| values(&up)[r * 9 + 8]).collect();
        assert_eq!(col8, [2, 8, 8, 8, 8, 0, 0, 0, 0]);
        assert_eq!(values(&up)[..8], [2; 8]);
        assert_eq!(b.count_empty(), 81 - 17);
        assert_eq!(b.max_exponent(), 2);
        assert_eq!(Shape::new(9, 9).unwrap().max_exponent(), 63);
    }
}
