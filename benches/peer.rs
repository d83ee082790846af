//! The peer figures (nneonneo/2048-ai's, measured outside this repository) on the peer boards,
//! bot2048's side, in criterion: `cargo bench --bench peer` (or `-- peer/moves`, `-- depth3`, …).
//!
//! - `peer/moves`: all four directions of every board of `pool-games`
//!   ([`Board::for_each_shifted`], as the search makes them), in this thread's CPU time;
//!   criterion's throughput is moves per CPU-second.
//! - `peer/shifted`, `peer/apply`: the same one direction at a time with [`Board::shifted`], and
//!   with [`Board::apply`] (board and merge score).
//! - `peer/depthN`: one decision at depth N (moves beyond the root move) on each board of
//!   `pool-search` (N ≤ 4) or `pool-deep` (N = 5, 6), one thread, the transposition table emptied
//!   before each decision (O(1), timed with the pass), thread CPU time. One iteration is a pass over the pool and
//!   reports the **mean time per decision** (the pass's time divided by the number of boards), so
//!   criterion's time reads as ms per decision.
//!
//! `examples/peer.rs` prints the same figures as JSON lines without criterion.
#[path = "data/mod.rs"]
mod data;

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use data::{
    apply_all, decide_all, parse_pool, pool_for_depth, shift_all, shift_all_at_once, solver_at,
    thread_cpu_time, TablePolicy,
};
use std::hint::black_box;
use std::time::Duration;

fn moves(c: &mut Criterion) {
    let boards = parse_pool(data::GAMES);
    let mut g = c.benchmark_group("peer");
    g.throughput(Throughput::Elements(4 * boards.len() as u64));
    for (name, f) in [
        ("moves", shift_all_at_once as fn(&[_]) -> u64),
        ("shifted", shift_all),
        ("apply", apply_all),
    ] {
        g.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let t0 = thread_cpu_time();
                for _ in 0..iters {
                    black_box(f(black_box(&boards)));
                }
                thread_cpu_time() - t0
            })
        });
    }
    g.finish();
}

fn search(c: &mut Criterion) {
    let mut g = c.benchmark_group("peer");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for depth in 1..=6 {
        let (pool, text) = pool_for_depth(depth);
        let boards = parse_pool(text);
        let mut solver = solver_at(depth);
        g.throughput(Throughput::Elements(1));
        g.bench_function(format!("depth{depth}_{pool}"), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    total += decide_all(&mut solver, &boards, depth, TablePolicy::Fresh).0;
                }
                total / boards.len() as u32
            })
        });
    }
    g.finish();
}

criterion_group!(benches, moves, search);
criterion_main!(benches);
