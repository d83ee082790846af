//! Engine and search benchmarks (criterion): move generation (moves/s over a fixed set of
//! boards), evaluation (boards/s), expectimax (nodes/s on fixed mid-game boards, one thread).
use bot2048::engine::{Board, Game, Move, Shape};
use bot2048::solver::expectimax::{Expectimax, ExpectimaxOptions};
use bot2048::solver::greedy::Greedy;
use bot2048::solver::heuristic::{evaluate, RowHeuristic};
use bot2048::solver::Budget;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use std::time::{Duration, Instant};

#[path = "common.rs"]
mod common;
use common::thread_cpu_time;

/// Every board of three greedy games (seeds 1, 2, 3): a fixed, realistic mix of early, middle and
/// late positions.
fn game_boards() -> Vec<Board> {
    let mut boards = Vec::new();
    for seed in 1..=3 {
        let mut game = Game::new(seed);
        let solver = Greedy::<Board, _>::new(Shape::FOUR, RowHeuristic::new());
        while let Some(m) = solver.decide_on(game.board()).best {
            boards.push(game.board());
            game.play(m);
        }
    }
    boards
}

/// Four moves on every board of the set; returns a checksum so nothing is optimised away.
fn apply_all(boards: &[Board]) -> u64 {
    let mut acc = 0u64;
    for &board in boards {
        for m in Move::ALL {
            if let Some((after, score)) = black_box(board).apply(m) {
                acc = acc.wrapping_add(after.raw()).wrapping_add(score);
            }
        }
    }
    acc
}

fn moves(c: &mut Criterion) {
    let boards = game_boards();
    let mut g = c.benchmark_group("engine");
    g.throughput(Throughput::Elements(4 * boards.len() as u64));
    g.bench_function("apply_4_moves_per_board", |b| b.iter(|| apply_all(&boards)));
    if thread_cpu_time().is_some() {
        // The same work timed in CPU time of this thread, not wall time: moves per CPU-second.
        g.bench_function("apply_4_moves_per_board_cpu_time", |b| {
            b.iter_custom(|iters| {
                let t0 = thread_cpu_time().unwrap_or_default();
                for _ in 0..iters {
                    black_box(apply_all(&boards));
                }
                thread_cpu_time().unwrap_or_default().saturating_sub(t0)
            })
        });
    }
    g.bench_function("shifted_4_moves_per_board", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            for &board in &boards {
                for m in Move::ALL {
                    if let Some(after) = black_box(board).shifted(m) {
                        acc = acc.wrapping_add(after.raw());
                    }
                }
            }
            acc
        })
    });
    g.throughput(Throughput::Elements(boards.len() as u64));
    g.bench_function("evaluate", |b| {
        b.iter(|| boards.iter().map(|&x| evaluate(black_box(x))).sum::<f32>())
    });
    if thread_cpu_time().is_some() {
        g.bench_function("evaluate_cpu_time", |b| {
            b.iter_custom(|iters| {
                let t0 = thread_cpu_time().unwrap_or_default();
                for _ in 0..iters {
                    black_box(boards.iter().map(|&x| evaluate(black_box(x))).sum::<f32>());
                }
                thread_cpu_time().unwrap_or_default().saturating_sub(t0)
            })
        });
    }
    g.finish();
}

/// Boards a quarter, half and three quarters into the fixed set (greedy games), searched at
/// depth 3 from an empty transposition table on one thread; timed in this thread's CPU time where
/// available (wall time elsewhere), so nodes/s are per CPU-second.
fn search(c: &mut Criterion) {
    let boards = game_boards();
    let picks = [1usize, 2, 3].map(|q| boards[boards.len() * q / 4]);
    let mut g = c.benchmark_group("expectimax");
    g.sample_size(20).measurement_time(Duration::from_secs(5));
    for (k, &board) in picks.iter().enumerate() {
        let opts = ExpectimaxOptions {
            root_parallel: false,
            // the same depth on every board, as the benchmark has always measured
            extend_below: 0,
            extend_twice_below: 0,
            ..ExpectimaxOptions::default()
        };
        let mut solver = Expectimax::<Board, _>::new(Shape::FOUR, opts, RowHeuristic::new());
        let budget = Budget::depth(3);
        let nodes = solver.decide_on(board, &budget).nodes;
        g.throughput(Throughput::Elements(nodes));
        g.bench_function(format!("depth3_board{k}_{nodes}_nodes"), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    solver.clear_table();
                    let (t, c) = (Instant::now(), thread_cpu_time());
                    black_box(solver.decide_on(black_box(board), &budget));
                    total += match (c, thread_cpu_time()) {
                        (Some(c0), Some(c1)) => c1.saturating_sub(c0),
                        _ => t.elapsed(),
                    };
                }
                total
            })
        });
    }
    g.finish();
}

criterion_group!(benches, moves, search);
criterion_main!(benches);
