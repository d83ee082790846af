//! [`AnyBoard`]: a board of any shape, for the code at the edges (play, mirror, sim, CLI).
use super::{Board, BoardError, GridBoard, Move, Position, Shape};
use std::fmt;

/// Digits of the text form: exponent `e` is `DIGITS[e]` (0-9, a-z = 10..35, A-Z = 36..61, `+`,
/// `/`); for 4×4 boards up to 131072 this is [`Board::to_hex`]'s form.
const DIGITS: &[u8; 64] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+/";

/// A board of any shape: the bitboard when 4×4, else a [`GridBoard`].
///
/// The invariant (kept by every constructor): `Four` holds every 4×4 board and `Grid` only other
/// shapes, so equal boards compare equal. It implements [`Position`] by dispatching per call, which
/// suits the edges; search code takes the concrete board (see [`crate::engine`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AnyBoard {
    /// A 4×4 board.
    Four(Board),
    /// A board of another shape.
    Grid(GridBoard),
}

impl From<Board> for AnyBoard {
    fn from(b: Board) -> AnyBoard {
        AnyBoard::Four(b)
    }
}

impl AnyBoard {
    /// The empty board of `shape`.
    pub fn empty(shape: Shape) -> AnyBoard {
        if shape.is_four() {
            AnyBoard::Four(Board::EMPTY)
        } else {
            AnyBoard::Grid(GridBoard::empty(shape))
        }
    }

    /// A board of `shape` from log2 exponents in reading order.
    ///
    /// # Errors
    /// As [`GridBoard::from_exponents`].
    pub fn from_exponents(shape: Shape, exps: &[u8]) -> Result<AnyBoard, BoardError> {
        let g = GridBoard::from_exponents(shape, exps)?;
        Ok(AnyBoard::from_grid(g))
    }

    /// A board of `shape` from tile values in reading order (0 = empty).
    ///
    /// # Errors
    /// As [`GridBoard::from_values`].
    pub fn from_values(shape: Shape, values: &[u64]) -> Result<AnyBoard, BoardError> {
        let g = GridBoard::from_values(shape, values)?;
        Ok(AnyBoard::from_grid(g))
    }

    /// A board from rows of tile values (`rows[r][c]`, 0 = empty); the shape is the rows' own.
    ///
    /// # Errors
    /// [`BoardError::BadShape`] for ragged rows or a shape outside 2..=9; [`BoardError::BadValue`].
    pub fn from_rows(rows: &[Vec<u64>]) -> Result<AnyBoard, BoardError> {
        let cols = rows.first().map_or(0, Vec::len);
        if rows.iter().any(|r| r.len() != cols) {
            return Err(BoardError::BadShape(
                "the rows of a board must all have the same length".into(),
            ));
        }
        let shape = Shape::new(rows.len(), cols)?;
        let flat: Vec<u64> = rows.iter().flatten().copied().collect();
        AnyBoard::from_values(shape, &flat)
    }

    /// The same board as a 4×4 bitboard or a grid, by shape.
    pub fn from_grid(g: GridBoard) -> AnyBoard {
        if g.shape().is_four() {
            let e = g.exponents();
            let exps = std::array::from_fn(|r| std::array::from_fn(|c| e[4 * r + c]));
            AnyBoard::Four(Board::from_exponents(exps).expect("4x4 exponents are at most 17"))
        } else {
            AnyBoard::Grid(g)
        }
    }

    /// The same board as a [`GridBoard`] (a copy for 4×4).
    pub fn to_grid(&self) -> GridBoard {
        match self {
            AnyBoard::Four(b) => GridBoard::from_exponents(Shape::FOUR, &self.exponents())
                .unwrap_or_else(|_| unreachable!("a bitboard's exponents fit 4x4: {b:?}")),
            AnyBoard::Grid(g) => *g,
        }
    }

    /// The 4×4 bitboard, if this board is 4×4.
    pub fn as_four(&self) -> Option<Board> {
        match self {
            AnyBoard::Four(b) => Some(*b),
            AnyBoard::Grid(_) => None,
        }
    }

    /// The exponents in reading order.
    pub fn exponents(&self) -> Vec<u8> {
        (0..self.shape().cells())
            .map(|i| self.exponent_at(i))
            .collect()
    }

    /// The tile values as rows, `rows[r][c]`, 0 = empty.
    pub fn rows(&self) -> Vec<Vec<u64>> {
        let cols = self.shape().cols();
        self.exponents()
            .chunks(cols)
            .map(|row| {
                row.iter()
                    .map(|&e| if e == 0 { 0 } else { 1u64 << e })
                    .collect()
            })
            .collect()
    }

    /// The sum of all tile values.
    pub fn tile_sum(&self) -> u64 {
        self.rows().iter().flatten().sum()
    }

    /// The text form: for 4×4, [`Board::to_hex`]'s 16 digits; otherwise `RxC:` and one digit a
    /// cell in reading order (0-9, a-z, A-Z, `+`, `/` = exponents 0..=63), e.g. `3x3:100000002`.
    pub fn to_text(&self) -> String {
        let digits: String = self
            .exponents()
            .iter()
            .map(|&e| DIGITS[e as usize] as char)
            .collect();
        match self {
            AnyBoard::Four(_) => digits,
            AnyBoard::Grid(g) => format!("{}:{digits}", g.shape()),
        }
    }

    /// Parses [`AnyBoard::to_text`]'s form (16 digits alone are a 4×4 board, any case).
    ///
    /// # Errors
    /// [`BoardError::BadShape`], [`BoardError::BadLength`], [`BoardError::BadDigit`], or an
    /// exponent too large for the shape.
    pub fn from_text(s: &str) -> Result<AnyBoard, BoardError> {
        let s = s.trim();
        let Some((shape, digits)) = s.split_once(':') else {
            return Board::from_hex(s).map(AnyBoard::Four);
        };
        let shape: Shape = shape.parse()?;
        let n = digits.chars().count();
        if n != shape.cells() {
            return Err(BoardError::BadLength {
                want: shape.cells(),
                got: n,
            });
        }
        let exps = digits
            .chars()
            .map(|ch| {
                DIGITS
                    .iter()
                    .position(|&d| d as char == ch)
                    .map(|e| e as u8)
                    .ok_or(BoardError::BadDigit(ch))
            })
            .collect::<Result<Vec<u8>, _>>()?;
        AnyBoard::from_exponents(shape, &exps)
    }
}

impl Position for AnyBoard {
    fn from_any(board: &AnyBoard) -> Option<AnyBoard> {
        Some(*board)
    }

    fn shape(&self) -> Shape {
        match self {
            AnyBoard::Four(_) => Shape::FOUR,
            AnyBoard::Grid(g) => g.shape(),
        }
    }

    fn exponent_at(&self, index: usize) -> u8 {
        match self {
            AnyBoard::Four(b) => b.exponent_at(index),
            AnyBoard::Grid(g) => g.exponent_at(index),
        }
    }

    fn apply(self, m: Move) -> Option<(AnyBoard, u64)> {
        match self {
            AnyBoard::Four(b) => b.apply(m).map(|(a, s)| (AnyBoard::Four(a), s)),
            AnyBoard::Grid(g) => Position::apply(g, m).map(|(a, s)| (AnyBoard::Grid(a), s)),
        }
    }

    fn shifted(self, m: Move) -> Option<AnyBoard> {
        self.apply(m).map(|(b, _)| b)
    }

    fn count_empty(self) -> u32 {
        match self {
            AnyBoard::Four(b) => b.count_empty(),
            AnyBoard::Grid(g) => g.count_empty(),
        }
    }

    fn empties(self) -> impl Iterator<Item = usize> {
        let n = self.shape().cells();
        (0..n).filter(move |&i| self.exponent_at(i) == 0)
    }

    fn with_new_tile(self, index: usize, exp: u8) -> AnyBoard {
        match self {
            AnyBoard::Four(b) => AnyBoard::Four(b.with_new_tile(index, exp)),
            AnyBoard::Grid(g) => AnyBoard::Grid(g.with_new_tile(index, exp)),
        }
    }

    fn max_exponent(self) -> u8 {
        match self {
            AnyBoard::Four(b) => b.max_exponent(),
            AnyBoard::Grid(g) => g.max_exponent(),
        }
    }

    fn table_key(self) -> Option<u64> {
        match self {
            AnyBoard::Four(b) => b.table_key(),
            AnyBoard::Grid(g) => g.table_key(),
        }
    }
}

impl fmt::Display for AnyBoard {
    /// One line a row of right-aligned values (width 6, wider for wider values), `.` for an
    /// empty cell: the same as [`Board`]'s form on 4×4.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        super::write_rows(f, &self.rows())
    }
}
