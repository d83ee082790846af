//! Solvers: the [`Solver`] and [`Evaluator`] seams, the per-call [`Budget`], the [`Decision`];
//! what a solver is described and built with ([`config`]), the evaluations a user can name
//! ([`evaluation`]), and the [`registry`] that finds solvers by name.
//!
//! A solver takes a board of any shape ([`AnyBoard`]) and a budget, and returns a [`Decision`]:
//! the best move (or none when no move is legal) plus diagnostics. Inside, every solver is
//! generic over the board type ([`Position`]) and, where it scores boards, over an [`Evaluator`];
//! [`evaluation::dispatch`] builds the monomorphised solver for the game's shape once, so the 4×4
//! bitboard path pays nothing for the others. Solvers import only [`crate::engine`], [`config`]
//! and [`evaluation`]; they never print.
//!
//! - [`expectimax::Expectimax`] ("expectimax", the default): depth-limited expectimax after
//!   nneonneo/2048-ai with a transposition table, a probability cutoff and a time budget; it
//!   stops at any chance node its evaluation knows exactly ([`Evaluator::exact`]).
//! - [`greedy::Greedy`] ("greedy"): one ply, the evaluation of the board after each move.
//! - [`montecarlo::MonteCarlo`] ("montecarlo"): rollouts from each move's afterstate, the best
//!   mean outcome (article 003, Zilberman's pure Monte Carlo).
//! - [`aco::Aco`] ("aco"): ant colony optimisation, ants guided by pheromone and the evaluation
//!   (article 000).
//! - [`bfs::Bfs`] ("bfs"): breadth-first search without spawns for the shortest way to a goal
//!   tile, else the evaluation (article 004).
//! - "ntuple" ([`ntuple::eval`]): one ply over a TD(0)-trained n-tuple network (Szubert &
//!   Jaśkowski 2014), trained by `bot2048 train` ([`ntuple::td`]).
//!
//! Evaluations ([`Evaluation`], one file each): nneonneo's [`heuristic::RowHeuristic`], article
//! 001's [`article::ArticleEval`], the n-tuple network ([`ntuple::NTupleEval`]) and the endgame
//! tables over the heuristic ([`tables::TableEval`]).
//!
//! ```
//! use bot2048::engine::{AnyBoard, Board, Shape};
//! use bot2048::solver::{registry, Budget, SolverConfig};
//! let mut solver = registry::build("expectimax", &SolverConfig::new(Shape::FOUR)).unwrap();
//! let board = Board::from_values([[2, 2, 0, 0], [0; 4], [0; 4], [0; 4]]).unwrap();
//! let d = solver.decide(&AnyBoard::Four(board), &Budget::depth(1)).unwrap();
//! assert!(d.best.is_some());
//! ```
use crate::engine::{AnyBoard, Move, Position, Shape};
use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub mod aco;
pub mod article;
pub mod bfs;
pub mod config;
pub mod corner;
pub mod evaluation;
pub mod expectimax;
pub mod greedy;
pub mod heuristic;
pub mod montecarlo;
pub mod ntuple;
pub mod registry;
pub mod tables;

pub use config::SolverConfig;
pub use evaluation::Evaluation;

/// What a solver may spend on one decision, given per call (so `play` can change it move to
/// move). Each field left `None` falls back to the solver's own default.
///
/// - `time`: wall-clock time for the decision; solvers that can stop early (iterative
///   deepening, rollouts, iterations) stop within it, and their last complete unit of work counts.
/// - `work`: the solver's own measure (see [`config::SolverInfo::work`]): expectimax, the
///   depth in moves beyond the root move; bfs, the longest move sequence (the root move
///   included); montecarlo, rollouts per legal move; aco, iterations; greedy has none. With both,
///   the solver stops at whichever comes first; with `time` alone the rollout and iteration
///   solvers go on until it is spent.
/// - `stop`: a flag (Ctrl-C) the search polls; when set, the decision returns at once with the
///   work completed so far ([`Decision::stopped`]).
#[derive(Clone, Debug, Default)]
pub struct Budget {
    /// Wall-clock time for the decision.
    pub time: Option<Duration>,
    /// The solver's own measure of work (depth, rollouts, iterations).
    pub work: Option<u64>,
    /// Polled during the search; set means stop now.
    pub stop: Option<Arc<AtomicBool>>,
}

impl Budget {
    /// A budget of `ms` milliseconds of wall-clock time.
    pub fn millis(ms: u64) -> Budget {
        Budget {
            time: Some(Duration::from_millis(ms)),
            ..Budget::default()
        }
    }

    /// A budget of exactly `depth` (expectimax: moves beyond the root move; 0 = one ply).
    pub fn depth(depth: u32) -> Budget {
        Budget {
            work: Some(u64::from(depth)),
            ..Budget::default()
        }
    }

    /// The same budget with a stop flag.
    pub fn with_stop(mut self, stop: Arc<AtomicBool>) -> Budget {
        self.stop = Some(stop);
        self
    }

    /// True when the stop flag is set.
    pub fn stopped(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
    }

    /// The deadline of a decision that starts at `start`, if the budget has a time.
    pub fn deadline(&self, start: Instant) -> Option<Instant> {
        self.time.map(|t| start + t)
    }
}

/// What a solver decided for one board, with diagnostics.
#[derive(Clone, Debug, Serialize)]
pub struct Decision {
    /// The move to play; `None` when no move is legal (game over).
    pub best: Option<Move>,
    /// Each move's value, indexed by [`Move::index`]; `None` for an illegal move. Units are the
    /// solver's own (expectimax: the expected evaluation at the search horizon; greedy: the
    /// evaluation; montecarlo: the mean rollout outcome; aco: the root edge's pheromone, τ0 = 1;
    /// bfs: minus the moves to the goal, or the evaluation when no sequence makes it).
    pub values: [Option<f64>; 4],
    /// Work done: nodes searched (expectimax: max nodes, chance nodes and leaves; bfs: boards
    /// reached; montecarlo and aco: moves played in rollouts and ants' games).
    pub nodes: u64,
    /// The solver's measure of the work it completed, in the unit its
    /// [`config::SolverInfo::work`] names (the unit `--depth` caps): expectimax, the depth
    /// searched, moves looked at beyond the root move (0 = one ply); greedy, always 0 (it names no
    /// unit: it looks one ply ahead); montecarlo, the
    /// rollouts completed for each move (the fewest); aco, the iterations completed; bfs, the
    /// length of the sequence found or searched (the root move included). Serialized as `depth`.
    #[serde(rename = "depth")]
    pub work: u32,
    /// Wall-clock time of the decision, in milliseconds.
    pub elapsed_ms: f64,
    /// True when the budget's stop flag cut the decision short.
    pub stopped: bool,
    /// True when the evaluation decided the board outright ([`Evaluator::decide_exactly`]: an
    /// endgame table covered it); `values` are then probabilities of success.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub exact: bool,
}

impl Decision {
    /// The decision for a set of move values: the best is the legal move of highest value, the
    /// first in [`Move::ALL`] order on a tie.
    pub fn from_values(values: [Option<f64>; 4], nodes: u64, work: u32, elapsed_ms: f64) -> Self {
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
            work,
            elapsed_ms,
            stopped: false,
            exact: false,
        }
    }
}

/// What a solver did while pondering: searching ahead from an afterstate while the game animates
/// the move and before its spawn is known ([`Solver::ponder`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct PonderReport {
    /// Nodes searched (of the searches that completed).
    pub nodes: u64,
    /// The depth (moves beyond the next root move) to which the next decision is ready for every
    /// likeliest spawn (a 2 in any empty cell); `None` when pondering did not complete one depth.
    pub depth: Option<u32>,
    /// Wall-clock time spent, ms.
    pub elapsed_ms: f64,
}

/// A 2048 player: a board and a budget in, a decision out. `Send` so games can run on worker
/// threads. Made by [`registry::build`] for one board shape.
pub trait Solver: Send {
    /// The solver's name, as the [`registry`] knows it.
    fn name(&self) -> &str;

    /// The board shape this solver was built for.
    fn shape(&self) -> Shape;

    /// Decides the move for `board` within `budget`. A dead board gives `best: None` and all
    /// values `None`.
    ///
    /// # Errors
    /// [`SolverError::WrongShape`] when `board` is not of [`Solver::shape`].
    fn decide(&mut self, board: &AnyBoard, budget: &Budget) -> Result<Decision, SolverError>;

    /// Searches ahead from `afterstate` (the board after the move just played, before its spawn)
    /// within `budget`, keeping what it learns for the next [`Solver::decide`], which then comes
    /// at once for the spawn that happens. Work for spawns that do not happen is dropped. The
    /// default does nothing (solvers that keep nothing between decisions).
    ///
    /// # Errors
    /// [`SolverError::WrongShape`] when `afterstate` is not of [`Solver::shape`].
    fn ponder(
        &mut self,
        afterstate: &AnyBoard,
        budget: &Budget,
    ) -> Result<PonderReport, SolverError> {
        let _ = (afterstate, budget);
        Ok(PonderReport::default())
    }
}

/// A static evaluation of a board type: higher is better, in the evaluator's own units.
///
/// **The scale, one contract for every evaluation**: a value is a finite `f32` in the
/// evaluation's own units, higher is better, and 0 is what a lost board (no legal move) is
/// worth. An evaluation keeps live boards above 0 where it can (the heuristic adds a constant per
/// line for that) but may go below it on busy late boards (the heuristic does, to about −10^6):
/// expectimax then takes such a board as 0, like a dead one (nneonneo's convention, see
/// [`expectimax`]), and montecarlo values a dead rollout at the lowest live outcome instead
/// ([`montecarlo::dead_value`]). Values of two evaluations are never compared. The one exception is
/// [`Evaluator::decide_exactly`], whose values are probabilities in 0..=1.
///
/// Solvers call [`Evaluator::evaluate`] on afterstates (the board after a move, before its
/// spawn) at their horizon, and [`Evaluator::exact`] at every chance node before searching it.
pub trait Evaluator<P: Position>: Send + Sync {
    /// The value of `afterstate`.
    fn evaluate(&self, afterstate: P) -> f32;

    /// The value of `afterstate` when the evaluation knows it without a search below it (an
    /// endgame table covers it), on the scale of [`Evaluator::evaluate`]: expectimax stops at
    /// such a chance node, at any depth. `None` (the default): search on.
    #[inline(always)]
    fn exact(&self, afterstate: P) -> Option<f32> {
        let _ = afterstate;
        None
    }

    /// Each move's exact chance of success when the evaluation can decide `board` outright (an
    /// endgame table covers it): indexed by [`Move::index`], a probability in 0..=1 for each
    /// legal move, `None` for an illegal one. A solver that gets `Some` plays the best of them
    /// without searching, or searches among the moves near the best (expectimax's
    /// `table-margin`). `None` (the default): search.
    #[inline(always)]
    fn decide_exactly(&self, board: P) -> Option<[Option<f32>; 4]> {
        let _ = board;
        None
    }
}

impl<P: Position, E: Evaluator<P> + ?Sized> Evaluator<P> for Arc<E> {
    #[inline(always)]
    fn evaluate(&self, afterstate: P) -> f32 {
        (**self).evaluate(afterstate)
    }

    #[inline(always)]
    fn exact(&self, afterstate: P) -> Option<f32> {
        (**self).exact(afterstate)
    }

    #[inline(always)]
    fn decide_exactly(&self, board: P) -> Option<[Option<f32>; 4]> {
        (**self).decide_exactly(board)
    }
}

/// Why a solver could not be made, or could not decide.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SolverError {
    /// No solver has this name.
    #[error("unknown solver {name:?} (solvers: {})", known.join(", "))]
    UnknownSolver {
        /// The name asked for.
        name: String,
        /// The names that exist.
        known: Vec<String>,
    },
    /// No evaluation has this name.
    #[error("unknown evaluation {name:?} (evaluations: {})", known.join(", "))]
    UnknownEvaluation {
        /// The name asked for.
        name: String,
        /// The names that exist.
        known: Vec<String>,
    },
    /// An option the solver does not have, or a value it cannot take.
    #[error("solver {solver}: {message}")]
    BadOption {
        /// The solver's name.
        solver: String,
        /// What is wrong, and what the solver takes.
        message: String,
    },
    /// A budget or evaluation the solver cannot use on this board shape.
    #[error("solver {solver} cannot play a {shape} board: {why}")]
    Unsupported {
        /// The solver's name.
        solver: String,
        /// The board shape.
        shape: Shape,
        /// Why.
        why: String,
    },
    /// The board given is not of the shape the solver was built for.
    #[error("the solver was built for {solver} boards and was given a {board} board")]
    WrongShape {
        /// The solver's shape.
        solver: Shape,
        /// The board's shape.
        board: Shape,
    },
    /// A network weights file that cannot be used (missing, corrupt, of another format).
    #[error("{message}")]
    BadNetwork {
        /// The file.
        path: String,
        /// What is wrong with it, naming the file.
        message: String,
    },
    /// Endgame tables that cannot be used (none built, a corrupt or truncated file).
    #[error("{message}")]
    Tables {
        /// What is wrong, naming the file or folder and what to run.
        message: String,
    },
    /// An option (`--opt KEY=VALUE`) that none of several solvers has.
    #[error("option {key:?}: none of the solvers run has it ({})", known.join("; "))]
    NoSuchOption {
        /// The key given.
        key: String,
        /// Each solver run with its keys, e.g. "expectimax: cprob, table-bits".
        known: Vec<String>,
    },
}

/// The board of type `P` inside `board`, or [`SolverError::WrongShape`] when its shape is not
/// `shape` (the solver's).
pub fn board_for<P: Position>(board: &AnyBoard, shape: Shape) -> Result<P, SolverError> {
    let wrong = || SolverError::WrongShape {
        solver: shape,
        board: board.shape(),
    };
    if board.shape() != shape {
        return Err(wrong());
    }
    P::from_any(board).ok_or_else(wrong)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Board;

    #[test]
    fn decision_picks_highest_legal() {
        let d = Decision::from_values([None, Some(1.0), Some(3.0), Some(3.0)], 0, 0, 0.0);
        assert_eq!(d.best, Some(Move::Left));
        let d = Decision::from_values([None; 4], 0, 0, 0.0);
        assert_eq!(d.best, None);
    }

    #[test]
    fn a_board_of_another_shape_is_refused() {
        let three = AnyBoard::empty(Shape::new(3, 3).unwrap());
        let err = board_for::<Board>(&three, Shape::FOUR).unwrap_err();
        assert_eq!(
            err,
            SolverError::WrongShape {
                solver: Shape::FOUR,
                board: Shape::new(3, 3).unwrap()
            }
        );
        assert!(board_for::<Board>(&AnyBoard::Four(Board::EMPTY), Shape::FOUR).is_ok());
    }
}

/// Boards shared by the solvers' tests, each worked out by hand.
#[cfg(test)]
pub(crate) mod test_boards {
    use crate::engine::{Board, GridBoard, Shape};

    /// 4×4, the left column empty and the rest full with no equal neighbours:
    /// ```text
    ///  .  2  4  8
    ///  .  4  8 16
    ///  .  2  4  8
    ///  .  4  8 16
    /// ```
    /// Left slides every row; Right, Up and Down change nothing: Left is the only legal move.
    pub fn only_left_4x4() -> Board {
        Board::from_values([[0, 2, 4, 8], [0, 4, 8, 16], [0, 2, 4, 8], [0, 4, 8, 16]]).unwrap()
    }

    /// 3×3 with the same pattern (`. 2 4 / . 4 2 / . 2 4`): Left is the only legal move.
    pub fn only_left_3x3() -> GridBoard {
        let shape = Shape::new(3, 3).unwrap();
        GridBoard::from_values(shape, &[0, 2, 4, 0, 4, 2, 0, 2, 4]).unwrap()
    }

    /// 4×4, two 256s in the top-left corner:
    /// ```text
    /// 256 256  2  .
    ///   4   .  .  .
    /// ```
    /// Left makes a 512 in the corner; Right makes it at (0, 2) beside the 2; Down drops both
    /// 256s off the top row and buries the left one above the 4; Up changes nothing.
    pub fn corner_merge_4x4() -> Board {
        Board::from_values([[256, 256, 2, 0], [4, 0, 0, 0], [0; 4], [0; 4]]).unwrap()
    }

    /// The same on 5×5 (256 256 2 in row 0, a 4 below the corner): Left merges into the corner.
    pub fn corner_merge_5x5() -> GridBoard {
        let shape = Shape::new(5, 5).unwrap();
        let mut v = vec![0u64; 25];
        v[0] = 256;
        v[1] = 256;
        v[2] = 2;
        v[5] = 4;
        GridBoard::from_values(shape, &v).unwrap()
    }

    /// A busy 4×4 board on which a deep or long search takes far more than a millisecond.
    pub fn late_4x4() -> Board {
        Board::from_values([
            [2, 4, 8, 16],
            [32, 64, 128, 256],
            [512, 1024, 2048, 0],
            [0, 0, 2, 0],
        ])
        .unwrap()
    }
}
