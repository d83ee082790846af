//! Monte Carlo rollouts ("montecarlo"): for each legal move, random games from its afterstate;
//! the move with the best mean outcome is played.
//!
//! Source: article 003 (`003_df5f1147900c5a59.txt`: 20 simulations per move, rollouts of at most
//! 50 random moves, the best average evaluation) and R. Zilberman, "2048 AI: pure Monte Carlo"
//! (random rollouts to the end of the game scored by the game's score: 2048 in 80 % of games at
//! 100 rollouts a move, 100 % and 4096 in 70 % at 10,000). Implemented, not ported; unlike the
//! article's code each rollout starts from the move's afterstate (the article's restarts from the
//! previous rollout's end), a legal-move test spawns nothing and scores nothing, and the spawns
//! follow the game's rule ([`SpawnRule`]).
//!
//! A rollout: spawn a tile, play a move, and so on, until `length` moves (0 = no limit) or no
//! legal move; its outcome ([`Outcome`]) is measured from the root move on. Rollout moves come
//! from a [`Policy`]: uniform among the legal moves, or ε-greedy on the evaluation.
//!
//! Each root move has its own random stream, drawn from the solver's generator (seeded by
//! [`SolverConfig::seed`]) at each decision, so the same seed gives the same decisions whether the
//! root moves run in parallel or not. A rollout allocates nothing.
use super::config::{OptionInfo, OptionValues, SolverConfig, SolverInfo};
use super::evaluation::{dispatch, Build};
use super::{board_for, Budget, Decision, Evaluator, Solver, SolverError};
use crate::engine::{AnyBoard, Move, Position, Shape, SpawnRule};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use std::marker::PhantomData;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// The registry entry.
pub const INFO: SolverInfo = SolverInfo {
    name: "montecarlo",
    summary: "random rollouts from each move's afterstate; the move with the best mean outcome",
    source: "article 003 (003_df5f1147900c5a59.txt); R. Zilberman, \"2048 AI: pure Monte Carlo\"",
    work: Some("rollouts per legal move (default: option rollouts; with --time-ms alone, until the time is spent)"),
    uses_evaluation: true,
    options: &[
        OptionInfo {
            key: "rollouts",
            default: "20",
            help: "rollouts per legal move when no --depth or --time-ms is given (article: 20), at least 1",
        },
        OptionInfo {
            key: "length",
            default: "50",
            help: "most moves in a rollout, 0 = play to the end of the game (article: 50)",
        },
        OptionInfo {
            key: "outcome",
            default: "eval",
            help: "a rollout's outcome: eval = the evaluation of its last board (a dead one: 0, or the decision's lowest live outcome if below 0; article), score = the merge points it gained from the root move on (Zilberman)",
        },
        OptionInfo {
            key: "policy",
            default: "greedy",
            help: "rollout moves: random = uniform among the legal moves; greedy = the best-evaluated afterstate, random with probability epsilon",
        },
        OptionInfo {
            key: "epsilon",
            default: "0.2",
            help: "with policy=greedy, the probability of a uniform random move instead, 0 to 1",
        },
    ],
    build: build_montecarlo,
};

/// What a rollout is worth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The evaluation of the rollout's last afterstate (article 003); a rollout that died is
    /// worth [`dead_value`].
    Eval,
    /// The merge points gained from the root move to the rollout's end (Zilberman's score).
    Score,
}

impl FromStr for Outcome {
    type Err = ();
    fn from_str(s: &str) -> Result<Outcome, ()> {
        match s {
            "eval" => Ok(Outcome::Eval),
            "score" => Ok(Outcome::Score),
            _ => Err(()),
        }
    }
}

/// How a rollout picks its moves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Policy {
    /// Uniformly among the legal moves.
    Random,
    /// The legal move of best-evaluated afterstate; with probability `epsilon` a uniform one.
    Greedy {
        /// Probability of a uniform random move, 0..=1.
        epsilon: f64,
    },
}

/// Typed options of [`MonteCarlo`] (see [`INFO`] for their command-line keys).
#[derive(Clone, Debug)]
pub struct MonteCarloOptions {
    /// The spawn rule of the rollouts.
    pub spawn: SpawnRule,
    /// Rollouts per legal move without a `work` or `time` budget.
    pub rollouts: u64,
    /// Most moves per rollout; 0 = to the end of the game.
    pub length: u32,
    /// What a rollout is worth.
    pub outcome: Outcome,
    /// How rollouts move.
    pub policy: Policy,
    /// Run the root moves on rayon's threads.
    pub parallel: bool,
    /// Seed of the solver's generator.
    pub seed: u64,
}

impl Default for MonteCarloOptions {
    fn default() -> MonteCarloOptions {
        MonteCarloOptions {
            spawn: SpawnRule::Classic,
            rollouts: 20,
            length: 50,
            outcome: Outcome::Eval,
            policy: Policy::Greedy { epsilon: 0.2 },
            parallel: false,
            seed: 1,
        }
    }
}

impl MonteCarloOptions {
    /// The options of `config`.
    ///
    /// # Errors
    /// [`SolverError::BadOption`] for an unknown key or a value out of range.
    pub fn from_config(config: &SolverConfig) -> Result<MonteCarloOptions, SolverError> {
        let v = OptionValues::new(&INFO, &config.options)?;
        let bad = |message: String| SolverError::BadOption {
            solver: INFO.name.into(),
            message,
        };
        let rollouts: u64 = v.get("rollouts")?;
        if rollouts == 0 {
            return Err(bad("rollouts=0: at least 1 rollout per move".into()));
        }
        let epsilon: f64 = v.get("epsilon")?;
        if !(0.0..=1.0).contains(&epsilon) {
            return Err(bad(format!("epsilon={epsilon} must be in 0..=1")));
        }
        let policy = match v.get::<String>("policy")?.as_str() {
            "random" => Policy::Random,
            "greedy" => Policy::Greedy { epsilon },
            other => return Err(bad(format!("policy={other}: random or greedy"))),
        };
        Ok(MonteCarloOptions {
            spawn: config.spawn,
            rollouts,
            length: v.get("length")?,
            outcome: v.get("outcome")?,
            policy,
            parallel: config.parallel,
            seed: config.seed,
        })
    }
}

struct MonteCarloBuild(Shape, MonteCarloOptions);

impl Build for MonteCarloBuild {
    const SOLVER: &'static str = INFO.name;

    fn build<P: Position, E: Evaluator<P> + 'static>(self, eval: E) -> Box<dyn Solver> {
        Box::new(MonteCarlo::<P, E>::new(self.0, self.1, eval))
    }
}

fn build_montecarlo(config: &SolverConfig) -> Result<Box<dyn Solver>, SolverError> {
    let opts = MonteCarloOptions::from_config(config)?;
    dispatch(config, MonteCarloBuild(config.shape, opts))
}

/// The 24 orders of the four moves: the first legal move of a uniformly drawn order is a uniform
/// draw among the legal moves, with one random number.
const ORDERS: [[u8; 4]; 24] = [
    [0, 1, 2, 3],
    [0, 1, 3, 2],
    [0, 2, 1, 3],
    [0, 2, 3, 1],
    [0, 3, 1, 2],
    [0, 3, 2, 1],
    [1, 0, 2, 3],
    [1, 0, 3, 2],
    [1, 2, 0, 3],
    [1, 2, 3, 0],
    [1, 3, 0, 2],
    [1, 3, 2, 0],
    [2, 0, 1, 3],
    [2, 0, 3, 1],
    [2, 1, 0, 3],
    [2, 1, 3, 0],
    [2, 3, 0, 1],
    [2, 3, 1, 0],
    [3, 0, 1, 2],
    [3, 0, 2, 1],
    [3, 1, 0, 2],
    [3, 1, 2, 0],
    [3, 2, 0, 1],
    [3, 2, 1, 0],
];

/// A uniformly random legal move of `board`: the board after it and its merge points, or `None`
/// when no move is legal.
#[inline]
pub fn random_move<P: Position, R: Rng>(board: P, rng: &mut R) -> Option<(P, u64)> {
    let order = ORDERS[rng.random_range(0..24usize)];
    order
        .iter()
        .find_map(|&i| board.apply(Move::ALL[i as usize]))
}

/// The legal move of `board` whose afterstate `eval` scores highest (the first in [`Move::ALL`]
/// order on a tie), with its merge points.
#[inline]
pub fn greedy_move<P: Position, E: Evaluator<P>>(board: P, eval: &E) -> Option<(P, u64)> {
    let mut best: Option<(Move, f32)> = None;
    for (i, after) in board.afterstates().into_iter().enumerate() {
        if let Some(a) = after {
            let v = eval.evaluate(a);
            if best.is_none_or(|(_, bv)| v > bv) {
                best = Some((Move::ALL[i], v));
            }
        }
    }
    best.and_then(|(m, _)| board.apply(m))
}

/// One root move's rollouts so far.
#[derive(Clone, Debug)]
struct Arm<P> {
    /// Index of the move in [`Move::ALL`].
    index: usize,
    /// The board after the move.
    after: P,
    /// The move's own merge points.
    gained: u64,
    rng: ChaCha8Rng,
    /// Sum of the live rollouts' outcomes.
    sum: f64,
    /// The lowest live outcome.
    lowest: f64,
    /// Rollouts that died (under [`Outcome::Eval`]).
    dead: u64,
    count: u64,
    moves: u64,
}

/// The Monte Carlo solver over board type `P` and evaluation `E`. See the module doc.
pub struct MonteCarlo<P, E> {
    shape: Shape,
    options: MonteCarloOptions,
    eval: E,
    rng: ChaCha8Rng,
    _board: PhantomData<fn() -> P>,
}

impl<P: Position, E: Evaluator<P>> MonteCarlo<P, E> {
    /// A solver for boards of `shape` with `options`, scoring with `eval`; its generator is
    /// seeded by `options.seed`.
    ///
    /// The budget of each decision ([`Budget`]): `work` = rollouts per legal move; `time` = a
    /// wall-clock limit, checked after each round (one rollout per legal move); with `time`
    /// alone the rounds go on until it is spent; with neither, `options.rollouts` rounds. The
    /// first round always completes (at most 4 × `length` moves); the stop flag ends the
    /// decision after the round under way.
    pub fn new(shape: Shape, options: MonteCarloOptions, eval: E) -> MonteCarlo<P, E> {
        MonteCarlo {
            shape,
            rng: ChaCha8Rng::seed_from_u64(options.seed),
            options,
            eval,
            _board: PhantomData,
        }
    }

    /// One rollout from `after` (the root move's afterstate): its outcome (`None` for a dead
    /// rollout under [`Outcome::Eval`]) and its moves.
    fn rollout(&self, after: P, gained: u64, rng: &mut ChaCha8Rng) -> (Option<f64>, u64) {
        let o = &self.options;
        let mut board = after;
        let mut points = gained;
        let mut moves = 0u64;
        let alive = loop {
            if o.length > 0 && moves >= u64::from(o.length) {
                break true;
            }
            let state = board.spawn_by(rng, o.spawn);
            let next = match o.policy {
                Policy::Greedy { epsilon } if !rng.random_bool(epsilon) => {
                    greedy_move(state, &self.eval)
                }
                _ => random_move(state, rng),
            };
            let Some((b, g)) = next else { break false };
            board = b;
            points += g;
            moves += 1;
        };
        let value = match o.outcome {
            Outcome::Score => Some(points as f64),
            Outcome::Eval if alive => Some(f64::from(self.eval.evaluate(board))),
            Outcome::Eval => None,
        };
        (value, moves)
    }

    /// `rounds` more rollouts for `arm` (`None`: until `late`), stopping early (after at least
    /// one) when `late` says so.
    fn run_arm(&self, arm: &mut Arm<P>, rounds: Option<u64>, late: &(dyn Fn() -> bool + Sync)) {
        let mut k = 0u64;
        while rounds.is_none_or(|r| k < r) {
            if k > 0 && late() {
                break;
            }
            k += 1;
            let (v, n) = self.rollout(arm.after, arm.gained, &mut arm.rng);
            match v {
                Some(v) => {
                    arm.sum += v;
                    arm.lowest = arm.lowest.min(v);
                }
                None => arm.dead += 1,
            }
            arm.count += 1;
            arm.moves += n;
        }
    }

    /// The decision for `board` within `budget` (see [`MonteCarlo::new`]).
    pub fn decide_on(&mut self, board: P, budget: &Budget) -> Decision {
        let start = Instant::now();
        let mut arms: [Option<Arm<P>>; 4] = Default::default();
        for (i, m) in Move::ALL.into_iter().enumerate() {
            let seed = self.rng.random::<u64>();
            arms[i] = board.apply(m).map(|(after, gained)| Arm {
                index: i,
                after,
                gained,
                rng: ChaCha8Rng::seed_from_u64(seed),
                sum: 0.0,
                lowest: f64::INFINITY,
                dead: 0,
                count: 0,
                moves: 0,
            });
        }
        // `None`: no count, until the deadline
        let rounds = match (budget.work, budget.time) {
            (Some(w), _) => Some(w.max(1)),
            (None, Some(_)) => None,
            (None, None) => Some(self.options.rollouts),
        };
        let deadline = budget.deadline(start);
        let stopped = AtomicBool::new(false);
        let late = || {
            let asked = budget.stopped();
            if asked {
                stopped.store(true, Ordering::Relaxed);
            }
            asked || deadline.is_some_and(|d| Instant::now() >= d)
        };
        let mut live: Vec<&mut Arm<P>> = arms.iter_mut().flatten().collect();
        if self.options.parallel {
            live.par_iter_mut()
                .for_each(|arm| self.run_arm(arm, rounds, &late));
        } else {
            let mut k = 0u64;
            while rounds.is_none_or(|r| k < r) {
                if k > 0 && late() {
                    break;
                }
                k += 1;
                for arm in live.iter_mut() {
                    self.run_arm(arm, Some(1), &|| false);
                }
            }
        }
        self.decision(&arms, start, stopped.load(Ordering::Relaxed))
    }

    /// The decision from the arms' means; a dead rollout counts as [`dead_value`].
    fn decision(&self, arms: &[Option<Arm<P>>; 4], start: Instant, stopped: bool) -> Decision {
        let dead = dead_value(arms.iter().flatten().map(|a| a.lowest));
        let mut values = [None; 4];
        let mut nodes = 0;
        for arm in arms.iter().flatten() {
            values[arm.index] = Some((arm.sum + dead * arm.dead as f64) / arm.count as f64);
            nodes += arm.moves;
        }
        // the fewest rollouts of a legal move (0 when there is none)
        let depth = arms.iter().flatten().map(|a| a.count).min().unwrap_or(0);
        let ms = start.elapsed().as_secs_f64() * 1e3;
        let mut d = Decision::from_values(values, nodes, depth.min(u64::from(u32::MAX)) as u32, ms);
        d.stopped = stopped;
        d
    }
}

/// What a dead rollout is worth under [`Outcome::Eval`], given the lowest live outcome of each
/// root move: 0 (a dead board, as the searches value it), or the lowest live outcome of the
/// decision when that is below 0. An evaluation can go below 0 on a live board (the heuristic
/// does on busy late boards, down to about −10^6), and a dead rollout must never beat a live one.
pub fn dead_value(lowest: impl Iterator<Item = f64>) -> f64 {
    lowest.fold(0.0, f64::min)
}

impl<P: Position, E: Evaluator<P> + 'static> Solver for MonteCarlo<P, E> {
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
    use std::sync::Arc;

    fn options(seed: u64) -> MonteCarloOptions {
        MonteCarloOptions {
            seed,
            ..MonteCarloOptions::default()
        }
    }

    fn on_4x4(seed: u64) -> MonteCarlo<Board, RowHeuristic> {
        MonteCarlo::new(Shape::FOUR, options(seed), RowHeuristic::new())
    }

    #[test]
    fn a_random_move_is_uniform_among_the_legal_moves() {
        // only_left_4x4 has one legal move; corner_merge_4x4 has three (Down, Left, Right): in
        // 3,000 draws each should come about 1,000 times (sd 26; the bound is 5 sd).
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let only = only_left_4x4();
        let left = only.apply(Move::Left).unwrap();
        assert_eq!(random_move(only, &mut rng), Some(left));
        let b = corner_merge_4x4();
        let mut counts = [0u32; 4];
        for _ in 0..3000 {
            let (after, _) = random_move(b, &mut rng).unwrap();
            let m = Move::ALL.iter().position(|&m| b.shifted(m) == Some(after));
            counts[m.unwrap()] += 1;
        }
        assert_eq!(counts[Move::Up.index()], 0);
        for m in [Move::Down, Move::Left, Move::Right] {
            assert!((870..=1130).contains(&counts[m.index()]), "{counts:?}");
        }
    }

    #[test]
    fn the_only_legal_move_on_4x4_and_3x3() {
        let d = on_4x4(1).decide_on(only_left_4x4(), &Budget::default());
        assert_eq!(d.best, Some(Move::Left));
        assert_eq!(d.values.iter().flatten().count(), 1);
        assert_eq!(d.work, 20, "the article's 20 rollouts");
        let shape = Shape::new(3, 3).unwrap();
        let mut s = MonteCarlo::<GridBoard, _>::new(shape, options(1), RowHeuristic::new());
        assert_eq!(
            s.decide_on(only_left_3x3(), &Budget::depth(5)).best,
            Some(Move::Left)
        );
    }

    #[test]
    fn merges_into_the_corner_on_4x4_and_5x5() {
        let d = on_4x4(2).decide_on(corner_merge_4x4(), &Budget::depth(200));
        assert_eq!(d.best, Some(Move::Left), "{:?}", d.values);
        assert_eq!(d.values[Move::Up.index()], None);
        let shape = Shape::new(5, 5).unwrap();
        let mut s = MonteCarlo::<GridBoard, _>::new(shape, options(2), RowHeuristic::new());
        let d = s.decide_on(corner_merge_5x5(), &Budget::depth(100));
        assert_eq!(d.best, Some(Move::Left), "{:?}", d.values);
    }

    #[test]
    fn the_same_seed_makes_the_same_decisions() {
        let b = corner_merge_4x4();
        let (mut a, mut c) = (on_4x4(7), on_4x4(7));
        for _ in 0..2 {
            let (x, y) = (
                a.decide_on(b, &Budget::depth(10)),
                c.decide_on(b, &Budget::depth(10)),
            );
            assert_eq!((x.best, x.values, x.nodes), (y.best, y.values, y.nodes));
        }
        // In parallel the root moves draw the same streams.
        let mut p = MonteCarlo::<Board, _>::new(
            Shape::FOUR,
            MonteCarloOptions {
                parallel: true,
                ..options(7)
            },
            RowHeuristic::new(),
        );
        let (x, y) = (
            p.decide_on(b, &Budget::depth(10)),
            on_4x4(7).decide_on(b, &Budget::depth(10)),
        );
        assert_eq!(x.values, y.values);
        // Another seed draws other rollouts.
        let z = on_4x4(8).decide_on(b, &Budget::depth(10));
        assert_ne!(z.values, y.values);
    }

    #[test]
    fn the_score_outcome_counts_the_root_merge() {
        // With rollouts of length 1 on only_left_4x4 the outcome is Left's 0 points plus one
        // rollout move's points: after Left and a spawn no row or column holds a pair unless the
        // new tile makes one, so a single move gains 0, 4 or 8 points; the mean is one of those
        // averaged, never negative, and every rollout played exactly one move.
        let opts = MonteCarloOptions {
            length: 1,
            outcome: Outcome::Score,
            ..options(4)
        };
        let mut s = MonteCarlo::<Board, _>::new(Shape::FOUR, opts, RowHeuristic::new());
        let d = s.decide_on(only_left_4x4(), &Budget::depth(50));
        let v = d.values[Move::Left.index()].unwrap();
        assert!((0.0..=8.0).contains(&v), "{v}");
        assert_eq!(d.nodes, 50);
        // On corner_merge_4x4 the root merge alone is worth 512 to Left and Right.
        let d = s.decide_on(corner_merge_4x4(), &Budget::depth(20));
        for m in [Move::Left, Move::Right] {
            assert!(d.values[m.index()].unwrap() >= 512.0, "{:?}", d.values);
        }
        assert!(d.values[Move::Down.index()].unwrap() < 512.0 + 64.0);
    }

    #[test]
    fn the_stop_flag_and_a_spent_time_budget_end_after_one_round() {
        let flag = Arc::new(AtomicBool::new(true));
        let d = on_4x4(1).decide_on(late_4x4(), &Budget::depth(100_000).with_stop(flag));
        assert!(d.stopped);
        assert_eq!(d.work, 1, "one rollout per move");
        assert!(d.best.is_some());
        let d = on_4x4(1).decide_on(late_4x4(), &Budget::millis(0));
        assert_eq!(d.work, 1);
        assert!(!d.stopped);
        // A time budget alone runs rounds until it is spent.
        let d = on_4x4(1).decide_on(late_4x4(), &Budget::millis(30));
        assert!(
            d.work > 20 && d.elapsed_ms >= 30.0,
            "{} rollouts in {} ms",
            d.work,
            d.elapsed_ms
        );
    }
}
