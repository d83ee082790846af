//! Several solvers over the same games: what `bot2048 sim --compare` measures (and `sim` alone,
//! as a comparison of one).
//!
//! Every solver plays the games of one [`SimConfig`]: game `i` has the seed
//! [`game_seed`]`(config.seed, i)` whichever solver plays it, so all solvers start from the same
//! boards and meet the same spawns for the same moves. The solvers run one after another (each
//! one's games in parallel on rayon, as in [`super::run_games`]), so each solver's wall-clock
//! time and moves per second are its own. All summaries report the same reach tiles: the union
//! of each run's [`reach_tiles`].
//!
//! [`game_seed`]: super::game_seed
use super::{reach_tiles, run_games, summarize_with, GameResult, SimConfig, Summary};
use crate::solver::config::SolverInfo;
use crate::solver::registry;
use crate::solver::{Budget, SolverConfig, SolverError};
use serde::ser::{Serialize, SerializeMap, Serializer};
use std::collections::BTreeSet;
use std::time::Instant;

/// One solver of a comparison: its name in the results, its registry name and how it is built.
#[derive(Clone, Debug)]
pub struct Entrant {
    /// Its name in the results, unique in a comparison (the solver's name, or e.g.
    /// `expectimax/ntuple` for a solver with its own evaluation).
    pub name: String,
    /// The solver's name in the registry.
    pub solver_name: String,
    /// Its configuration; the seed is replaced by each game's own seed.
    pub solver: SolverConfig,
}

/// One solver's finished run.
#[derive(Clone, Debug)]
pub struct SolverRun {
    /// The solver's name.
    pub name: String,
    /// The budget it ran with, in words (see [`describe_budget`]).
    pub budget: String,
    /// Each game's result, in game order.
    pub results: Vec<GameResult>,
    /// The summary, over the comparison's [`Comparison::reach_tiles`].
    pub summary: Summary,
    /// Wall-clock time of its games, in seconds.
    pub seconds: f64,
}

/// The runs of a comparison, in the order the solvers were given.
///
/// Serialises as one JSON object keyed by solver name, each value a [`Summary`] (exactly the
/// keys of `sim --json`).
#[derive(Clone, Debug)]
pub struct Comparison {
    /// Each solver's run.
    pub runs: Vec<SolverRun>,
    /// The tiles whose reach rates every summary reports (tile values, ascending).
    pub reach_tiles: Vec<u64>,
}

impl Serialize for Comparison {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.runs.len()))?;
        for run in &self.runs {
            map.serialize_entry(&run.name, &run.summary)?;
        }
        map.end()
    }
}

/// Why a comparison could not start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompareError {
    /// No solver was given.
    #[error("no solver to run")]
    NoSolver,
    /// A solver was named twice (each name keys one summary).
    #[error("solver {0} is named twice")]
    Twice(String),
    /// A solver cannot be built or could not play.
    #[error(transparent)]
    Solver(#[from] SolverError),
}

/// The budget `budget` means to the solver `info`, in words: "depth 3", "20 ms a move",
/// "depth 2 within 50 ms a move", its own default (from [`SolverInfo::work`], e.g. "default:
/// max(3, distinct tiles - 2) within 20 ms"), or "ignores budgets" for a solver with no
/// measure of work (greedy: one ply whatever the budget). `work` is named "depth" for every
/// solver, as on the command line (`--depth`), in the solver's own unit.
pub fn describe_budget(info: &SolverInfo, budget: &Budget) -> String {
    let Some(work_doc) = info.work else {
        return "ignores budgets".to_string();
    };
    let time = budget.time.map(|t| format!("{} ms a move", t.as_millis()));
    match (budget.work, time) {
        (Some(w), Some(t)) => format!("depth {w} within {t}"),
        (Some(w), None) => format!("depth {w}"),
        (None, Some(t)) => t,
        (None, None) => match work_doc.split_once("default: ") {
            Some((before, d)) => {
                // "(default: X; more)" or "default: X": X alone
                let d = if before.ends_with('(') {
                    d.rsplit_once(')').map_or(d, |(x, _)| x)
                } else {
                    d
                };
                format!("default: {}", d.split(';').next().unwrap_or(d).trim())
            }
            None => "its default".to_string(),
        },
    }
}

/// Plays `config`'s games with every solver of `entrants`, one solver after another, each on
/// the same seeds. `on_game(solver, result)` is called after each game (for a progress bar).
///
/// Builds every entrant once, so that a bad option (an unknown key or a value out of range), an
/// unknown name or a table that cannot be loaded fails before any game is played; returns their
/// registry entries, in order. Tables and middle-game values are loaded once per process, so a
/// later build shares them.
///
/// # Errors
/// [`CompareError::NoSolver`], [`CompareError::Twice`], or a solver's error.
pub fn check_entrants(entrants: &[Entrant]) -> Result<Vec<&'static SolverInfo>, CompareError> {
    if entrants.is_empty() {
        return Err(CompareError::NoSolver);
    }
    let mut infos = Vec::with_capacity(entrants.len());
    for (i, e) in entrants.iter().enumerate() {
        if entrants[..i].iter().any(|o| o.name == e.name) {
            return Err(CompareError::Twice(e.name.clone()));
        }
        infos.push(registry::find(&e.solver_name)?);
        registry::build(&e.solver_name, &e.solver)?;
    }
    Ok(infos)
}

/// Every entrant is built once before any game is played ([`check_entrants`]), so a bad option
/// or an unknown name fails at once.
///
/// # Errors
/// [`CompareError::NoSolver`], [`CompareError::Twice`], or a solver's error.
pub fn compare(
    config: &SimConfig,
    entrants: &[Entrant],
    on_game: &(dyn Fn(&str, &GameResult) + Sync),
) -> Result<Comparison, CompareError> {
    let infos = check_entrants(entrants)?;
    let mut played = Vec::with_capacity(entrants.len());
    for e in entrants {
        let make = |seed: u64| {
            let mut c = e.solver.clone();
            c.seed = seed;
            registry::build(&e.solver_name, &c)
        };
        let start = Instant::now();
        let results = run_games(config, &make, &|r| on_game(&e.name, r))?;
        played.push((results, start.elapsed().as_secs_f64()));
    }
    let tiles: BTreeSet<u64> = played
        .iter()
        .flat_map(|(results, _)| reach_tiles(config.shape, results))
        .collect();
    let reach_tiles: Vec<u64> = tiles.into_iter().collect();
    let runs = entrants
        .iter()
        .zip(infos)
        .zip(played)
        .map(|((e, info), (results, seconds))| SolverRun {
            name: e.name.clone(),
            budget: describe_budget(info, &config.budget),
            summary: summarize_with(&results, seconds, &reach_tiles),
            results,
            seconds,
        })
        .collect();
    Ok(Comparison { runs, reach_tiles })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Shape;
    use crate::sim::start_board;
    use std::sync::atomic::{AtomicU32, Ordering};

    fn entrant(name: &str, shape: Shape) -> Entrant {
        let mut solver = SolverConfig::new(shape);
        solver.parallel = false;
        Entrant {
            name: name.to_string(),
            solver_name: name.to_string(),
            solver,
        }
    }

    #[test]
    fn every_solver_plays_the_same_seeds() {
        let mut config = SimConfig::new(Shape::FOUR, 2, 5);
        config.budget = Budget::depth(1);
        let games = AtomicU32::new(0);
        let entrants = [
            entrant("expectimax", Shape::FOUR),
            entrant("greedy", Shape::FOUR),
        ];
        let on_game = |_: &str, _: &GameResult| {
            games.fetch_add(1, Ordering::Relaxed);
        };
        let c = compare(&config, &entrants, &on_game).unwrap();
        assert_eq!(games.load(Ordering::Relaxed), 4);
        let names: Vec<&str> = c.runs.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["expectimax", "greedy"]);
        // SplitMix64 of 5 + i·0x9E3779B97F4A7C15, worked out apart from the code (Python).
        let seeds = [0xB6BF_613D_BEBB_45DC_u64, 0x6303_3B0C_A389_C35A];
        for run in &c.runs {
            let got: Vec<u64> = run.results.iter().map(|r| r.seed).collect();
            assert_eq!(got, seeds, "{}", run.name);
            assert_eq!(run.summary.games, 2);
        }
        for &seed in &seeds {
            let board = start_board(&config, seed);
            assert_eq!(board.exponents().iter().filter(|&&e| e != 0).count(), 2);
        }
        assert_ne!(
            start_board(&config, seeds[0]),
            start_board(&config, seeds[1])
        );
        assert_eq!(c.runs[0].budget, "depth 1");
        assert_eq!(c.runs[1].budget, "ignores budgets");
        // the same reach tiles for all; on 4×4 at least 1024..=65536
        assert_eq!(c.reach_tiles[..7], crate::sim::REACH_TILES_4X4);
        for run in &c.runs {
            let tiles: Vec<u64> = run.summary.reach_rates.keys().copied().collect();
            assert_eq!(tiles, c.reach_tiles);
        }
    }

    #[test]
    fn the_reach_tiles_are_the_union_of_the_runs() {
        let three = Shape::new(3, 3).unwrap();
        let mut config = SimConfig::new(three, 2, 1);
        config.budget = Budget::depth(1);
        let c = compare(
            &config,
            &[entrant("greedy", three), entrant("expectimax", three)],
            &|_, _| {},
        )
        .unwrap();
        let top = c
            .runs
            .iter()
            .flat_map(|r| r.results.iter().map(|g| g.max_tile))
            .max()
            .unwrap();
        let low = c
            .runs
            .iter()
            .map(|r| r.results.iter().map(|g| g.max_tile).max().unwrap())
            .min()
            .unwrap();
        // each run alone reports 8 tiles up to its own top; the union spans both
        assert_eq!(*c.reach_tiles.last().unwrap(), top);
        assert_eq!(c.reach_tiles[0], (low >> 7).max(2));
    }

    #[test]
    fn a_comparison_refuses_twins_and_nothing_before_playing() {
        let config = SimConfig::new(Shape::FOUR, 1000, 1);
        let played = AtomicU32::new(0);
        let on_game = |_: &str, _: &GameResult| {
            played.fetch_add(1, Ordering::Relaxed);
        };
        let twins = [
            entrant("greedy", Shape::FOUR),
            entrant("greedy", Shape::FOUR),
        ];
        let err = compare(&config, &twins, &on_game).unwrap_err();
        assert_eq!(err, CompareError::Twice("greedy".into()));
        assert_eq!(
            compare(&config, &[], &on_game).unwrap_err(),
            CompareError::NoSolver
        );
        let mut bad = entrant("expectimax", Shape::FOUR);
        bad.solver.options = vec![("cprob".into(), "lots".into())];
        let err = compare(&config, &[entrant("greedy", Shape::FOUR), bad], &on_game);
        assert!(matches!(
            err,
            Err(CompareError::Solver(SolverError::BadOption { .. }))
        ));
        assert_eq!(played.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn budgets_in_words() {
        let ex = registry::find("expectimax").unwrap();
        let greedy = registry::find("greedy").unwrap();
        let both = Budget {
            work: Some(2),
            ..Budget::millis(50)
        };
        assert_eq!(describe_budget(ex, &both), "depth 2 within 50 ms a move");
        assert_eq!(describe_budget(ex, &Budget::millis(20)), "20 ms a move");
        assert_eq!(
            describe_budget(ex, &Budget::default()),
            "default: max(3, distinct tiles - 2) within 20 ms (under 16 cells: as deep as 20 ms allows)"
        );
        assert_eq!(describe_budget(greedy, &both), "ignores budgets");
        let mc = registry::find("montecarlo").unwrap();
        assert_eq!(
            describe_budget(mc, &Budget::default()),
            "default: option rollouts"
        );
    }
}
