//! The greedy solver: one ply, the heuristic value of the board after each move (no spawn).
//!
//! The articles' greedy players (shared/seeds 001, 002) use their own weights; this one uses the
//! expectimax heuristic ([`super::heuristic`], nneonneo/2048-ai's weights) so the two compare.
use super::heuristic::evaluate;
use super::{Decision, Solver};
use crate::engine::{Board, Move};
use std::time::Instant;

/// One-ply greedy solver. Cheap (4 evaluations a move); a baseline for `sim`.
#[derive(Debug, Default, Clone)]
pub struct Greedy;

impl Greedy {
    /// A greedy solver.
    pub fn new() -> Greedy {
        Greedy
    }
}

impl Solver for Greedy {
    fn name(&self) -> &str {
        "greedy"
    }

    fn decide(&mut self, board: Board) -> Decision {
        let start = Instant::now();
        let mut values = [None; 4];
        let mut nodes = 0;
        for m in Move::ALL {
            if let Some(after) = board.shifted(m) {
                values[m.index()] = Some(evaluate(after) as f64);
                nodes += 1;
            }
        }
        Decision::from_values(values, nodes, 0, start.elapsed().as_secs_f64() * 1e3)
    }
}
