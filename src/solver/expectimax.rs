//! Expectimax search, the default solver.
//!
//! After nneonneo/2048-ai (`2048.cpp`: `score_move_node`, `score_tilechoose_node`,
//! `score_toplevel_move`), read and rewritten, not ported:
//! - max node: the best of the legal moves (a dead board is worth 0, far below any live board,
//!   whose heuristic carries [`super::heuristic::LOST_PENALTY`] per line);
//! - chance node: the average over every empty cell of 0.9 · (a 2 there) + 0.1 · (a 4 there)
//!   (under [`SpawnRule::TwosOnly`], gnome-2048's rule: a 2 there, and half the nodes);
//! - a chance node whose cumulative probability falls below [`CPROB_THRESHOLD`] (1e-4), or that
//!   lies at the depth limit, is evaluated statically ([`super::heuristic::evaluate`]);
//! - a transposition table keyed by the board, holding the value and the depth still to search;
//! - depth adapted to the position: `max(3, distinct tiles − 2)` moves beyond the root move;
//! - an optional time budget per move (iterative deepening, aborting a depth that overruns);
//! - root moves searched in parallel with rayon (switchable: [`Expectimax::with_root_parallel`]).
//!
//! Unlike the C++ original: moves are a [`Move`] enum and an illegal move is `None` (no `+1e-6`),
//! one transposition table is allocated once per solver and reused across moves (no new map per
//! root move), and tiles beyond 32768 are exact (the engine's slow path).
use super::heuristic::{evaluate_with, ROW_VALUES};
use super::{Decision, Solver, SolverOptions};
use crate::engine::{Board, Move, SpawnRule};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

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

/// The number of distinct tile exponents on the board (empty cells not counted), 0..=16.
pub fn distinct_tiles(board: Board) -> u32 {
    let mut seen = 0u32;
    for i in 0..16 {
        let e = board.exponent(i / 4, i % 4);
        if e != 0 {
            seen |= 1 << e;
        }
    }
    seen.count_ones()
}

/// nneonneo's depth for `board`: `max(3, distinct_tiles − 2)` moves beyond the root move.
pub fn adaptive_depth(board: Board) -> u32 {
    distinct_tiles(board)
        .saturating_sub(DISTINCT_TILES_OFFSET)
        .max(MIN_ADAPTIVE_DEPTH)
}

/// A lock-free transposition table: board → (value, depth still to search), always-replace.
///
/// Each slot holds two `AtomicU64`: `data` = value bits << 32 | depth, `check` = key ^ data, so a
/// slot torn by two threads writing at once fails the check instead of answering wrongly. Shared
/// by the root moves' threads; allocated once per solver and kept across moves (an entry's meaning,
/// the value of a board searched to a depth, does not depend on the root).
struct TransTable {
    slots: Box<[[AtomicU64; 2]]>,
    mask: u64,
}

impl TransTable {
    fn new(bits: u32) -> TransTable {
        let n = 1usize << bits;
        TransTable {
            slots: (0..n)
                .map(|_| [AtomicU64::new(0), AtomicU64::new(0)])
                .collect(),
            mask: (n - 1) as u64,
        }
    }

    #[inline(always)]
    fn slot(&self, key: u64) -> &[AtomicU64; 2] {
        let h = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        &self.slots[((h >> 32) & self.mask) as usize]
    }

    /// The value of `key` if it was searched at least `depth` deep.
    #[inline(always)]
    fn get(&self, key: u64, depth: u32) -> Option<f32> {
        let [check, data] = self.slot(key);
        let d = data.load(Ordering::Relaxed);
        let c = check.load(Ordering::Relaxed);
        (c ^ d == key && (d & 0xff) as u32 >= depth).then(|| f32::from_bits((d >> 32) as u32))
    }

    #[inline(always)]
    fn put(&self, key: u64, depth: u32, value: f32) {
        let [check, data] = self.slot(key);
        let d = ((value.to_bits() as u64) << 32) | depth as u64;
        data.store(d, Ordering::Relaxed);
        check.store(key ^ d, Ordering::Relaxed);
    }
}

/// One thread's walk of the tree to a fixed depth limit.
struct Searcher<'a> {
    table: &'a TransTable,
    heur: &'a [f32],
    limit: u32,
    nodes: u64,
    deadline: Option<Instant>,
    stop: &'a AtomicBool,
    /// Probability that a spawned tile is a 4 (0.1, or 0.0 for [`SpawnRule::TwosOnly`]).
    four: f32,
}

impl Searcher<'_> {
    /// Max node: the best legal move's chance node; 0 when no move is legal (or when stopped).
    fn max_node(&mut self, board: Board, cprob: f32, depth: u32) -> f32 {
        self.nodes += 1;
        if self.nodes & 0x3ff == 0 {
            if let Some(deadline) = self.deadline {
                if Instant::now() >= deadline {
                    self.stop.store(true, Ordering::Relaxed);
                }
            }
        }
        if self.stop.load(Ordering::Relaxed) {
            return 0.0;
        }
        let mut best = 0.0f32;
        for m in Move::ALL {
            if let Some(after) = board.shifted(m) {
                best = best.max(self.chance_node(after, cprob, depth + 1));
            }
        }
        best
    }

    /// Chance node at `depth` moves below the root move: a static evaluation at the horizon or
    /// below the probability cutoff, else the spawn-weighted average over the empty cells.
    fn chance_node(&mut self, board: Board, cprob: f32, depth: u32) -> f32 {
        self.nodes += 1;
        if cprob < CPROB_THRESHOLD || depth >= self.limit {
            return evaluate_with(self.heur, board.raw());
        }
        let remaining = self.limit - depth;
        // Boards with a tile beyond 32768 share `raw()` with others: keep them out of the table.
        let cacheable = !board.has_big_tile();
        if cacheable {
            if let Some(v) = self.table.get(board.raw(), remaining) {
                return v;
            }
        }
        let empty = board.count_empty();
        let p = cprob / empty as f32;
        let mut total = 0.0f32;
        let (two, four) = (1.0 - self.four, self.four);
        for i in board.empty_indices() {
            total += two * self.max_node(board.with_new_tile(i, 1), p * two, depth);
            if four > 0.0 {
                total += four * self.max_node(board.with_new_tile(i, 2), p * four, depth);
            }
        }
        let value = total / empty as f32;
        if cacheable && !self.stop.load(Ordering::Relaxed) {
            self.table.put(board.raw(), remaining, value);
        }
        value
    }
}

/// The expectimax solver. See the module doc for the algorithm and its source.
pub struct Expectimax {
    depth: Option<u32>,
    time_ms: Option<u64>,
    root_parallel: bool,
    table: TransTable,
    spawn: SpawnRule,
}

impl Expectimax {
    /// A solver with budget `opts`:
    /// - `depth` only: exactly that depth (moves beyond the root move; 0 = one ply);
    /// - `time_ms` (with or without `depth`): iterative deepening from depth 1 up to `depth`
    ///   (default [`MAX_DEPTH`]) until `time_ms` per move is spent;
    /// - neither: the adaptive depth ([`adaptive_depth`]) within [`DEFAULT_TIME_MS`].
    ///
    /// Allocates the transposition table once (32 MiB). Root moves run in parallel by default.
    /// With a time budget, [`Decision::depth`] is the deepest depth completed and
    /// [`Decision::nodes`] counts the nodes of the completed depths (an overrun depth is dropped).
    pub fn new(opts: &SolverOptions) -> Expectimax {
        Expectimax {
            depth: opts.depth,
            time_ms: opts.time_ms,
            root_parallel: true,
            table: TransTable::new(TABLE_BITS),
            spawn: opts.spawn,
        }
    }

    /// Whether root moves are searched on rayon's threads in parallel (default true). Turn it off
    /// when many games run at once, one per thread (`sim`): the threads are busy anyway and one
    /// thread per game keeps the decision deterministic and free of synchronisation.
    pub fn with_root_parallel(mut self, on: bool) -> Expectimax {
        self.root_parallel = on;
        self
    }

    /// Empties the transposition table (the next decision searches from scratch, as a fresh
    /// solver would; for benchmarks and repeatable measurements).
    pub fn clear_table(&mut self) {
        for slot in self.table.slots.iter() {
            slot[0].store(0, Ordering::Relaxed);
            slot[1].store(0, Ordering::Relaxed);
        }
    }

    /// Searches every legal root move to `limit`; `None` if the deadline stopped the search.
    fn search(
        &self,
        roots: &[(usize, Board)],
        limit: u32,
        deadline: Option<Instant>,
    ) -> Option<([Option<f64>; 4], u64)> {
        let stop = AtomicBool::new(false);
        let heur: &[f32] = &ROW_VALUES;
        let run = |&(i, after): &(usize, Board)| {
            let mut s = Searcher {
                table: &self.table,
                heur,
                limit,
                nodes: 0,
                deadline,
                stop: &stop,
                four: self.spawn.four_probability(),
            };
            let v = s.chance_node(after, 1.0, 0);
            (i, v, s.nodes)
        };
        let results: Vec<(usize, f32, u64)> = if self.root_parallel {
            roots.par_iter().map(run).collect()
        } else {
            roots.iter().map(run).collect()
        };
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let mut values = [None; 4];
        let mut nodes = 0;
        for (i, v, n) in results {
            values[i] = Some(v as f64);
            nodes += n;
        }
        Some((values, nodes))
    }
}

impl Solver for Expectimax {
    fn name(&self) -> &str {
        "expectimax"
    }

    fn decide(&mut self, board: Board) -> Decision {
        let start = Instant::now();
        // The legal root moves (index in Move::ALL, board after the move), without allocating.
        let mut legal = [(0usize, Board::EMPTY); 4];
        let mut count = 0;
        for m in Move::ALL {
            if let Some(after) = board.shifted(m) {
                legal[count] = (m.index(), after);
                count += 1;
            }
        }
        let roots = &legal[..count];
        let ms = |s: Instant| s.elapsed().as_secs_f64() * 1e3;
        if roots.is_empty() {
            return Decision::from_values([None; 4], 0, 0, ms(start));
        }
        let (max_depth, budget) = match (self.depth, self.time_ms) {
            (Some(d), None) => {
                let (values, nodes) = self.search(roots, d, None).expect("no deadline, no stop");
                return Decision::from_values(values, nodes, d, ms(start));
            }
            (d, Some(t)) => (d.unwrap_or(MAX_DEPTH), t),
            (None, None) => (adaptive_depth(board), DEFAULT_TIME_MS),
        };
        let deadline = start + Duration::from_millis(budget);
        // Depth 0 (a static evaluation of each move) always completes: the fallback.
        let (mut values, mut nodes) = self.search(roots, 0, None).expect("no deadline");
        let mut depth = 0;
        let mut last_spent: Option<Duration> = None;
        for d in 1..=max_depth {
            let t0 = Instant::now();
            match self.search(roots, d, Some(deadline)) {
                Some((v, n)) => {
                    values = v;
                    nodes += n;
                    depth = d;
                }
                None => break,
            }
            // Skip the next depth when it would not finish in time: it costs about this one
            // times the growth seen between the last two depths (at least 2, at most 50).
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
        Decision::from_values(values, nodes, depth, ms(start))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(grid: [[u32; 4]; 4]) -> Board {
        Board::from_values(grid).unwrap()
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
    fn dead_board_has_no_move() {
        let dead = board([[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4], [4, 2, 4, 2]]);
        let mut s = Expectimax::new(&SolverOptions {
            depth: Some(2),
            time_ms: None,
            ..SolverOptions::default()
        });
        let d = s.decide(dead);
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
        let mut s = Expectimax::new(&SolverOptions {
            depth: Some(2),
            time_ms: None,
            ..SolverOptions::default()
        });
        let d = s.decide(b);
        let legal: Vec<Move> = b.legal_moves().collect();
        assert_eq!(legal, vec![Move::Down, Move::Right]);
        assert!(legal.contains(&d.best.unwrap()));
        assert_eq!(d.values[Move::Up.index()], None);
        assert_eq!(d.values[Move::Left.index()], None);
    }

    #[test]
    fn serial_and_parallel_agree_at_fixed_depth() {
        let b = board([[2, 4, 8, 16], [0, 2, 4, 8], [0, 0, 2, 4], [0, 0, 0, 2]]);
        let opts = SolverOptions {
            depth: Some(2),
            time_ms: None,
            ..SolverOptions::default()
        };
        let serial = Expectimax::new(&opts).with_root_parallel(false).decide(b);
        let parallel = Expectimax::new(&opts).decide(b);
        assert_eq!(serial.best, parallel.best);
        for i in 0..4 {
            match (serial.values[i], parallel.values[i]) {
                (Some(a), Some(b)) => assert!((a - b).abs() <= 1e-3 * a.abs()),
                (a, b) => assert_eq!(a, b),
            }
        }
    }

    #[test]
    fn time_budget_is_respected_roughly() {
        let b = board([
            [2, 4, 8, 16],
            [32, 64, 128, 256],
            [512, 1024, 2048, 0],
            [0, 0, 2, 0],
        ]);
        let mut s = Expectimax::new(&SolverOptions {
            depth: None,
            time_ms: Some(20),
            ..SolverOptions::default()
        });
        let d = s.decide(b);
        assert!(d.best.is_some());
        assert!(d.depth >= 1);
    }
    /// The value of `board` as a max node one level above the horizon: the best legal move's
    /// static evaluation (0 when no move is legal), worked out outside the searcher.
    fn max_of_evaluations(board: Board) -> f64 {
        Move::ALL
            .iter()
            .filter_map(|&m| board.shifted(m))
            .map(|b| crate::solver::heuristic::evaluate(b) as f64)
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
        let value = |spawn: SpawnRule| {
            let mut s = Expectimax::new(&SolverOptions {
                depth: Some(1),
                spawn,
                ..SolverOptions::default()
            });
            s.decide(b).values[Move::Left.index()].unwrap()
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
}
