//! Breadth-first search toward a goal tile ("bfs"): the shortest move sequence that makes the
//! goal tile, searched over afterstates; the evaluation when none is within the depth limit.
//!
//! Source: article 004 (`004_57795e0964b38b67.txt`: the 1024 game, BFS over move sequences with
//! a visited set of packed boards and a depth limit of 8 moves, a greedy advice mode).
//! Implemented, not ported.
//!
//! The spawn model: **no spawns inside the search** (afterstates only). The article's search
//! calls a move that spawns a random tile, so its "shortest sequence" depends on luck; here the
//! same board always gives the same answer. A sequence found merges tiles already on the board
//! only, so it is conservative about material (spawns only add tiles); a spawn may land where the
//! plan slides, so the plan is made again at every move and only its first move is played. It is
//! also cheap: at most 4^depth sequences, far fewer once repeated boards are dropped.
//!
//! Details:
//! - the search runs level by level for the four root moves at once; a board is dropped when
//!   the same root move reached it before (by [`Position::table_key`]; boards without a key,
//!   4×4 boards with a tile beyond 32768, are kept);
//! - the first level at which any root move makes the goal ends the search; among the root moves
//!   that make it at that length the best-evaluated afterstate wins;
//! - no sequence within the limit: the move whose afterstate the evaluation scores highest
//!   (the article's greedy advice);
//! - a board that already holds the goal tile aims at twice its largest tile instead.
use super::config::{OptionInfo, OptionValues, SolverConfig, SolverInfo};
use super::evaluation::{dispatch, Build};
use super::{board_for, Budget, Decision, Evaluator, Solver, SolverError};
use crate::engine::{goal_exponent, AnyBoard, Move, Position, Shape};
use std::collections::HashSet;
use std::marker::PhantomData;
use std::time::Instant;

/// The registry entry.
pub const INFO: SolverInfo = SolverInfo {
    name: "bfs",
    summary: "breadth-first search (no spawns) for the shortest move sequence to the goal tile; else the evaluation",
    source: "article 004 (004_57795e0964b38b67.txt)",
    work: Some("the longest sequence searched, in moves including the root move (default 8 as the article; with --time-ms alone, deepens to at most 16 until the time is spent)"),
    uses_evaluation: true,
    options: &[OptionInfo {
        key: "goal",
        default: "0",
        help: "the goal tile's value, a power of two (0 = the game's goal, else 1024 as the article)",
    }],
    build: build_bfs,
};

/// The article's depth limit: sequences of at most 8 moves.
pub const DEFAULT_DEPTH: u32 = 8;
/// The longest sequence searched with a time budget alone.
pub const MAX_DEPTH: u32 = 16;
/// Boards expanded between two looks at the clock and the stop flag.
pub const POLL_EVERY: u64 = 64;
/// The goal tile when neither the option nor the game names one (the article's 1024 game).
pub const DEFAULT_GOAL: u64 = 1024;

struct BfsBuild(Shape, u8);

impl Build for BfsBuild {
    const SOLVER: &'static str = INFO.name;

    fn build<P: Position, E: Evaluator<P> + 'static>(self, eval: E) -> Box<dyn Solver> {
        Box::new(Bfs::<P, E>::new(self.0, self.1, eval))
    }
}

fn build_bfs(config: &SolverConfig) -> Result<Box<dyn Solver>, SolverError> {
    let v = OptionValues::new(&INFO, &config.options)?;
    let tile = match v.get::<u64>("goal")? {
        0 => config.goal.unwrap_or(DEFAULT_GOAL),
        t => t,
    };
    let goal = goal_exponent(config.shape, tile).map_err(|e| SolverError::BadOption {
        solver: INFO.name.into(),
        message: format!("goal {tile}: {e}"),
    })?;
    dispatch(config, BfsBuild(config.shape, goal))
}

/// What the search found for the root moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    /// The shortest sequence length (moves, the root move included) and, for each root move,
    /// whether it makes the goal at that length.
    Goal {
        /// Moves in the shortest sequence.
        length: u32,
        /// The root moves (by [`Move::index`]) whose sequences have that length.
        moves: [bool; 4],
    },
    /// No sequence within the limit: the deepest level searched completely.
    None {
        /// Longest sequence length searched completely.
        searched: u32,
    },
}

/// The BFS solver over board type `P` and evaluation `E`. See the module doc.
pub struct Bfs<P, E> {
    shape: Shape,
    goal: u8,
    eval: E,
    frontier: Vec<(u8, P)>,
    next: Vec<(u8, P)>,
    visited: HashSet<(u8, u64)>,
    nodes: u64,
    _board: PhantomData<fn() -> P>,
}

impl<P: Position, E: Evaluator<P>> Bfs<P, E> {
    /// A solver for boards of `shape` toward the tile of exponent `goal`, falling back on `eval`.
    ///
    /// The budget of each decision ([`Budget`]): `work` = the longest sequence (moves, the root
    /// move included; 0 counts as 1); `time` = a wall-clock limit polled every [`POLL_EVERY`] boards,
    /// after which the levels completed count; with `time` alone, up to [`MAX_DEPTH`]; with
    /// neither, [`DEFAULT_DEPTH`]. The stop flag is polled with the time.
    pub fn new(shape: Shape, goal: u8, eval: E) -> Bfs<P, E> {
        Bfs {
            shape,
            goal,
            eval,
            frontier: Vec::new(),
            next: Vec::new(),
            visited: HashSet::new(),
            nodes: 0,
            _board: PhantomData,
        }
    }

    /// The goal exponent for `board`: the solver's, or twice the largest tile once it is made.
    pub fn goal_for(&self, board: P) -> u8 {
        let top = board.max_exponent();
        if top >= self.goal {
            (top + 1).min(self.shape.max_exponent())
        } else {
            self.goal
        }
    }

    /// Searches sequences of up to `limit` moves from `board` toward exponent `goal`; `late`
    /// says when to stop.
    pub fn search(
        &mut self,
        board: P,
        goal: u8,
        limit: u32,
        late: &mut dyn FnMut() -> bool,
    ) -> Found {
        self.frontier.clear();
        self.visited.clear();
        self.nodes = 0;
        let mut moves = [false; 4];
        for (i, a) in board.afterstates().into_iter().enumerate() {
            if let Some(a) = a {
                self.nodes += 1;
                moves[i] = a.max_exponent() >= goal;
                self.frontier.push((i as u8, a));
            }
        }
        if moves.contains(&true) {
            return Found::Goal { length: 1, moves };
        }
        for length in 2..=limit.max(1) {
            match self.level(goal, late) {
                Some(moves) if moves.contains(&true) => return Found::Goal { length, moves },
                Some(_) => std::mem::swap(&mut self.frontier, &mut self.next),
                None => {
                    return Found::None {
                        searched: length - 1,
                    }
                }
            }
        }
        Found::None {
            searched: limit.max(1),
        }
    }

    /// Expands one level of the frontier into `self.next`: the root moves that reach the goal
    /// in it, or `None` when `late` cut it short.
    fn level(&mut self, goal: u8, late: &mut dyn FnMut() -> bool) -> Option<[bool; 4]> {
        self.next.clear();
        let mut moves = [false; 4];
        for k in 0..self.frontier.len() {
            let (root, b) = self.frontier[k];
            for a in b.afterstates().into_iter().flatten() {
                self.nodes += 1;
                if self.nodes.is_multiple_of(POLL_EVERY) && late() {
                    return None;
                }
                if a.max_exponent() >= goal {
                    moves[root as usize] = true;
                } else if a
                    .table_key()
                    .is_none_or(|key| self.visited.insert((root, key)))
                {
                    self.next.push((root, a));
                }
            }
        }
        Some(moves)
    }

    /// The decision for `board` within `budget` (see [`Bfs::new`]).
    pub fn decide_on(&mut self, board: P, budget: &Budget) -> Decision {
        let start = Instant::now();
        let limit = match (budget.work, budget.time) {
            (Some(w), _) => w.clamp(1, u64::from(MAX_DEPTH)) as u32,
            (None, Some(_)) => MAX_DEPTH,
            (None, None) => DEFAULT_DEPTH,
        };
        let deadline = budget.deadline(start);
        let mut stopped = false;
        let mut late = || {
            stopped |= budget.stopped();
            stopped || deadline.is_some_and(|d| Instant::now() >= d)
        };
        let found = self.search(board, self.goal_for(board), limit, &mut late);
        let after = board.afterstates();
        let evals = after.map(|a| a.map(|a| f64::from(self.eval.evaluate(a))));
        let ms = start.elapsed().as_secs_f64() * 1e3;
        let mut d = match found {
            Found::Goal { length, moves } => {
                goal_decision(&evals, length, moves, limit, self.nodes, ms)
            }
            Found::None { searched } => Decision::from_values(evals, self.nodes, searched, ms),
        };
        d.stopped = stopped;
        d
    }
}

/// The decision when the goal is `length` moves away through the root moves marked in `moves`:
/// the best-evaluated of those; each legal move's value is minus its moves to the goal
/// (−(`limit` + 1) for a legal move that does not make it in `length`).
fn goal_decision(
    evals: &[Option<f64>; 4],
    length: u32,
    moves: [bool; 4],
    limit: u32,
    nodes: u64,
    ms: f64,
) -> Decision {
    let values = std::array::from_fn(|i| {
        evals[i].map(|_| -f64::from(if moves[i] { length } else { limit + 1 }))
    });
    let mut best: Option<(usize, f64)> = None;
    for (i, e) in evals.iter().enumerate() {
        if let (true, Some(e)) = (moves[i], e) {
            if best.is_none_or(|(_, b)| *e > b) {
                best = Some((i, *e));
            }
        }
    }
    let mut d = Decision::from_values(values, nodes, length, ms);
    d.best = best.map(|(i, _)| Move::ALL[i]);
    d
}

impl<P: Position, E: Evaluator<P> + 'static> Solver for Bfs<P, E> {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Board, GridBoard};
    use crate::solver::heuristic::RowHeuristic;
    use crate::solver::test_boards::*;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    fn on_4x4(goal_tile: u64) -> Bfs<Board, RowHeuristic> {
        let goal = goal_exponent(Shape::FOUR, goal_tile).unwrap();
        Bfs::new(Shape::FOUR, goal, RowHeuristic::new())
    }

    /// ```text
    /// 32 16  8  4
    ///  .  .  .  4
    /// ```
    /// Goal 64 needs four merges in a chain (4+4, 8+8, 16+16, 32+32), and a tile made by a merge
    /// cannot merge again in the same move, so no sequence is shorter than 4 moves. Up makes
    /// `32 16 8 8` in row 0, then Left, Left, Left: 64. Down drops all four columns and makes
    /// the same row at the bottom: also 4. Right changes nothing (row 0 has no pair, row 1 is
    /// packed right); Left only moves row 1's 4 away from the other 4 (5 moves at least).
    fn chain_to_64() -> Board {
        Board::from_values([[32, 16, 8, 4], [0, 0, 0, 4], [0; 4], [0; 4]]).unwrap()
    }

    #[test]
    fn finds_the_shortest_sequence_worked_out_by_hand() {
        let mut s = on_4x4(64);
        let found = s.search(chain_to_64(), 6, 8, &mut || false);
        assert_eq!(
            found,
            Found::Goal {
                length: 4,
                moves: [true, true, false, false]
            }
        );
        let d = s.decide_on(chain_to_64(), &Budget::default());
        assert_eq!(d.work, 4);
        assert_eq!(d.values, [Some(-4.0), Some(-4.0), Some(-9.0), None]);
        // Up and Down mirror each other: equal evaluations, the first (Up) is played.
        assert_eq!(d.best, Some(Move::Up));
        // Three moves are not enough: the evaluation decides, and says so in the depth.
        let found = s.search(chain_to_64(), 6, 3, &mut || false);
        assert_eq!(found, Found::None { searched: 3 });
        let d = s.decide_on(chain_to_64(), &Budget::depth(3));
        assert_eq!(d.work, 3);
        let evals = chain_to_64()
            .afterstates()
            .map(|a| a.map(|a| f64::from(RowHeuristic::new().evaluate(a))));
        assert_eq!(d.values, evals);
    }

    #[test]
    fn a_goal_one_merge_away_is_one_move() {
        // 512 512 in row 0: Left or Right makes 1024 (the article's goal) at once.
        let b = Board::from_values([[512, 512, 0, 0], [2, 0, 0, 0], [0; 4], [0; 4]]).unwrap();
        let d = on_4x4(1024).decide_on(b, &Budget::default());
        assert_eq!(d.work, 1);
        assert!(matches!(d.best, Some(Move::Left) | Some(Move::Right)));
        // Once the goal is on the board the solver aims at the next tile.
        let s = on_4x4(1024);
        let made = b.shifted(Move::Left).unwrap();
        assert_eq!(s.goal_for(made), 11);
        assert_eq!(s.goal_for(b), 10);
    }

    #[test]
    fn the_only_legal_move_on_4x4_and_3x3() {
        let d = on_4x4(1024).decide_on(only_left_4x4(), &Budget::default());
        assert_eq!(d.best, Some(Move::Left));
        let shape = Shape::new(3, 3).unwrap();
        let goal = goal_exponent(shape, 64).unwrap();
        let mut s = Bfs::<GridBoard, _>::new(shape, goal, RowHeuristic::new());
        assert_eq!(
            s.decide_on(only_left_3x3(), &Budget::default()).best,
            Some(Move::Left)
        );
    }

    #[test]
    fn merges_into_the_corner_on_4x4_and_5x5() {
        // No 2048 within 8 moves: the evaluation keeps the 512 in the corner.
        let d = on_4x4(2048).decide_on(corner_merge_4x4(), &Budget::default());
        assert_eq!(d.best, Some(Move::Left), "{:?}", d.values);
        let shape = Shape::new(5, 5).unwrap();
        let mut s = Bfs::<GridBoard, _>::new(shape, 11, RowHeuristic::new());
        let d = s.decide_on(corner_merge_5x5(), &Budget::default());
        assert_eq!(d.best, Some(Move::Left), "{:?}", d.values);
        // Goal 512 on 5x5: one move, Left or Right; the corner's evaluation picks Left.
        let mut s = Bfs::<GridBoard, _>::new(shape, 9, RowHeuristic::new());
        let d = s.decide_on(corner_merge_5x5(), &Budget::default());
        assert_eq!((d.best, d.work), (Some(Move::Left), 1));
    }

    #[test]
    fn the_same_board_gets_the_same_answer() {
        let mut s = on_4x4(4096);
        let a = s.decide_on(late_4x4(), &Budget::default());
        let b = s.decide_on(late_4x4(), &Budget::default());
        assert_eq!((a.best, a.values, a.nodes), (b.best, b.values, b.nodes));
    }

    /// A 9×9 board full of 2s: without spawns its merges open hundreds of different boards
    /// within 16 moves (and its 162 points never make a large goal).
    fn twos_9x9() -> GridBoard {
        let shape = Shape::new(9, 9).unwrap();
        GridBoard::from_exponents(shape, &[1; 81]).unwrap()
    }

    #[test]
    fn the_stop_flag_and_a_spent_time_budget_end_the_search() {
        // The goal (2^20) is out of reach; the flag and the clock are polled every 64 boards.
        let b = twos_9x9();
        let mut s = Bfs::<GridBoard, _>::new(b.shape(), 20, RowHeuristic::new());
        let full = s.decide_on(b, &Budget::depth(16));
        assert!(full.nodes > 256, "{} boards", full.nodes);
        let flag = Arc::new(AtomicBool::new(true));
        let d = s.decide_on(b, &Budget::depth(16).with_stop(flag));
        assert!(d.stopped);
        assert!(d.nodes <= POLL_EVERY, "{} boards", d.nodes);
        assert!(d.best.is_some(), "the evaluation still decides");
        let d = s.decide_on(b, &Budget::millis(0));
        assert!(!d.stopped && d.nodes <= POLL_EVERY && d.work < 16, "{d:?}");
    }
}
