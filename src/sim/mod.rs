//! Games on the engine, played many at once, and their statistics: what `bot2048 sim` measures.
//!
//! Games run on rayon's threads, one game per thread with a single-threaded solver each (the
//! registry's `parallel: false`): with at least as many games as cores every core is busy anyway,
//! a thread per game needs no synchronisation, and each game replays exactly from its seed when
//! the budget is a fixed amount of work (a time budget depends on the machine's speed). Game `i`
//! (0-based) of a run started with `seed` uses the seed [`game_seed`]`(seed, i)` for its spawns
//! and the same seed for a randomised solver, so every solver of a comparison meets the same
//! spawns for the same moves.
//!
//! - [`compare`]: several solvers over the same seeds, with summaries over one list of tiles.
//! - [`chart`]: the PNG of a run or a comparison (the only module that imports plotters).
//! - [`resume`]: games played on from where earlier ones stood (their resume points in a
//!   `--games-out` file), so that a change to late play is measured without replaying the
//!   games' first moves.
use crate::engine::{AnyBoard, Game, GameState, Position, Shape, SpawnRule};
use crate::solver::{Budget, Solver, SolverError};
use crate::stats;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Duration;
use std::time::Instant;

pub mod chart;
pub mod compare;
pub mod resume;

pub use resume::ResumeFrom;

/// How many of a game's largest tiles keep a resume point ([`GameResult::resume_points`]): the
/// last three it made (32768, 16384 and 8192 in a game that ends at 32768).
pub const RESUME_POINTS: usize = 3;

/// The seed of game `index` of a run started with `seed`: a SplitMix64 step of `seed + index`,
/// so neighbouring games get unrelated spawns.
pub fn game_seed(seed: u64, index: u32) -> u64 {
    let mut z = seed.wrapping_add((index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// What a run plays: the games' shape, rule and count, and each decision's budget.
#[derive(Clone, Debug)]
pub struct SimConfig {
    /// The board shape.
    pub shape: Shape,
    /// Number of games.
    pub games: u32,
    /// Seed of the run (see [`game_seed`]).
    pub seed: u64,
    /// The games' spawn rule.
    pub spawn: SpawnRule,
    /// The budget of every decision.
    pub budget: Budget,
    /// Stop a game as won once a tile of this value is made.
    pub goal: Option<u64>,
    /// Stop a game after this many moves.
    pub max_moves: Option<u32>,
    /// Ponder each move's afterstate for this long before its spawn is known, as `play` does
    /// during a real game's animation (`--animation-ms`); `None` = no pondering.
    pub ponder: Option<Duration>,
    /// When not empty, the run plays these games on from where they stood (`sim --resume`),
    /// one game each, rather than `games` new games from `seed`.
    pub resume: Vec<ResumeFrom>,
}

impl SimConfig {
    /// `games` games of `shape` from `seed`: classic spawns, the solvers' default budget, no goal.
    pub fn new(shape: Shape, games: u32, seed: u64) -> SimConfig {
        SimConfig {
            shape,
            games,
            seed,
            spawn: SpawnRule::Classic,
            budget: Budget::default(),
            goal: None,
            max_moves: None,
            ponder: None,
            resume: Vec::new(),
        }
    }

    /// Where the games come from, in words: "seed 7", or "resumed at 32768".
    pub fn origin(&self) -> String {
        match self.resume.first() {
            Some(from) => format!("resumed at {}", from.tile()),
            None => format!("seed {}", self.seed),
        }
    }

    /// The games to play: the resumed games' count, else `games`.
    pub fn game_count(&self) -> u32 {
        if self.resume.is_empty() {
            self.games
        } else {
            u32::try_from(self.resume.len()).unwrap_or(u32::MAX)
        }
    }
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GameEnd {
    /// No legal move was left.
    GameOver,
    /// The goal tile was made.
    Won,
    /// The move limit was reached.
    MaxMoves,
}

/// The result of one game.
#[derive(Debug, Clone)]
pub struct GameResult {
    /// The game's place in its run, 0-based ([`run_games`]): game `i` of a new run plays the seed
    /// [`game_seed`]`(run seed, i)`; a resumed run's game `i` is the `i`-th game of its
    /// `--resume` file with a point at the tile. 0 for a game played alone ([`play_game`]).
    pub index: u32,
    /// The game's seed.
    pub seed: u64,
    /// Final score (sum of merge scores, points).
    pub score: u64,
    /// Largest tile at the end (value).
    pub max_tile: u64,
    /// Moves played, from the game's start (a resumed game counts its moves before too).
    pub moves: u32,
    /// The move count this run took the game up at: 0, or a resumed game's
    /// ([`ResumeFrom`]); the run played `moves - resumed_at` moves of it.
    pub resumed_at: u32,
    /// How it ended.
    pub end: GameEnd,
    /// Time of each decision, in milliseconds.
    pub decision_ms: Vec<f64>,
    /// Decisions the evaluation made outright (an endgame table covered the board).
    pub exact_decisions: u32,
    /// The board when the game ended.
    pub final_board: AnyBoard,
    /// The game's spawn rule.
    pub spawn: SpawnRule,
    /// Each largest tile the game made, in order, with the number of moves played when it
    /// first stood on the board: `(tile value, moves)`.
    pub first_reached: Vec<(u64, u32)>,
    /// Where the game stood when each of its last [`RESUME_POINTS`] largest tiles first stood on
    /// the board: `(tile value, state)`, smallest tile first ([`ResumeFrom`] plays on from one).
    pub resume_points: Vec<(u64, GameState<AnyBoard>)>,
}

/// One game as `sim --games-out` writes it, a line of JSON.
#[derive(Debug, Serialize)]
pub struct GameLine<'a> {
    /// The solver's name in the run (`expectimax`, `expectimax/ntuple`).
    pub solver: &'a str,
    /// The game's place in its run, 0-based ([`GameResult::index`]): lines are written as games
    /// end, so a run stopped early has the games it finished, which are not its first ones.
    pub index: u32,
    /// The game's seed ([`game_seed`]).
    pub seed: u64,
    /// Final score, points.
    pub score: u64,
    /// Largest tile at the end (value).
    pub max_tile: u64,
    /// Moves played.
    pub moves: u32,
    /// How it ended.
    pub end: GameEnd,
    /// The final board's tile values, row by row from the top, 0 for an empty cell.
    pub board: Vec<Vec<u64>>,
    /// The game's spawn rule (`classic`, `twos-only`).
    pub spawn: SpawnRule,
    /// The move count when each tile value (a key) first stood on the board as its largest.
    pub first_reached: BTreeMap<u64, u32>,
    /// Share of the decisions this run made in the game (after `resumed_at_move` for a resumed
    /// game) that an endgame or middle-game table made outright, 0..=1.
    pub table_share: f64,
    /// For a game `sim --resume` played on: the move count it was taken up at (its resume
    /// point's), so this run played `moves - resumed_at_move` of its moves. Absent for a game
    /// played from its start (and for one resumed at move 0, which is the same).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resumed_at_move: Option<u32>,
    /// Where the game stood when each of its last [`RESUME_POINTS`] largest tiles (a key) first
    /// stood on the board: what `sim --resume` plays on from.
    pub resume_points: BTreeMap<u64, resume::ResumePoint>,
}

impl GameResult {
    /// The moves this run played of the game (all of them, but for a resumed game).
    pub fn played(&self) -> u32 {
        self.moves - self.resumed_at
    }

    /// The game as `sim --games-out` writes it, played by `solver`.
    pub fn line<'a>(&self, solver: &'a str) -> GameLine<'a> {
        GameLine {
            solver,
            index: self.index,
            seed: self.seed,
            score: self.score,
            max_tile: self.max_tile,
            moves: self.moves,
            end: self.end,
            board: self.final_board.rows(),
            spawn: self.spawn,
            first_reached: self.first_reached.iter().copied().collect(),
            table_share: f64::from(self.exact_decisions) / f64::from(self.played().max(1)),
            resumed_at_move: (self.resumed_at > 0).then_some(self.resumed_at),
            resume_points: self
                .resume_points
                .iter()
                .map(|(tile, state)| (*tile, resume::ResumePoint::of(state)))
                .collect(),
        }
    }
}

/// Plays one game of `config`'s shape, rule, goal and move limit from `seed` with `solver`.
///
/// # Errors
/// The solver's error (a shape it was not built for).
pub fn play_game(
    solver: &mut dyn Solver,
    config: &SimConfig,
    seed: u64,
) -> Result<GameResult, SolverError> {
    let game = Game::with_shape(config.shape, seed, config.spawn);
    let first = vec![(game.board().max_value(), 0)];
    play_on(solver, config, game, first)
}

/// Plays `game` on to its end, as [`play_game`] does from the start; `first_reached` holds the
/// largest tiles the game made before (the last one its current largest).
///
/// # Errors
/// As [`play_game`].
pub fn play_on(
    solver: &mut dyn Solver,
    config: &SimConfig,
    mut game: Game<AnyBoard>,
    mut first_reached: Vec<(u64, u32)>,
) -> Result<GameResult, SolverError> {
    let (seed, resumed_at) = (game.state().seed, game.moves());
    let mut resume_points = vec![(game.board().max_value(), game.state())];
    if let Some(goal) = config.goal {
        game = game.with_goal(goal).map_err(|e| SolverError::Unsupported {
            solver: solver.name().to_string(),
            shape: config.shape,
            why: e.to_string(),
        })?;
    }
    let mut decision_ms = Vec::new();
    let mut exact_decisions = 0;
    let end = loop {
        let top = game.board().max_value();
        if first_reached.last().is_some_and(|&(t, _)| top > t) {
            first_reached.push((top, game.moves()));
            resume_points.push((top, game.state()));
            let drop = resume_points.len().saturating_sub(RESUME_POINTS);
            resume_points.drain(..drop);
        }
        if game.is_won() {
            break GameEnd::Won;
        }
        if config.max_moves.is_some_and(|n| game.moves() >= n) {
            break GameEnd::MaxMoves;
        }
        let d = solver.decide(&game.board(), &config.budget)?;
        decision_ms.push(d.elapsed_ms);
        exact_decisions += u32::from(d.exact);
        let Some(m) = d.best else {
            break GameEnd::GameOver;
        };
        // as `play` does while the game animates the move: ponder its afterstate, the spawn
        // still unknown; the next decision reuses that search
        let after = config.ponder.zip(game.board().apply(m));
        if let Some((time, (after, _))) = after {
            let budget = Budget {
                time: Some(time),
                work: None,
                stop: config.budget.stop.clone(),
            };
            solver.ponder(&after, &budget)?;
        }
        if game.play(m).is_none() {
            // A solver proposing an illegal move would loop forever: play the first legal one.
            match game.board().legal_moves().next() {
                Some(legal) => {
                    game.play(legal);
                }
                None => break GameEnd::GameOver,
            }
        }
    };
    Ok(GameResult {
        index: 0,
        seed,
        score: game.score(),
        max_tile: game.board().max_value(),
        moves: game.moves(),
        resumed_at,
        end,
        decision_ms,
        exact_decisions,
        final_board: game.board(),
        spawn: game.rule(),
        first_reached,
        resume_points,
    })
}

/// Plays every game of `config` on rayon's threads (new games from its seed, or its resumed
/// games), each with a solver from `make(seed)`; `on_game` is called after each game (for a
/// progress bar). Results are in game order.
///
/// # Errors
/// The first error of `make` or of a solver.
pub fn run_games(
    config: &SimConfig,
    make: &(dyn Fn(u64) -> Result<Box<dyn Solver>, SolverError> + Sync),
    on_game: &(dyn Fn(&GameResult) + Sync),
) -> Result<Vec<GameResult>, SolverError> {
    (0..config.game_count())
        .into_par_iter()
        .map(|i| {
            let r = match config.resume.get(i as usize) {
                Some(from) => {
                    let mut solver = make(from.state.seed)?;
                    let game = Game::resume(&from.state);
                    play_on(solver.as_mut(), config, game, from.first_reached.clone())?
                }
                None => {
                    let seed = game_seed(config.seed, i);
                    let mut solver = make(seed)?;
                    play_game(solver.as_mut(), config, seed)?
                }
            };
            let r = GameResult { index: i, ..r };
            on_game(&r);
            Ok(r)
        })
        .collect()
}

/// The tiles whose reach rate a 4×4 summary always reports (today's `sim --json` keys).
pub const REACH_TILES_4X4: [u64; 7] = [1024, 2048, 4096, 8192, 16384, 32768, 65536];

/// The tiles whose reach rates a summary of `results` reports: on 4×4 at least
/// [`REACH_TILES_4X4`]; otherwise the eight powers of two up to the largest tile reached.
pub fn reach_tiles(shape: Shape, results: &[GameResult]) -> Vec<u64> {
    let top = results.iter().map(|r| r.max_tile).max().unwrap_or(0).max(4);
    let hi = top.trailing_zeros();
    let lo = hi.saturating_sub(7).max(1);
    let mut tiles: Vec<u64> = (lo..=hi).map(|e| 1u64 << e).collect();
    if shape.is_four() {
        tiles.retain(|&t| t > 65536);
        let mut all = REACH_TILES_4X4.to_vec();
        all.extend(tiles);
        return all;
    }
    tiles
}

/// The summary of a run; `sim --json` prints exactly these keys.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// Games played.
    pub games: u32,
    /// Mean final score.
    pub avg_score: f64,
    /// Median final score.
    pub median_score: f64,
    /// Number of games ending with each largest tile (tile value → games).
    pub max_tile_counts: BTreeMap<u64, u32>,
    /// Share of games whose largest tile reached at least each tile of [`reach_tiles`], 0..=1.
    pub reach_rates: BTreeMap<u64, f64>,
    /// Games that made the goal tile (0 without a goal).
    pub won: u32,
    /// Moves played over all games (by this run: a resumed game's moves before it left out).
    pub moves: u64,
    /// Moves per wall-clock second over the whole run.
    pub moves_per_sec: f64,
    /// Mean decision time in milliseconds.
    pub decision_ms_mean: f64,
    /// Median decision time in milliseconds.
    pub decision_ms_median: f64,
    /// 99th percentile of decision time in milliseconds.
    pub decision_ms_p99: f64,
    /// Share of the moves an endgame table decided outright, 0..=1 (absent when none did).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table_share: Option<f64>,
    /// The evaluation the solver played with, as `--eval` names it with `auto` resolved
    /// (`"corner-middle"`, `"heuristic"`, …); absent for a solver that uses none and until the
    /// caller sets it ([`summarize`] does not know it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evaluation: Option<String>,
    /// The tile the games were resumed at (`sim --resume`), absent for new games; set by the
    /// caller, as `evaluation`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resumed_at: Option<u64>,
}

/// Summarises finished games of `shape`; `seconds` is the run's wall-clock time.
pub fn summarize(shape: Shape, results: &[GameResult], seconds: f64) -> Summary {
    summarize_with(results, seconds, &reach_tiles(shape, results))
}

/// [`summarize`] with the reach tiles given (so that several runs share one table).
pub fn summarize_with(results: &[GameResult], seconds: f64, tiles: &[u64]) -> Summary {
    let n = results.len().max(1) as f64;
    let mut scores: Vec<f64> = results.iter().map(|r| r.score as f64).collect();
    let mut times: Vec<f64> = results
        .iter()
        .flat_map(|r| r.decision_ms.iter().copied())
        .collect();
    let mut max_tile_counts = BTreeMap::new();
    for r in results {
        *max_tile_counts.entry(r.max_tile).or_insert(0) += 1;
    }
    let reach_rates = tiles
        .iter()
        .map(|&t| {
            let reached = results.iter().filter(|r| r.max_tile >= t).count();
            (t, reached as f64 / n)
        })
        .collect();
    let moves: u64 = results.iter().map(|r| u64::from(r.played())).sum();
    Summary {
        games: results.len() as u32,
        avg_score: stats::mean(&scores),
        median_score: stats::median(&mut scores),
        max_tile_counts,
        reach_rates,
        won: results.iter().filter(|r| r.end == GameEnd::Won).count() as u32,
        moves,
        moves_per_sec: if seconds > 0.0 {
            moves as f64 / seconds
        } else {
            0.0
        },
        decision_ms_mean: stats::mean(&times),
        decision_ms_median: stats::median(&mut times),
        decision_ms_p99: stats::quantile(&mut times, 0.99),
        table_share: {
            let exact: u64 = results.iter().map(|r| u64::from(r.exact_decisions)).sum();
            (exact > 0).then(|| exact as f64 / moves.max(1) as f64)
        },
        evaluation: None,
        resumed_at: None,
    }
}

/// Runs `config` with solvers from `make` and summarises it: the results, the summary, and the
/// run's wall-clock seconds.
///
/// # Errors
/// As [`run_games`].
pub fn simulate(
    config: &SimConfig,
    make: &(dyn Fn(u64) -> Result<Box<dyn Solver>, SolverError> + Sync),
    on_game: &(dyn Fn(&GameResult) + Sync),
) -> Result<(Vec<GameResult>, Summary, f64), SolverError> {
    let start = Instant::now();
    let results = run_games(config, make, on_game)?;
    let seconds = start.elapsed().as_secs_f64();
    let summary = summarize(config.shape, &results, seconds);
    Ok((results, summary, seconds))
}

/// The board a game of `config` starts from with `seed` (for tests and tools).
pub fn start_board(config: &SimConfig, seed: u64) -> AnyBoard {
    Game::with_shape(config.shape, seed, config.spawn).board()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::{registry, SolverConfig};

    fn result(score: u64, max_tile: u64, end: GameEnd) -> GameResult {
        GameResult {
            index: 0,
            seed: 0,
            score,
            max_tile,
            moves: 10,
            resumed_at: 0,
            end,
            decision_ms: vec![1.0],
            exact_decisions: 0,
            final_board: AnyBoard::empty(Shape::FOUR),
            spawn: SpawnRule::Classic,
            first_reached: Vec::new(),
            resume_points: Vec::new(),
        }
    }

    #[test]
    fn summary_counts_reach_rates() {
        let r = |s, t| result(s, t, GameEnd::GameOver);
        let s = summarize(
            Shape::FOUR,
            &[r(100, 1024), r(300, 4096), r(200, 2048), r(400, 512)],
            2.0,
        );
        assert_eq!(s.games, 4);
        assert_eq!(s.avg_score, 250.0);
        assert_eq!(s.median_score, 250.0);
        assert_eq!(s.reach_rates[&1024], 0.75);
        assert_eq!(s.reach_rates[&2048], 0.5);
        assert_eq!(s.reach_rates[&4096], 0.25);
        assert_eq!(s.reach_rates[&8192], 0.0);
        assert_eq!(s.reach_rates.len(), 7);
        assert_eq!(s.max_tile_counts[&512], 1);
        assert_eq!(s.moves, 40);
        assert_eq!(s.moves_per_sec, 20.0);
        assert_eq!(s.won, 0);
    }

    #[test]
    fn reach_tiles_follow_the_results_off_4x4() {
        let three = Shape::new(3, 3).unwrap();
        let tiles = reach_tiles(three, &[result(0, 512, GameEnd::GameOver)]);
        assert_eq!(tiles, vec![4, 8, 16, 32, 64, 128, 256, 512]);
    }

    #[test]
    fn game_seeds_differ() {
        assert_ne!(game_seed(1, 0), game_seed(1, 1));
        assert_ne!(game_seed(1, 1), game_seed(2, 0));
        assert_eq!(game_seed(7, 3), game_seed(7, 3));
    }

    fn depth_zero(shape: Shape) -> Box<dyn Solver> {
        registry::build("expectimax", &SolverConfig::new(shape)).unwrap()
    }

    #[test]
    fn a_game_is_replayable_at_fixed_work() {
        let mut config = SimConfig::new(Shape::FOUR, 1, 1);
        config.budget = Budget::depth(0);
        let a = play_game(depth_zero(Shape::FOUR).as_mut(), &config, 5).unwrap();
        let b = play_game(depth_zero(Shape::FOUR).as_mut(), &config, 5).unwrap();
        assert_eq!(
            (a.score, a.moves, a.max_tile),
            (b.score, b.moves, b.max_tile)
        );
        assert!(a.moves > 0);
        assert_eq!(a.end, GameEnd::GameOver);
    }

    #[test]
    fn each_game_of_a_run_carries_its_index_and_the_seed_of_that_index() {
        let mut config = SimConfig::new(Shape::new(3, 3).unwrap(), 4, 21);
        config.budget = Budget::depth(0);
        config.max_moves = Some(5);
        let make = |_: u64| Ok(depth_zero(config.shape));
        let seen = std::sync::Mutex::new(Vec::new());
        let results = run_games(&config, &make, &|r| {
            let line = serde_json::to_value(r.line("expectimax")).unwrap();
            seen.lock()
                .unwrap()
                .push((line["index"].clone(), line["seed"].clone()));
        })
        .unwrap();
        let indices: Vec<u32> = results.iter().map(|r| r.index).collect();
        assert_eq!(indices, vec![0, 1, 2, 3]);
        let mut seen = seen.into_inner().unwrap();
        seen.sort_by_key(|(i, _)| i.as_u64());
        let expected: Vec<_> = (0..4u32)
            .map(|i| (serde_json::json!(i), serde_json::json!(game_seed(21, i))))
            .collect();
        assert_eq!(seen, expected, "each line as written names its game");
    }

    #[test]
    fn a_game_resumed_at_one_of_its_tiles_ends_as_the_original_did() {
        let mut config = SimConfig::new(Shape::FOUR, 1, 1);
        config.budget = Budget::depth(0);
        let original = play_game(depth_zero(Shape::FOUR).as_mut(), &config, 5).unwrap();
        let top = original.max_tile;
        // the points of its last three largest tiles, each where that tile first stood
        let kept: Vec<u64> = original.resume_points.iter().map(|p| p.0).collect();
        assert_eq!(kept, vec![top / 4, top / 2, top]);
        let (tile, state) = original.resume_points[1];
        let reached_at = original
            .first_reached
            .iter()
            .find(|p| p.0 == tile)
            .unwrap()
            .1;
        assert_eq!((state.moves, state.board.max_value()), (reached_at, tile));
        let first_reached: Vec<(u64, u32)> = original
            .first_reached
            .iter()
            .copied()
            .filter(|p| p.0 <= tile)
            .collect();
        config.resume = vec![ResumeFrom {
            state,
            first_reached,
        }];
        let make = |_: u64| Ok(depth_zero(Shape::FOUR));
        let resumed = run_games(&config, &make, &|_| ()).unwrap();
        let [r] = &resumed[..] else {
            panic!("{} games played, not 1", resumed.len())
        };
        assert_eq!(
            (r.seed, r.score, r.moves, r.final_board, &r.first_reached),
            (
                5,
                original.score,
                original.moves,
                original.final_board,
                &original.first_reached
            )
        );
        assert!(r.moves > state.moves + 100, "the resumed game played on");
        assert_eq!(
            (r.resumed_at, r.played()),
            (state.moves, r.moves - state.moves)
        );
        let summary = summarize(Shape::FOUR, &resumed, 1.0);
        assert_eq!(summary.moves, u64::from(original.moves - state.moves));
        // its --games-out line says where it was taken up; the original's line does not
        let line = |g: &GameResult| serde_json::to_value(g.line("expectimax")).unwrap();
        assert_eq!(line(r)["resumed_at_move"], reached_at);
        assert!(line(&original).get("resumed_at_move").is_none());
    }

    #[test]
    fn a_goal_of_64_on_3x3_ends_the_game_as_won() {
        let three = Shape::new(3, 3).unwrap();
        let mut config = SimConfig::new(three, 1, 1);
        config.budget = Budget::depth(1);
        config.goal = Some(64);
        let r = play_game(depth_zero(three).as_mut(), &config, 3).unwrap();
        assert_eq!(r.end, GameEnd::Won);
        assert_eq!(r.max_tile, 64, "the game stops on the move that makes 64");
    }

    #[test]
    fn a_move_limit_stops_the_game() {
        let mut config = SimConfig::new(Shape::new(5, 5).unwrap(), 1, 1);
        config.budget = Budget::depth(0);
        config.max_moves = Some(25);
        let r = play_game(depth_zero(config.shape).as_mut(), &config, 9).unwrap();
        assert_eq!((r.moves, r.end), (25, GameEnd::MaxMoves));
    }
}
