//! The 4×4 bitboard [`Board`]: a `u64` of nibbles moved through 65,536-entry row tables.
//!
//! The fast path of the engine: a move is four table lookups (for up and down, of the columns
//! gathered by one multiply each, [`column`]),
//! legal = changed, and the merge score comes from a table too. Tiles of 65536 and 131072 do not
//! fit a nibble and take an exact slow path through [`slide_row_slow`].
//!
//! Idea of the tables: nneonneo/2048-ai, `2048.cpp` (`init_tables`, `execute_move_*`).
use super::tables::{slide_row_slow, COL_BOTH, LINE_SCORE, MAX_EXPONENT, ROW_BOTH};
use super::{AnyBoard, BoardError, Move, Position, Shape, SpawnRule};
use rand::Rng;
use std::fmt;

/// A 4×4 2048 board, exact for tiles up to 131072 (log2 exponent 17). `Copy`, 16 bytes.
///
/// Representation: `cells` is a `u64` of sixteen 4-bit log2 exponents (0 = empty, `e` = a tile of
/// value 2^e); the cell at (row `r`, column `c`), row 0 on top and column 0 on the left, is the
/// nibble at bit shift `4 * (4 * r + c)`, so row `r` is the 16 bits at `16 * r`. A nibble caps at
/// 15 (32768); the two larger tiles, 65536 and 131072, keep 15 in their nibble (so fast code such
/// as the heuristic sees them as at least 32768) and are marked in `big`, two bits per cell at
/// shift `2 * (4 * r + c)`: 1 = exponent 16, 2 = exponent 17, 0 = the nibble is exact.
///
/// Moves use 65,536-entry row tables ([`super::tables`]), on the columns for up/down. A board with a
/// tile beyond 32768, or a move that merges two 32768 tiles, takes an exact slow path instead
/// (rare: ordinary boards never pay for it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Board {
    cells: u64,
    big: u32,
}

/// Nibble mask with a 1 in the low bit of each of the 16 cells.
const LOW_BITS: u64 = 0x1111_1111_1111_1111;

/// Swaps rows and columns of a `u64` of 4-bit cells (cell (r, c) goes to (c, r)).
///
/// Two delta swaps (Knuth, TAOCP 7.1.3: `t = (x ^ x >> d) & m; x ^ t ^ t << d` trades the
/// bits under `m` with those `d` bits above them): first the off-diagonal cells of each 2×2
/// block trade places (3 nibbles = 12 bits apart), then the off-diagonal 2×2 blocks do (6
/// nibbles = 24 bits apart). Six operations and one constant a step, against seven and three
/// with masked shifts.
#[inline(always)]
pub const fn transpose(x: u64) -> u64 {
    let t = (x ^ (x >> 12)) & 0x0000_F0F0_0000_F0F0;
    let x = x ^ t ^ (t << 12);
    let t = (x ^ (x >> 24)) & 0x0000_0000_FF00_FF00;
    x ^ t ^ (t << 24)
}

/// The largest of the sixteen 4-bit exponents of a raw board (0 if empty; 15 for 32768 and for
/// the larger tiles that [`Board::raw`] caps at 15).
#[inline]
pub fn max_nibble(x: u64) -> u8 {
    (0..16)
        .map(|i| ((x >> (4 * i)) & 0xf) as u8)
        .max()
        .unwrap_or(0)
}

/// One bit (the low bit of the nibble) for each cell whose nibble is 0xF.
#[inline(always)]
const fn nibbles_full(x: u64) -> u64 {
    x & (x >> 1) & (x >> 2) & (x >> 3) & LOW_BITS
}

/// True when some nibble of `x` is 0xF: its low three bits plus one carry into its top bit, which
/// is set too. Five operations against the seven of `nibbles_full(x) != 0` (no carry crosses a
/// nibble: 7 + 1 = 8).
#[inline(always)]
const fn has_full_nibble(x: u64) -> bool {
    ((x & 0x7777_7777_7777_7777) + LOW_BITS) & x & 0x8888_8888_8888_8888 != 0
}

/// One bit (the low bit of the nibble) for each empty cell.
#[inline(always)]
const fn nibbles_empty(x: u64) -> u64 {
    let y = x | (x >> 2);
    let y = y | (y >> 1);
    !y & LOW_BITS
}

/// Column `c` (0..=3) of the raw board `x` as a 16-bit line, row 0 in the lowest nibble: row `c`
/// of [`transpose`]`(x)`, without the transpose. The mask keeps the column's four nibbles, 16 bits
/// apart; one multiply by `2^48 + 2^36 + 2^24 + 2^12` then moves row `r`'s nibble to bit `48 + 4r`.
/// Every other product of the multiply lands below bit 48 on a nibble of its own (bits 12, 24,
/// 28, 36, 40, 44: no carries) or beyond bit 63, so the top 16 bits are the column exactly.
/// Four of these (shift, mask, multiply, shift) cost fewer operations than a transpose and four
/// row extractions: the four moves together went from 747 M to 831 M a CPU-second on the peer
/// boards.
#[inline(always)]
pub const fn column(x: u64, c: u32) -> u16 {
    const COL_NIBBLES: u64 = 0x000f_000f_000f_000f;
    const GATHER: u64 = (1 << 48) | (1 << 36) | (1 << 24) | (1 << 12);
    (((x >> (4 * c)) & COL_NIBBLES).wrapping_mul(GATHER) >> 48) as u16
}

/// The four columns of the raw board `x` moved toward row 0 and toward row 3 (up and down), from
/// one lookup per column ([`column`]) in [`COL_BOTH`]: columns 0 and 1 in one word, 2 and 3 in
/// another, each word holding (up, up, down, down) in the four nibbles of every 16-bit row.
#[inline(always)]
fn cols_both(x: u64) -> (u64, u64) {
    let e = |c: u32| COL_BOTH[column(x, c) as usize];
    let w01 = e(0) | e(1) << 4;
    let w23 = e(2) | e(3) << 4;
    const LOW: u64 = 0x00ff_00ff_00ff_00ff;
    let up = (w01 & LOW) | (w23 & LOW) << 8;
    let down = (w01 >> 8 & LOW) | (w23 & !LOW);
    (up, down)
}

/// The four rows of `x` moved toward cell 0 and toward cell 3 (left and right), from one lookup
/// per row in [`ROW_BOTH`].
#[inline(always)]
fn rows_both(x: u64) -> (u64, u64) {
    let e = |k: u32| ROW_BOTH[((x >> (16 * k)) & 0xffff) as usize];
    // Rows 0 and 1 in one word, 2 and 3 in another: (left, left, right, right) in 16-bit slots.
    let low = e(0) | e(1) << 16;
    let high = e(2) | e(3) << 16;
    let toward_0 = (low & 0xffff_ffff) | high << 32;
    let toward_3 = (low >> 32) | (high & !0xffff_ffff);
    (toward_0, toward_3)
}

/// The merge score of the four rows of `x`, in points.
#[inline(always)]
fn rows_score(x: u64) -> u64 {
    4 * (LINE_SCORE[(x & 0xffff) as usize] as u64
        + LINE_SCORE[((x >> 16) & 0xffff) as usize] as u64
        + LINE_SCORE[((x >> 32) & 0xffff) as usize] as u64
        + LINE_SCORE[(x >> 48) as usize] as u64)
}

/// The merge score of the four columns of `x` ([`column`]), in points.
#[inline(always)]
fn cols_score(x: u64) -> u64 {
    4 * (0..4)
        .map(|c| LINE_SCORE[column(x, c) as usize] as u64)
        .sum::<u64>()
}

impl Board {
    /// The board with no tile.
    pub const EMPTY: Board = Board { cells: 0, big: 0 };

    /// Builds a board from tile values, `grid[row][col]`, row 0 on top: 0 = empty, else a power of
    /// two from 2 to 131072.
    ///
    /// # Errors
    /// [`BoardError::BadValue`] for any other value (1, 3, 262144, …).
    pub fn from_values(grid: [[u32; 4]; 4]) -> Result<Board, BoardError> {
        let mut exps = [[0u8; 4]; 4];
        for (r, row) in grid.iter().enumerate() {
            for (c, &value) in row.iter().enumerate() {
                exps[r][c] = match value {
                    0 => 0,
                    v if v.is_power_of_two() && (2..=1 << MAX_EXPONENT).contains(&v) => {
                        v.trailing_zeros() as u8
                    }
                    _ => {
                        return Err(BoardError::BadValue {
                            row: r,
                            col: c,
                            value: u64::from(value),
                            max: 1 << MAX_EXPONENT,
                        })
                    }
                };
            }
        }
        Board::from_exponents(exps)
    }

    /// The tile values, `grid[row][col]`, 0 = empty.
    pub fn to_values(self) -> [[u32; 4]; 4] {
        self.to_exponents()
            .map(|row| row.map(|e| if e == 0 { 0 } else { 1u32 << e }))
    }

    /// Builds a board from log2 exponents, `grid[row][col]`: 0 = empty, `e` = tile 2^e, e ≤ 17.
    ///
    /// # Errors
    /// [`BoardError::BadExponent`] for an exponent above 17.
    pub fn from_exponents(grid: [[u8; 4]; 4]) -> Result<Board, BoardError> {
        let mut b = Board::EMPTY;
        for (r, row) in grid.iter().enumerate() {
            for (c, &exp) in row.iter().enumerate() {
                if exp > MAX_EXPONENT {
                    return Err(BoardError::BadExponent {
                        row: r,
                        col: c,
                        exp,
                        max: MAX_EXPONENT,
                    });
                }
                b = b.with_exponent(r, c, exp);
            }
        }
        Ok(b)
    }

    /// The log2 exponents, `grid[row][col]`, 0 = empty.
    pub fn to_exponents(self) -> [[u8; 4]; 4] {
        let mut g = [[0u8; 4]; 4];
        for (r, row) in g.iter_mut().enumerate() {
            for (c, cell) in row.iter_mut().enumerate() {
                *cell = self.exponent(r, c);
            }
        }
        g
    }

    /// The log2 exponent at (row, col), 0 = empty, up to 17.
    ///
    /// # Panics
    /// If `row` or `col` is not in 0..4.
    #[inline]
    pub fn exponent(self, row: usize, col: usize) -> u8 {
        assert!(
            row < 4 && col < 4,
            "cell ({row}, {col}) is outside the 4x4 board"
        );
        let i = 4 * row + col;
        let nib = ((self.cells >> (4 * i)) & 0xf) as u8;
        nib + ((self.big >> (2 * i)) & 3) as u8
    }

    /// A copy with the cell at (row, col) set to exponent `exp` (0 = empty); `exp` above 17 is
    /// clamped to 17.
    ///
    /// # Panics
    /// If `row` or `col` is not in 0..4.
    pub fn with_exponent(self, row: usize, col: usize, exp: u8) -> Board {
        assert!(
            row < 4 && col < 4,
            "cell ({row}, {col}) is outside the 4x4 board"
        );
        let exp = exp.min(MAX_EXPONENT);
        let i = 4 * row + col;
        let nib = exp.min(15) as u64;
        let extra = (exp - exp.min(15)) as u32;
        Board {
            cells: (self.cells & !(0xf << (4 * i))) | (nib << (4 * i)),
            big: (self.big & !(3 << (2 * i))) | (extra << (2 * i)),
        }
    }

    /// The board whose raw `u64` of 4-bit exponents is `cells` (no tile beyond 32768): the inverse
    /// of [`Board::raw`] on such boards. For code that builds boards nibble by nibble (the
    /// endgame tables' positions).
    #[inline]
    pub const fn from_raw(cells: u64) -> Board {
        Board { cells, big: 0 }
    }

    /// The raw `u64` of 4-bit exponents (each capped at 15; see the type's doc).
    #[inline]
    pub fn raw(self) -> u64 {
        self.cells
    }

    /// True when a tile of 65536 or 131072 is on the board (the slow path's case).
    #[inline]
    pub fn has_big_tile(self) -> bool {
        self.big != 0
    }

    /// The board after move `m` and the merge score (the sum of the values of the tiles made), or
    /// `None` when the move changes nothing (an illegal move). No tile is spawned.
    #[inline]
    pub fn apply(self, m: Move) -> Option<(Board, u64)> {
        if self.needs_slow_path(m) {
            return self.apply_slow(m);
        }
        let (cells, score) = match m {
            Move::Left => (rows_both(self.cells).0, rows_score(self.cells)),
            Move::Right => (rows_both(self.cells).1, rows_score(self.cells)),
            Move::Up => (cols_both(self.cells).0, cols_score(self.cells)),
            Move::Down => (cols_both(self.cells).1, cols_score(self.cells)),
        };
        if cells == self.cells {
            None
        } else {
            Some((Board { cells, big: 0 }, score))
        }
    }

    /// The board after move `m` without the score, or `None` when the move changes nothing.
    /// Same result as [`Board::apply`]; the search's hot path.
    #[inline]
    pub fn shifted(self, m: Move) -> Option<Board> {
        if self.needs_slow_path(m) {
            return self.apply_slow(m).map(|(b, _)| b);
        }
        let cells = match m {
            Move::Left => rows_both(self.cells).0,
            Move::Right => rows_both(self.cells).1,
            Move::Up => cols_both(self.cells).0,
            Move::Down => cols_both(self.cells).1,
        };
        (cells != self.cells).then_some(Board { cells, big: 0 })
    }

    /// True when the tables cannot do move `m` exactly: a tile beyond 32768 is on the board, or a
    /// line along `m` holds two 32768 tiles (a possible 65536 merge; conservative).
    #[inline(always)]
    fn needs_slow_path(self, m: Move) -> bool {
        if self.big != 0 {
            return true;
        }
        let full = nibbles_full(self.cells);
        if full == 0 {
            return false;
        }
        match m {
            Move::Left | Move::Right => {
                (0..4).any(|r| ((full >> (16 * r)) & 0x1111).count_ones() >= 2)
            }
            Move::Up | Move::Down => {
                (0..4).any(|c| ((full >> (4 * c)) & 0x0001_0001_0001_0001).count_ones() >= 2)
            }
        }
    }

    /// Exact move on exponents through [`slide_row_slow`]; for tiles beyond 32768.
    fn apply_slow(self, m: Move) -> Option<(Board, u64)> {
        let g = self.to_exponents();
        let mut out = [[0u8; 4]; 4];
        let mut score = 0;
        for k in 0..4 {
            // The four cells of line k, listed from the side the tiles move toward.
            let cells: [(usize, usize); 4] = match m {
                Move::Left => [(k, 0), (k, 1), (k, 2), (k, 3)],
                Move::Right => [(k, 3), (k, 2), (k, 1), (k, 0)],
                Move::Up => [(0, k), (1, k), (2, k), (3, k)],
                Move::Down => [(3, k), (2, k), (1, k), (0, k)],
            };
            let line = cells.map(|(r, c)| g[r][c]);
            let (moved, s) = slide_row_slow(line);
            score += u64::from(s);
            for (j, &(r, c)) in cells.iter().enumerate() {
                out[r][c] = moved[j];
            }
        }
        let b = Board::from_exponents(out).expect("slide_row_slow keeps exponents <= 17");
        (b != self).then_some((b, score))
    }

    /// The legal moves (those that change the board), in [`Move::ALL`] order.
    pub fn legal_moves(self) -> impl Iterator<Item = Move> {
        Move::ALL
            .into_iter()
            .filter(move |&m| self.shifted(m).is_some())
    }

    /// The four afterstates in [`Move::ALL`] order (`None` for an illegal move): the same boards
    /// as [`Board::shifted`] for each move, made together by [`Board::for_each_shifted`].
    #[inline]
    pub fn afterstates(self) -> [Option<Board>; 4] {
        let mut all = [None; 4];
        self.for_each_shifted(|m, after| all[m.index()] = Some(after));
        all
    }

    /// Calls `f(m, board after m)` for each legal move `m`, in [`Move::ALL`] order: the same
    /// boards as [`Board::shifted`], made together (one check for the slow path, one lookup per
    /// row in [`ROW_BOTH`] for left and right and per column ([`column()`]) in [`COL_BOTH`] for up
    /// and down, no array of results);
    /// the search's max nodes use it. (Up and down through `ROW_BOTH` too, with a transpose
    /// before and two after, made the four moves 15 % slower.)
    #[inline(always)]
    pub fn for_each_shifted(self, mut f: impl FnMut(Move, Board)) {
        if self.big != 0 || has_full_nibble(self.cells) {
            for m in Move::ALL {
                if let Some(after) = self.shifted(m) {
                    f(m, after);
                }
            }
            return;
        }
        let x = self.cells;
        let (left, right) = rows_both(x);
        let mut moved = |m: Move, cells: u64| {
            if cells != x {
                f(m, Board { cells, big: 0 });
            }
        };
        let (up, down) = cols_both(x);
        moved(Move::Up, up);
        moved(Move::Down, down);
        moved(Move::Left, left);
        moved(Move::Right, right);
    }

    /// True when no move is legal.
    pub fn is_game_over(self) -> bool {
        self.afterstates().iter().all(Option::is_none)
    }

    /// The number of empty cells, 0..=16.
    #[inline]
    pub fn count_empty(self) -> u32 {
        nibbles_empty(self.cells).count_ones()
    }

    /// The empty cells as (row, col), in reading order (row 0 first, then column).
    pub fn empty_cells(self) -> impl Iterator<Item = (usize, usize)> {
        self.empty_indices().map(|i| (i / 4, i % 4))
    }

    /// The empty cells as indices `4 * row + col`, ascending (allocation-free; the search's
    /// chance nodes iterate these).
    #[inline]
    pub fn empty_indices(self) -> NibbleIndices {
        NibbleIndices(nibbles_empty(self.cells))
    }

    /// A copy with a new tile of exponent `exp` (1 = a 2, 2 = a 4, up to 15) on the empty cell
    /// `index = 4 * row + col`. The cell must be empty and `index < 16`, `exp <= 15`; this is
    /// checked only in debug builds (the search's chance nodes call it on [`Board::empty_indices`]).
    #[inline]
    pub fn with_new_tile(self, index: usize, exp: u8) -> Board {
        debug_assert!(index < 16 && exp <= 15 && self.exponent(index / 4, index % 4) == 0);
        Board {
            cells: self.cells | ((exp as u64) << (4 * index)),
            big: self.big,
        }
    }

    /// The largest exponent on the board (0 if empty).
    pub fn max_exponent(self) -> u8 {
        let top = max_nibble(self.cells);
        if self.big == 0 {
            top
        } else {
            (0..16)
                .map(|i| self.exponent(i / 4, i % 4))
                .max()
                .unwrap_or(0)
        }
    }

    /// The largest tile value on the board (0 if empty).
    pub fn max_value(self) -> u32 {
        match self.max_exponent() {
            0 => 0,
            e => 1 << e,
        }
    }

    /// The sum of all tile values.
    pub fn tile_sum(self) -> u64 {
        self.to_values().iter().flatten().map(|&v| v as u64).sum()
    }

    /// A copy with one new tile on a uniformly chosen empty cell: a 2 with probability 0.9, a 4
    /// with probability 0.1 (the original game's rule, [`SpawnRule::Classic`]). A full board is
    /// returned unchanged.
    pub fn spawn<R: Rng + ?Sized>(self, rng: &mut R) -> Board {
        self.spawn_by(rng, SpawnRule::Classic)
    }

    /// As [`Board::spawn`], under `rule`: with [`SpawnRule::TwosOnly`] the new tile is always a 2
    /// (and no random number is drawn for its value).
    pub fn spawn_by<R: Rng + ?Sized>(self, rng: &mut R, rule: SpawnRule) -> Board {
        Position::spawn_by(self, rng, rule)
    }

    /// A start position: two spawns on the empty board.
    pub fn start<R: Rng + ?Sized>(rng: &mut R) -> Board {
        Board::EMPTY.spawn(rng).spawn(rng)
    }

    /// The 16-digit text form: one digit per cell in reading order (row 0 left to right, then row
    /// 1, …), each the cell's log2 exponent in base 18: `0`-`9`, `a`-`f` = 10..15, `g` = 16 (65536),
    /// `h` = 17 (131072). For boards up to 32768 this is plain hex.
    pub fn to_hex(self) -> String {
        (0..16)
            .map(|i| {
                char::from_digit(self.exponent(i / 4, i % 4) as u32, 18).expect("exponent <= 17")
            })
            .collect()
    }

    /// Parses the text form of [`Board::to_hex`] (any case).
    ///
    /// # Errors
    /// [`BoardError::BadLength`] unless 16 characters; [`BoardError::BadDigit`] for a character
    /// outside 0-9, a-h.
    pub fn from_hex(s: &str) -> Result<Board, BoardError> {
        let s = s.trim();
        let n = s.chars().count();
        if n != 16 {
            return Err(BoardError::BadLength { want: 16, got: n });
        }
        let mut b = Board::EMPTY;
        for (i, ch) in s.chars().enumerate() {
            let e = ch.to_digit(18).ok_or(BoardError::BadDigit(ch))? as u8;
            b = b.with_exponent(i / 4, i % 4, e);
        }
        Ok(b)
    }
}

/// The empty cells of a nibble board as indices, from a mask with one bit per empty nibble.
#[derive(Clone, Copy, Debug)]
pub struct NibbleIndices(u64);

impl Iterator for NibbleIndices {
    type Item = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let i = (self.0.trailing_zeros() / 4) as usize;
        self.0 &= self.0 - 1;
        Some(i)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl Position for Board {
    #[inline(always)]
    fn shape(&self) -> Shape {
        Shape::FOUR
    }

    #[inline]
    fn from_any(board: &AnyBoard) -> Option<Board> {
        board.as_four()
    }

    #[inline]
    fn exponent_at(&self, index: usize) -> u8 {
        self.exponent(index / 4, index % 4)
    }

    #[inline(always)]
    fn apply(self, m: Move) -> Option<(Board, u64)> {
        Board::apply(self, m)
    }

    #[inline(always)]
    fn shifted(self, m: Move) -> Option<Board> {
        Board::shifted(self, m)
    }

    #[inline(always)]
    fn afterstates(self) -> [Option<Board>; 4] {
        Board::afterstates(self)
    }

    #[inline(always)]
    fn for_each_afterstate(self, f: impl FnMut(Move, Board)) {
        self.for_each_shifted(f)
    }

    #[inline(always)]
    fn count_empty(self) -> u32 {
        Board::count_empty(self)
    }

    #[inline(always)]
    fn empties(self) -> impl Iterator<Item = usize> {
        self.empty_indices()
    }

    #[inline(always)]
    fn with_new_tile(self, index: usize, exp: u8) -> Board {
        Board::with_new_tile(self, index, exp)
    }

    #[inline]
    fn max_exponent(self) -> u8 {
        Board::max_exponent(self)
    }

    #[inline(always)]
    fn table_key(self) -> Option<u64> {
        (self.big == 0).then_some(self.cells)
    }

    #[inline]
    fn is_game_over(self) -> bool {
        Board::is_game_over(self)
    }
}

impl fmt::Display for Board {
    /// Four lines of four right-aligned values, `.` for an empty cell.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rows: Vec<Vec<u64>> = self
            .to_values()
            .iter()
            .map(|row| row.iter().map(|&v| u64::from(v)).collect())
            .collect();
        // every value has at most 6 digits (131072), so the width is always 6
        super::write_rows(f, &rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(grid: [[u32; 4]; 4]) -> Board {
        Board::from_values(grid).unwrap()
    }

    fn transpose_slow(x: u64) -> u64 {
        let mut out = 0;
        for r in 0..4 {
            for c in 0..4 {
                let nib = (x >> (4 * (4 * r + c))) & 0xf;
                out |= nib << (4 * (4 * c + r));
            }
        }
        out
    }

    #[test]
    fn has_full_nibble_finds_exactly_the_boards_with_a_32768() {
        // every nibble value in every position, and one 15 among others
        for i in 0..16 {
            for e in 0..16u64 {
                let x = e << (4 * i);
                assert_eq!(has_full_nibble(x), e == 15, "{x:016x}");
                let y = x | 0x7e7e_7e7e_7e7e_7e7e & !(0xf << (4 * i));
                assert_eq!(has_full_nibble(y), e == 15, "{y:016x}");
            }
        }
        assert!(!has_full_nibble(0xeeee_eeee_eeee_eeee));
        assert!(has_full_nibble(0xffff_ffff_ffff_ffff));
    }

    #[test]
    fn column_is_the_row_of_the_transpose() {
        // hand-worked: column 1 of rows (0 1 2 3), (4 5 6 7), (8 9 a b), (c d e f) is 1, 5, 9, d
        let x = 0xfedc_ba98_7654_3210u64;
        assert_eq!(column(x, 1), 0xd951);
        assert_eq!(column(x, 3), 0xfb73);
        // every nibble value in every cell, and random boards, against the slow transpose
        let mut y = 0x9e37_79b9_7f4a_7c15u64;
        for i in 0..2000u64 {
            let x = if i < 256 {
                (i & 0xf) << (4 * (i >> 4))
            } else {
                y
            };
            let t = transpose_slow(x);
            for c in 0..4 {
                assert_eq!(column(x, c), (t >> (16 * c)) as u16, "{x:016x} column {c}");
            }
            y = y
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
        }
    }

    #[test]
    fn transpose_matches_slow() {
        let mut x = 0x0123_4567_89ab_cdefu64;
        for _ in 0..1000 {
            assert_eq!(transpose(x), transpose_slow(x));
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
        }
    }

    #[test]
    fn merge_rules_left() {
        let cases = [
            ([2, 2, 4, 4], [4, 8, 0, 0], 12),
            ([2, 2, 2, 2], [4, 4, 0, 0], 8),
            ([4, 2, 2, 0], [4, 4, 0, 0], 4),
            ([2, 0, 2, 4], [4, 4, 0, 0], 4),
        ];
        for (row, want, score) in cases {
            let board = b([row, [0; 4], [0; 4], [0; 4]]);
            let (after, s) = board.apply(Move::Left).unwrap();
            assert_eq!(after.to_values()[0], want, "{row:?}");
            assert_eq!(s, score, "{row:?}");
        }
    }

    #[test]
    fn every_direction() {
        let board = b([[2, 0, 0, 2], [0, 4, 0, 0], [0, 4, 0, 0], [8, 0, 0, 16]]);
        assert_eq!(
            board.apply(Move::Left).unwrap(),
            (
                b([[4, 0, 0, 0], [4, 0, 0, 0], [4, 0, 0, 0], [8, 16, 0, 0]]),
                4
            )
        );
        assert_eq!(
            board.apply(Move::Right).unwrap(),
            (
                b([[0, 0, 0, 4], [0, 0, 0, 4], [0, 0, 0, 4], [0, 0, 8, 16]]),
                4
            )
        );
        assert_eq!(
            board.apply(Move::Up).unwrap(),
            (b([[2, 8, 0, 2], [8, 0, 0, 16], [0; 4], [0; 4]]), 8)
        );
        assert_eq!(
            board.apply(Move::Down).unwrap(),
            (b([[0; 4], [0; 4], [2, 0, 0, 2], [8, 8, 0, 16]]), 8)
        );
    }

    #[test]
    fn big_tiles_exact() {
        let board = b([[32768, 32768, 0, 0], [65536, 65536, 0, 0], [0; 4], [0; 4]]);
        let (after, s) = board.apply(Move::Left).unwrap();
        assert_eq!(after.to_values()[0], [65536, 0, 0, 0]);
        assert_eq!(after.to_values()[1], [131072, 0, 0, 0]);
        assert_eq!(s, 65536 + 131072);
        let col = b([[65536, 0, 0, 0], [32768, 0, 0, 0], [32768, 0, 0, 0], [0; 4]]);
        let (after, s) = col.apply(Move::Up).unwrap();
        assert_eq!(
            after.to_values(),
            b([[65536, 0, 0, 0], [65536, 0, 0, 0], [0; 4], [0; 4]]).to_values()
        );
        assert_eq!(s, 65536);
        let (after, s) = after.apply(Move::Down).unwrap();
        assert_eq!(after.exponent(3, 0), 17);
        assert_eq!(s, 131072);
        // A 65536 next to a 32768 does not merge.
        let mixed = b([[65536, 32768, 0, 0], [0; 4], [0; 4], [0; 4]]);
        assert_eq!(mixed.apply(Move::Left), None);
        assert_eq!(
            mixed.apply(Move::Right).unwrap().0.to_values()[0],
            [0, 0, 65536, 32768]
        );
    }

    #[test]
    fn two_32768_not_adjacent_in_line_use_fast_or_slow_the_same() {
        // Two 32768 in a row but separated by another tile: no merge.
        let board = b([[32768, 2, 32768, 0], [0; 4], [0; 4], [0; 4]]);
        assert_eq!(board.apply(Move::Left), None);
        let (after, s) = board.apply(Move::Right).unwrap();
        assert_eq!(after.to_values()[0], [0, 32768, 2, 32768]);
        assert_eq!(s, 0);
    }

    #[test]
    fn for_each_shifted_is_shifted_in_each_direction() {
        let mut x = 0x0123_4567_89ab_cdefu64;
        let mut boards = vec![
            b([[32768, 32768, 0, 0], [0; 4], [0; 4], [0; 4]]),
            b([[32768, 2, 0, 0], [0; 4], [32768, 0, 0, 0], [0; 4]]),
            b([[65536, 0, 0, 0], [65536, 0, 0, 0], [0; 4], [0; 4]]),
        ];
        for _ in 0..2000 {
            // Random boards of small exponents, some with empty cells and some with 15s.
            let cells = (0..16).fold(0u64, |acc, i| {
                let e = (x >> (4 * i)) & 0xf;
                acc | (if e > 12 && e != 15 { 0 } else { e } << (4 * i))
            });
            boards.push(Board { cells, big: 0 });
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
        }
        for board in boards {
            let mut all = [None; 4];
            board.for_each_shifted(|m, after| all[m.index()] = Some(after));
            assert_eq!(
                all,
                Move::ALL.map(|m| board.shifted(m)),
                "{:016x}",
                board.raw()
            );
        }
    }

    #[test]
    fn illegal_and_game_over() {
        let full = b([[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4], [4, 2, 4, 2]]);
        assert!(full.is_game_over());
        assert_eq!(full.legal_moves().count(), 0);
        let corner = b([[2, 0, 0, 0], [0; 4], [0; 4], [0; 4]]);
        assert_eq!(corner.apply(Move::Left), None);
        assert_eq!(corner.apply(Move::Up), None);
        assert_eq!(
            corner.legal_moves().collect::<Vec<_>>(),
            vec![Move::Down, Move::Right]
        );
        let mergeable = b([[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4], [4, 2, 8, 8]]);
        assert!(!mergeable.is_game_over());
        assert_eq!(
            mergeable.legal_moves().collect::<Vec<_>>(),
            vec![Move::Left, Move::Right]
        );
    }

    #[test]
    fn conversions() {
        let grid = [
            [0, 2, 4, 8],
            [16, 32, 64, 128],
            [256, 512, 1024, 2048],
            [4096, 8192, 65536, 131072],
        ];
        let board = b(grid);
        assert_eq!(board.to_values(), grid);
        assert_eq!(board.to_hex(), "0123456789abcdgh");
        assert_eq!(Board::from_hex("0123456789ABCDGH").unwrap(), board);
        assert_eq!(board.max_value(), 131072);
        assert_eq!(board.count_empty(), 1);
        assert_eq!(board.empty_cells().collect::<Vec<_>>(), vec![(0, 0)]);
        assert!(matches!(
            Board::from_hex("123"),
            Err(BoardError::BadLength { want: 16, got: 3 })
        ));
        assert!(matches!(
            Board::from_hex("000000000000000i"),
            Err(BoardError::BadDigit('i'))
        ));
        assert!(matches!(
            Board::from_values([[3, 0, 0, 0], [0; 4], [0; 4], [0; 4]]),
            Err(BoardError::BadValue {
                row: 0,
                col: 0,
                value: 3,
                ..
            })
        ));
        assert!(Board::from_values([[1, 0, 0, 0], [0; 4], [0; 4], [0; 4]]).is_err());
        assert!(Board::from_values([[262144, 0, 0, 0], [0; 4], [0; 4], [0; 4]]).is_err());
        assert!(Board::from_exponents([[18, 0, 0, 0], [0; 4], [0; 4], [0; 4]]).is_err());
        assert_eq!("Left".parse::<Move>().unwrap(), Move::Left);
        assert!("north".parse::<Move>().is_err());
        assert_eq!(Move::Down.to_string(), "down");
        let shown = b([[2, 0, 0, 0], [0; 4], [0; 4], [0, 0, 0, 2048]]).to_string();
        assert_eq!(shown.lines().next().unwrap(), "     2      .      .      .");
        assert_eq!(shown.lines().nth(3).unwrap(), "     .      .      .   2048");
    }
}
