//! Benchmarks of the general R×C board (criterion): move generation on 5×5 and 9×9 (moves per
//! CPU-second over boards of real games), and expectimax at depth 2 on 5×5 (one thread, a fresh
//! transposition table per decision).
use bot2048::engine::{AnyBoard, Game, GridBoard, Move, Position, Shape, SpawnRule};
use bot2048::solver::expectimax::{Expectimax, ExpectimaxOptions};
use bot2048::solver::greedy::Greedy;
use bot2048::solver::heuristic::RowHeuristic;
use bot2048::solver::Budget;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use std::time::{Duration, Instant};

#[path = "common.rs"]
mod common;
use common::thread_cpu_time;

/// Every board of two greedy games on `shape` (seeds 1 and 2), at most `per_game` moves each: a
/// fixed mix of positions of that size.
fn game_boards(shape: Shape, per_game: u32) -> Vec<GridBoard> {
    let mut boards = Vec::new();
    let solver = Greedy::<GridBoard, _>::new(shape, RowHeuristic::new());
    for seed in 1..=2 {
        let mut game = Game::from_empty(GridBoard::empty(shape), seed, SpawnRule::Classic);
        while game.moves() < per_game {
            let Some(m) = solver.decide_on(game.board()).best else {
                break;
            };
            boards.push(game.board());
            game.play(m);
        }
    }
    boards
}

/// Four moves on every board; a checksum so nothing is optimised away.
fn apply_all(boards: &[GridBoard]) -> u64 {
    let mut acc = 0u64;
    for &board in boards {
        for m in Move::ALL {
            if let Some((after, score)) = Position::apply(black_box(board), m) {
                acc = acc
                    .wrapping_add(after.count_empty() as u64)
                    .wrapping_add(score);
            }
        }
    }
    acc
}

/// Times `f` in this thread's CPU time (wall time where that is not available).
fn cpu_timed(iters: u64, mut f: impl FnMut()) -> Duration {
    let (t, c) = (Instant::now(), thread_cpu_time());
    for _ in 0..iters {
        f();
    }
    match (c, thread_cpu_time()) {
        (Some(c0), Some(c1)) => c1.saturating_sub(c0),
        _ => t.elapsed(),
    }
}

fn moves(c: &mut Criterion) {
    let mut g = c.benchmark_group("grid");
    for (shape, per_game) in [("5x5", 3000), ("9x9", 1500)] {
        let boards = game_boards(shape.parse().unwrap(), per_game);
        g.throughput(Throughput::Elements(4 * boards.len() as u64));
        g.bench_function(format!("apply_4_moves_per_board_{shape}_cpu_time"), |b| {
            b.iter_custom(|iters| {
                cpu_timed(iters, || {
                    black_box(apply_all(&boards));
                })
            })
        });
    }
    g.finish();
}

/// Boards a quarter, half and three quarters into a 5×5 greedy game, searched at depth 2.
fn search(c: &mut Criterion) {
    let shape: Shape = "5x5".parse().unwrap();
    let boards = game_boards(shape, 3000);
    let picks = [1usize, 2, 3].map(|q| boards[boards.len() * q / 4]);
    let mut g = c.benchmark_group("grid_expectimax");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    for (k, &board) in picks.iter().enumerate() {
        let opts = ExpectimaxOptions {
            root_parallel: false,
            // the same depth on every board, as the benchmark has always measured
            extend_below: 0,
            extend_twice_below: 0,
            ..ExpectimaxOptions::default()
        };
        let mut solver = Expectimax::<GridBoard, _>::new(shape, opts, RowHeuristic::new());
        let budget = Budget::depth(2);
        let nodes = solver.decide_on(board, &budget).nodes;
        let empty = AnyBoard::from_grid(board).count_empty();
        g.throughput(Throughput::Elements(nodes));
        g.bench_function(
            format!("depth2_5x5_board{k}_{empty}_empty_{nodes}_nodes"),
            |b| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        solver.clear_table();
                        total += cpu_timed(1, || {
                            black_box(solver.decide_on(board, &budget));
                        });
                    }
                    total
                })
            },
        );
    }
    g.finish();
}

criterion_group!(benches, moves, search);
criterion_main!(benches);
