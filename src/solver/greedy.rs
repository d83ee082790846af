//! The greedy solver: one ply, the move whose afterstate (the board after the move, before its
//! spawn) the evaluation scores highest.
//!
//! Source: the articles' greedy players (`001_96f41e1b07365bc2.txt` and
//! `002_4f36932bca3bfd95.txt`, "greedy" mode); the evaluation is an option (`--eval`): the
//! expectimax heuristic by default, so that the two solvers compare, or article 001's own
//! (`--eval article`, [`super::article::ArticleEval`]).
use super::config::{OptionValues, SolverConfig, SolverInfo};
use super::evaluation::{dispatch, Build};
use super::{board_for, Budget, Decision, Evaluator, Solver, SolverError};
use crate::engine::{AnyBoard, Position, Shape};
use std::marker::PhantomData;
use std::time::Instant;

/// The registry entry.
pub const INFO: SolverInfo = SolverInfo {
    name: "greedy",
    summary: "one ply: the move whose afterstate the evaluation scores highest",
    source: "articles 001 and 002 (greedy mode)",
    work: None,
    uses_evaluation: true,
    options: &[],
    build: build_greedy,
};

struct GreedyBuild(Shape);

impl Build for GreedyBuild {
    const SOLVER: &'static str = INFO.name;

    fn build<P: Position, E: Evaluator<P> + 'static>(self, eval: E) -> Box<dyn Solver> {
        Box::new(Greedy::<P, E>::new(self.0, eval))
    }
}

fn build_greedy(config: &SolverConfig) -> Result<Box<dyn Solver>, SolverError> {
    OptionValues::new(&INFO, &config.options)?;
    dispatch(config, GreedyBuild(config.shape))
}

/// One-ply greedy solver over board type `P` and evaluation `E`. Cheap (4 evaluations a move);
/// a baseline for `sim`. It ignores the budget: one ply is all it does.
pub struct Greedy<P, E> {
    name: &'static str,
    shape: Shape,
    eval: E,
    _board: PhantomData<fn() -> P>,
}

impl<P: Position, E: Evaluator<P>> Greedy<P, E> {
    /// A greedy solver for boards of `shape`, scoring afterstates with `eval`.
    pub fn new(shape: Shape, eval: E) -> Greedy<P, E> {
        Greedy {
            name: INFO.name,
            shape,
            eval,
            _board: PhantomData,
        }
    }

    /// The same solver reporting `name` (e.g. `ntuple`: greedy over the network).
    pub fn named(mut self, name: &'static str) -> Greedy<P, E> {
        self.name = name;
        self
    }

    /// The decision for `board`: each legal move's value is its afterstate's evaluation.
    pub fn decide_on(&self, board: P) -> Decision {
        let start = Instant::now();
        let mut values = [None; 4];
        let mut nodes = 0;
        for (i, after) in board.afterstates().into_iter().enumerate() {
            if let Some(after) = after {
                values[i] = Some(self.eval.evaluate(after) as f64);
                nodes += 1;
            }
        }
        Decision::from_values(values, nodes, 0, start.elapsed().as_secs_f64() * 1e3)
    }
}

impl<P: Position, E: Evaluator<P> + 'static> Solver for Greedy<P, E> {
    fn name(&self) -> &str {
        self.name
    }

    fn shape(&self) -> Shape {
        self.shape
    }

    fn decide(&mut self, board: &AnyBoard, _budget: &Budget) -> Result<Decision, SolverError> {
        Ok(self.decide_on(board_for::<P>(board, self.shape)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Board, GridBoard, Move};
    use crate::solver::heuristic::{evaluate, RowHeuristic};

    #[test]
    fn values_are_the_afterstates_evaluations() {
        let b = Board::from_values([[2, 2, 0, 0], [0; 4], [0; 4], [0, 0, 0, 4]]).unwrap();
        let d = Greedy::<Board, _>::new(Shape::FOUR, RowHeuristic::new()).decide_on(b);
        for m in Move::ALL {
            let want = b.shifted(m).map(|a| evaluate(a) as f64);
            assert_eq!(d.values[m.index()], want, "{m}");
        }
    }

    #[test]
    fn the_only_legal_move_on_a_3x3_board() {
        // 3x3, full but for the top-right cell, no equal neighbours:
        //    2   4   .
        //   16  32   8
        //   64 128  16
        // Left and Down change nothing (row 0 is packed left, column 2 packed down); Right slides
        // row 0 and Up slides column 2.
        let shape = Shape::new(3, 3).unwrap();
        let g = GridBoard::from_values(shape, &[2, 4, 0, 16, 32, 8, 64, 128, 16]).unwrap();
        let legal: Vec<Move> = g.legal_moves().collect();
        assert_eq!(legal, vec![Move::Up, Move::Right]);
        let d = Greedy::<GridBoard, _>::new(shape, RowHeuristic::new()).decide_on(g);
        assert!(legal.contains(&d.best.unwrap()));
        assert_eq!(d.values[Move::Down.index()], None);
        assert_eq!(d.values[Move::Left.index()], None);
    }
}
