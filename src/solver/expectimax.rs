//! Expectimax search, the default solver.
//!
//! After nneonneo/2048-ai (`2048.cpp`: `score_move_node`, `score_tilechoose_node`,
//! `score_toplevel_move`), read and rewritten, not ported:
//! - max node: the best of the legal moves (a dead board is worth 0, far below any live board,
//!   whose heuristic carries [`super::heuristic::LOST_PENALTY`] per line);
//! - chance node: the average over every empty cell of 0.9 · (a 2 there) + 0.1 · (a 4 there)
//!   (under [`SpawnRule::TwosOnly`], gnome-2048's rule: a 2 there, and half the nodes);
//! - a chance node whose cumulative probability falls below [`CPROB_THRESHOLD`] (1e-4), or that
//!   lies at the depth limit, is valued by the solver's evaluation ([`Evaluator::evaluate`]: the
//!   heuristic by default, or another, such as a learned network); at any depth, an evaluation
//!   that knows a chance node's value outright ([`Evaluator::exact`]: the endgame tables) answers
//!   it without a search below;
//! - a transposition table keyed by the board, holding the value and the depth still to search;
//! - depth adapted to the position: `max(3, distinct tiles − 2)` moves beyond the root move;
//! - one move deeper on a root board with fewer than [`EXTEND_BELOW`] empty cells (our own
//!   selective extension: the narrow, dangerous boards get the depth; any depth the budget sets);
//! - an optional time budget per move (iterative deepening, aborting a depth that overruns);
//! - root moves searched in parallel with rayon (switchable: [`Expectimax::with_root_parallel`]).
//!
//! Unlike the C++ original: moves are a [`crate::engine::Move`] enum and an illegal move is `None` (no `+1e-6`),
//! one transposition table is allocated once per solver and reused across moves (no new map per
//! root move), tiles beyond 32768 are exact (the engine's slow path), and the search is generic
//! over the board ([`Position`]: the 4×4 bitboard or any R×C grid) and the evaluation
//! ([`Evaluator`]: the heuristic, or a learned one). On larger boards the probability cutoff
//! prunes more (each spawn of an empty 9×9 board has probability below 0.9/80), so the depth that
//! fits a time budget adapts by itself.
use super::config::{OptionInfo, OptionValues, SolverConfig, SolverInfo};
use super::evaluation::{dispatch, Build};
use super::{board_for, Budget, Decision, Evaluator, PonderReport, Solver, SolverError};
use crate::engine::{AnyBoard, Position, Shape, SpawnRule};
use rayon::prelude::*;
use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The registry entry.
pub const INFO: SolverInfo = SolverInfo {
    name: "expectimax",
    summary: "expectimax over spawns with a transposition table and a probability cutoff (default)",
    source: "nneonneo/2048-ai (2048.cpp); articles 001 and 002 (depth-2/3 sketches)",
    work: Some("depth in moves beyond the root move (0 = one ply), at most 12; default: max(3, distinct tiles - 2) within 20 ms (under 16 cells: as deep as 20 ms allows); one more on a board with fewer than 4 empty cells (--opt extend-below), two more with fewer than 2 (--opt extend-twice-below)"),
    uses_evaluation: true,
    options: &[
        OptionInfo {
            key: "cprob",
            default: "0.0001",
            help: "a chance node whose probability falls below this is evaluated statically",
        },
        OptionInfo {
            key: "table-bits",
            default: "21",
            help: "log2 of the transposition table's slots (16 bytes each; 21 = 32 MiB), 10 to 28",
        },
        OptionInfo {
            key: "extend-below",
            default: "4",
            help: "a board with fewer empty cells than this is searched one move deeper than the depth asked (--depth, the default depth, --time-ms's cap); 0: never",
        },
        OptionInfo {
            key: "extend-twice-below",
            default: "2",
            help: "a board with fewer empty cells than this is searched one more move deeper, added to extend-below's move (each rule adds its own: below both, two moves deeper than asked); 0: never",
        },
        OptionInfo {
            key: "table-margin",
            default: "0",
            help: "on a board a table covers (--eval tables, middle, corner-middle, auto), the moves whose chance of success is within this of the best are searched to choose among them (0 to 1; 0: the table's move, exact ties searched)",
        },
        OptionInfo {
            key: "table-floor",
            default: "0",
            help: "on a board a table covers, a best chance of success below this leaves the board to the search, every legal move (0 to 1; 0: the table decides whenever it covers)",
        },
    ],
    build: build_expectimax,
};

/// Typed options of [`Expectimax`] (see [`INFO`] for their command-line keys).
#[derive(Clone, Debug)]
pub struct ExpectimaxOptions {
    /// The spawn rule assumed at chance nodes.
    pub spawn: SpawnRule,
    /// Probability cutoff ([`CPROB_THRESHOLD`] by default).
    pub cprob: f32,
    /// log2 of the transposition table's slot count ([`TABLE_BITS`] by default).
    pub table_bits: u32,
    /// Search the root moves on rayon's threads in parallel.
    pub root_parallel: bool,
    /// A root board with fewer empty cells than this is searched one move deeper than the
    /// budget's depth (0: never; [`EXTEND_BELOW`] by default).
    pub extend_below: u32,
    /// A root board with fewer empty cells than this is searched one more move deeper, added to
    /// [`ExpectimaxOptions::extend_below`]'s (each rule adds its own move, so a board below both
    /// is searched two moves deeper; 0: never; [`EXTEND_TWICE_BELOW`] by default).
    pub extend_twice_below: u32,
    /// On a board the evaluation decides exactly ([`Evaluator::decide_exactly`]), the moves whose
    /// chance of success is within this probability of the best are searched to choose among
    /// them; a lone best move is played outright ([`TABLE_MARGIN`] by default).
    pub table_margin: f32,
    /// On a board the evaluation decides exactly, a best chance below this leaves the board to
    /// the search over every legal move: a table's chance counts a block disturbed as a failure,
    /// which the game is not ([`TABLE_FLOOR`] by default).
    pub table_floor: f32,
}

impl Default for ExpectimaxOptions {
    fn default() -> ExpectimaxOptions {
        ExpectimaxOptions {
            spawn: SpawnRule::Classic,
            cprob: CPROB_THRESHOLD,
            table_bits: TABLE_BITS,
            root_parallel: true,
            extend_below: EXTEND_BELOW,
            extend_twice_below: EXTEND_TWICE_BELOW,
            table_margin: TABLE_MARGIN,
            table_floor: TABLE_FLOOR,
        }
    }
}

impl ExpectimaxOptions {
    /// The options of `config`.
    ///
    /// # Errors
    /// [`SolverError::BadOption`] for an unknown key or a value out of range.
    pub fn from_config(config: &SolverConfig) -> Result<ExpectimaxOptions, SolverError> {
        let v = OptionValues::new(&INFO, &config.options)?;
        let cprob: f32 = v.get("cprob")?;
        let table_bits: u32 = v.get("table-bits")?;
        let table_margin: f32 = v.get("table-margin")?;
        let table_floor: f32 = v.get("table-floor")?;
        let extend_below: u32 = v.get("extend-below")?;
        let extend_twice_below: u32 = v.get("extend-twice-below")?;
        let bad = |message: String| SolverError::BadOption {
            solver: INFO.name.into(),
            message,
        };
        if !(0.0..1.0).contains(&cprob) {
            return Err(bad(format!("cprob={cprob} must be in 0..1")));
        }
        if !(10..=28).contains(&table_bits) {
            return Err(bad(format!("table-bits={table_bits} must be 10 to 28")));
        }
        if !(0.0..=1.0).contains(&table_margin) {
            return Err(bad(format!("table-margin={table_margin} must be in 0..=1")));
        }
        if !(0.0..=1.0).contains(&table_floor) {
            return Err(bad(format!("table-floor={table_floor} must be in 0..=1")));
        }
        Ok(ExpectimaxOptions {
            spawn: config.spawn,
            cprob,
            table_bits,
            root_parallel: config.parallel,
            extend_below,
            extend_twice_below,
            table_margin,
            table_floor,
        })
    }
}

struct ExpectimaxBuild(Shape, ExpectimaxOptions);

impl Build for ExpectimaxBuild {
    const SOLVER: &'static str = INFO.name;

    fn build<P: Position, E: Evaluator<P> + 'static>(self, eval: E) -> Box<dyn Solver> {
        Box::new(Expectimax::<P, E>::new(self.0, self.1, eval))
    }
}

fn build_expectimax(config: &SolverConfig) -> Result<Box<dyn Solver>, SolverError> {
    let opts = ExpectimaxOptions::from_config(config)?;
    dispatch(config, ExpectimaxBuild(config.shape, opts))
}

/// Cumulative spawn probability below which a chance node is evaluated statically (nneonneo's
/// `CPROB_THRESH_BASE`).
pub const CPROB_THRESHOLD: f32 = 1e-4;
/// The adaptive depth is never below this (nneonneo: 3).
pub const MIN_ADAPTIVE_DEPTH: u32 = 3;
/// Adaptive depth = distinct tiles minus this (nneonneo: 2).
pub const DISTINCT_TILES_OFFSET: u32 = 2;
/// The deepest search when only a time budget is given.
pub const MAX_DEPTH: u32 = 12;
/// Default time budget per move in milliseconds, used when neither a depth nor a time is given;
/// the adaptive depth is searched unless it overruns this (then the last depth completed counts).
pub const DEFAULT_TIME_MS: u64 = 20;
/// Assumed cost ratio of depth d+1 to depth d before two depths have been timed.
pub const DEFAULT_GROWTH: f64 = 8.0;
/// log2 of the number of transposition-table slots (16 bytes each: 2^21 slots = 32 MiB).
pub const TABLE_BITS: u32 = 21;
/// Default [`ExpectimaxOptions::extend_below`]: a root board with 3 empty cells or fewer is
/// searched one move deeper. Such boards are where games are lost, and their search is narrow (at
/// most 6 spawns at the first chance node). Measured (BENCHMARKS.md, "Endgame tables"),
/// `sim --eval corner-middle --depth 3 --games 100 --seed 7`: 32768 in 48 games against 33,
/// 16384 in 85 against 70, for 2.3 times the CPU time a move (1.42 ms against 0.62); at `--depth
/// 4`, 50 games: 58 % against 54 %, for 2.3 times. Below 5 empty cells rather than 4: no more
/// games to 32768 (23 against 24 of the same 55).
pub const EXTEND_BELOW: u32 = 4;

/// Default [`ExpectimaxOptions::extend_twice_below`]: a root board with 0 or 1 empty cell is
/// searched one move deeper again, two moves deeper than the budget's depth in all. Measured
/// (BENCHMARKS.md, "Endgame tables"), `sim --eval corner-middle --depth 3 --games 100 --seed 7`:
/// 32768 in 52 games against 48 with [`EXTEND_BELOW`] alone (31 games ended with a larger tile,
/// 26 with a smaller: within the noise), 16384 in 87 against 85, for 1.8 times the CPU time a
/// move (2.45 ms against 1.35); at `--depth 4`, 50 games: 66 % against 58 %, for 1.7 times (6.91
/// ms against 4.04); at `--depth 5`, 20 games: 70 % (20.2 ms a move; 55 % without either
/// extension, on another machine).
pub const EXTEND_TWICE_BELOW: u32 = 2;

/// Default [`ExpectimaxOptions::table_margin`]: 0, the table's best move is played (the search
/// chooses only among moves of exactly equal chance). Measured (BENCHMARKS.md, "Middle-game
/// tables"), `--eval corner-middle --depth 3`, the same 30 games: 16384 in 17 of them with margin
/// 0 against 10 with 0.01, where the search chose among the near-best moves on three covered
/// boards in four; with the endgame tables alone, 0.01 and 0 were within the noise.
pub const TABLE_MARGIN: f32 = 0.0;

/// Default [`ExpectimaxOptions::table_floor`]: 0, a table decides every board it covers with a
/// chance above 0. Measured (BENCHMARKS.md, "Games resumed from a tile"), `--eval corner-middle
/// --depth 3`, the 91 games resumed at 16384 (53 reach 32768 with 0): with 0.3, 56 (3 gained,
/// none lost, 83 played alike); with 0.5, 52 (1 gained, 2 lost). At `--depth 4` on the same
/// boards (61 reach 32768 with 0): with 0.3, 62 (1 gained, none lost, 82 played alike). Within
/// the noise at both depths, so 0 stays.
pub const TABLE_FLOOR: f32 = 0.0;

/// The number of distinct tile exponents on the board (empty cells not counted).
pub fn distinct_tiles<P: Position>(board: P) -> u32 {
    let mut seen = 0u64;
    for i in 0..board.shape().cells() {
        let e = board.exponent_at(i);
        if e != 0 {
            seen |= 1 << e;
        }
    }
    seen.count_ones()
}

/// Boards of fewer cells than this deepen within the default time budget instead of stopping at
/// the adaptive depth: their search is small (a 3×3 board has at most 8 empty cells at a chance
/// node, and few once the game is hard), and the distinct-tile rule, made for 4×4, stops it far
/// too soon (BENCHMARKS.md, "Constants of the code").
pub const SMALL_BOARD_CELLS: usize = 16;

/// The deepest depth a decision on `board` searches when its budget names neither a depth nor a
/// time: [`adaptive_depth`] on boards of at least [`SMALL_BOARD_CELLS`] cells, [`MAX_DEPTH`]
/// (within [`DEFAULT_TIME_MS`]) on smaller ones.
pub fn default_depth<P: Position>(board: P) -> u32 {
    if board.shape().cells() < SMALL_BOARD_CELLS {
        MAX_DEPTH
    } else {
        adaptive_depth(board)
    }
}

/// nneonneo's depth for `board`: `max(3, distinct_tiles − 2)` moves beyond the root move.
pub fn adaptive_depth<P: Position>(board: P) -> u32 {
    distinct_tiles(board)
        .saturating_sub(DISTINCT_TILES_OFFSET)
        .max(MIN_ADAPTIVE_DEPTH)
}

/// A search to depth d uses only the first 2^(2d + 6) slots (at least 2^12, at most all): a
/// table sized to the work stays in cache. Nodes grow about 8× per depth and a decision at depth d
/// stores about 2^(2d) entries (BENCHMARKS.md, "Constants of the code", has the sizes measured).
pub const ACTIVE_BITS_BASE: u32 = 6;
/// Fewest table slots a search uses, log2.
pub const MIN_ACTIVE_BITS: u32 = 12;

/// log2 of the table slots a search to depth `limit` uses in a table of 2^`table_bits` slots:
/// `2·limit + 6`, within [`MIN_ACTIVE_BITS`]..=`table_bits`.
pub fn active_bits(limit: u32, table_bits: u32) -> u32 {
    (2 * limit + ACTIVE_BITS_BASE).clamp(MIN_ACTIVE_BITS.min(table_bits), table_bits)
}

/// Max nodes between two polls of the deadline, times the board's cells: 1024 nodes on 4×4, as
/// nneonneo-sized searches need, and fewer on larger boards, whose nodes cost more (a max node at
/// the horizon slides and evaluates four boards of R×C cells; BENCHMARKS.md, "Constants of the
/// code").
pub const POLL_CELL_NODES: usize = 16 * 1024;

/// The mask of the search's deadline poll for boards of `shape`: one less than the power of two
/// nearest above [`POLL_CELL_NODES`] / cells (1024 nodes on 4×4, 256 on 9×9, 2048 on 3×3).
pub fn poll_mask(shape: Shape) -> u64 {
    ((POLL_CELL_NODES / shape.cells().max(1)).next_power_of_two() - 1) as u64
}

/// A lock-free transposition table: board → (value, depth still to search), always-replace.
///
/// Each slot holds two `AtomicU64`: `data` = value bits << 32 | generation << 8 | depth, `check` =
/// key ^ data, so a slot torn by two threads writing at once fails the check instead of answering
/// wrongly. Shared by the root moves' threads; allocated once per solver and kept across moves (an
/// entry's meaning, the value of a board searched to a depth, does not depend on the root).
/// Emptying it ([`TransTable::clear`]) starts a new generation: entries of older ones no longer
/// answer, and no slot is written.
struct TransTable {
    slots: Box<[[AtomicU64; 2]]>,
    /// log2 of the slot count.
    bits: u32,
    /// The current generation, 1..=GENERATION_MASK (0 is never current: zeroed slots stay empty).
    generation: u32,
}

/// Generations are 24 bits (bits 8..32 of a slot's `data`); after 2^24 − 1 clears the slots are
/// zeroed and the count starts again.
const GENERATION_MASK: u32 = 0xff_ffff;

impl TransTable {
    fn new(bits: u32) -> TransTable {
        let n = 1usize << bits;
        TransTable {
            slots: (0..n)
                .map(|_| [AtomicU64::new(0), AtomicU64::new(0)])
                .collect(),
            bits,
            generation: 1,
        }
    }

    /// The shift that selects the slots a search to depth `limit` uses.
    fn shift_for(&self, limit: u32) -> u32 {
        64 - active_bits(limit, self.bits)
    }

    /// Empties the table in O(1): a new generation (every 2^24 − 1 calls, a real zeroing).
    fn clear(&mut self) {
        self.generation = (self.generation + 1) & GENERATION_MASK;
        if self.generation == 0 {
            for slot in self.slots.iter() {
                slot[0].store(0, Ordering::Relaxed);
                slot[1].store(0, Ordering::Relaxed);
            }
            self.generation = 1;
        }
    }

    /// The slot of `key` among the first 2^(64 − `shift`) slots: the top bits of `key × 2^64/φ`
    /// (Fibonacci hashing), which depend on every bit of the key (bits from the middle of the
    /// product would ignore the key's top bits, the bitboard's last row, and boards differing
    /// only there would share a slot; found by the peer measurement). An entry stored under one
    /// shift is simply not found under another (the check still holds the whole key).
    #[inline(always)]
    fn slot(&self, key: u64, shift: u32) -> &[AtomicU64; 2] {
        debug_assert!(shift >= 64 - self.bits && shift < 64);
        let h = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        &self.slots[(h >> shift) as usize]
    }

    /// The value of `key` if it was searched at least `depth` deep in this generation.
    #[inline(always)]
    fn get(&self, key: u64, depth: u32, shift: u32) -> Option<f32> {
        let [check, data] = self.slot(key, shift);
        let d = data.load(Ordering::Relaxed);
        let c = check.load(Ordering::Relaxed);
        let (gen, searched) = ((d >> 8) as u32 & GENERATION_MASK, (d & 0xff) as u32);
        (c ^ d == key && gen == self.generation && searched >= depth)
            .then(|| f32::from_bits((d >> 32) as u32))
    }

    #[inline(always)]
    fn put(&self, key: u64, depth: u32, value: f32, shift: u32) {
        let [check, data] = self.slot(key, shift);
        let d = ((value.to_bits() as u64) << 32) | (self.generation as u64) << 8 | depth as u64;
        data.store(d, Ordering::Relaxed);
        check.store(key ^ d, Ordering::Relaxed);
    }
}

/// One thread's walk of the tree to a fixed depth limit.
struct Searcher<'a, P, E> {
    table: &'a TransTable,
    /// The table shift of this depth limit ([`TransTable::shift_for`]).
    shift: u32,
    eval: &'a E,
    limit: u32,
    nodes: u64,
    deadline: Option<Instant>,
    /// Set when this depth must be abandoned (deadline passed, or the caller's stop flag).
    stop: &'a AtomicBool,
    /// The caller's stop flag (Ctrl-C), polled with the deadline.
    external: Option<&'a AtomicBool>,
    /// Probability that a spawned tile is a 4 (0.1, or 0.0 for [`SpawnRule::TwosOnly`]).
    four: f32,
    /// Probability cutoff.
    cprob_min: f32,
    /// The deadline is polled when `nodes & poll_mask == 0` ([`poll_mask`]).
    poll_mask: u64,
    _board: PhantomData<fn() -> P>,
}

impl<P: Position, E: Evaluator<P>> Searcher<'_, P, E> {
    /// Every `poll_mask + 1` nodes: stop when the deadline passed or the caller asked.
    #[inline(always)]
    fn poll(&mut self) {
        if self.nodes & self.poll_mask == 0 {
            let late = self.deadline.is_some_and(|d| Instant::now() >= d);
            let asked = self.external.is_some_and(|s| s.load(Ordering::Relaxed));
            if late || asked {
                self.stop.store(true, Ordering::Relaxed);
            }
        }
    }

    /// Max node: the best legal move's chance node, at least 0; 0 when no move is legal (or
    /// when stopped). As in nneonneo's `score_move_node`, values start from 0 (a dead board), so
    /// a live board the evaluation scores below 0 counts as 0.
    fn max_node(&mut self, board: P, cprob: f32, depth: u32) -> f32 {
        self.nodes += 1;
        self.poll();
        if self.stop.load(Ordering::Relaxed) {
            return 0.0;
        }
        let mut best = 0.0f32;
        if cprob < self.cprob_min || depth + 1 >= self.limit {
            // Every chance node below is a leaf: its static evaluation, here, without the call
            // (about 90 % of chance nodes are leaves).
            let (eval, mut leaves) = (self.eval, 0);
            board.for_each_afterstate(|_, after| {
                leaves += 1;
                best = best.max(eval.evaluate(after));
            });
            self.nodes += leaves;
        } else {
            board.for_each_afterstate(|_, after| {
                best = best.max(self.chance_node(after, cprob, depth + 1));
            });
        }
        best
    }

    /// Chance node at `depth` moves below the root move: a static evaluation at the horizon or
    /// below the probability cutoff, else the spawn-weighted average over the empty cells.
    fn chance_node(&mut self, board: P, cprob: f32, depth: u32) -> f32 {
        self.nodes += 1;
        if let Some(v) = self.eval.exact(board) {
            return v;
        }
        if cprob < self.cprob_min || depth >= self.limit {
            return self.eval.evaluate(board);
        }
        let remaining = self.limit - depth;
        // Boards with a tile beyond 32768 have no exact key: keep them out of the table.
        let key = board.table_key();
        if let Some(k) = key {
            if let Some(v) = self.table.get(k, remaining, self.shift) {
                return v;
            }
        }
        let empty = board.count_empty();
        let p = cprob / empty as f32;
        let mut total = 0.0f32;
        let (two, four) = (1.0 - self.four, self.four);
        for i in board.empties() {
            total += two * self.max_node(board.with_new_tile(i, 1), p * two, depth);
            if four > 0.0 {
                total += four * self.max_node(board.with_new_tile(i, 2), p * four, depth);
            }
        }
        let value = total / empty as f32;
        if let Some(k) = key {
            if !self.stop.load(Ordering::Relaxed) {
                self.table.put(k, remaining, value, self.shift);
            }
        }
        value
    }
}

/// The expectimax solver over board type `P` and evaluation `E`. See the module doc for the
/// algorithm and its source.
pub struct Expectimax<P: Position, E> {
    shape: Shape,
    options: ExpectimaxOptions,
    eval: E,
    table: TransTable,
    /// The root moves' values the last ponder found: afterstate key → (depth, value). The next
    /// decision takes a root's value from here when it was searched deep enough, whatever the
    /// transposition table has evicted since.
    pondered: HashMap<u64, (u32, f32)>,
    _board: PhantomData<fn() -> P>,
}

impl<P: Position, E: Evaluator<P>> Expectimax<P, E> {
    /// A solver for boards of `shape`, with `options`, scoring leaves with `eval`. Allocates the transposition table
    /// once (2^`table_bits` slots of 16 bytes: 32 MiB by default).
    ///
    /// The budget of each decision ([`Budget`]), its depth one move more on a board with fewer
    /// empty cells than [`ExpectimaxOptions::extend_below`] and one more again with fewer than
    /// [`ExpectimaxOptions::extend_twice_below`] (never past [`MAX_DEPTH`]):
    /// - `work` only: exactly that depth (moves beyond the root move; 0 = one ply);
    /// - `time` (with or without `work`): iterative deepening from depth 1 up to `work` (default
    ///   [`MAX_DEPTH`]) until the time is spent;
    /// - neither: the default depth ([`default_depth`]: adaptive, or deeper on boards smaller than
    ///   4×4) within [`DEFAULT_TIME_MS`], or the
    ///   depth the last ponder reached for every move of this board when that is deeper (those
    ///   values are ready, so the decision costs nothing more).
    ///
    /// With a time budget, [`Decision::work`] is the deepest depth completed and
    /// [`Decision::nodes`] counts the nodes of the completed depths (an overrun depth is dropped).
    /// The stop flag abandons the depth under way; depth 0 (a static evaluation of each move)
    /// always completes.
    pub fn new(shape: Shape, options: ExpectimaxOptions, eval: E) -> Expectimax<P, E> {
        Expectimax {
            shape,
            table: TransTable::new(options.table_bits),
            pondered: HashMap::new(),
            options,
            eval,
            _board: PhantomData,
        }
    }

    /// Whether root moves are searched on rayon's threads in parallel (default true). Turn it off
    /// when many games run at once, one per thread (`sim`): the threads are busy anyway and one
    /// thread per game keeps the decision deterministic and free of synchronisation.
    pub fn with_root_parallel(mut self, on: bool) -> Expectimax<P, E> {
        self.options.root_parallel = on;
        self
    }

    /// Empties the transposition table (the next decision searches from scratch, as a fresh
    /// solver would; for benchmarks and repeatable measurements).
    /// O(1): a new table generation.
    pub fn clear_table(&mut self) {
        self.table.clear();
        self.pondered.clear();
    }

    /// Searches every legal root move to `limit`; `None` if the deadline or the stop flag
    /// stopped the search. The roots go to rayon's threads when `parallel`.
    fn search(
        &self,
        roots: &[(usize, P)],
        limit: u32,
        deadline: Option<Instant>,
        external: Option<&AtomicBool>,
        parallel: bool,
    ) -> Option<([Option<f64>; 4], u64)> {
        if external.is_some_and(|s| s.load(Ordering::Relaxed)) {
            return None;
        }
        let stop = AtomicBool::new(false);
        let run = |&(i, after): &(usize, P)| {
            let mut s = Searcher {
                table: &self.table,
                shift: self.table.shift_for(limit),
                eval: &self.eval,
                limit,
                nodes: 0,
                deadline,
                stop: &stop,
                external,
                four: self.options.spawn.four_probability(),
                cprob_min: self.options.cprob,
                poll_mask: poll_mask(self.shape),
                _board: PhantomData,
            };
            let v = s.chance_node(after, 1.0, 0);
            (i, v, s.nodes)
        };
        let mut values = [None; 4];
        let mut nodes = 0;
        let mut keep = |(i, v, n): (usize, f32, u64)| {
            values[i] = Some(v as f64);
            nodes += n;
        };
        if parallel {
            let results: Vec<(usize, f32, u64)> = roots.par_iter().map(run).collect();
            results.into_iter().for_each(&mut keep);
        } else {
            roots.iter().map(run).for_each(&mut keep);
        }
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        Some((values, nodes))
    }

    /// Ponders `after` (an afterstate, before its spawn) within `budget`: iterative deepening in
    /// which each depth searches, for every possible spawn, the decision that spawn would need,
    /// the 2s (probability 0.9 each, or 1 under twos-only) before the 4s, so that the likeliest
    /// spawns are always searched at least as deep as the others. Results stay in the
    /// transposition table: the next [`Expectimax::decide_on`] on the real board then finds its
    /// root moves' values there, up to [`PonderReport::depth`], at once.
    ///
    /// `budget.time` and `budget.stop` end it; `budget.work` caps the depth (default
    /// [`MAX_DEPTH`]); a budget with none of the three is [`DEFAULT_TIME_MS`].
    ///
    /// It runs on the caller's thread alone, never on rayon's: it runs while a real game
    /// animates, and on a small machine the game's own rendering and the capture of its frames
    /// need the other cores (pondering on both of 2 cores slowed 2048-qt from 4.7 to 3.3 moves a
    /// second, the frames coming 110 ms later).
    pub fn ponder_on(&mut self, after: P, budget: &Budget) -> PonderReport {
        let start = Instant::now();
        let time = match (budget.time, &budget.stop, budget.work) {
            (None, None, None) => Some(Duration::from_millis(DEFAULT_TIME_MS)),
            (t, _, _) => t,
        };
        let deadline = time.map(|t| start + t);
        let external = budget.stop.as_deref();
        let max_depth = budget
            .work
            .map_or(MAX_DEPTH, |w| w.min(u64::from(MAX_DEPTH)) as u32);
        let mut spawns: Vec<P> = after.empties().map(|i| after.with_new_tile(i, 1)).collect();
        let twos = spawns.len();
        if self.options.spawn.four_probability() > 0.0 {
            spawns.extend(after.empties().map(|i| after.with_new_tile(i, 2)));
        }
        let mut report = PonderReport::default();
        self.pondered.clear();
        'deepen: for depth in 1..=max_depth {
            for (k, &spawned) in spawns.iter().enumerate() {
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    break 'deepen;
                }
                let roots = legal_roots(spawned);
                if !roots.is_empty() {
                    let Some((values, n)) =
                        self.search(roots.as_slice(), depth, deadline, external, false)
                    else {
                        break 'deepen;
                    };
                    report.nodes += n;
                    self.remember_roots(roots.as_slice(), &values, depth);
                }
                if k + 1 == twos {
                    report.depth = Some(depth);
                }
            }
        }
        report.elapsed_ms = start.elapsed().as_secs_f64() * 1e3;
        report
    }

    /// Keeps the root values a ponder found at `depth` for the next decision.
    fn remember_roots(&mut self, roots: &[(usize, P)], values: &[Option<f64>; 4], depth: u32) {
        for &(i, after) in roots {
            if let (Some(key), Some(v)) = (after.table_key(), values[i]) {
                self.pondered.insert(key, (depth, v as f32));
            }
        }
    }

    /// The depth to which the last ponder searched every root of a board (its legal moves'
    /// afterstates `roots`): the least depth kept for them, 0 when one was not pondered.
    fn pondered_depth(&self, roots: &[(usize, P)]) -> u32 {
        roots
            .iter()
            .map(|&(_, after)| {
                after
                    .table_key()
                    .and_then(|k| self.pondered.get(&k))
                    .map_or(0, |&(depth, _)| depth)
            })
            .min()
            .unwrap_or(0)
    }

    /// [`Expectimax::search`], taking each root's value from the last ponder when it searched
    /// that root at least `limit` deep.
    fn search_pondered(
        &self,
        roots: &[(usize, P)],
        limit: u32,
        deadline: Option<Instant>,
        external: Option<&AtomicBool>,
    ) -> Option<([Option<f64>; 4], u64)> {
        let parallel = self.options.root_parallel;
        if self.pondered.is_empty() {
            return self.search(roots, limit, deadline, external, parallel);
        }
        let mut values = [None; 4];
        let Some(&(_, filler)) = roots.first() else {
            return Some(([None; 4], 0));
        };
        let mut todo = Roots::with_room(filler);
        for &(i, after) in roots {
            let known = after.table_key().and_then(|k| self.pondered.get(&k));
            match known {
                Some(&(depth, v)) if depth >= limit => values[i] = Some(v as f64),
                _ => todo.push((i, after)),
            }
        }
        if todo.is_empty() {
            return Some((values, 0));
        }
        let (searched, nodes) =
            self.search(todo.as_slice(), limit, deadline, external, parallel)?;
        for &(i, _) in todo.as_slice() {
            values[i] = searched[i];
        }
        Some((values, nodes))
    }

    /// The decision for `board` within `budget` (see [`Expectimax::new`]): the tables' values
    /// when they decide the board ([`Evaluator::decide_exactly`]), else a search of the moves
    /// they leave (all of them without tables) to the depth the budget sets.
    pub fn decide_on(&mut self, board: P, budget: &Budget) -> Decision {
        let start = Instant::now();
        let legal = legal_roots(board);
        if legal.as_slice().is_empty() {
            return Decision::from_values([None; 4], 0, 0, elapsed_ms(start));
        }
        let narrowed;
        let floor = self.options.table_floor;
        let decided = self
            .eval
            .decide_exactly(board)
            .filter(|exact| exact.iter().flatten().any(|&p| p >= floor));
        let roots = match decided {
            None => legal.as_slice(),
            Some(exact) => match near_best(legal.as_slice(), &exact, self.options.table_margin) {
                None => {
                    let values = exact.map(|v| v.map(f64::from));
                    let mut d = Decision::from_values(values, 0, 0, elapsed_ms(start));
                    d.exact = true;
                    return d;
                }
                Some(near) => {
                    narrowed = near;
                    narrowed.as_slice()
                }
            },
        };
        let empty = board.count_empty();
        let extra = u32::from(empty < self.options.extend_below)
            + u32::from(empty < self.options.extend_twice_below);
        let deeper = |d: u32| (d + extra).min(MAX_DEPTH);
        let work = budget
            .work
            .map(|w| deeper(w.min(u64::from(MAX_DEPTH)) as u32));
        match (work, budget.time) {
            (Some(d), None) => self.search_to_depth(roots, d, budget, start),
            (d, Some(t)) => self.deepen(roots, d.unwrap_or(MAX_DEPTH), start + t, budget, start),
            (None, None) => {
                let depth = deeper(default_depth(board)).max(self.pondered_depth(roots));
                let deadline = start + Duration::from_millis(DEFAULT_TIME_MS);
                self.deepen(roots, depth, deadline, budget, start)
            }
        }
    }

    /// Depth 0, a static evaluation of each move: it always completes, the fallback when a
    /// deeper search is stopped.
    fn static_values(&mut self, roots: &[(usize, P)]) -> ([Option<f64>; 4], u64) {
        self.search(roots, 0, None, None, false)
            .expect("no deadline")
    }

    /// The decision from a search of `roots` to `depth` with no deadline, begun at `start`
    /// (only `budget`'s stop flag ends it early: then the static values decide).
    fn search_to_depth(
        &mut self,
        roots: &[(usize, P)],
        depth: u32,
        budget: &Budget,
        start: Instant,
    ) -> Decision {
        let external = budget.stop.as_deref();
        let searched = (depth > 0)
            .then(|| self.search_pondered(roots, depth, None, external))
            .flatten();
        let (values, nodes, depth, stopped) = match searched {
            Some((v, n)) => (v, n, depth, false),
            None => {
                let (v, n) = self.static_values(roots);
                (v, n, 0, depth > 0)
            }
        };
        let mut d = Decision::from_values(values, nodes, depth, elapsed_ms(start));
        d.stopped = stopped;
        d
    }

    /// The decision from iterative deepening of `roots`, depth 1 to `max_depth`, begun at
    /// `start`, until the instant `deadline` (`start` plus the budget's time) or `budget`'s stop
    /// flag: the deepest search completed decides (depth 0, made first, when none did). A depth
    /// is not begun when it would not finish in time: it costs about the last one times the growth seen between the
    /// last two (at least 2, at most 50; [`DEFAULT_GROWTH`] after the first).
    fn deepen(
        &mut self,
        roots: &[(usize, P)],
        max_depth: u32,
        deadline: Instant,
        budget: &Budget,
        start: Instant,
    ) -> Decision {
        let external = budget.stop.as_deref();
        let (mut values, mut nodes) = self.static_values(roots);
        let (mut depth, mut stopped) = (0, false);
        let mut last_spent: Option<Duration> = None;
        for d in 1..=max_depth {
            let t0 = Instant::now();
            let Some((v, n)) = self.search_pondered(roots, d, Some(deadline), external) else {
                stopped = budget.stopped();
                break;
            };
            (values, depth) = (v, d);
            nodes += n;
            let spent = t0.elapsed();
            let growth = match last_spent {
                Some(prev) if !prev.is_zero() => {
                    (spent.as_secs_f64() / prev.as_secs_f64()).clamp(2.0, 50.0)
                }
                _ => DEFAULT_GROWTH,
            };
            if Instant::now() + spent.mul_f64(growth) >= deadline {
                break;
            }
            last_spent = Some(spent);
        }
        let mut decision = Decision::from_values(values, nodes, depth, elapsed_ms(start));
        decision.stopped = stopped;
        decision
    }
}

/// Milliseconds since `start`.
fn elapsed_ms(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

/// The legal root moves of a board: (index in `Move::ALL`, the board after the move), without
/// allocating.
struct Roots<P> {
    legal: [(usize, P); 4],
    count: usize,
}

impl<P: Copy> Roots<P> {
    /// No roots yet; `filler` only fills the unused slots.
    fn with_room(filler: P) -> Roots<P> {
        Roots {
            legal: [(0, filler); 4],
            count: 0,
        }
    }

    /// Adds a root; at most 4 (one per move).
    fn push(&mut self, root: (usize, P)) {
        self.legal[self.count] = root;
        self.count += 1;
    }

    fn as_slice(&self) -> &[(usize, P)] {
        &self.legal[..self.count]
    }

    fn is_empty(&self) -> bool {
        self.count == 0
    }
}

/// The roots whose exact chance of success (`exact`, by [`Move::index`]) is within `margin` of
/// the best one's, when there are at least two of them (the search chooses among those); `None`
/// when one move stands alone (it is played outright).
fn near_best<P: Copy>(
    roots: &[(usize, P)],
    exact: &[Option<f32>; 4],
    margin: f32,
) -> Option<Roots<P>> {
    let best = exact.iter().flatten().fold(f32::MIN, |a, &b| a.max(b));
    let (_, filler) = *roots.first()?;
    let mut near = Roots::with_room(filler);
    for &(i, after) in roots {
        if exact[i].is_some_and(|p| p >= best - margin) {
            near.push((i, after));
        }
    }
    (near.count >= 2).then_some(near)
}

fn legal_roots<P: Position>(board: P) -> Roots<P> {
    let mut roots = Roots::with_room(board);
    for (i, after) in board.afterstates().into_iter().enumerate() {
        if let Some(after) = after {
            roots.push((i, after));
        }
    }
    roots
}

impl<P: Position, E: Evaluator<P> + 'static> Solver for Expectimax<P, E> {
    fn name(&self) -> &str {
        INFO.name
    }

    fn shape(&self) -> Shape {
        self.shape
    }

    fn decide(&mut self, board: &AnyBoard, budget: &Budget) -> Result<Decision, SolverError> {
        let b = board_for::<P>(board, self.shape)?;
        Ok(self.decide_on(b, budget))
    }

    fn ponder(
        &mut self,
        afterstate: &AnyBoard,
        budget: &Budget,
    ) -> Result<PonderReport, SolverError> {
        let b = board_for::<P>(afterstate, self.shape)?;
        Ok(self.ponder_on(b, budget))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Board, GridBoard, Move};
    use crate::solver::heuristic::{evaluate, RowHeuristic};
    use std::sync::Arc;

    fn board(grid: [[u32; 4]; 4]) -> Board {
        Board::from_values(grid).unwrap()
    }

    fn solver(spawn: SpawnRule) -> Expectimax<Board, RowHeuristic> {
        solver_extending(spawn, EXTEND_BELOW, EXTEND_TWICE_BELOW)
    }

    /// The default solver with `extend_below` and `extend_twice_below` (both 0: the depth asked
    /// on every board).
    fn solver_extending(
        spawn: SpawnRule,
        extend_below: u32,
        extend_twice_below: u32,
    ) -> Expectimax<Board, RowHeuristic> {
        let opts = ExpectimaxOptions {
            spawn,
            extend_below,
            extend_twice_below,
            ..ExpectimaxOptions::default()
        };
        Expectimax::new(Shape::FOUR, opts, RowHeuristic::new())
    }

    #[test]
    fn the_deadline_is_polled_more_often_on_larger_boards() {
        // 16384 / 16 = 1024; 16384 / 81 = 202.3 -> 256; 16384 / 9 = 1820.4 -> 2048
        assert_eq!(poll_mask(Shape::FOUR), 1023);
        assert_eq!(poll_mask(Shape::new(9, 9).unwrap()), 255);
        assert_eq!(poll_mask(Shape::new(3, 3).unwrap()), 2047);
    }

    #[test]
    fn table_clear_forgets_entries_and_wraps() {
        let mut t = TransTable::new(4);
        let sh = 64 - 4;
        t.put(0x1234, 3, 7.5, sh);
        assert_eq!(t.get(0x1234, 3, sh), Some(7.5));
        assert_eq!(t.get(0x1234, 4, sh), None, "searched 3 deep, not 4");
        t.clear();
        assert_eq!(t.get(0x1234, 1, sh), None);
        t.put(0x1234, 2, 1.0, sh);
        t.generation = GENERATION_MASK;
        t.put(0x5678, 2, 2.0, sh);
        t.clear(); // wraps: zeroes the slots, generation 1 again
        assert_eq!(t.generation, 1);
        assert_eq!(
            t.get(0x1234, 1, sh),
            None,
            "an old generation-1 entry is gone"
        );
        assert_eq!(t.get(0x5678, 1, sh), None);
    }

    #[test]
    fn active_table_grows_with_depth() {
        assert_eq!(active_bits(0, TABLE_BITS), MIN_ACTIVE_BITS);
        assert_eq!(active_bits(3, TABLE_BITS), 12);
        assert_eq!(active_bits(5, TABLE_BITS), 16);
        assert_eq!(active_bits(6, TABLE_BITS), 18);
        assert_eq!(active_bits(MAX_DEPTH, TABLE_BITS), TABLE_BITS);
        assert_eq!(active_bits(9, 10), 10, "never beyond the table");
        // An entry stored in a smaller active part is found only under the same shift.
        let t = TransTable::new(8);
        t.put(0xabcd, 2, 3.0, 64 - 6);
        assert_eq!(t.get(0xabcd, 2, 64 - 6), Some(3.0));
    }

    #[test]
    fn depth_adapts_to_distinct_tiles() {
        let b = board([[2, 4, 8, 16], [32, 64, 128, 256], [512, 1024, 0, 0], [0; 4]]);
        assert_eq!(distinct_tiles(b), 10);
        assert_eq!(adaptive_depth(b), 8);
        assert_eq!(
            adaptive_depth(board([[2, 2, 0, 0], [0; 4], [0; 4], [0; 4]])),
            3
        );
    }

    #[test]
    fn boards_smaller_than_4x4_deepen_past_the_adaptive_depth() {
        // 3x3: 2, 4, 8 and two empty rows: 3 distinct tiles, adaptive depth max(3, 1) = 3
        let shape = Shape::new(3, 3).unwrap();
        let small = GridBoard::from_values(shape, &[2, 4, 8, 0, 0, 0, 0, 0, 0]).unwrap();
        assert_eq!(adaptive_depth(small), 3);
        assert_eq!(default_depth(small), MAX_DEPTH);
        // 3x5 has 15 cells, still below 16; 4x4 keeps nneonneo's rule
        let narrow = GridBoard::from_values(Shape::new(3, 5).unwrap(), &[2; 15]).unwrap();
        assert_eq!(default_depth(narrow), MAX_DEPTH);
        let b = board([[2, 4, 8, 16], [32, 64, 128, 256], [512, 1024, 0, 0], [0; 4]]);
        assert_eq!(default_depth(b), 8);
    }

    #[test]
    fn dead_board_has_no_move() {
        let dead = board([[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4], [4, 2, 4, 2]]);
        let d = solver(SpawnRule::Classic).decide_on(dead, &Budget::depth(2));
        assert_eq!(d.best, None);
        assert_eq!(d.values, [None; 4]);
    }

    #[test]
    fn avoids_the_move_that_loses() {
        // Up and Left change nothing here (illegal): the choice is Down or Right, and the
        // illegal moves have no value.
        let b = board([
            [2, 4, 8, 16],
            [4, 8, 16, 32],
            [8, 16, 32, 64],
            [16, 32, 64, 0],
        ]);
        let d = solver(SpawnRule::Classic).decide_on(b, &Budget::depth(2));
        let legal: Vec<Move> = b.legal_moves().collect();
        assert_eq!(legal, vec![Move::Down, Move::Right]);
        assert!(legal.contains(&d.best.unwrap()));
        assert_eq!(d.values[Move::Up.index()], None);
        assert_eq!(d.values[Move::Left.index()], None);
    }

    #[test]
    fn serial_and_parallel_agree_at_fixed_depth() {
        let b = board([[2, 4, 8, 16], [0, 2, 4, 8], [0, 0, 2, 4], [0, 0, 0, 2]]);
        let serial = solver(SpawnRule::Classic)
            .with_root_parallel(false)
            .decide_on(b, &Budget::depth(2));
        let parallel = solver(SpawnRule::Classic).decide_on(b, &Budget::depth(2));
        assert_eq!(serial.best, parallel.best);
        for i in 0..4 {
            match (serial.values[i], parallel.values[i]) {
                (Some(a), Some(b)) => assert!((a - b).abs() <= 1e-3 * a.abs()),
                (a, b) => assert_eq!(a, b),
            }
        }
    }

    /// A board whose full adaptive search takes far longer than a few milliseconds.
    fn late_board() -> Board {
        board([
            [2, 4, 8, 16],
            [32, 64, 128, 256],
            [512, 1024, 2048, 0],
            [0, 0, 2, 0],
        ])
    }

    #[test]
    fn a_spent_time_budget_stops_after_depth_one() {
        // With no time left the deepening loop may finish depth 1 (it polls the clock every
        // 1,024 nodes) and must not start another; ignoring the budget would search to depth 12.
        let d = solver(SpawnRule::Classic).decide_on(late_board(), &Budget::millis(0));
        assert!(d.best.is_some());
        assert!(d.work <= 1, "searched to depth {}", d.work);
        assert!(!d.stopped);
    }

    #[test]
    fn the_stop_flag_abandons_a_deep_search() {
        let flag = Arc::new(AtomicBool::new(true));
        let budget = Budget::depth(8).with_stop(flag);
        let d = solver(SpawnRule::Classic).decide_on(late_board(), &budget);
        assert!(d.stopped);
        assert_eq!(d.work, 0, "only the static fallback completes");
        assert!(d.best.is_some());
    }

    /// The value of `board` as a max node one level above the horizon: the best legal move's
    /// static evaluation (0 when no move is legal), worked out outside the searcher.
    fn max_of_evaluations(board: Board) -> f64 {
        Move::ALL
            .iter()
            .filter_map(|&m| board.shifted(m))
            .map(|b| evaluate(b) as f64)
            .fold(0.0, f64::max)
    }

    #[test]
    fn chance_node_weights_spawns_by_the_rule() {
        // Left leaves exactly one empty cell (row 3, col 3): its chance node is the average over
        // that one cell, 0.9 (a 2) + 0.1 (a 4) under the classic rule, a 2 alone under twos-only.
        // A 2 there leaves no move (value 0); a 4 merges with the 4 beside it. Depth 1: the max
        // nodes below see only static evaluations.
        let b = board([
            [2, 4, 8, 16],
            [32, 64, 128, 256],
            [4, 8, 16, 32],
            [0, 2, 8, 4],
        ]);
        let after = b.shifted(Move::Left).unwrap();
        assert_eq!(after.count_empty(), 1);
        let with = |v: u8| after.with_new_tile(15, v);
        let (two, four) = (max_of_evaluations(with(1)), max_of_evaluations(with(2)));
        assert!((two - four).abs() > 1.0, "the 4 must matter for this test");
        // no extension: the board has 1 empty cell, and the test is of depth 1 exactly
        let value = |spawn: SpawnRule| {
            let mut solver = solver_extending(spawn, 0, 0);
            solver.decide_on(b, &Budget::depth(1)).values[Move::Left.index()].unwrap()
        };
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-4 * b.abs().max(1.0);
        let classic = value(SpawnRule::Classic);
        assert!(
            close(classic, 0.9 * two + 0.1 * four),
            "{classic} vs {two}/{four}"
        );
        let twos = value(SpawnRule::TwosOnly);
        assert!(close(twos, two), "{twos} vs {two}");
    }

    #[test]
    fn a_board_with_fewer_than_four_empty_cells_is_searched_one_move_deeper() {
        let exact = |extend_below| solver_extending(SpawnRule::Classic, extend_below, 0);
        // 3 empty cells: depth 1 asked, depth 2 searched, as a search to depth 2 without the rule
        let tight = board([
            [2, 4, 8, 16],
            [32, 64, 128, 256],
            [4, 8, 16, 2],
            [0, 2, 0, 0],
        ]);
        assert_eq!(tight.count_empty(), 3);
        let extended = exact(4).decide_on(tight, &Budget::depth(1));
        let two = exact(0).decide_on(tight, &Budget::depth(2));
        assert_eq!((extended.work, two.work), (2, 2));
        assert_eq!(extended.values, two.values);
        assert_ne!(
            extended.values,
            exact(0).decide_on(tight, &Budget::depth(1)).values
        );
        // 4 empty cells: the depth asked
        let roomy = board([
            [2, 4, 8, 16],
            [32, 64, 128, 256],
            [4, 8, 0, 2],
            [0, 2, 0, 0],
        ]);
        assert_eq!(roomy.count_empty(), 4);
        assert_eq!(exact(4).decide_on(roomy, &Budget::depth(1)).work, 1);
    }

    #[test]
    fn a_board_with_fewer_than_two_empty_cells_is_searched_two_moves_deeper() {
        let twice = |extend_twice_below| {
            solver_extending(SpawnRule::Classic, EXTEND_BELOW, extend_twice_below)
        };
        // 1 empty cell, depth 1 asked: extend-below 4 adds one move, extend-twice-below 2 another
        let full = board([
            [2, 4, 8, 16],
            [32, 64, 128, 256],
            [4, 8, 16, 2],
            [8, 2, 4, 0],
        ]);
        assert_eq!(full.count_empty(), 1);
        let extended = twice(2).decide_on(full, &Budget::depth(1));
        let three = solver_extending(SpawnRule::Classic, 0, 0).decide_on(full, &Budget::depth(3));
        assert_eq!((extended.work, three.work), (3, 3));
        assert_eq!(extended.values, three.values);
        // the default does so; 0 leaves the one move of extend-below
        assert_eq!(
            solver(SpawnRule::Classic)
                .decide_on(full, &Budget::depth(1))
                .work,
            3
        );
        assert_eq!(twice(0).decide_on(full, &Budget::depth(1)).work, 2);
        // 2 empty cells are not below 2: one move deeper only
        let two_empty = board([
            [2, 4, 8, 16],
            [32, 64, 128, 256],
            [4, 8, 16, 2],
            [0, 2, 4, 0],
        ]);
        assert_eq!(two_empty.count_empty(), 2);
        assert_eq!(twice(2).decide_on(two_empty, &Budget::depth(1)).work, 2);
    }

    #[test]
    fn after_pondering_the_decision_on_the_real_spawn_is_found_in_the_table() {
        let before = board([[2, 4, 8, 16], [0, 2, 4, 8], [0, 0, 2, 4], [0, 0, 0, 2]]);
        let after = before.shifted(Move::Left).unwrap();
        let spawned = after.with_new_tile(15, 1);
        // the same decision without pondering, from an empty table
        let cold = solver(SpawnRule::Classic)
            .with_root_parallel(false)
            .decide_on(spawned, &Budget::depth(3));
        let mut s = solver(SpawnRule::Classic).with_root_parallel(false);
        let report = s.ponder_on(after, &Budget::depth(3));
        assert_eq!(report.depth, Some(3), "every spawn searched to depth 3");
        assert!(report.nodes > cold.nodes, "all spawns cost more than one");
        let warm = s.decide_on(spawned, &Budget::depth(3));
        // the same move; the values may differ a little where pondering had searched a shared
        // position deeper (the table answers with a deeper search when it has one)
        assert_eq!(warm.best, cold.best);
        // each root chance node is one table hit: the 4 depth-0 evaluations, then a node a root
        assert!(warm.nodes <= 2 * 4, "{} nodes after pondering", warm.nodes);
    }

    #[test]
    fn the_default_budget_goes_as_deep_as_the_ponder_went() {
        let before = board([[2, 4, 8, 16], [0, 2, 4, 8], [0, 0, 2, 4], [0, 0, 0, 2]]);
        let after = before.shifted(Move::Left).unwrap();
        let spawned = after.with_new_tile(15, 1);
        // 4 distinct tiles (2, 4, 8, 16) and a 2: the adaptive depth is max(3, 5 - 2) = 3
        assert_eq!(adaptive_depth(spawned), 3);
        let mut s = solver(SpawnRule::Classic).with_root_parallel(false);
        assert_eq!(s.ponder_on(after, &Budget::depth(4)).depth, Some(4));
        let d = s.decide_on(spawned, &Budget::default());
        assert_eq!(d.work, 4, "the pondered depth, not the adaptive 3");
        // the depth-0 search (a chance node and its evaluation a move), nothing deeper: depths
        // 1 to 4 are the pondered values
        assert!(d.nodes <= 2 * 4, "{} nodes after pondering", d.nodes);
    }

    #[test]
    fn pondering_stops_on_the_flag_and_on_time() {
        let after = late_board().shifted(Move::Down).unwrap();
        let flag = Arc::new(AtomicBool::new(true));
        let r = solver(SpawnRule::Classic).ponder_on(after, &Budget::depth(8).with_stop(flag));
        assert_eq!(r.depth, None);
        let r = solver(SpawnRule::Classic).ponder_on(after, &Budget::millis(0));
        assert!(r.depth <= Some(1), "{r:?}");
    }

    #[test]
    fn a_grid_board_and_its_bitboard_get_the_same_values() {
        let b = board([[2, 4, 8, 16], [0, 2, 4, 8], [0, 0, 2, 4], [0, 0, 0, 2]]);
        let g = AnyBoard::Four(b).to_grid();
        let opts = ExpectimaxOptions {
            root_parallel: false,
            ..ExpectimaxOptions::default()
        };
        let mut grid = Expectimax::<GridBoard, _>::new(Shape::FOUR, opts, RowHeuristic::new());
        let on_grid = grid.decide_on(g, &Budget::depth(2));
        let on_bits = solver(SpawnRule::Classic)
            .with_root_parallel(false)
            .decide_on(b, &Budget::depth(2));
        assert_eq!(on_grid.best, on_bits.best);
        for i in 0..4 {
            match (on_grid.values[i], on_bits.values[i]) {
                (Some(a), Some(b)) => assert!((a - b).abs() <= 1e-4 * a.abs(), "{a} vs {b}"),
                (a, b) => assert_eq!(a, b),
            }
        }
    }

    #[test]
    fn on_5x5_it_merges_into_the_corner_rather_than_burying_the_largest_tile() {
        // 5x5: a 256 in the top-left corner with a 256 right of it. Left merges them into the
        // corner (512 at (0,0)); Right and Down move the large tiles out of the corner.
        let shape = Shape::new(5, 5).unwrap();
        let mut v = vec![0u64; 25];
        v[0] = 256;
        v[1] = 256;
        v[2] = 2;
        v[5] = 4;
        let g = GridBoard::from_values(shape, &v).unwrap();
        let opts = ExpectimaxOptions::default();
        let mut s = Expectimax::<GridBoard, _>::new(shape, opts, RowHeuristic::new());
        let d = s.decide_on(g, &Budget::depth(1));
        assert_eq!(d.best, Some(Move::Left));
    }

    mod with_tables {
        use super::*;
        use crate::solver::tables::build::build_table;
        use crate::solver::tables::{EndgameTables, Formation, TableEval, TableKey};

        fn tables() -> Arc<EndgameTables> {
            let key = TableKey::new(Formation::new([4, 4, 0, 0]).unwrap(), 4, 3).unwrap();
            Arc::new(EndgameTables::new(vec![build_table(&key, &|_| {})]))
        }

        /// Rows 0 and 1 a block of large tiles, the 8 at (1, 0) its anchor: covered by the
        /// 4,4 table of goal 8.
        fn covered() -> Board {
            board([
                [2048, 1024, 512, 256],
                [8, 16, 32, 64],
                [4, 2, 0, 0],
                [0, 0, 0, 2],
            ])
        }

        #[test]
        fn a_board_the_tables_cover_is_decided_by_them_without_a_search() {
            let t = tables();
            let eval = TableEval::new(t.clone(), RowHeuristic::new());
            // margin 0: the best chance (left, 0.9999957) stands alone
            // one thread: with the roots in parallel they share the transposition table, so the
            // node count of the uncovered board below depends on their timing
            let opts = ExpectimaxOptions {
                table_margin: 0.0,
                root_parallel: false,
                ..ExpectimaxOptions::default()
            };
            let mut s = Expectimax::<Board, _>::new(Shape::FOUR, opts, eval);
            let d = s.decide_on(covered(), &Budget::depth(3));
            assert!(d.exact);
            assert_eq!(d.nodes, 0, "no node searched");
            let expected = t.move_values(covered()).unwrap();
            assert_eq!(d.values, expected.map(|v| v.map(f64::from)));
            // an uncovered board is searched as with the heuristic alone
            let open = board([[2, 4, 0, 0], [0; 4], [0; 4], [0; 4]]);
            let d = s.decide_on(open, &Budget::depth(2));
            let plain = solver(SpawnRule::Classic)
                .with_root_parallel(false)
                .decide_on(open, &Budget::depth(2));
            assert!(!d.exact);
            assert_eq!((d.values, d.nodes), (plain.values, plain.nodes));
        }

        #[test]
        fn moves_near_the_tables_best_are_left_to_the_search() {
            // margin 1: every legal move is near the best, so the search decides among all of
            // them, as the heuristic alone would
            let eval = TableEval::new(tables(), RowHeuristic::new());
            let opts = ExpectimaxOptions {
                table_margin: 1.0,
                root_parallel: false,
                ..ExpectimaxOptions::default()
            };
            let mut s = Expectimax::<Board, _>::new(Shape::FOUR, opts, eval);
            let d = s.decide_on(covered(), &Budget::depth(2));
            let plain = solver(SpawnRule::Classic)
                .with_root_parallel(false)
                .decide_on(covered(), &Budget::depth(2));
            assert!(!d.exact);
            assert!(d.nodes > 0);
            assert_eq!((d.best, d.values), (plain.best, plain.values));
        }

        #[test]
        fn a_best_chance_below_the_floor_leaves_the_board_to_the_search() {
            // the covered board's best chance is left's 0.9999957 (see the test below)
            let t = tables();
            let floored = |floor: f32| {
                let eval = TableEval::new(t.clone(), RowHeuristic::new());
                let opts = ExpectimaxOptions {
                    table_floor: floor,
                    root_parallel: false,
                    ..ExpectimaxOptions::default()
                };
                let mut s = Expectimax::<Board, _>::new(Shape::FOUR, opts, eval);
                s.decide_on(covered(), &Budget::depth(2))
            };
            // a floor of 1 is above it: every legal move searched, as with the heuristic alone
            let d = floored(1.0);
            let plain = solver(SpawnRule::Classic)
                .with_root_parallel(false)
                .decide_on(covered(), &Budget::depth(2));
            assert!(!d.exact);
            assert!(d.nodes > 0);
            assert_eq!((d.best, d.values), (plain.best, plain.values));
            // a floor of 0.99 is below it: the table decides
            let d = floored(0.99);
            assert!(d.exact);
            let expected = t.move_values(covered()).unwrap();
            assert_eq!(d.values, expected.map(|v| v.map(f64::from)));
        }

        #[test]
        fn the_search_chooses_among_the_moves_near_the_tables_best() {
            // the covered board's chances: up 0.98, down 0 (it moves the block), left 0.9999957,
            // right 0.9999945; within a margin of 0.01 of the best: left and right
            let t = tables();
            let chances = t.move_values(covered()).unwrap();
            assert!(chances[0].unwrap() < 0.99 && chances[1] == Some(0.0));
            assert!(chances[2].unwrap() > 0.9999 && chances[3].unwrap() > 0.9999);
            let eval = TableEval::new(t, RowHeuristic::new());
            let opts = ExpectimaxOptions {
                table_margin: 0.01,
                ..ExpectimaxOptions::default()
            };
            let mut s = Expectimax::<Board, _>::new(Shape::FOUR, opts, eval);
            let d = s.decide_on(covered(), &Budget::depth(2));
            assert!(!d.exact);
            assert!(d.nodes > 0);
            assert!(d.values[0].is_none() && d.values[1].is_none());
            assert!(d.values[2].is_some() && d.values[3].is_some());
            assert!(matches!(d.best, Some(Move::Left | Move::Right)));
        }

        #[test]
        fn near_best_keeps_the_moves_within_the_margin_of_the_best() {
            let b = Board::EMPTY;
            let roots = [(0, b), (1, b), (2, b)];
            let exact = [Some(0.5), Some(0.495), Some(0.2), None];
            let near = near_best(&roots, &exact, 0.01).expect("two moves are near");
            let kept: Vec<usize> = near.as_slice().iter().map(|r| r.0).collect();
            assert_eq!(kept, vec![0, 1]);
            assert!(
                near_best(&roots, &exact, 0.001).is_none(),
                "0.5 stands alone"
            );
            let all = near_best(&roots, &exact, 0.3).unwrap();
            assert_eq!(all.as_slice().len(), 3);
        }

        #[test]
        fn a_covered_chance_node_stops_the_search_with_the_tables_value() {
            let t = tables();
            // never decide at the root (a floor above every chance); weight 1000 on covered
            // chance nodes
            let eval = TableEval::new(t.clone(), RowHeuristic::new()).with_weight(1000.0);
            let opts = ExpectimaxOptions {
                table_floor: 2.0,
                root_parallel: false,
                ..ExpectimaxOptions::default()
            };
            let mut s = Expectimax::<Board, _>::new(Shape::FOUR, opts, eval);
            let b = covered();
            let d = s.decide_on(b, &Budget::depth(2));
            assert!(!d.exact);
            let mut checked = 0;
            for m in Move::ALL {
                let Some(after) = b.shifted(m) else { continue };
                if let Some(p) = t.afterstate_probability(after) {
                    let expected = evaluate(after) as f64 + 1000.0 * p as f64;
                    let got = d.values[m.index()].unwrap();
                    assert!(
                        (got - expected).abs() < 1e-6 * expected,
                        "{m:?}: {got} vs {expected}"
                    );
                    checked += 1;
                }
            }
            assert!(checked >= 2, "left and right keep the block");
        }
    }
}
