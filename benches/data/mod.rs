//! The peer boards and the measurements made on them, shared by `benches/peer.rs` (criterion) and
//! `examples/peer.rs` (the same figures printed as JSON lines, one command).
//!
//! The three pools are copies of `shared/peer/` (boards made by bot2048: every board of two seeded
//! depth-1 games, one a line, 16 log2 exponents in reading order): `pool-games.txt` (4,043 boards)
//! for move generation, `pool-search.txt` (161, every 25th) for expectimax at depths 1–4 and
//! `pool-deep.txt` (32, every 125th) for depths 5–6. The figures match the peer's (nneonneo/2048-ai,
//! measured outside this repository): moves per thread-CPU-second over all four directions of every
//! board, and thread-CPU milliseconds per decision at a fixed depth (moves beyond the root move,
//! nneonneo's `depth_limit`), one thread.
#![allow(dead_code)] // each includer uses a part

use bot2048::engine::{Board, Move, Shape};
use bot2048::solver::expectimax::{Expectimax, ExpectimaxOptions};
use bot2048::solver::heuristic::RowHeuristic;
use bot2048::solver::Budget;
use std::hint::black_box;
use std::time::Duration;

/// Every board of the two games (move generation).
pub const GAMES: &str = include_str!("pool-games.txt");
/// Every 25th board (expectimax, depths 1–4).
pub const SEARCH: &str = include_str!("pool-search.txt");
/// Every 125th board (expectimax, depths 5–6).
pub const DEEP: &str = include_str!("pool-deep.txt");

/// The pool a depth is measured on: [`SEARCH`] up to depth 4, [`DEEP`] beyond.
pub fn pool_for_depth(depth: u32) -> (&'static str, &'static str) {
    if depth <= 4 {
        ("pool-search", SEARCH)
    } else {
        ("pool-deep", DEEP)
    }
}

/// Parses a pool: one board a line, 16 exponents separated by spaces.
///
/// # Panics
/// On a line that is not 16 exponents of 0..=17 (the pools are fixed data).
pub fn parse_pool(text: &str) -> Vec<Board> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let e: Vec<u8> = line
                .split_whitespace()
                .map(|t| t.parse().expect("an exponent"))
                .collect();
            assert_eq!(e.len(), 16, "a pool line has 16 exponents: {line:?}");
            let mut grid = [[0u8; 4]; 4];
            for (i, &x) in e.iter().enumerate() {
                grid[i / 4][i % 4] = x;
            }
            Board::from_exponents(grid).expect("exponents <= 17")
        })
        .collect()
}

#[path = "../common.rs"]
mod common;

/// This thread's CPU time so far: the machine is shared, so figures are per CPU-second of the
/// measuring thread ([`common::thread_cpu_time`]; wall time since first use where that is not
/// available).
pub fn thread_cpu_time() -> Duration {
    use std::sync::OnceLock;
    use std::time::Instant;
    static START: OnceLock<Instant> = OnceLock::new();
    let start = *START.get_or_init(Instant::now);
    common::thread_cpu_time().unwrap_or_else(|| start.elapsed())
}

/// All four moves of every board ([`Board::shifted`]: the board after the move, `None` when it
/// changes nothing, as the search uses it); a checksum so that nothing is optimised away. The peer
/// does the same: `execute_move` in 4 directions and the `board != newboard` test. Each board goes
/// read from the slice as the peer reads its array: no `black_box` on it, which would force it
/// through memory (a store and a load the peer does not make); the slice is the caller's and the
/// function is never inlined, so nothing can be computed ahead.
#[inline(never)]
pub fn shift_all(boards: &[Board]) -> u64 {
    let mut acc = 0u64;
    for &board in boards {
        for m in Move::ALL {
            if let Some(after) = board.shifted(m) {
                acc = acc.wrapping_add(after.raw());
            }
        }
    }
    acc
}

/// As [`shift_all`] with [`Board::for_each_shifted`] (the four moves at once, as the search's
/// max nodes make them).
#[inline(never)]
pub fn shift_all_at_once(boards: &[Board]) -> u64 {
    let mut acc = 0u64;
    for &board in boards {
        board.for_each_shifted(|_, after| acc = acc.wrapping_add(after.raw()));
    }
    acc
}

/// As [`shift_all`] with [`Board::apply`] (the board and the merge score).
#[inline(never)]
pub fn apply_all(boards: &[Board]) -> u64 {
    let mut acc = 0u64;
    for &board in boards {
        for m in Move::ALL {
            if let Some((after, score)) = board.apply(m) {
                acc = acc.wrapping_add(after.raw()).wrapping_add(score);
            }
        }
    }
    acc
}

/// Moves per thread-CPU-second of `f` over `boards` (4 moves a board), run for at least `min_cpu`.
pub fn moves_per_cpu_s(boards: &[Board], f: fn(&[Board]) -> u64, min_cpu: Duration) -> f64 {
    let t0 = thread_cpu_time();
    let mut moves = 0u64;
    loop {
        black_box(f(black_box(boards)));
        moves += 4 * boards.len() as u64;
        let spent = thread_cpu_time() - t0;
        if spent >= min_cpu {
            return moves as f64 / spent.as_secs_f64();
        }
    }
}

/// Whether the transposition table starts empty for each decision (the peer's policy, and the
/// default here) or is kept across the decisions of a pool (the bot's own policy in play).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TablePolicy {
    /// Emptied before each decision (the emptying is not timed).
    Fresh,
    /// One solver for the whole pool, its table kept across decisions.
    Kept,
}

impl TablePolicy {
    /// "fresh" or "kept".
    pub fn name(self) -> &'static str {
        match self {
            TablePolicy::Fresh => "fresh",
            TablePolicy::Kept => "kept",
        }
    }
}

/// The solver measured: a one-thread expectimax over the heuristic on the bitboard.
pub type PeerSolver = Expectimax<Board, RowHeuristic>;

/// A one-thread expectimax (decisions at an exact depth through [`decide_all`]), with no
/// extension on tight boards: nneonneo's `depth_limit` searches every board to the same depth.
pub fn solver_at(_depth: u32) -> PeerSolver {
    let opts = ExpectimaxOptions {
        root_parallel: false,
        extend_below: 0,
        extend_twice_below: 0,
        ..ExpectimaxOptions::default()
    };
    Expectimax::new(Shape::FOUR, opts, RowHeuristic::new())
}

/// One pass of decisions over `boards` at `depth`: the pass's thread-CPU time (emptying the table
/// before each decision included: it is O(1), a new table generation), the move chosen on each
/// board (`Move::index`, -1 for none) and the nodes.
pub fn decide_all(
    solver: &mut PeerSolver,
    boards: &[Board],
    depth: u32,
    policy: TablePolicy,
) -> (Duration, Vec<i32>, u64) {
    let budget = Budget::depth(depth);
    let mut chosen = Vec::with_capacity(boards.len());
    let mut nodes = 0;
    solver.clear_table();
    let t0 = thread_cpu_time();
    for &board in boards {
        if policy == TablePolicy::Fresh {
            solver.clear_table();
        }
        let d = solver.decide_on(black_box(board), &budget);
        chosen.push(d.best.map_or(-1, |m| m.index() as i32));
        nodes += d.nodes;
    }
    (thread_cpu_time() - t0, chosen, nodes)
}
