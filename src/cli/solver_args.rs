//! The solver options shared by `play`, `advise` and `sim`: which solver, its evaluation, its
//! options, and the budget of each decision. Every name and option comes from the registry
//! ([`crate::solver::registry`]).
use super::exit::UsageError;
use crate::engine::{Shape, SpawnRule};
use crate::solver::config::SolverInfo;
use crate::solver::registry;
use crate::solver::Evaluation;
use crate::solver::{Budget, SolverConfig};
use clap::Args;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// The `--help` text of `--solver`: the names, and where their options are listed.
fn solver_help() -> String {
    let names: Vec<&str> = registry::SOLVERS.iter().map(|s| s.name).collect();
    format!(
        "Solver to use: {}.\n\n`bot2048 solvers` lists every solver with what it does, its \
         --depth and its --opt options, and the evaluations (--eval).",
        names.join(", ")
    )
}

/// A `KEY=VALUE` pair of `--opt`.
fn parse_opt(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.trim().to_string())),
        _ => Err(format!("{s:?} is not KEY=VALUE")),
    }
}

/// Which solver decides, and how much it may spend per move.
#[derive(Debug, Args, Clone)]
pub struct SolverArgs {
    /// Solver to use.
    #[arg(long, default_value = registry::DEFAULT_SOLVER, value_name = "NAME", long_help = solver_help())]
    pub solver: String,
    /// The solver's measure of work per move (expectimax: the search depth).
    ///
    /// The solver's own measure of work per move: expectimax, the depth in moves beyond the root
    /// move (one more on a board with fewer than 4 empty cells, unless `--opt extend-below=0`, and
    /// one more again with fewer than 2, unless `--opt extend-twice-below=0`);
    /// bfs, the longest move sequence; montecarlo, rollouts per move; aco, iterations.
    /// Default: the solver's own.
    #[arg(long, value_name = "N")]
    pub depth: Option<u32>,
    /// Time budget per move, ms.
    ///
    /// With --depth, the search stops at whichever comes first. Default: the solver's own
    /// (`bot2048 solvers` says which). The time is checked as the search goes, so a decision
    /// can end a little past it, more so on a loaded machine (`sim` reports the median and p99).
    #[arg(long, value_name = "MS")]
    pub time_ms: Option<u64>,
    /// A solver option, KEY=VALUE or SOLVER:KEY=VALUE (repeatable).
    ///
    /// `bot2048 solvers` lists each solver's options. KEY=VALUE goes to every solver run that has
    /// the option KEY (with `sim --compare`, to each solver of the list that has it; an error if
    /// none has it); SOLVER:KEY=VALUE goes to SOLVER only.
    #[arg(long = "opt", value_name = "KEY=VALUE", value_parser = parse_opt)]
    pub options: Vec<(String, String)>,
    /// The evaluation of the solvers that score boards.
    ///
    /// `auto` (the default): the endgame tables when `bot2048 tables build` has built them (a
    /// damaged table file is refused, named), else the heuristic; a line on stderr says which.
    /// `tables`: the heuristic and the tables, refused when none is built. `bot2048 solvers`
    /// lists the evaluations.
    #[arg(long, value_name = "NAME", default_value = "auto")]
    pub eval: String,
}

impl SolverArgs {
    /// Checks the solver's name, options and budget before any work is done.
    ///
    /// # Errors
    /// An unknown solver or evaluation, an option the solver does not have, or a `--depth` the
    /// solver has no use for.
    pub fn validate(&self) -> anyhow::Result<()> {
        let info = registry::find(&self.solver)?;
        self.options_for(&[&self.solver])?;
        self.evaluation()?;
        if let Some(d) = self.depth {
            if info.work.is_none() {
                return Err(UsageError(format!(
                    "--depth {d}: solver {} has no depth or work measure (it ignores budgets)",
                    info.name
                ))
                .into());
            }
        }
        self.check_depth(info)
    }

    /// Refuses a `--depth` too deep for `info` (expectimax would not finish).
    ///
    /// # Errors
    /// A `--depth` beyond [`crate::solver::expectimax::MAX_DEPTH`] for expectimax.
    pub fn check_depth(&self, info: &SolverInfo) -> anyhow::Result<()> {
        if let Some(d) = self.depth {
            if info.name == "expectimax" && d > crate::solver::expectimax::MAX_DEPTH {
                return Err(UsageError(format!(
                    "--depth {d} is too deep for expectimax: at most {} (a deeper search would not finish; use --time-ms for a time budget)",
                    crate::solver::expectimax::MAX_DEPTH
                ))
                .into());
            }
        }
        Ok(())
    }

    /// The `--opt` pairs of each solver of `names` (see [`registry::assign_options`]: `KEY=VALUE`
    /// goes to the solvers that have KEY, `SOLVER:KEY=VALUE` to SOLVER only).
    ///
    /// # Errors
    /// As [`registry::assign_options`].
    pub fn options_for(&self, names: &[&str]) -> anyhow::Result<Vec<Vec<(String, String)>>> {
        Ok(registry::assign_options(names, &self.options)?)
    }

    /// The evaluation named by `--eval`.
    ///
    /// # Errors
    /// An unknown name.
    pub fn evaluation(&self) -> anyhow::Result<Evaluation> {
        Ok(self.eval.parse::<Evaluation>()?)
    }

    /// The name of the evaluation the solver plays with, `auto` resolved (as `--eval` takes
    /// it); `None` for a solver that uses none.
    ///
    /// # Errors
    /// As [`SolverArgs::evaluation`].
    pub fn evaluation_name(&self) -> anyhow::Result<Option<&'static str>> {
        played_evaluation(&self.solver, &self.evaluation()?)
    }

    /// One line saying which evaluation the solver plays with, for `play`, `advise` and `sim`
    /// to print; `None` for a solver that uses none.
    ///
    /// # Errors
    /// As [`SolverArgs::evaluation`].
    pub fn evaluation_note(&self) -> anyhow::Result<Option<String>> {
        if !registry::find(&self.solver)?.uses_evaluation {
            return Ok(None);
        }
        Ok(Some(match self.evaluation()? {
            Evaluation::Tables(choice) => tables_note(choice.inner_name(), choice.tables()),
            Evaluation::CornerTables(choice) => {
                tables_note(choice.inner_name(), choice.tables())
            }
            Evaluation::Middle(choice) => {
                middle_note("middle", choice.tables(), choice.endgame().map(|t| t.tables().len()))
            }
            Evaluation::CornerMiddle(choice) => middle_note(
                "corner-middle",
                choice.tables(),
                choice.endgame().map(|t| t.tables().len()),
            ),
            Evaluation::Heuristic(_) if self.eval == "auto" => format!(
                "evaluation: heuristic (no tables built: `bot2048 tables build --set middle` computes the middle-game tables, the strongest with the endgame tables under them, in 2 to 11 minutes (1.2 to 1.4 GB on disk and in memory); `bot2048 tables build` the endgame tables: {})",
                crate::solver::tables::build_cost(crate::solver::tables::TableSet::Small)
            ),
            e => format!("evaluation: {}", e.name()),
        }))
    }

    /// The solver's configuration for `shape`, assuming `spawn`, with the `--opt` pairs meant
    /// for it.
    ///
    /// # Errors
    /// As [`SolverArgs::evaluation`] and [`SolverArgs::options_for`].
    pub fn config(
        &self,
        shape: Shape,
        spawn: SpawnRule,
        seed: u64,
        parallel: bool,
    ) -> anyhow::Result<SolverConfig> {
        let options = self.options_for(&[&self.solver])?.remove(0);
        Ok(SolverConfig {
            shape,
            spawn,
            seed,
            evaluation: self.evaluation()?,
            options,
            goal: None,
            parallel,
        })
    }

    /// The budget of each decision, polling `stop` (Ctrl-C).
    pub fn budget(&self, stop: Option<Arc<AtomicBool>>) -> Budget {
        Budget {
            time: self.time_ms.map(Duration::from_millis),
            work: self.depth.map(u64::from),
            stop,
        }
    }
}

/// Real uses of `solvers` and of what it lists, at the end of its `--help`.
pub const EXAMPLES: &[super::Example] = &[
    (
        "bot2048 solvers",
        "the solvers, their options, and the evaluations",
    ),
    (
        "bot2048 sim --solver montecarlo --opt rollouts=50 --games 5",
        "try a solver with one of its options on the engine",
    ),
    (
        "bot2048 play --window \"GNOME 2048\" --solver expectimax --depth 3 --eval ntuple",
        "play with a solver, its depth and an evaluation from the list",
    ),
];

fn after_help() -> String {
    super::long_help_end(
        super::exit::help_text(&[super::exit::OK, super::exit::USAGE]),
        EXAMPLES,
    )
}

/// Arguments of `bot2048 solvers` (none).
#[derive(Debug, Args)]
#[command(after_long_help = after_help())]
pub struct SolversArgs {}

/// Runs `bot2048 solvers`: prints every solver with its work measure and options, then the
/// evaluations, on stdout.
///
/// # Errors
/// None; the signature is every subcommand's.
pub fn run_solvers(_args: SolversArgs) -> anyhow::Result<ExitCode> {
    print!(
        "Solvers (--solver NAME; default {}) and their options (--opt KEY=VALUE):\n{}",
        registry::DEFAULT_SOLVER,
        registry::describe()
    );
    Ok(ExitCode::SUCCESS)
}

/// The line `play`, `advise` and `sim` print for an evaluation with the endgame tables: the
/// heuristic under them (`inner`), how many tables, their size and folder.
fn middle_note(
    name: &str,
    tables: &crate::solver::tables::middle::MiddleTables,
    endgame: Option<usize>,
) -> String {
    let limit = crate::solver::tables::middle::MIDDLE_MEMORY_LIMIT >> 30;
    let endgame = match endgame {
        Some(n) => format!("; the {n} endgame tables decide the boards they leave"),
        None => format!(
            "; no endgame tables under them (`bot2048 tables build` adds them, the stronger: {})",
            crate::solver::tables::build_cost(crate::solver::tables::TableSet::Small)
        ),
    };
    let middle = match tables.saved() {
        Some(h) => format!(
            "evaluation: {name}: the middle-game tables on 4x4 boards ({} positions, {:.2} GB packed, computed in {} games, from {}); positions not met before are computed as play meets them, in the rest of {limit} GB (past it the values not in use are packed, then the least recently used dropped)",
            h.positions,
            tables.memory() as f64 / 1e9,
            h.games,
            crate::solver::tables::file::tables_dir()
                .unwrap_or_default()
                .display()
        ),
        None => format!(
            "evaluation: {name}: the middle-game tables on 4x4 boards, none saved: positions are computed as play meets them (in {limit} GB at most: past it the values not in use are packed, then the least recently used dropped; a new one can take seconds); `bot2048 tables build --set middle` computes them once"
        ),
    };
    middle + &endgame
}

fn tables_note(inner: &str, tables: &crate::solver::tables::EndgameTables) -> String {
    format!(
        "evaluation: {inner} with the endgame tables on 4x4 boards ({} tables, {:.1} GB, from {})",
        tables.tables().len(),
        (2 * tables.entries()) as f64 / 1e9,
        crate::solver::tables::file::tables_dir()
            .unwrap_or_default()
            .display()
    )
}

/// The name of `evaluation` (`auto` resolved when it was parsed) when `solver` plays with one,
/// `None` for a solver that uses none: what `play --json` and `sim --json` report.
///
/// # Errors
/// An unknown solver.
pub fn played_evaluation(
    solver: &str,
    evaluation: &Evaluation,
) -> anyhow::Result<Option<&'static str>> {
    let uses = registry::find(solver)?.uses_evaluation;
    Ok(uses.then(|| evaluation.name()))
}
