//! The 2048 model: moves, merges, score, spawns and seeded games, on every board shape.
//!
//! Two boards implement one set of rules, the [`Position`] trait:
//! - [`Board`], the 4×4 bitboard (a `u64` of nibbles and 65,536-entry row tables): the fast path;
//! - [`GridBoard`], any shape of 2 to 9 rows × 2 to 9 columns ([`Shape`]): a byte per cell, exact
//!   and slower, slid line by line through [`slide_line`].
//!
//! Solvers and evaluations are written once, generic over [`Position`], and monomorphised: the
//! 4×4 path pays nothing for the general one. [`AnyBoard`] holds either (a 4×4 board is always a
//! [`Board`]) for the code at the edges (the play loop, the mirror, `sim`, the CLI), which
//! dispatches on the shape once per decision. [`Game`] is a seeded game on any of them, with an
//! optional goal tile.
//!
//! No I/O and no other module of the crate: `solver` builds on this; `vision`/`play` convert their
//! readings into boards through the checked constructors ([`Board::from_values`],
//! [`AnyBoard::from_values`]).
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

mod any;
mod bitboard;
mod grid;
pub mod tables;

pub use any::AnyBoard;
pub use bitboard::{column, max_nibble, transpose, Board};
pub use grid::{slide_line, GridBoard, MAX_CELLS};

/// A direction to slide the tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Move {
    /// Tiles slide toward row 0.
    Up,
    /// Tiles slide toward the last row.
    Down,
    /// Tiles slide toward column 0.
    Left,
    /// Tiles slide toward the last column.
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

/// Why a board, a shape or a move could not be built from the given input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    /// A cell value is neither 0 (empty) nor a power of two from 2 to the shape's largest tile.
    #[error("cell ({row}, {col}) holds {value}: a tile must be 0 (empty) or a power of two from 2 to {max}")]
    BadValue {
        /// Row of the cell, 0 = top.
        row: usize,
        /// Column of the cell, 0 = left.
        col: usize,
        /// The offending value.
        value: u64,
        /// The largest tile value of the board's shape ([`Shape::max_exponent`]).
        max: u64,
    },
    /// A cell exponent is above the shape's largest ([`Shape::max_exponent`]; 17 on 4×4).
    #[error("cell ({row}, {col}) holds exponent {exp}: the largest on this board is {max}")]
    BadExponent {
        /// Row of the cell, 0 = top.
        row: usize,
        /// Column of the cell, 0 = left.
        col: usize,
        /// The offending log2 exponent.
        exp: u8,
        /// The largest exponent of the board's shape.
        max: u8,
    },
    /// A shape outside 2..=9 rows and columns, or a text that is not `RxC`.
    #[error("{0}")]
    BadShape(String),
    /// The number of cells given does not match the shape.
    #[error("a {shape} board has {want} cells, got {got}")]
    WrongCellCount {
        /// The shape.
        shape: Shape,
        /// Cells the shape has.
        want: usize,
        /// Cells given.
        got: usize,
    },
    /// The text form has the wrong number of digits.
    #[error("a board's text form has {want} digits, got {got} characters")]
    BadLength {
        /// Digits the shape needs.
        want: usize,
        /// Characters given.
        got: usize,
    },
    /// The text form holds a character that is not a board digit.
    #[error("{0:?} is not a board digit (0-9, a-z, A-Z, +, / for exponents 0..=63)")]
    BadDigit(char),
    /// A move name that is not up, down, left or right.
    #[error("{0:?} is not a move (up, down, left, right)")]
    BadMove(String),
    /// A goal tile that is not a power of two from 4 to the shape's largest tile.
    #[error("a goal tile must be a power of two from 4 to {max} on this board, got {tile}")]
    BadGoal {
        /// The goal asked for.
        tile: u64,
        /// The shape's largest tile value.
        max: u64,
    },
}

/// The shape of a board: `rows` × `cols`, each from [`Shape::MIN_SIDE`] to [`Shape::MAX_SIDE`].
///
/// `Shape` values exist only through [`Shape::new`] (or [`Shape::FOUR`]), so a shape in hand is
/// always valid. Text form `RxC` (`4x4`, `3x5`); [`FromStr`] also takes a single `N` for `NxN`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Shape {
    rows: u8,
    cols: u8,
}

impl Shape {
    /// The fewest rows or columns: 2 (a 2×2 game is still 2048's rules).
    pub const MIN_SIDE: usize = 2;
    /// The most rows or columns: 9 (gnome-2048's largest).
    pub const MAX_SIDE: usize = 9;
    /// The classic 4×4 shape.
    pub const FOUR: Shape = Shape { rows: 4, cols: 4 };

    /// A shape of `rows` × `cols`.
    ///
    /// # Errors
    /// [`BoardError::BadShape`] when a side is outside 2..=9.
    pub fn new(rows: usize, cols: usize) -> Result<Shape, BoardError> {
        let ok = |n: usize| (Self::MIN_SIDE..=Self::MAX_SIDE).contains(&n);
        if ok(rows) && ok(cols) {
            Ok(Shape {
                rows: rows as u8,
                cols: cols as u8,
            })
        } else {
            Err(BoardError::BadShape(format!(
                "a {rows}x{cols} board is not supported: rows and columns must be {} to {}",
                Self::MIN_SIDE,
                Self::MAX_SIDE
            )))
        }
    }

    /// Number of rows.
    #[inline]
    pub fn rows(self) -> usize {
        self.rows as usize
    }

    /// Number of columns.
    #[inline]
    pub fn cols(self) -> usize {
        self.cols as usize
    }

    /// Number of cells, `rows × cols` (4 to 81).
    #[inline]
    pub fn cells(self) -> usize {
        self.rows() * self.cols()
    }

    /// True for 4×4, the shape of the bitboard [`Board`].
    #[inline]
    pub fn is_four(self) -> bool {
        self == Shape::FOUR
    }

    /// The largest tile exponent this shape can hold: `cells + 1`, at most 63.
    ///
    /// Every cell full in a descending chain plus a new 4 can make at most 2^(cells+1) (131072 on
    /// 4×4, 1024 on 3×3); two tiles of this exponent never merge (so tile values fit a `u64`).
    #[inline]
    pub fn max_exponent(self) -> u8 {
        (self.cells() + 1).min(63) as u8
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.rows, self.cols)
    }
}

impl FromStr for Shape {
    type Err = BoardError;

    /// `RxC` (also `R×C`, any case of `x`) or a single `N` for `NxN`.
    fn from_str(s: &str) -> Result<Shape, BoardError> {
        let bad = || {
            BoardError::BadShape(format!(
                "{s:?} is not a board size: write ROWSxCOLS (e.g. 4x4, 3x5) or N for NxN"
            ))
        };
        let t = s.trim().to_ascii_lowercase().replace('×', "x");
        let (r, c) = match t.split_once('x') {
            Some((r, c)) => (r.trim().parse(), c.trim().parse()),
            None => (t.parse(), t.parse()),
        };
        Shape::new(r.map_err(|_| bad())?, c.map_err(|_| bad())?)
    }
}

impl TryFrom<String> for Shape {
    type Error = BoardError;
    fn try_from(s: String) -> Result<Shape, BoardError> {
        s.parse()
    }
}

impl From<Shape> for String {
    fn from(s: Shape) -> String {
        s.to_string()
    }
}

/// The rules of 2048 on one board type: what solvers and evaluations are written against.
///
/// Cells are indexed in reading order, `index = row * cols + col`, row 0 on top; a cell holds a
/// log2 exponent (0 = empty, `e` = a tile of value 2^e, at most [`Shape::max_exponent`]). A move
/// slides every line toward one side, equal neighbours merge (each tile at most once per move,
/// pairs taken from the side the tiles move toward), and the merge score is the sum of the values
/// of the tiles made. A move is legal exactly when it changes the board. No method spawns except
/// [`Position::spawn_by`].
///
/// Implemented by [`Board`] (4×4, the fast path), [`GridBoard`] (any shape) and [`AnyBoard`]
/// (either, dispatching per call: for the edges, not for search).
pub trait Position: Copy + PartialEq + fmt::Debug + Send + Sync + 'static {
    /// The board's shape.
    fn shape(&self) -> Shape;

    /// This board type's copy of `board`, or `None` when it cannot hold that board (the
    /// bitboard holds only 4×4 boards; [`GridBoard`] and [`AnyBoard`] hold every board).
    fn from_any(board: &AnyBoard) -> Option<Self>;

    /// The exponent of cell `index` (reading order), 0 = empty.
    ///
    /// # Panics
    /// If `index` is not below `shape().cells()`.
    fn exponent_at(&self, index: usize) -> u8;

    /// The board after move `m` and the merge score (points), or `None` when the move changes
    /// nothing (an illegal move). No tile is spawned.
    fn apply(self, m: Move) -> Option<(Self, u64)>;

    /// The board after move `m` without the score, or `None` when it changes nothing; the same
    /// board as [`Position::apply`] (the search's hot path).
    fn shifted(self, m: Move) -> Option<Self>;

    /// The four afterstates in [`Move::ALL`] order (`None` for an illegal move). A board type may
    /// share work between the four (the bitboard makes them together, one lookup a line).
    #[inline]
    fn afterstates(self) -> [Option<Self>; 4] {
        Move::ALL.map(|m| self.shifted(m))
    }

    /// Calls `f(m, board after m)` for each legal move `m`, in [`Move::ALL`] order (the search's
    /// max nodes; the bitboard makes the four moves together without an array of results).
    #[inline]
    fn for_each_afterstate(self, mut f: impl FnMut(Move, Self)) {
        for (m, after) in Move::ALL.into_iter().zip(self.afterstates()) {
            if let Some(after) = after {
                f(m, after);
            }
        }
    }

    /// The number of empty cells.
    fn count_empty(self) -> u32;

    /// The empty cells' indices, ascending (allocation-free; chance nodes iterate these).
    fn empties(self) -> impl Iterator<Item = usize>;

    /// A copy with a new tile of exponent `exp` (1 = a 2, 2 = a 4) on the empty cell `index`.
    /// The cell must be empty and `exp` small (a spawn); checked only in debug builds.
    fn with_new_tile(self, index: usize, exp: u8) -> Self;

    /// The largest exponent on the board, 0 when empty.
    fn max_exponent(self) -> u8;

    /// A 64-bit key for transposition tables: equal boards give equal keys; `None` when this
    /// board must not be cached (the bitboard's boards with a tile beyond 32768, whose nibbles
    /// alone are not exact). For [`Board`] the key is the board itself (no collisions); for
    /// [`GridBoard`] it is a 64-bit hash (a collision, about 2^-64 per pair, would merge two
    /// boards' values).
    fn table_key(self) -> Option<u64>;

    /// True when no move is legal.
    #[inline]
    fn is_game_over(self) -> bool {
        self.afterstates().iter().all(Option::is_none)
    }

    /// The legal moves, in [`Move::ALL`] order.
    fn legal_moves(self) -> impl Iterator<Item = Move> {
        let after = self.afterstates();
        Move::ALL
            .into_iter()
            .filter(move |m| after[m.index()].is_some())
    }

    /// The largest tile value on the board, 0 when empty.
    fn max_value(self) -> u64 {
        match self.max_exponent() {
            0 => 0,
            e => 1u64 << e,
        }
    }

    /// A copy with one new tile on a uniformly chosen empty cell under `rule` (classic: a 2 with
    /// probability 0.9, a 4 with 0.1; twos-only: a 2). A full board is returned unchanged.
    ///
    /// Draws `random_range(0..empty)` for the cell, then (classic only) `random_range(0..10)` for
    /// the value, so a seeded game replays the same on every board type.
    fn spawn_by<R: Rng + ?Sized>(self, rng: &mut R, rule: SpawnRule) -> Self {
        let n = self.count_empty();
        if n == 0 {
            return self;
        }
        let k = rng.random_range(0..n) as usize;
        let index = self.empties().nth(k).expect("k < number of empty cells");
        let exp = match rule {
            SpawnRule::Classic if rng.random_range(0..10) == 0 => 2,
            _ => 1,
        };
        self.with_new_tile(index, exp)
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
    pub const fn four_probability(self) -> f32 {
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

/// A seeded game on the engine: the board, the score, the moves played, and an optional goal.
///
/// Randomness (the spawns) comes from a ChaCha8 generator seeded by `seed`, so the same seed and
/// the same moves replay the same game exactly, on every board type: a 4×4 game gives the same
/// spawns as a [`Board`], a [`GridBoard`] or an [`AnyBoard`].
#[derive(Clone, Debug)]
pub struct Game<P: Position = Board> {
    board: P,
    score: u64,
    moves: u32,
    seed: u64,
    rng: ChaCha8Rng,
    rule: SpawnRule,
    goal: Option<u8>,
}

impl Game<Board> {
    /// A new 4×4 game: a start position (two spawns) drawn from `seed`, under the classic rule.
    pub fn new(seed: u64) -> Game<Board> {
        Game::with_rule(seed, SpawnRule::Classic)
    }

    /// A new 4×4 game whose spawns (two at the start, then one after each move) follow `rule`.
    pub fn with_rule(seed: u64, rule: SpawnRule) -> Game<Board> {
        Game::from_empty(Board::EMPTY, seed, rule)
    }
}

impl Game<AnyBoard> {
    /// A new game on a board of `shape` (a [`Board`] inside when 4×4).
    pub fn with_shape(shape: Shape, seed: u64, rule: SpawnRule) -> Game<AnyBoard> {
        Game::from_empty(AnyBoard::empty(shape), seed, rule)
    }
}

impl<P: Position> Game<P> {
    /// A new game from the board `empty` (normally empty): two spawns drawn from `seed`.
    pub fn from_empty(empty: P, seed: u64, rule: SpawnRule) -> Game<P> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let board = empty.spawn_by(&mut rng, rule).spawn_by(&mut rng, rule);
        Game {
            board,
            score: 0,
            moves: 0,
            seed,
            rng,
            rule,
            goal: None,
        }
    }

    /// Where the game stands ([`GameState`]): [`Game::resume`] plays it on from there with the
    /// spawns it would have had.
    pub fn state(&self) -> GameState<P> {
        GameState {
            board: self.board,
            score: self.score,
            moves: self.moves,
            seed: self.seed,
            spawn_position: self.rng.get_word_pos(),
            rule: self.rule,
        }
    }

    /// The game that stood at `state`, no goal: the same moves from here meet the same spawns
    /// as the game `state` was taken from.
    pub fn resume(state: &GameState<P>) -> Game<P> {
        let mut rng = ChaCha8Rng::seed_from_u64(state.seed);
        rng.set_word_pos(state.spawn_position);
        Game {
            board: state.board,
            score: state.score,
            moves: state.moves,
            seed: state.seed,
            rng,
            rule: state.rule,
            goal: None,
        }
    }

    /// The same game with a goal tile of value `tile` (a power of two, e.g. 2048, or 1024 for the
    /// 1024 game): once a tile of at least that value is made, [`Game::is_won`] is true.
    ///
    /// # Errors
    /// [`BoardError::BadGoal`] when `tile` is not a power of two from 4 to the shape's largest.
    pub fn with_goal(mut self, tile: u64) -> Result<Game<P>, BoardError> {
        self.goal = Some(goal_exponent(self.board.shape(), tile)?);
        Ok(self)
    }

    /// The current board.
    pub fn board(&self) -> P {
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

    /// The spawn rule of the game.
    pub fn rule(&self) -> SpawnRule {
        self.rule
    }

    /// The goal tile's exponent, if the game has one.
    pub fn goal(&self) -> Option<u8> {
        self.goal
    }

    /// True when no move is legal.
    pub fn is_over(&self) -> bool {
        self.board.is_game_over()
    }

    /// True when the game has a goal and a tile of at least that value is on the board.
    pub fn is_won(&self) -> bool {
        self.goal.is_some_and(|g| self.board.max_exponent() >= g)
    }

    /// Plays `m`, then spawns a tile; returns the move's merge score, or `None` (and changes
    /// nothing) when `m` is illegal.
    pub fn play(&mut self, m: Move) -> Option<u64> {
        let (after, gained) = self.board.apply(m)?;
        self.board = after.spawn_by(&mut self.rng, self.rule);
        self.score += gained;
        self.moves += 1;
        Some(gained)
    }
}

/// A game's position taken by [`Game::state`]: its board, score and moves, and where its spawns
/// stand, so that [`Game::resume`] plays it on exactly as it would have gone (`sim --games-out`
/// keeps one for each of a game's last largest tiles; `sim --resume` plays from them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameState<P: Position = Board> {
    /// The board, after the last spawn.
    pub board: P,
    /// The score so far (points).
    pub score: u64,
    /// Moves played so far.
    pub moves: u32,
    /// The game's seed ([`Game::from_empty`]).
    pub seed: u64,
    /// The position of the game's spawn generator (ChaCha8) in its stream, in 32-bit words.
    pub spawn_position: u128,
    /// The game's spawn rule.
    pub rule: SpawnRule,
}

/// Writes `rows` one line a row (no newline after the last), each value right-aligned to the
/// widest value's width (at least 6), `.` for an empty cell: the text form of every board.
pub(crate) fn write_rows(f: &mut fmt::Formatter<'_>, rows: &[Vec<u64>]) -> fmt::Result {
    let width = rows
        .iter()
        .flatten()
        .map(|v| v.to_string().len())
        .max()
        .unwrap_or(1)
        .max(6);
    for (r, row) in rows.iter().enumerate() {
        if r > 0 {
            writeln!(f)?;
        }
        for (c, &v) in row.iter().enumerate() {
            if c > 0 {
                f.write_str(" ")?;
            }
            if v == 0 {
                write!(f, "{:>width$}", ".")?;
            } else {
                write!(f, "{v:>width$}")?;
            }
        }
    }
    Ok(())
}

/// The exponent of a goal tile of value `tile` on `shape`.
///
/// # Errors
/// [`BoardError::BadGoal`] when `tile` is not a power of two from 4 to the shape's largest tile.
pub fn goal_exponent(shape: Shape, tile: u64) -> Result<u8, BoardError> {
    let max = shape.max_exponent();
    if tile.is_power_of_two() && tile >= 4 && tile.trailing_zeros() as u8 <= max {
        Ok(tile.trailing_zeros() as u8)
    } else {
        Err(BoardError::BadGoal {
            tile,
            max: 1u64 << max,
        })
    }
}
