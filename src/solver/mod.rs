//! Solvers: the [`Solver`] trait, its [`Decision`], and the implementations, found by name.
//!
//! A solver takes a [`Board`] and returns a [`Decision`]: the best move (or none when no move is
//! legal) plus diagnostics. Solvers import only [`crate::engine`]; they never print.
//!
//! - [`expectimax::Expectimax`] ("expectimax", the default): depth-limited expectimax after
//!   nneonneo/2048-ai with a transposition table, a probability cutoff and a time budget.
//! - [`greedy::Greedy`] ("greedy"): one ply, the heuristic of the board after each move.
//!
//! ```
//! use bot2048::engine::Board;
//! use bot2048::solver::{by_name, SolverOptions};
//! let opts = SolverOptions { depth: Some(1), ..SolverOptions::default() };
//! let mut solver = by_name("expectimax", &opts).unwrap();
//! let board = Board::from_values([[2, 2, 0, 0], [0; 4], [0; 4], [0; 4]]).unwrap();
//! let d = solver.decide(board);
//! assert!(d.best.is_some());
//! ```
use crate::engine::{Board, Move, SpawnRule};
use serde::Serialize;

pub mod expectimax;
pub mod greedy;
pub mod heuristic;
pub mod ntuple;

/// What a solver decided for one board, with diagnostics.
#[derive(Clone, Debug, Serialize)]
pub struct Decision {
    /// The move to play; `None` when no move is legal (game over).
    pub best: Option<Move>,
    /// Each move's value, indexed by [`Move::index`]; `None` for an illegal move. Units are the
    /// solver's own (expectimax: the expected heuristic value at the search horizon).
    pub values: [Option<f64>; 4],
    /// Nodes searched (boards visited: max nodes, chance nodes and leaves evaluated).
    pub nodes: u64,
    /// The depth searched: moves looked at beyond the root move (0 = one ply).
    pub depth: u32,
    /// Wall-clock time of the decision, in milliseconds.
    pub elapsed_ms: f64,
}

impl Decision {
    /// The decision for a set of move values: the best is the legal move of highest value, the
    /// first in [`Move::ALL`] order on a tie.
    pub fn from_values(values: [Option<f64>; 4], nodes: u64, depth: u32, elapsed_ms: f64) -> Self {
        let mut best: Option<(Move, f64)> = None;
        for m in Move::ALL {
            if let Some(v) = values[m.index()] {
                if best.is_none_or(|(_, bv)| v > bv) {
                    best = Some((m, v));
                }
            }
        }
        Decision {
            best: best.map(|(m, _)| m),
            values,
            nodes,
            depth,
            elapsed_ms,
        }
    }
}

/// A 2048 player: a board in, a decision out. `Send` so games can run on worker threads.
pub trait Solver: Send {
    /// The solver's name, as [`by_name`] knows it.
    fn name(&self) -> &str;
    /// Decides the move for `board`. Never panics on a legal board; a dead board gives
    /// `best: None` and all values `None`.
    fn decide(&mut self, board: Board) -> Decision;
}

/// Budget of a solver. `Default` = each solver's own default budget.
#[derive(Clone, Debug, Default)]
pub struct SolverOptions {
    /// Search depth in moves beyond the root move (expectimax); `None` = the solver's default.
    pub depth: Option<u32>,
    /// Time budget per move in milliseconds; `None` = the solver's default.
    pub time_ms: Option<u64>,
    /// The spawn rule the solver assumes at its chance nodes (the game's own rule plays best).
    pub spawn: SpawnRule,
}

/// The names [`by_name`] knows.
pub const SOLVER_NAMES: &[&str] = &["expectimax", "greedy"];

/// Why a solver could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SolverError {
    /// No solver has this name.
    #[error("unknown solver {name:?}; known solvers: {}", known.join(", "))]
    UnknownSolver {
        /// The name asked for.
        name: String,
        /// The names that exist ([`SOLVER_NAMES`]).
        known: Vec<String>,
    },
}

/// Makes the solver called `name` (one of [`SOLVER_NAMES`]) with budget `opts`.
///
/// # Errors
/// [`SolverError::UnknownSolver`], listing the known names.
pub fn by_name(name: &str, opts: &SolverOptions) -> Result<Box<dyn Solver>, SolverError> {
    match name {
        "expectimax" => Ok(Box::new(expectimax::Expectimax::new(opts))),
        "greedy" => Ok(Box::new(greedy::Greedy::new())),
        _ => Err(SolverError::UnknownSolver {
            name: name.to_string(),
            known: SOLVER_NAMES.iter().map(|s| s.to_string()).collect(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_name_lists_known() {
        let err = by_name("minimax", &SolverOptions::default()).err().unwrap();
        let text = err.to_string();
        assert!(text.contains("minimax") && text.contains("expectimax") && text.contains("greedy"));
    }

    #[test]
    fn decision_picks_highest_legal() {
        let d = Decision::from_values([None, Some(1.0), Some(3.0), Some(3.0)], 0, 0, 0.0);
        assert_eq!(d.best, Some(Move::Left));
        let d = Decision::from_values([None; 4], 0, 0, 0.0);
        assert_eq!(d.best, None);
    }
}
