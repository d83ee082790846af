//! The 2048 model: a 4×4 bitboard with row tables, moves, merges, score, spawn and seeded games.
//!
//! No I/O and no other module of the crate: `solver` builds on this; `vision`/`play` convert their
//! readings into a [`Board`] through the checked constructors ([`Board::from_values`]).
//!
//! ```
//! use bot2048::engine::{Board, Move};
//! let b = Board::from_values([[2, 2, 4, 4], [0; 4], [0; 4], [0; 4]]).unwrap();
//! let (after, score) = b.apply(Move::Left).unwrap();
//! assert_eq!(after.to_values()[0], [4, 8, 0, 0]);
//! assert_eq!(score, 12);
//! ```
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

pub mod tables;

use tables::{slide_row_slow, COL_DOWN, COL_UP, LINE_SCORE, MAX_EXPONENT, ROW_LEFT, ROW_RIGHT};

/// A direction to slide the tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Move {
    /// Tiles slide toward row 0.
    Up,
    /// Tiles slide toward row 3.
    Down,
    /// Tiles slide toward column 0.
    Left,
    /// Tiles slide toward column 3.
    Right,
}

impl Move {
    /// All four moves, in the order used for indices ([`Move::index`]) and value arrays.
    pub const ALL: [Move; 4] = [Move::Up, Move::Down, Move::Left, Move::Right];

    /// This move's position in [`Move::ALL`] (Up 0, Down 1, Left 2, Right 3).
    #[inline]
    pub fn index(self) -> usize {
        match self {
            Move::Up => 0,
            Move::Down => 1,
            Move::Left => 2,
            Move::Right => 3,
        }
    }

    /// The lowercase name: "up", "down", "left", "right".
    pub fn name(self) -> &'static str {
        match self {
            Move::Up => "up",
            Move::Down => "down",
            Move::Left => "left",
            Move::Right => "right",
        }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Move {
    type Err = BoardError;

    /// Parses "up"/"down"/"left"/"right" (any case; also "u", "d", "l", "r").
    fn from_str(s: &str) -> Result<Move, BoardError> {
        match s.to_ascii_lowercase().as_str() {
            "up" | "u" => Ok(Move::Up),
            "down" | "d" => Ok(Move::Down),
            "left" | "l" => Ok(Move::Left),
            "right" | "r" => Ok(Move::Right),
            _ => Err(BoardError::BadMove(s.to_string())),
        }
    }
}

/// Why a board or a move could not be built from the given input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    /// A cell value is neither 0 (empty) nor a power of two in 2..=131072.
    #[error("cell ({row}, {col}) holds {value}: a tile must be 0 (empty) or a power of two from 2 to 131072")]
    BadValue {
        /// Row of the cell, 0 = top.
        row: usize,
        /// Column of the cell, 0 = left.
        col: usize,
        /// The offending value.
        value: u32,
    },
    /// A cell exponent is above 17 (131072).
    #[error("cell ({row}, {col}) holds exponent {exp}: the largest is 17 (131072)")]
    BadExponent {
        /// Row of the cell, 0 = top.
        row: usize,
        /// Column of the cell, 0 = left.
        col: usize,
        /// The offending log2 exponent.
        exp: u8,
    },
    /// The text form does not have 16 digits.
    #[error("a board's text form has 16 digits (0-9, a-h), got {0} characters")]
    BadLength(usize),
    /// The text form holds a character that is not a digit 0-9 or a-h.
    #[error("{0:?} is not a board digit (0-9, a-h = exponents 0..=17)")]
    BadDigit(char),
    /// A move name that is not up, down, left or right.
    #[error("{0:?} is not a move (up, down, left, right)")]
    BadMove(String),
}

/// A 4×4 2048 board, exact for tiles up to 131072 (log2 exponent 17). `Copy`, 16 bytes.
///
/// Representation: `cells` is a `u64` of sixteen 4-bit log2 exponents (0 = empty, `e` = a tile of
/// value 2^e); the cell at (row `r`, column `c`), row 0 on top and column 0 on the left, is the
/// nibble at bit shift `4 * (4 * r + c)`, so row `r` is the 16 bits at `16 * r`. A nibble caps at
/// 15 (32768); the two larger tiles, 65536 and 131072, keep 15 in their nibble (so fast code such
/// as the heuristic sees them as at least 32768) and are marked in `big`, two bits per cell at
/// shift `2 * (4 * r + c)`: 1 = exponent 16, 2 = exponent 17, 0 = the nibble is exact.
///
/// Moves use 65,536-entry row tables ([`tables`]) and a transpose for up/down. A board with a
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
/// Two steps of masked shifts: first the off-diagonal cells of each 2×2 block trade places
/// (3 nibbles = 12 bits apart), then the off-diagonal 2×2 blocks do (6 nibbles = 24 bits apart).
#[inline(always)]
pub const fn transpose(x: u64) -> u64 {
    let keep = x & 0xF0F0_0F0F_F0F0_0F0F;
    let up = x & 0x0000_F0F0_0000_F0F0;
    let down = x & 0x0F0F_0000_0F0F_0000;
    let a = keep | (up << 12) | (down >> 12);
    let keep = a & 0xFF00_FF00_00FF_00FF;
    let up = a & 0x0000_0000_FF00_FF00;
    let down = a & 0x00FF_00FF_0000_0000;
    keep | (up << 24) | (down >> 24)
}

/// One bit (the low bit of the nibble) for each cell whose nibble is 0xF.
#[inline(always)]
const fn nibbles_full(x: u64) -> u64 {
    x & (x >> 1) & (x >> 2) & (x >> 3) & LOW_BITS
}

/// One bit (the low bit of the nibble) for each empty cell.
#[inline(always)]
const fn nibbles_empty(x: u64) -> u64 {
    let y = x | (x >> 2);
    let y = y | (y >> 1);
    !y & LOW_BITS
}

/// The four rows of `x` through a row table.
#[inline(always)]
fn rows_through(x: u64, table: &[u16; 65536]) -> u64 {
    table[(x & 0xffff) as usize] as u64
        | (table[((x >> 16) & 0xffff) as usize] as u64) << 16
        | (table[((x >> 32) & 0xffff) as usize] as u64) << 32
        | (table[(x >> 48) as usize] as u64) << 48
}

/// The four columns of the board whose transpose is `t` through a column table.
#[inline(always)]
fn cols_through(t: u64, table: &[u64; 65536]) -> u64 {
    table[(t & 0xffff) as usize]
        | table[((t >> 16) & 0xffff) as usize] << 4
        | table[((t >> 32) & 0xffff) as usize] << 8
        | table[(t >> 48) as usize] << 12
}

/// The merge score of the four lines (rows of `x`), in points.
#[inline(always)]
fn lines_score(x: u64) -> u32 {
    4 * (LINE_SCORE[(x & 0xffff) as usize] as u32
        + LINE_SCORE[((x >> 16) & 0xffff) as usize] as u32
        + LINE_SCORE[((x >> 32) & 0xffff) as usize] as u32
        + LINE_SCORE[(x >> 48) as usize] as u32)
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
                            value,
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
    pub fn apply(self, m: Move) -> Option<(Board, u32)> {
        if self.needs_slow_path(m) {
            return self.apply_slow(m);
        }
        let (cells, score) = match m {
            Move::Left => (rows_through(self.cells, &ROW_LEFT), lines_score(self.cells)),
            Move::Right => (
                rows_through(self.cells, &ROW_RIGHT),
                lines_score(self.cells),
            ),
            Move::Up => {
                let t = transpose(self.cells);
                (cols_through(t, &COL_UP), lines_score(t))
            }
            Move::Down => {
                let t = transpose(self.cells);
                (cols_through(t, &COL_DOWN), lines_score(t))
            }
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
            Move::Left => rows_through(self.cells, &ROW_LEFT),
            Move::Right => rows_through(self.cells, &ROW_RIGHT),
            Move::Up => cols_through(transpose(self.cells), &COL_UP),
            Move::Down => cols_through(transpose(self.cells), &COL_DOWN),
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
    fn apply_slow(self, m: Move) -> Option<(Board, u32)> {
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
            score += s;
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

    /// True when no move is legal.
    pub fn is_game_over(self) -> bool {
        self.legal_moves().next().is_none()
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
    pub fn empty_indices(self) -> impl Iterator<Item = usize> {
        let mut mask = nibbles_empty(self.cells);
        std::iter::from_fn(move || {
            if mask == 0 {
                return None;
            }
            let i = (mask.trailing_zeros() / 4) as usize;
            mask &= mask - 1;
            Some(i)
        })
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
        (0..16)
            .map(|i| self.exponent(i / 4, i % 4))
            .max()
            .unwrap_or(0)
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
        let n = self.count_empty();
        if n == 0 {
            return self;
        }
        let k = rng.random_range(0..n) as usize;
        let (r, c) = self
            .empty_cells()
            .nth(k)
            .expect("k < number of empty cells");
        let exp = match rule {
            SpawnRule::Classic if rng.random_range(0..10) == 0 => 2,
            _ => 1,
        };
        self.with_exponent(r, c, exp)
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
            return Err(BoardError::BadLength(n));
        }
        let mut b = Board::EMPTY;
        for (i, ch) in s.chars().enumerate() {
            let e = ch.to_digit(18).ok_or(BoardError::BadDigit(ch))? as u8;
            b = b.with_exponent(i / 4, i % 4, e);
        }
        Ok(b)
    }
}

impl fmt::Display for Board {
    /// Four lines of four right-aligned values, `.` for an empty cell.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (r, row) in self.to_values().iter().enumerate() {
            if r > 0 {
                writeln!(f)?;
            }
            for (c, &v) in row.iter().enumerate() {
                if c > 0 {
                    f.write_str(" ")?;
                }
                if v == 0 {
                    write!(f, "{:>6}", ".")?;
                } else {
                    write!(f, "{v:>6}")?;
                }
            }
        }
        Ok(())
    }
}

/// Which tiles a game spawns after each move (and at the start).
///
/// The original game (and the web game, and 2048-qt: `Math.random() < 0.9 ? 2 : 4`) spawns a 2
/// with probability 0.9 and a 4 with probability 0.1. gnome-2048 spawns only 2s: in a recorded
/// game of 4,207 moves every one of its 4,207 new tiles was a 2 (under the 0.9/0.1 rule the
/// chance of that is 0.9^4207, about 1e-193).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SpawnRule {
    /// 90 % a 2, 10 % a 4.
    #[default]
    Classic,
    /// Always a 2 (gnome-2048).
    TwosOnly,
}

impl SpawnRule {
    /// The probability that a new tile is a 4: 0.1 or 0.0.
    pub fn four_probability(self) -> f32 {
        match self {
            SpawnRule::Classic => 0.1,
            SpawnRule::TwosOnly => 0.0,
        }
    }
}

impl fmt::Display for SpawnRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SpawnRule::Classic => "classic",
            SpawnRule::TwosOnly => "twos-only",
        })
    }
}

impl FromStr for SpawnRule {
    type Err = String;

    /// `classic` or `twos-only` (also `twos`).
    fn from_str(s: &str) -> Result<SpawnRule, String> {
        match s.to_ascii_lowercase().as_str() {
            "classic" => Ok(SpawnRule::Classic),
            "twos-only" | "twos" => Ok(SpawnRule::TwosOnly),
            _ => Err(format!(
                "unknown spawn rule `{s}` (known: classic, twos-only)"
            )),
        }
    }
}

/// A seeded game on the engine: the board, the score and the number of moves played.
///
/// Randomness (the spawns) comes from a ChaCha8 generator seeded by `seed`, so the same seed and
/// the same moves replay the same game exactly.
#[derive(Clone, Debug)]
pub struct Game {
    board: Board,
    score: u64,
    moves: u32,
    rng: ChaCha8Rng,
    rule: SpawnRule,
}

impl Game {
    /// A new game: a start position (two spawns) drawn from `seed`, under the classic spawn rule.
    pub fn new(seed: u64) -> Game {
        Game::with_rule(seed, SpawnRule::Classic)
    }

    /// A new game whose spawns (the two at the start, then one after each move) follow `rule`.
    pub fn with_rule(seed: u64, rule: SpawnRule) -> Game {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let board = Board::EMPTY
            .spawn_by(&mut rng, rule)
            .spawn_by(&mut rng, rule);
        Game {
            board,
            score: 0,
            moves: 0,
            rng,
            rule,
        }
    }

    /// The current board.
    pub fn board(&self) -> Board {
        self.board
    }

    /// The score: the sum of all merge scores so far.
    pub fn score(&self) -> u64 {
        self.score
    }

    /// The number of moves played.
    pub fn moves(&self) -> u32 {
        self.moves
    }

    /// True when no move is legal.
    pub fn is_over(&self) -> bool {
        self.board.is_game_over()
    }

    /// Plays `m`, then spawns a tile; returns the move's merge score, or `None` (and changes
    /// nothing) when `m` is illegal.
    pub fn play(&mut self, m: Move) -> Option<u32> {
        let (after, gained) = self.board.apply(m)?;
        self.board = after.spawn_by(&mut self.rng, self.rule);
        self.score += gained as u64;
        self.moves += 1;
        Some(gained)
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
            Err(BoardError::BadLength(3))
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
                value: 3
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
