//! Ant colony optimisation ("aco"): ants play games from the board, choosing each move with
//! probability ∝ τ^α·η^β; the best ant of each iteration lays pheromone on its path; the root
//! move with the most pheromone is played.
//!
//! Source: article 000 (`000_142b408bd7bb3b59.txt`: 20 ants, 50 iterations, α = 1, β = 2,
//! evaporation 0.1, deposit 0.5, initial pheromone 1, only the iteration-best ant deposits) after
//! M. Dorigo and T. Stützle, *Ant Colony Optimization* (MIT Press, 2004; Ant System's update
//! τ ← (1 − ρ)·τ + Δτ once per iteration). Implemented, not ported. Where this differs from the
//! article's code:
//! - evaporation happens once per iteration and lazily: each table entry keeps the iteration it
//!   was last brought up to date, and a read multiplies by (1 − ρ)^(iterations since), so an
//!   update costs O(path) (the article evaporates every stored state on every single deposit,
//!   quadratic in the path); every edge, stored or not, starts at τ0 = 1 and evaporates;
//! - the deposit on an edge is `deposit · G / mean`, where G is the merge points the ant gained
//!   from that move to the end of its walk and `mean` the mean total points of the iteration's
//!   ants: so the root edge is paid for the whole game it led to (the article pays each edge its
//!   own merge score only, so the root move's pheromone would measure one move's merges), and
//!   the scale does not depend on the stage of the game;
//! - visibility η comes from the evaluation of each legal afterstate, rescaled per state to
//!   1..=2 (1 for the worst move, 2 for the best): evaluations come in very different units (the
//!   heuristic is about 10^6 with differences of 10^3), and a ratio of raw values would make every
//!   move equally visible; with β = 2 the best-evaluated move is 4 times as likely as the worst
//!   for equal pheromone;
//! - merge points come from the engine (the article's `extractScore` counts plain slides as
//!   merges).
//!
//! Memory: the pheromone table has a fixed 2^`table-bits` entries of 32 bytes (default 2^16 =
//! 2 MiB), allocated once per solver and reused; an entry is one state's four edges. A new
//! decision starts a new generation (older entries count as empty, nothing is cleared); a state
//! that finds no free slot within [`PROBES`] probes gets no entry (its edges keep the evaporated
//! τ0). The root's edges live outside the table and are never dropped. The two path buffers grow
//! to the longest walk and are reused.
use super::config::{OptionInfo, OptionValues, SolverConfig, SolverInfo};
use super::evaluation::{dispatch, Build};
use super::{board_for, Budget, Decision, Evaluator, Solver, SolverError};
use crate::engine::{AnyBoard, Move, Position, Shape, SpawnRule};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::marker::PhantomData;
use std::time::Instant;

/// The registry entry.
pub const INFO: SolverInfo = SolverInfo {
    name: "aco",
    summary: "ant colony optimisation: ants play games guided by pheromone and the evaluation; the root move with most pheromone",
    source: "article 000 (000_142b408bd7bb3b59.txt); Dorigo & Stützle, Ant Colony Optimization (2004)",
    work: Some("iterations of all the ants (default: option iterations; with --time-ms alone, until the time is spent)"),
    uses_evaluation: true,
    options: &[
        OptionInfo { key: "ants", default: "20", help: "ants per iteration, each playing one game from the board (article: 20), at least 1" },
        OptionInfo { key: "iterations", default: "50", help: "iterations when no --depth or --time-ms is given (article: 50), at least 1" },
        OptionInfo { key: "alpha", default: "1", help: "exponent α of the pheromone τ in a move's weight (article: 1), 0 or more" },
        OptionInfo { key: "beta", default: "2", help: "exponent β of the visibility η (1..=2 from the evaluation) in a move's weight (article: 2), 0 or more" },
        OptionInfo { key: "rho", default: "0.1", help: "share of the pheromone that evaporates each iteration (article: 0.1), 0 to 1" },
        OptionInfo { key: "deposit", default: "0.5", help: "pheromone laid on an edge of the best path, times the points gained from it on over the iteration's mean (article: 0.5), 0 or more" },
        OptionInfo { key: "length", default: "0", help: "most moves in an ant's game, 0 = to the end of the game (article)" },
        OptionInfo { key: "table-bits", default: "16", help: "log2 of the pheromone table's entries (32 bytes each; 16 = 2 MiB), 8 to 24" },
    ],
    build: build_aco,
};

/// Initial pheromone τ0 of every edge (article: 1.0).
pub const INITIAL_PHEROMONE: f32 = 1.0;
/// Table slots probed for a state before it is given up (linear probing).
pub const PROBES: usize = 8;

/// Typed options of [`Aco`] (see [`INFO`] for their keys and meaning).
#[derive(Clone, Debug)]
pub struct AcoOptions {
    /// The spawn rule of the ants' games.
    pub spawn: SpawnRule,
    /// Ants per iteration.
    pub ants: u32,
    /// Iterations without a `work` or `time` budget.
    pub iterations: u64,
    /// Pheromone exponent α.
    pub alpha: f32,
    /// Visibility exponent β.
    pub beta: f32,
    /// Evaporation rate ρ per iteration.
    pub rho: f32,
    /// Deposit factor.
    pub deposit: f32,
    /// Most moves per ant; 0 = to the end.
    pub length: u32,
    /// log2 of the table's entries.
    pub table_bits: u32,
    /// Seed of the solver's generator.
    pub seed: u64,
}

impl Default for AcoOptions {
    fn default() -> AcoOptions {
        AcoOptions {
            spawn: SpawnRule::Classic,
            ants: 20,
            iterations: 50,
            alpha: 1.0,
            beta: 2.0,
            rho: 0.1,
            deposit: 0.5,
            length: 0,
            table_bits: 16,
            seed: 1,
        }
    }
}

impl AcoOptions {
    /// The options of `config`.
    ///
    /// # Errors
    /// [`SolverError::BadOption`] for an unknown key or a value out of range.
    pub fn from_config(config: &SolverConfig) -> Result<AcoOptions, SolverError> {
        let v = OptionValues::new(&INFO, &config.options)?;
        let o = AcoOptions {
            spawn: config.spawn,
            ants: v.get("ants")?,
            iterations: v.get("iterations")?,
            alpha: v.get("alpha")?,
            beta: v.get("beta")?,
            rho: v.get("rho")?,
            deposit: v.get("deposit")?,
            length: v.get("length")?,
            table_bits: v.get("table-bits")?,
            seed: config.seed,
        };
        o.check().map_err(|message| SolverError::BadOption {
            solver: INFO.name.into(),
            message,
        })?;
        Ok(o)
    }

    /// What is wrong with these options, if anything.
    fn check(&self) -> Result<(), String> {
        let finite = |x: f32| x.is_finite() && x >= 0.0;
        if self.ants == 0 || self.iterations == 0 {
            return Err("ants and iterations must be at least 1".into());
        }
        if !finite(self.alpha) || !finite(self.beta) || !finite(self.deposit) {
            return Err("alpha, beta and deposit must be finite and 0 or more".into());
        }
        if !(0.0..=1.0).contains(&self.rho) {
            return Err(format!("rho={} must be in 0..=1", self.rho));
        }
        if !(8..=24).contains(&self.table_bits) {
            return Err(format!("table-bits={} must be 8 to 24", self.table_bits));
        }
        Ok(())
    }
}

struct AcoBuild(Shape, AcoOptions);

impl Build for AcoBuild {
    const SOLVER: &'static str = INFO.name;

    fn build<P: Position, E: Evaluator<P> + 'static>(self, eval: E) -> Box<dyn Solver> {
        Box::new(Aco::<P, E>::new(self.0, self.1, eval))
    }
}

fn build_aco(config: &SolverConfig) -> Result<Box<dyn Solver>, SolverError> {
    let opts = AcoOptions::from_config(config)?;
    dispatch(config, AcoBuild(config.shape, opts))
}

/// One state's four edges: 32 bytes.
#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    key: u64,
    /// The decision this entry belongs to (0 = never used; older ones count as empty).
    generation: u32,
    /// The iteration `tau` was last brought up to date at.
    stamp: u32,
    tau: [f32; 4],
}

/// Lazily evaporated pheromone: a fixed table of states plus the root's own edges.
struct Pheromone {
    entries: Box<[Entry]>,
    mask: usize,
    generation: u32,
    /// Factor kept per iteration, 1 − ρ.
    keep: f32,
    root: [f32; 4],
    root_stamp: u32,
    /// True once pheromone above 0 was laid on a root edge in this decision.
    root_laid: bool,
}

impl Pheromone {
    fn new(bits: u32, rho: f32) -> Pheromone {
        Pheromone {
            entries: vec![Entry::default(); 1 << bits].into_boxed_slice(),
            mask: (1 << bits) - 1,
            generation: 0,
            keep: 1.0 - rho,
            root: [INITIAL_PHEROMONE; 4],
            root_stamp: 0,
            root_laid: false,
        }
    }

    /// Starts a decision: every edge back to τ0 at iteration 0.
    fn reset(&mut self) {
        self.generation = self.generation.wrapping_add(1).max(1);
        self.root = [INITIAL_PHEROMONE; 4];
        self.root_stamp = 0;
        self.root_laid = false;
    }

    /// τ of an edge last updated at `stamp`, `tau` then, seen at iteration `now`.
    #[inline]
    fn aged(&self, tau: f32, stamp: u32, now: u32) -> f32 {
        tau * self.keep.powi((now - stamp) as i32)
    }

    #[inline]
    fn home(key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize
    }

    /// The slot of `key` in this decision, if it has one.
    #[inline]
    fn find(&self, key: u64) -> Option<usize> {
        let h = Self::home(key);
        (0..PROBES)
            .map(|k| (h + k) & self.mask)
            .take_while(|&i| self.entries[i].generation == self.generation)
            .find(|&i| self.entries[i].key == key)
    }

    /// The four edges' τ of the state `key` (None: not storable) at iteration `now`.
    #[inline]
    fn edges(&self, key: Option<u64>, now: u32) -> [f32; 4] {
        let fresh = [self.aged(INITIAL_PHEROMONE, 0, now); 4];
        match key.and_then(|k| self.find(k)) {
            Some(i) => {
                let e = &self.entries[i];
                e.tau.map(|t| self.aged(t, e.stamp, now))
            }
            None => fresh,
        }
    }

    /// The root's four edges at iteration `now`.
    fn root_edges(&self, now: u32) -> [f32; 4] {
        self.root.map(|t| self.aged(t, self.root_stamp, now))
    }

    /// Adds `amount` to the root's edge `m` at iteration `now`.
    fn deposit_root(&mut self, m: usize, amount: f32, now: u32) {
        self.root = self.root_edges(now);
        self.root_stamp = now;
        self.root[m] += amount;
        self.root_laid |= amount > 0.0;
    }

    /// Adds `amount` to edge `m` of the state `key` at iteration `now`; dropped when the state
    /// finds no slot.
    fn deposit(&mut self, key: u64, m: usize, amount: f32, now: u32) {
        let h = Self::home(key);
        for k in 0..PROBES {
            let i = (h + k) & self.mask;
            let e = self.entries[i];
            if e.generation == self.generation && e.key != key {
                continue;
            }
            let mut tau = if e.generation == self.generation {
                e.tau.map(|t| self.aged(t, e.stamp, now))
            } else {
                [self.aged(INITIAL_PHEROMONE, 0, now); 4]
            };
            tau[m] += amount;
            self.entries[i] = Entry {
                key,
                generation: self.generation,
                stamp: now,
                tau,
            };
            return;
        }
    }
}

/// One step of an ant's path: the state's key, the move (index in [`Move::ALL`]), its points.
#[derive(Clone, Copy, Debug)]
struct Step {
    key: Option<u64>,
    m: u8,
    gained: u64,
}

/// `x^e`, exact and quick for the usual exponents 0, 1 and 2.
#[inline(always)]
fn pow(x: f32, e: f32) -> f32 {
    if e == 1.0 {
        x
    } else if e == 2.0 {
        x * x
    } else if e == 0.0 {
        1.0
    } else {
        x.powf(e)
    }
}

/// Visibility of each legal afterstate of `after` from its evaluation, rescaled to 1..=2 (all 1
/// when every legal move evaluates the same); 0 for an illegal move.
#[inline]
fn visibility<P: Position, E: Evaluator<P>>(after: &[Option<P>; 4], eval: &E) -> [f32; 4] {
    let mut v = [f32::NAN; 4];
    let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
    for (i, a) in after.iter().enumerate() {
        if let Some(a) = a {
            v[i] = eval.evaluate(*a);
            lo = lo.min(v[i]);
            hi = hi.max(v[i]);
        }
    }
    let span = hi - lo;
    v.map(|x| match x {
        x if x.is_nan() => 0.0,
        _ if span > 0.0 => 1.0 + (x - lo) / span,
        _ => 1.0,
    })
}

/// The ACO solver over board type `P` and evaluation `E`. See the module doc.
pub struct Aco<P, E> {
    shape: Shape,
    options: AcoOptions,
    eval: E,
    rng: ChaCha8Rng,
    pheromone: Pheromone,
    path: Vec<Step>,
    best_path: Vec<Step>,
    _board: PhantomData<fn() -> P>,
}

/// An ant's game checks the deadline every this many moves (a move on 9×9 costs about a
/// microsecond or more: four afterstates evaluated).
const DEADLINE_CHECK_MOVES: usize = 16;
/// The most iterations one decision makes (iteration numbers are `u32`, and `it + 1` must fit).
const MAX_ITERATIONS: u64 = u32::MAX as u64 - 1;

impl<P: Position, E: Evaluator<P>> Aco<P, E> {
    /// A solver for boards of `shape` with `options`, scoring with `eval`. Allocates the
    /// pheromone table once (2^`table_bits` entries of 32 bytes).
    ///
    /// The budget of each decision ([`Budget`]): `work` = iterations; `time` = a wall-clock
    /// limit, checked before each ant; with `time` alone the iterations go on until it is spent;
    /// with neither, `options.iterations`. The first ant always makes at least its root move
    /// (an ant's game is cut at the deadline); an iteration cut short still lets its best ant
    /// deposit. The stop flag is polled with the time.
    pub fn new(shape: Shape, options: AcoOptions, eval: E) -> Aco<P, E> {
        Aco {
            shape,
            rng: ChaCha8Rng::seed_from_u64(options.seed),
            pheromone: Pheromone::new(options.table_bits, options.rho),
            options,
            eval,
            path: Vec::new(),
            best_path: Vec::new(),
            _board: PhantomData,
        }
    }

    /// The weighted draw of a move among `weights` (all ≥ 0, one > 0 for a legal move).
    #[inline]
    fn draw(&mut self, weights: &[f32; 4], legal: &[Option<P>; 4]) -> usize {
        let total: f32 = weights.iter().sum();
        if total > 0.0 && total.is_finite() {
            let mut r = self.rng.random::<f32>() * total;
            for (i, &w) in weights.iter().enumerate() {
                if w > 0.0 && r < w {
                    return i;
                }
                r -= w;
            }
        }
        // Rounding (or all weights 0, e.g. α > 0 and τ evaporated to 0): the last legal move.
        (0..4).rev().find(|&i| legal[i].is_some()).unwrap_or(0)
    }

    /// One ant's game from `root` at iteration `now`, recorded in `self.path`; its points and
    /// moves. The game ends at its end, at `options.length` moves, or at `deadline` (checked
    /// every [`DEADLINE_CHECK_MOVES`] moves: a game to the end on 9×9 lasts thousands of moves,
    /// seconds, far past a 20 ms budget).
    fn walk(&mut self, root: P, now: u32, deadline: Option<Instant>) -> (u64, u64) {
        self.path.clear();
        let (alpha, beta) = (self.options.alpha, self.options.beta);
        let mut board = root;
        let mut points = 0;
        loop {
            let limit = self.options.length as usize;
            if limit > 0 && self.path.len() >= limit {
                break;
            }
            let n = self.path.len();
            if n > 0
                && n.is_multiple_of(DEADLINE_CHECK_MOVES)
                && deadline.is_some_and(|d| Instant::now() >= d)
            {
                break;
            }
            let after = board.afterstates();
            if after.iter().all(Option::is_none) {
                break;
            }
            let eta = visibility(&after, &self.eval);
            let key = if self.path.is_empty() {
                None
            } else {
                board.table_key()
            };
            let tau = if self.path.is_empty() {
                self.pheromone.root_edges(now)
            } else {
                self.pheromone.edges(key, now)
            };
            let weights = std::array::from_fn(|i| match after[i] {
                Some(_) => pow(tau[i], alpha) * pow(eta[i], beta),
                None => 0.0,
            });
            let m = self.draw(&weights, &after);
            let (next, gained) = board.apply(Move::ALL[m]).expect("drawn among legal moves");
            self.path.push(Step {
                key,
                m: m as u8,
                gained,
            });
            points += gained;
            board = next.spawn_by(&mut self.rng, self.options.spawn);
        }
        (points, self.path.len() as u64)
    }

    /// Lays the iteration's pheromone along `self.best_path` at iteration `now` (the update
    /// after it, so that the next iteration sees it); `mean` = mean points of the iteration's
    /// ants.
    fn lay(&mut self, best_points: u64, mean: f64, now: u32) {
        let scale = f64::from(self.options.deposit) / mean.max(1.0);
        let mut to_go = best_points;
        for (k, s) in self.best_path.iter().enumerate() {
            let amount = (scale * to_go as f64) as f32;
            if k == 0 {
                self.pheromone.deposit_root(s.m as usize, amount, now);
            } else if let Some(key) = s.key {
                self.pheromone.deposit(key, s.m as usize, amount, now);
            }
            to_go -= s.gained;
        }
    }

    /// The decision for `board` within `budget` (see [`Aco::new`]).
    pub fn decide_on(&mut self, board: P, budget: &Budget) -> Decision {
        let start = Instant::now();
        let after = board.afterstates();
        if after.iter().all(Option::is_none) {
            return Decision::from_values([None; 4], 0, 0, 0.0);
        }
        self.pheromone.reset();
        // `None`: no count, until the deadline
        let iterations = match (budget.work, budget.time) {
            (Some(w), _) => Some(w.max(1)),
            (None, Some(_)) => None,
            (None, None) => Some(self.options.iterations),
        };
        let last = iterations.map_or(MAX_ITERATIONS, |n| n.min(MAX_ITERATIONS)) as u32;
        let deadline = budget.deadline(start);
        let (mut nodes, mut done, mut stopped) = (0u64, 0u32, false);
        'iterations: for it in 0..last {
            let (mut best, mut total, mut ants) = (None::<u64>, 0u64, 0u64);
            for _ in 0..self.options.ants {
                if nodes > 0 && (budget.stopped() || deadline.is_some_and(|d| Instant::now() >= d))
                {
                    stopped = budget.stopped();
                    if let Some(b) = best {
                        self.lay(b, total as f64 / ants as f64, it + 1);
                        done = it + 1;
                    }
                    break 'iterations;
                }
                let (points, moves) = self.walk(board, it, deadline);
                nodes += moves;
                total += points;
                ants += 1;
                if best.is_none_or(|b| points > b) {
                    best = Some(points);
                    std::mem::swap(&mut self.path, &mut self.best_path);
                }
            }
            self.lay(best.unwrap_or(0), total as f64 / ants as f64, it + 1);
            done = it + 1;
        }
        self.decision(&after, done, nodes, start, stopped)
    }

    /// The decision: the root edges' pheromone, or the evaluations when nothing was laid.
    fn decision(
        &self,
        after: &[Option<P>; 4],
        done: u32,
        nodes: u64,
        start: Instant,
        stopped: bool,
    ) -> Decision {
        let tau = self.pheromone.root_edges(done);
        let laid = self.pheromone.root_laid;
        let values = std::array::from_fn(|i| {
            after[i].map(|a| {
                if laid {
                    f64::from(tau[i])
                } else {
                    f64::from(self.eval.evaluate(a))
                }
            })
        });
        let ms = start.elapsed().as_secs_f64() * 1e3;
        let mut d = Decision::from_values(values, nodes, done, ms);
        d.stopped = stopped;
        d
    }
}

impl<P: Position, E: Evaluator<P> + 'static> Solver for Aco<P, E> {
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

    fn options(seed: u64) -> AcoOptions {
        AcoOptions {
            seed,
            ..AcoOptions::default()
        }
    }

    fn on_4x4(seed: u64) -> Aco<Board, RowHeuristic> {
        Aco::new(Shape::FOUR, options(seed), RowHeuristic::new())
    }

    fn close(a: f32, b: f32) -> bool {
        (a - b).abs() < 1e-5
    }

    #[test]
    fn evaporation_is_lazy_and_once_per_iteration() {
        // rho 0.1: an edge never laid on is 1 · 0.9^t at iteration t. A deposit of 0.5 at
        // iteration 1 makes 1 · 0.9 + 0.5 = 1.4, which is 1.4 · 0.9^2 = 1.134 at iteration 3;
        // the same state's other edges evaporate from 1 as if nothing happened.
        let mut p = Pheromone::new(8, 0.1);
        p.reset();
        p.deposit(42, 2, 0.5, 1);
        let e = p.edges(Some(42), 3);
        assert!(close(e[2], 1.134), "{e:?}");
        assert!(close(e[0], 0.729), "{e:?}");
        assert!(close(p.edges(Some(7), 3)[1], 0.729));
        assert!(close(p.edges(None, 0)[3], 1.0));
        // A second deposit at iteration 3: 1.134 + 0.25.
        p.deposit(42, 2, 0.25, 3);
        assert!(close(p.edges(Some(42), 3)[2], 1.384));
        // A new decision forgets everything without clearing the table.
        p.reset();
        assert!(close(p.edges(Some(42), 3)[2], 0.729));
    }

    #[test]
    fn the_table_never_grows_past_its_slots() {
        // 256 slots, 2,000 states: the states that find no slot within PROBES are dropped and
        // read as never laid on; the ones stored read back their deposit.
        let mut p = Pheromone::new(8, 0.0);
        p.reset();
        for key in 0..2000u64 {
            p.deposit(key * 7919 + 1, 0, 1.0, 0);
        }
        assert_eq!(p.entries.len(), 256);
        let stored = (0..2000u64)
            .filter(|k| close(p.edges(Some(k * 7919 + 1), 0)[0], 2.0))
            .count();
        assert!((200..=256).contains(&stored), "{stored} stored");
        let used = p
            .entries
            .iter()
            .filter(|e| e.generation == p.generation)
            .count();
        assert_eq!(used, stored);
    }

    #[test]
    fn the_best_path_is_paid_its_points_to_go() {
        // A best ant of 12 points over three moves (4, 0 and 8 points), the iteration's mean 6,
        // deposit 0.5: the root edge gets 0.5 · 12/6 = 1, the next two 0.5 · 8/6 each.
        let mut s = on_4x4(1);
        s.pheromone.reset();
        s.best_path = vec![
            Step {
                key: None,
                m: 2,
                gained: 4,
            },
            Step {
                key: Some(11),
                m: 0,
                gained: 0,
            },
            Step {
                key: Some(12),
                m: 3,
                gained: 8,
            },
        ];
        s.lay(12, 6.0, 1);
        assert!(close(s.pheromone.root_edges(1)[2], 0.9 + 1.0));
        assert!(close(
            s.pheromone.edges(Some(11), 1)[0],
            0.9 + 0.5 * 8.0 / 6.0
        ));
        assert!(close(
            s.pheromone.edges(Some(12), 1)[3],
            0.9 + 0.5 * 8.0 / 6.0
        ));
    }

    #[test]
    fn visibility_spans_one_to_two() {
        let b = corner_merge_4x4();
        let after = b.afterstates();
        let eta = visibility(&after, &RowHeuristic::new());
        assert_eq!(eta[Move::Up.index()], 0.0, "illegal");
        let legal: Vec<f32> = [Move::Down, Move::Left, Move::Right]
            .map(|m| eta[m.index()])
            .to_vec();
        assert!(legal.iter().all(|&e| (1.0..=2.0).contains(&e)));
        assert!(legal.contains(&1.0) && legal.contains(&2.0), "{eta:?}");
        let one = visibility(&only_left_4x4().afterstates(), &RowHeuristic::new());
        assert_eq!(one, [0.0, 0.0, 1.0, 0.0]);
    }

    #[test]
    fn the_only_legal_move_on_4x4_and_3x3() {
        let d = on_4x4(1).decide_on(only_left_4x4(), &Budget::depth(3));
        assert_eq!(d.best, Some(Move::Left));
        assert_eq!(d.work, 3);
        let shape = Shape::new(3, 3).unwrap();
        let mut s = Aco::<GridBoard, _>::new(shape, options(1), RowHeuristic::new());
        assert_eq!(
            s.decide_on(only_left_3x3(), &Budget::depth(3)).best,
            Some(Move::Left)
        );
    }

    #[test]
    fn merges_rather_than_burying_the_largest_tiles_on_4x4_and_5x5() {
        // The ants play whole games, nearly at random (η only spans 1..=2): Left (512 in the
        // corner) and Right (512 beside it) make the same merge and lead to games of about the
        // same score, so pheromone does not tell them apart reliably; Down (no merge, both 256s
        // off the edge row) gets the least.
        let d = on_4x4(2).decide_on(corner_merge_4x4(), &Budget::depth(10));
        assert!(
            matches!(d.best, Some(Move::Left) | Some(Move::Right)),
            "{:?}",
            d.values
        );
        let down = d.values[Move::Down.index()].unwrap();
        assert!(
            d.values.iter().flatten().all(|&v| v >= down),
            "{:?}",
            d.values
        );
        let shape = Shape::new(5, 5).unwrap();
        let opts = AcoOptions {
            length: 100,
            ..options(2)
        };
        let mut s = Aco::<GridBoard, _>::new(shape, opts, RowHeuristic::new());
        let d = s.decide_on(corner_merge_5x5(), &Budget::depth(5));
        assert!(
            matches!(d.best, Some(Move::Left) | Some(Move::Right)),
            "{:?}",
            d.values
        );
    }

    #[test]
    fn a_time_budget_cuts_the_ants_games_on_9x9() {
        // Two tiles on an empty 9x9: an ant's game to the end lasts thousands of moves (before
        // the deadline was checked inside the game, one decision at 20 ms took seconds).
        let shape = Shape::new(9, 9).unwrap();
        let mut values = vec![0u64; 81];
        values[0] = 2;
        values[40] = 4;
        let board = GridBoard::from_values(shape, &values).unwrap();
        let mut s = Aco::<GridBoard, _>::new(shape, options(1), RowHeuristic::new());
        let t = Instant::now();
        let d = s.decide_on(board, &Budget::millis(20));
        let spent = t.elapsed();
        assert!(d.best.is_some());
        // 20 ms plus one check interval of moves; generous for a loaded machine
        assert!(spent.as_millis() < 500, "{spent:?}");
    }

    #[test]
    fn the_same_seed_makes_the_same_decisions() {
        let b = corner_merge_4x4();
        let (mut a, mut c) = (on_4x4(5), on_4x4(5));
        for _ in 0..2 {
            let (x, y) = (
                a.decide_on(b, &Budget::depth(3)),
                c.decide_on(b, &Budget::depth(3)),
            );
            assert_eq!((x.best, x.values, x.nodes), (y.best, y.values, y.nodes));
        }
        let z = on_4x4(6).decide_on(b, &Budget::depth(3));
        assert_ne!(z.nodes, on_4x4(5).decide_on(b, &Budget::depth(3)).nodes);
    }

    #[test]
    fn the_stop_flag_and_a_spent_time_budget_end_after_one_ant() {
        let flag = Arc::new(AtomicBool::new(true));
        let mut s = on_4x4(1);
        let d = s.decide_on(late_4x4(), &Budget::depth(1000).with_stop(flag));
        assert!(d.stopped);
        assert_eq!(d.work, 1, "one ant: a partial first iteration");
        assert!(d.best.is_some());
        let one_ant = d.nodes;
        let d = s.decide_on(late_4x4(), &Budget::millis(0));
        assert!(!d.stopped);
        assert_eq!(d.work, 1);
        let full = s.decide_on(late_4x4(), &Budget::depth(1));
        assert!(full.nodes > one_ant, "20 ants play more moves than one");
    }
}
