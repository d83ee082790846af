//! Training a [`Network`] by TD(0) on afterstates, and measuring it by greedy play.
//!
//! One game (Szubert & Jaśkowski 2014; TDL2048's "backward" TD(0)): play greedily by the network,
//! each move the legal one of highest `merge score + V(afterstate)`, recording the afterstates
//! `s_0 … s_{n-1}` and the merge scores `r_0 … r_{n-1}` of the moves that made them. At the end,
//! walk the game backwards: the last afterstate's target is 0 (the game ends after its spawn),
//! and each earlier one's is `r_{i+1} + V(s_{i+1})`, with `V(s_{i+1})` just updated:
//!
//! ```text
//! error_i = target_i − V(s_i);   each of the 8 × tuples weights of s_i += α / (8 × tuples) · error_i
//! ```
//!
//! Updating backwards carries the end of a game to its start in one pass, which learns more per
//! game than updating forwards (TDL2048's README measures it). `α` is the learning rate for the
//! whole value, shared by its `8 × tuples` weights (TDL2048's convention: α = 0.1 for 4 × 6).
//!
//! With [`TrainConfig::coherence`] each weight's step is further scaled by its temporal
//! coherence ([`Coherence`]): on a 4 × 4-tuple network, 50,000 games from scratch reached an
//! average of 49,069 (2048 in 90.7 % of the last 1,000) by TC with α = 1.0, against 33,962 (79.5 %)
//! by TD with α = 0.1. On 4 × 6 tuples TC reached at 13,685 games (average 58,269, 2048 in
//! 92.4 %) what TD took some 90,000 games for, at 0.6–0.75 of TD's updates per CPU-second (its
//! two extra tables triple the memory an update touches).
//!
//! Threads share the network Hogwild-style (see [`super`]); each plays whole games, game `g`
//! from the seed [`game_seed`]`(seed, g)`. For a checkpoint the coordinating thread takes a write
//! lock that each game holds for reading, so the saved weights are those after a whole number of
//! games, the number the file records.
use super::file::{SaveError, WeightsFormat};
use super::Network;
use crate::engine::{Board, SpawnRule};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::RwLock;
use std::time::{Duration, Instant};

/// The tiles whose reach rate training and evaluation report: 2048, 4096, 8192, 16384, 32768.
pub const REACH_TILES: [u32; 5] = [2048, 4096, 8192, 16384, 32768];

/// The seed of game `index` of a run seeded with `seed` (a SplitMix64 step of both).
pub fn game_seed(seed: u64, index: u64) -> u64 {
    let mut z = seed
        .wrapping_mul(0xD1B5_4A32_D192_ED03)
        .wrapping_add(index.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Where and how often a training run writes checkpoints.
#[derive(Clone, Debug)]
pub struct CheckpointPlan {
    /// The checkpoint file, overwritten atomically each time.
    pub path: PathBuf,
    /// Wall-clock time between checkpoints (one is always written at the end).
    pub every: Duration,
    /// Also keep each checkpoint as `PATH.GAMES` (`GAMES` zero-padded to 10 digits), a hard link.
    pub keep: bool,
}

/// A training run's settings.
#[derive(Clone, Debug)]
pub struct TrainConfig {
    /// Train until the network has learnt from this many games in all (a resumed network's
    /// earlier games count: [`Network::games`]).
    pub games: u64,
    /// Learning rate α for the whole value, shared by its `8 × tuples` weights, at game 0.
    pub alpha: f32,
    /// If set, α decays geometrically from `alpha` at game 0 to this at game `games`
    /// (`α(g) = alpha · (end / alpha)^(g / games)`, by the game's global index).
    pub alpha_end: Option<f32>,
    /// Learn by temporal coherence ([`Coherence`]) instead of plain TD; `alpha` then scales the
    /// coherence-adjusted step (TDL2048 uses 1.0 from scratch; a lower one to fine-tune).
    pub coherence: bool,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Seed of the run; game `g` uses [`game_seed`]`(seed, g)`.
    pub seed: u64,
    /// Games in the moving window of [`Progress::window`].
    pub window: usize,
    /// Time between calls of the progress callback.
    pub report_every: Duration,
    /// Checkpoints, if any.
    pub checkpoint: Option<CheckpointPlan>,
    /// Free text kept in each checkpoint's note (e.g. the command line).
    pub note: String,
}

impl TrainConfig {
    /// The learning rate α at global game index `g`.
    pub fn alpha_at(&self, g: u64) -> f32 {
        match self.alpha_end {
            Some(end) if self.games > 0 && end > 0.0 && self.alpha > 0.0 => {
                let t = (g as f64 / self.games as f64).min(1.0);
                (self.alpha as f64 * (end as f64 / self.alpha as f64).powf(t)) as f32
            }
            _ => self.alpha,
        }
    }
}

/// Statistics of the most recent games of a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WindowStats {
    /// Games in the window (up to [`TrainConfig::window`]).
    pub games: usize,
    /// Mean final score, points.
    pub avg_score: f64,
    /// Mean moves per game.
    pub avg_moves: f64,
    /// Share of games that reached each tile of [`REACH_TILES`], 0..=1.
    pub reach: [f64; 5],
    /// Root mean square TD error over the window's updates, points.
    pub td_rms: f64,
}

/// A report on a running training, given to the progress callback.
#[derive(Clone, Debug)]
pub struct Progress {
    /// Games the network has learnt from, in all.
    pub games: u64,
    /// The run's goal, [`TrainConfig::games`].
    pub target: u64,
    /// Games played by this run.
    pub run_games: u64,
    /// Wall-clock time of this run.
    pub elapsed: Duration,
    /// TD updates (one per move) made by this run.
    pub updates: u64,
    /// Learning rate α now.
    pub alpha: f32,
    /// Worker threads.
    pub threads: usize,
    /// The last games.
    pub window: WindowStats,
    /// Games recorded in the last checkpoint written by this run, if any.
    pub checkpoint_games: Option<u64>,
}

impl Progress {
    /// This run's games per wall-clock second.
    pub fn games_per_sec(&self) -> f64 {
        self.run_games as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
    /// This run's TD updates per second per thread.
    pub fn updates_per_sec_per_thread(&self) -> f64 {
        self.updates as f64 / self.elapsed.as_secs_f64().max(1e-9) / self.threads.max(1) as f64
    }
}

/// How a training run ended.
#[derive(Clone, Debug)]
pub struct TrainSummary {
    /// The last progress report (after the last game).
    pub progress: Progress,
    /// True if the run was stopped (the stop flag) before reaching its goal.
    pub stopped: bool,
}

/// Why training failed.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    /// A checkpoint could not be written.
    #[error(transparent)]
    Save(#[from] SaveError),
    /// A setting is out of range.
    #[error("bad training setting: {0}")]
    Config(String),
}

/// What one training game reports to the coordinator.
#[derive(Clone, Copy, Debug)]
struct GameStats {
    score: u64,
    max_exp: u8,
    moves: u32,
    err_sq: f64,
}

/// A greedy game's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameOutcome {
    /// Final score, points.
    pub score: u64,
    /// Largest tile at the end.
    pub max_tile: u32,
    /// Moves played.
    pub moves: u32,
}

/// Temporal coherence (TC, Beal & Smith 1999; Jaśkowski 2018): per weight, the sum `E` of the
/// TD errors it took part in and the sum `A` of their absolute values. A weight's step is scaled
/// by `|E| / A` (1 before its first update): weights whose errors keep one sign learn at the full
/// rate, weights whose errors cancel out slow down, so the rate anneals itself weight by weight.
///
/// Two `f32` tables as large as the network's (+512 MiB for 4 × 6 tuples), shared by the
/// training threads like the weights, and saved with the weights in the checkpoints of a TC run
/// ([`load_checkpoint`] reads them back).
pub struct Coherence {
    e: Vec<AtomicU32>,
    a: Vec<AtomicU32>,
}

impl Coherence {
    /// Fresh accumulators (all 0) for `net`.
    pub fn new(net: &Network) -> Coherence {
        let n = net.weight_count();
        let mut e = super::weight_vec(n);
        e.resize_with(n, || AtomicU32::new(0));
        let mut a = super::weight_vec(n);
        a.resize_with(n, || AtomicU32::new(0));
        Coherence { e, a }
    }

    /// The accumulators of a checkpoint's two extra tables (`E`, then `A`); `None` unless there
    /// are exactly two, each as long as the network's weights.
    fn from_tables(net: &Network, mut tables: Vec<Vec<AtomicU32>>) -> Option<Coherence> {
        let n = net.weight_count();
        if tables.len() != 2 || tables.iter().any(|t| t.len() != n) {
            return None;
        }
        let a = tables.pop()?;
        let e = tables.pop()?;
        Some(Coherence { e, a })
    }

    /// One TC step on afterstate `x` (as [`Network::td_step`], each weight's step scaled by its
    /// coherence `|E| / A`, then `E += error`, `A += |error|`). Returns the error before the step
    /// and the value after it.
    pub fn td_step(&self, net: &Network, x: u64, target: f32, rate: f32) -> (f32, f32) {
        let load = |v: &AtomicU32| f32::from_bits(v.load(Ordering::Relaxed));
        let store = |v: &AtomicU32, f: f32| v.store(f.to_bits(), Ordering::Relaxed);
        let mut idx = [0usize; super::MAX_FEATURES];
        let n = net.indices(x, &mut idx);
        let idx = &idx[..n];
        let before: f32 = idx.iter().map(|&i| net.w(i)).sum();
        let error = target - before;
        for &i in idx {
            let (e, a) = (load(&self.e[i]), load(&self.a[i]));
            let beta = if a > 0.0 { e.abs() / a } else { 1.0 };
            let w = &net.weights[i];
            store(w, load(w) + rate * beta * error);
            store(&self.e[i], e + error);
            store(&self.a[i], a + error.abs());
        }
        let after: f32 = idx.iter().map(|&i| net.w(i)).sum();
        (error, after)
    }
}

impl Coherence {
    /// These accumulators, for the network `net` (one stage) promoted to `spec`
    /// ([`Network::promoted`]): each stage starts with stage 0's `E` and `A`, so its weights
    /// keep their learning rates.
    ///
    /// # Errors
    /// As [`Network::promoted`].
    pub fn promoted(
        &self,
        net: &Network,
        spec: &super::Spec,
    ) -> Result<Coherence, super::SpecError> {
        Ok(Coherence {
            e: super::promote_table(net.spec(), spec, &self.e)?,
            a: super::promote_table(net.spec(), spec, &self.a)?,
        })
    }
}

/// Loads a checkpoint: the network and, if the file has them (a TC run's), the TC accumulators.
/// With `expected`, a network of another spec is refused.
///
/// # Errors
/// As [`Network::load`] and [`Network::load_spec`].
pub fn load_checkpoint(
    path: impl AsRef<std::path::Path>,
    expected: Option<&super::Spec>,
) -> Result<(Network, Option<Coherence>), super::LoadError> {
    let (net, tables) = super::file::load(path.as_ref(), expected, true)?;
    let tc = Coherence::from_tables(&net, tables);
    Ok((net, tc))
}

/// Plays one game by the network, recording it, then updates it backwards (see the module doc),
/// by TC if `tc` is given. `rate` is the learning rate per weight (α / features). `path` is
/// scratch space.
fn learn_game(
    net: &Network,
    tc: Option<&Coherence>,
    rng: &mut ChaCha8Rng,
    rate: f32,
    path: &mut Vec<(u64, u32)>,
) -> GameStats {
    path.clear();
    let mut board = Board::start(rng);
    let mut score = 0u64;
    while let Some(c) = net.best_move(board) {
        // a 4x4 move's merge score is below 2^20 (at most 8 merges of at most 131072)
        path.push((c.afterstate.raw(), c.score as u32));
        score += c.score;
        board = c.afterstate.spawn(rng);
    }
    let mut target = 0.0f32;
    let mut err_sq = 0.0f64;
    for &(x, r) in path.iter().rev() {
        let (err, after) = match tc {
            Some(tc) => tc.td_step(net, x, target, rate),
            None => net.td_step(x, target, rate),
        };
        err_sq += (err as f64) * (err as f64);
        target = r as f32 + after;
    }
    GameStats {
        score,
        max_exp: board.max_exponent(),
        moves: path.len() as u32,
        err_sq,
    }
}

/// Plays game `seed` greedily by the network (no learning) under spawn rule `rule`.
pub fn play_greedy(net: &Network, seed: u64, rule: SpawnRule) -> GameOutcome {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut board = Board::EMPTY
        .spawn_by(&mut rng, rule)
        .spawn_by(&mut rng, rule);
    let (mut score, mut moves) = (0u64, 0u32);
    while let Some(c) = net.best_move(board) {
        score += c.score;
        moves += 1;
        board = c.afterstate.spawn_by(&mut rng, rule);
    }
    GameOutcome {
        score,
        max_tile: board.max_value(),
        moves,
    }
}

/// Plays `games` greedy games (game `i` from [`game_seed`]`(seed, i)`, classic spawns) on
/// `threads` threads; returns them in game order. Stops early (fewer results) when `stop` is set.
pub fn evaluate(
    net: &Network,
    games: u64,
    seed: u64,
    threads: usize,
    stop: &AtomicBool,
) -> Vec<GameOutcome> {
    let next = AtomicU64::new(0);
    let mut all: Vec<(u64, GameOutcome)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads.max(1))
            .map(|_| {
                s.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= games || stop.load(Ordering::Relaxed) {
                            break out;
                        }
                        out.push((i, play_greedy(net, game_seed(seed, i), SpawnRule::Classic)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_default())
            .collect()
    });
    all.sort_by_key(|&(i, _)| i);
    all.into_iter().map(|(_, g)| g).collect()
}

/// The moving window of recent games, with running sums.
struct Window {
    cap: usize,
    ring: std::collections::VecDeque<GameStats>,
    score: f64,
    moves: f64,
    err_sq: f64,
    reach: [u64; 5],
}

impl Window {
    fn new(cap: usize) -> Window {
        Window {
            cap: cap.max(1),
            ring: Default::default(),
            score: 0.0,
            moves: 0.0,
            err_sq: 0.0,
            reach: [0; 5],
        }
    }

    fn add_or_remove(&mut self, g: &GameStats, sign: f64) {
        self.score += sign * g.score as f64;
        self.moves += sign * g.moves as f64;
        self.err_sq += sign * g.err_sq;
        for (k, &t) in REACH_TILES.iter().enumerate() {
            if g.max_exp as u32 >= t.trailing_zeros() {
                if sign > 0.0 {
                    self.reach[k] += 1;
                } else {
                    self.reach[k] -= 1;
                }
            }
        }
    }

    fn push(&mut self, g: GameStats) {
        if self.ring.len() == self.cap {
            if let Some(old) = self.ring.pop_front() {
                self.add_or_remove(&old, -1.0);
            }
        }
        self.add_or_remove(&g, 1.0);
        self.ring.push_back(g);
    }

    fn stats(&self) -> WindowStats {
        let n = self.ring.len();
        if n == 0 {
            return WindowStats::default();
        }
        let nf = n as f64;
        WindowStats {
            games: n,
            avg_score: self.score / nf,
            avg_moves: self.moves / nf,
            reach: self.reach.map(|c| c as f64 / nf),
            td_rms: (self.err_sq.max(0.0) / self.moves.max(1.0)).sqrt(),
        }
    }
}

/// Trains `net` by backward TD(0) until it has learnt from `cfg.games` games, or `stop` is set
/// (each thread then finishes its game). Calls `report` every `cfg.report_every`, and writes
/// checkpoints per `cfg.checkpoint`, the last one after the last game (also when stopped).
///
/// With `cfg.coherence`, `tc` holds the TC accumulators to go on from (a resumed TC run's, from
/// [`load_checkpoint`]); `None` starts fresh ones. Without it, `tc` is ignored.
///
/// # Errors
/// [`TrainError::Config`] for `threads == 0` or a learning rate that is not positive and
/// finite; [`TrainError::Save`] when a checkpoint cannot be written (the run stops there).
pub fn train(
    net: &Network,
    tc: Option<Coherence>,
    cfg: &TrainConfig,
    stop: &AtomicBool,
    report: &mut dyn FnMut(&Progress),
) -> Result<TrainSummary, TrainError> {
    check_config(cfg)?;
    let tc = match cfg.coherence {
        true => Some(tc.unwrap_or_else(|| Coherence::new(net))),
        false => None,
    };
    let shared = Shared {
        net,
        tc: tc.as_ref(),
        cfg,
        stop,
        next: AtomicU64::new(net.games()),
        pause: RwLock::new(()),
        halt: AtomicBool::new(false),
    };
    let mut collector = Collector::new(net.games(), cfg);
    let (tx, rx) = mpsc::channel::<GameStats>();
    let result: Result<(), TrainError> = std::thread::scope(|s| {
        for _ in 0..cfg.threads {
            let tx = tx.clone();
            let shared = &shared;
            s.spawn(move || shared.play_games(&tx));
        }
        drop(tx);
        collector.collect(&shared, &rx, report)
    });
    let games = collector.games();
    net.set_games(games);
    result?;
    if cfg.checkpoint.is_some() && collector.checkpoint_games != Some(games) {
        shared.save_checkpoint(games)?;
        collector.checkpoint_games = Some(games);
    }
    let last = collector.progress();
    report(&last);
    Ok(TrainSummary {
        stopped: games < cfg.games,
        progress: last,
    })
}

/// Checks a training run's settings.
///
/// # Errors
/// [`TrainError::Config`] for `threads == 0` or a learning rate that is not positive and finite.
fn check_config(cfg: &TrainConfig) -> Result<(), TrainError> {
    if cfg.threads == 0 {
        return Err(TrainError::Config("threads must be at least 1".into()));
    }
    for a in std::iter::once(cfg.alpha).chain(cfg.alpha_end) {
        if !(a.is_finite() && a > 0.0) {
            return Err(TrainError::Config(format!(
                "learning rate {a} (it must be positive and finite)"
            )));
        }
    }
    Ok(())
}

/// What the worker threads and the collector share during [`train`].
struct Shared<'a> {
    net: &'a Network,
    tc: Option<&'a Coherence>,
    cfg: &'a TrainConfig,
    /// Set by the caller (Ctrl-C): each worker finishes its game and stops.
    stop: &'a AtomicBool,
    /// The next game index to play.
    next: AtomicU64,
    /// Held for reading by each game, for writing by a checkpoint: saved weights are those after
    /// a whole number of games.
    pause: RwLock<()>,
    /// Set when a checkpoint failed: the workers stop.
    halt: AtomicBool,
}

impl Shared<'_> {
    /// A worker thread: plays and learns whole games until the goal, `stop` or `halt`, sending
    /// each game's statistics.
    fn play_games(&self, tx: &mpsc::Sender<GameStats>) {
        let features = self.net.spec().features() as f32;
        let mut path = Vec::with_capacity(1 << 14);
        loop {
            let _game = self.pause.read().unwrap_or_else(|p| p.into_inner());
            if self.stop.load(Ordering::Relaxed) || self.halt.load(Ordering::Relaxed) {
                break;
            }
            let g = self.next.fetch_add(1, Ordering::Relaxed);
            if g >= self.cfg.games {
                break;
            }
            let mut rng = ChaCha8Rng::seed_from_u64(game_seed(self.cfg.seed, g));
            let rate = self.cfg.alpha_at(g) / features;
            let stats = learn_game(self.net, self.tc, &mut rng, rate, &mut path);
            if tx.send(stats).is_err() {
                break;
            }
        }
    }

    /// Writes the checkpoint of the plan, if any, recording `games`; with
    /// [`CheckpointPlan::keep`], as `PATH.GAMES` with `PATH` a hard link to it.
    fn save_checkpoint(&self, games: u64) -> Result<(), SaveError> {
        let Some(plan) = &self.cfg.checkpoint else {
            return Ok(());
        };
        self.net.set_games(games);
        let extra: Vec<&[AtomicU32]> = match self.tc {
            Some(tc) => vec![&tc.e, &tc.a],
            None => vec![],
        };
        let write = |path: &std::path::Path| {
            self.net
                .save_with(path, WeightsFormat::CHECKPOINT, &self.cfg.note, &extra)
        };
        if !plan.keep {
            return write(&plan.path);
        }
        let kept = PathBuf::from(format!("{}.{games:010}", plan.path.display()));
        write(&kept)?;
        if crate::fsio::replace_with_link(&kept, &plan.path).is_err() {
            write(&plan.path)?;
        }
        Ok(())
    }
}

/// The coordinating thread's tally of a training run.
struct Collector<'a> {
    cfg: &'a TrainConfig,
    started: Instant,
    start_games: u64,
    window: Window,
    updates: u64,
    run_games: u64,
    checkpoint_games: Option<u64>,
    last_report: Instant,
    last_checkpoint: Instant,
}

impl<'a> Collector<'a> {
    fn new(start_games: u64, cfg: &'a TrainConfig) -> Collector<'a> {
        Collector {
            cfg,
            started: Instant::now(),
            start_games,
            window: Window::new(cfg.window),
            updates: 0,
            run_games: 0,
            checkpoint_games: None,
            last_report: Instant::now(),
            last_checkpoint: Instant::now(),
        }
    }

    /// Games the network has learnt from, in all.
    fn games(&self) -> u64 {
        self.start_games + self.run_games
    }

    /// Counts one finished game.
    fn take(&mut self, g: GameStats) {
        self.updates += g.moves as u64;
        self.run_games += 1;
        self.window.push(g);
    }

    /// The progress so far.
    fn progress(&self) -> Progress {
        Progress {
            games: self.games(),
            target: self.cfg.games,
            run_games: self.run_games,
            elapsed: self.started.elapsed(),
            updates: self.updates,
            alpha: self.cfg.alpha_at(self.games()),
            threads: self.cfg.threads,
            window: self.window.stats(),
            checkpoint_games: self.checkpoint_games,
        }
    }

    /// Takes games until every worker is done, reporting every [`TrainConfig::report_every`]
    /// and checkpointing per the plan.
    fn collect(
        &mut self,
        shared: &Shared,
        rx: &mpsc::Receiver<GameStats>,
        report: &mut dyn FnMut(&Progress),
    ) -> Result<(), TrainError> {
        loop {
            match rx.recv_timeout(Duration::from_millis(50)) {
                Ok(g) => self.take(g),
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            if self.last_report.elapsed() >= self.cfg.report_every {
                self.last_report = Instant::now();
                report(&self.progress());
            }
            let due = (self.cfg.checkpoint.as_ref())
                .is_some_and(|plan| self.last_checkpoint.elapsed() >= plan.every);
            if due {
                self.checkpoint(shared, rx)?;
            }
        }
        Ok(())
    }

    /// Pauses the workers between games, takes what they sent and writes a checkpoint; when
    /// that fails, halts the workers before they resume.
    fn checkpoint(
        &mut self,
        shared: &Shared,
        rx: &mpsc::Receiver<GameStats>,
    ) -> Result<(), SaveError> {
        let _all = shared.pause.write().unwrap_or_else(|p| p.into_inner());
        // Every game started has finished; take what they sent.
        while let Ok(g) = rx.try_recv() {
            self.take(g);
        }
        let games = self.games();
        if let Err(e) = shared.save_checkpoint(games) {
            shared.halt.store(true, Ordering::Relaxed);
            return Err(e);
        }
        self.checkpoint_games = Some(games);
        self.last_checkpoint = Instant::now();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::Spec;
    use super::*;

    fn config(games: u64, threads: usize) -> TrainConfig {
        TrainConfig {
            games,
            alpha: 0.1,
            alpha_end: None,
            coherence: false,
            threads,
            seed: 5,
            window: 1000,
            report_every: Duration::from_secs(3600),
            checkpoint: None,
            note: String::new(),
        }
    }

    #[test]
    fn backward_td_on_a_hand_worked_game() {
        // A network of one 1-cell tuple with all weights 0 values every board at 0, so the game
        // is played by merge score alone; replay it by hand and check the backward updates.
        let net = Network::new("0".parse::<Spec>().unwrap(), 0.0);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut path = Vec::new();
        let before: Vec<f32> = (0..16).map(|i| net.weight(i).unwrap()).collect();
        assert!(before.iter().all(|&w| w == 0.0));
        // Replay the same game on a copy to learn its afterstates and rewards.
        let twin = Network::new("0".parse::<Spec>().unwrap(), 0.0);
        let mut rng2 = ChaCha8Rng::seed_from_u64(1);
        let mut board = Board::start(&mut rng2);
        let mut steps = Vec::new();
        while let Some(c) = twin.best_move(board) {
            steps.push((c.afterstate.raw(), c.score as u32));
            board = c.afterstate.spawn(&mut rng2);
        }
        let stats = learn_game(&net, None, &mut rng, 0.01, &mut path);
        assert_eq!(stats.moves as usize, steps.len());
        assert_eq!(path, steps);
        // Redo the updates on the twin with the rule written out: last target 0, then
        // target = r_last + V(s_last) after its update, backwards.
        let mut target = 0.0f32;
        for &(x, r) in steps.iter().rev() {
            let v = twin.value_raw(x);
            let delta = 0.01 * (target - v);
            // Each of the 8 lookups of x adds delta to its weight.
            let mut idx = [0usize; super::super::MAX_FEATURES];
            let n = twin.indices(x, &mut idx);
            for &i in &idx[..n] {
                twin.set_weight(i, twin.weight(i).unwrap() + delta);
            }
            target = r as f32 + twin.value_raw(x);
        }
        for i in 0..16 {
            assert_eq!(net.weight(i), twin.weight(i), "weight {i}");
        }
        // The last afterstate moved toward 0 from 0: no change there, but the earlier ones
        // learnt the points that followed them, so some weight is now positive.
        assert!((0..16).any(|i| net.weight(i).unwrap() > 0.0));
    }

    /// The network's own greedy games from seeds 1000.., without learning, as (afterstate,
    /// merge score of the move that made it) per move.
    fn own_episodes(net: &Network, games: u64) -> Vec<Vec<(u64, u32)>> {
        (0..games)
            .map(|g| {
                let mut rng = ChaCha8Rng::seed_from_u64(1000 + g);
                let mut board = Board::start(&mut rng);
                let mut steps = Vec::new();
                while let Some(c) = net.best_move(board) {
                    steps.push((c.afterstate.raw(), c.score as u32));
                    board = c.afterstate.spawn(&mut rng);
                }
                steps
            })
            .collect()
    }

    /// The TD(0) error of `net` over episodes relative to the targets: RMS of `target − V(s_i)`
    /// over RMS of `target`, where `target = r_{i+1} + V(s_{i+1})` (0 after the last move).
    /// A network of zeros scores exactly 1.
    fn relative_td_error(net: &Network, episodes: &[Vec<(u64, u32)>]) -> f64 {
        let (mut err, mut tgt) = (0.0, 0.0);
        for ep in episodes {
            for (i, &(x, _)) in ep.iter().enumerate() {
                let target = ep
                    .get(i + 1)
                    .map_or(0.0, |&(y, r)| r as f64 + net.value_raw(y) as f64);
                let e = target - net.value_raw(x) as f64;
                err += e * e;
                tgt += target * target;
            }
        }
        (err / tgt).sqrt()
    }

    #[test]
    fn a_short_run_lowers_the_td_error() {
        // A small network (2 × 4-tuples, 128 Ki weights). Untrained (all zeros) its TD error on
        // its own games is the whole target; after 2,000 training games it predicts most of it.
        let net = Network::new("0123,4567".parse::<Spec>().unwrap(), 0.0);
        let before = relative_td_error(&net, &own_episodes(&net, 50));
        assert_eq!(before, 1.0);
        let stop = AtomicBool::new(false);
        let sum = train(&net, None, &config(2000, 1), &stop, &mut |_| {}).unwrap();
        assert_eq!(net.games(), 2000);
        assert!(!sum.stopped);
        let after = relative_td_error(&net, &own_episodes(&net, 50));
        assert!(after < 0.2, "relative TD error {before} -> {after}");
    }

    #[test]
    fn one_thread_runs_replay_exactly_and_checkpoints_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let spec: Spec = "0123,4567".parse().unwrap();
        let stop = AtomicBool::new(false);
        let a = Network::new(spec.clone(), 0.0);
        let mut cfg = config(40, 1);
        cfg.checkpoint = Some(CheckpointPlan {
            path: dir.path().join("ck.bin"),
            every: Duration::from_secs(3600),
            keep: true,
        });
        let sum = train(&a, None, &cfg, &stop, &mut |_| {}).unwrap();
        assert_eq!(sum.progress.checkpoint_games, Some(40));
        assert!(dir.path().join("ck.bin.0000000040").exists());
        // Resume from the checkpoint to 80 games = one run of 80 games.
        let b = Network::load_spec(dir.path().join("ck.bin"), &spec).unwrap();
        assert_eq!(b.games(), 40);
        let mut cfg80 = config(80, 1);
        cfg80.checkpoint = None;
        train(&b, None, &cfg80, &stop, &mut |_| {}).unwrap();
        let c = Network::new(spec, 0.0);
        train(&c, None, &cfg80, &stop, &mut |_| {}).unwrap();
        for i in (0..c.weight_count()).step_by(97) {
            assert_eq!(b.weight(i), c.weight(i), "weight {i}");
        }
    }

    #[test]
    fn a_tc_run_resumes_exactly_from_its_checkpoint() {
        let dir = tempfile::tempdir().unwrap();
        let spec: Spec = "0123,4567".parse().unwrap();
        let stop = AtomicBool::new(false);
        let mut cfg = config(30, 1);
        cfg.coherence = true;
        cfg.alpha = 1.0;
        cfg.checkpoint = Some(CheckpointPlan {
            path: dir.path().join("tc.bin"),
            every: Duration::from_secs(3600),
            keep: false,
        });
        let a = Network::new(spec.clone(), 0.0);
        train(&a, None, &cfg, &stop, &mut |_| {}).unwrap();
        let (b, tc) = load_checkpoint(dir.path().join("tc.bin"), Some(&spec)).unwrap();
        assert!(tc.is_some());
        // The file still loads as a plain network (its TC tables read past).
        assert_eq!(
            Network::load(dir.path().join("tc.bin")).unwrap().games(),
            30
        );
        let mut cfg60 = cfg.clone();
        cfg60.games = 60;
        cfg60.checkpoint = None;
        train(&b, tc, &cfg60, &stop, &mut |_| {}).unwrap();
        let c = Network::new(spec, 0.0);
        train(&c, None, &cfg60, &stop, &mut |_| {}).unwrap();
        for i in (0..c.weight_count()).step_by(89) {
            assert_eq!(b.weight(i), c.weight(i), "weight {i}");
        }
        // A plain TD checkpoint has no TC tables.
        cfg.coherence = false;
        train(
            &Network::new("0".parse().unwrap(), 0.0),
            None,
            &cfg,
            &stop,
            &mut |_| {},
        )
        .unwrap();
        assert!(load_checkpoint(dir.path().join("tc.bin"), None)
            .unwrap()
            .1
            .is_none());
    }

    #[test]
    fn a_set_stop_flag_ends_the_run_with_a_checkpoint() {
        let dir = tempfile::tempdir().unwrap();
        let net = Network::new("0123".parse::<Spec>().unwrap(), 0.0);
        let stop = AtomicBool::new(true);
        let mut cfg = config(1_000_000, 2);
        cfg.checkpoint = Some(CheckpointPlan {
            path: dir.path().join("ck.bin"),
            every: Duration::from_secs(3600),
            keep: false,
        });
        let sum = train(&net, None, &cfg, &stop, &mut |_| {}).unwrap();
        assert!(sum.stopped);
        assert_eq!(sum.progress.run_games, 0);
        assert_eq!(Network::load(dir.path().join("ck.bin")).unwrap().games(), 0);
    }

    #[test]
    fn alpha_decays_geometrically_and_bad_settings_are_refused() {
        let mut cfg = config(1000, 1);
        cfg.alpha_end = Some(0.001);
        assert_eq!(cfg.alpha_at(0), 0.1);
        assert!((cfg.alpha_at(500) - 0.01).abs() < 1e-6);
        assert!((cfg.alpha_at(1000) - 0.001).abs() < 1e-7);
        let net = Network::new("0".parse::<Spec>().unwrap(), 0.0);
        let stop = AtomicBool::new(false);
        cfg.alpha = -1.0;
        assert!(matches!(
            train(&net, None, &cfg, &stop, &mut |_| {}),
            Err(TrainError::Config(_))
        ));
        cfg.alpha = 0.1;
        cfg.threads = 0;
        assert!(matches!(
            train(&net, None, &cfg, &stop, &mut |_| {}),
            Err(TrainError::Config(_))
        ));
    }

    #[test]
    fn tc_step_on_a_hand_worked_example() {
        // One 1-cell tuple (the corners of the 8 images) on a board with a 2 top-left and the
        // other corners empty: w[1] is looked up twice, w[0] six times.
        let net = Network::new("0".parse::<Spec>().unwrap(), 0.0);
        let tc = Coherence::new(&net);
        let b = Board::from_values([[2, 0, 0, 0], [0; 4], [0; 4], [0; 4]]).unwrap();
        // First step: all coherences 1, so as TD: error 80, each lookup adds 0.125 * 80 = 10:
        // w0 = 60, w1 = 20, value = 6*60 + 2*20 = 400. Each lookup adds the error to E and |error|
        // to A: w0's E = A = 6*80 = 480, w1's E = A = 160.
        let (err, after) = tc.td_step(&net, b.raw(), 80.0, 0.125);
        assert_eq!((err, after), (80.0, 400.0));
        assert_eq!((net.weight(0), net.weight(1)), (Some(60.0), Some(20.0)));
        // Second step toward 0: error -400. Coherence |E|/A: w0's starts at 1 and falls as its
        // six lookups add -400 each: E = 480 - 400k, A = 480 + 400k before lookup k+1
        // (k = 0..5), so w0 gets 0.125 * -400 * (1, 80/880, 320/1280, 720/1680, 1120/2080,
        // 1520/2480) ... summed. Compute it the slow way and compare.
        let mut w0 = 60.0f32;
        let (mut e, mut a) = (480.0f32, 480.0f32);
        for _ in 0..6 {
            w0 += 0.125 * (e.abs() / a) * -400.0;
            e += -400.0;
            a += 400.0;
        }
        let mut w1 = 20.0f32;
        let (mut e, mut a) = (160.0f32, 160.0f32);
        for _ in 0..2 {
            w1 += 0.125 * (e.abs() / a) * -400.0;
            e += -400.0;
            a += 400.0;
        }
        let (err, after) = tc.td_step(&net, b.raw(), 0.0, 0.125);
        assert_eq!(err, -400.0);
        assert_eq!((net.weight(0), net.weight(1)), (Some(w0), Some(w1)));
        assert_eq!(after, net.value(b));
        // Plain TD would have subtracted 50 per lookup (w0 -> -240); TC moved far less.
        assert!(w0 > -240.0 + 100.0, "{w0}");
    }

    #[test]
    fn window_counts_reach_rates_over_the_last_games() {
        let mut w = Window::new(2);
        let g = |max_exp, score| GameStats {
            score,
            max_exp,
            moves: 10,
            err_sq: 40.0,
        };
        w.push(g(10, 100)); // 1024
        w.push(g(11, 300)); // 2048
        w.push(g(13, 500)); // 8192; the 1024 game leaves
        let s = w.stats();
        assert_eq!(s.games, 2);
        assert_eq!(s.avg_score, 400.0);
        assert_eq!(s.reach, [1.0, 0.5, 0.5, 0.0, 0.0]);
        assert_eq!(s.td_rms, 2.0);
    }
}
