//! What every solver is described and built with: its entry ([`SolverInfo`] with its
//! [`OptionInfo`]s), its configuration ([`SolverConfig`]) and its checked `KEY=VALUE` options
//! ([`OptionValues`]).
//!
//! Solvers import this module and [`super::evaluation`]; the [`super::registry`] imports the
//! solvers, never the other way round.
use super::evaluation::Evaluation;
use super::{Solver, SolverError};
use crate::engine::{Shape, SpawnRule};
use std::str::FromStr;

/// One option of a solver: `KEY=VALUE` on the command line (`--opt KEY=VALUE`).
#[derive(Debug)]
pub struct OptionInfo {
    /// The key.
    pub key: &'static str,
    /// The default value, as text.
    pub default: &'static str,
    /// What it means, with its units.
    pub help: &'static str,
}

/// A solver's entry in the registry: its name, what it does, where it comes from, its options
/// and how it is built.
#[derive(Debug)]
pub struct SolverInfo {
    /// The name (`--solver NAME`).
    pub name: &'static str,
    /// One line: what it does.
    pub summary: &'static str,
    /// Where the algorithm comes from (article file, paper, post).
    pub source: &'static str,
    /// What [`super::Budget::work`] (`--depth` on the command line) means to it; `None` if it
    /// has no such measure.
    pub work: Option<&'static str>,
    /// Whether it scores boards with an evaluation (`--eval`).
    pub uses_evaluation: bool,
    /// Its options.
    pub options: &'static [OptionInfo],
    /// Builds it (use [`super::registry::build`]).
    pub build: fn(&SolverConfig) -> Result<Box<dyn Solver>, SolverError>,
}

impl SolverInfo {
    /// Its option keys, for messages: "cprob, table-bits", or "no options".
    pub fn option_keys(&self) -> String {
        if self.options.is_empty() {
            "no options".to_string()
        } else {
            let keys: Vec<&str> = self.options.iter().map(|o| o.key).collect();
            keys.join(", ")
        }
    }
}

/// What a solver is built with, besides its per-call [`super::Budget`].
#[derive(Clone, Debug)]
pub struct SolverConfig {
    /// The board shape it will play.
    pub shape: Shape,
    /// The spawn rule it assumes (the game's own rule plays best).
    pub spawn: SpawnRule,
    /// Seed of a randomised solver's generator (the same seed, the same decisions).
    pub seed: u64,
    /// The evaluation of solvers that score boards.
    pub evaluation: Evaluation,
    /// `KEY=VALUE` options, checked against the solver's [`SolverInfo::options`].
    pub options: Vec<(String, String)>,
    /// A goal tile value (for solvers that search toward one, e.g. bfs); `None` = their default.
    pub goal: Option<u64>,
    /// Whether one decision may use several threads (off when games run one per thread).
    pub parallel: bool,
}

impl SolverConfig {
    /// Defaults for `shape`: classic spawns, seed 1, the heuristic, no options, parallel on.
    pub fn new(shape: Shape) -> SolverConfig {
        SolverConfig {
            shape,
            spawn: SpawnRule::Classic,
            seed: 1,
            evaluation: Evaluation::default(),
            options: Vec::new(),
            goal: None,
            parallel: true,
        }
    }
}

/// A solver's `KEY=VALUE` options, checked against its list; values not given take the
/// listed defaults.
#[derive(Debug)]
pub struct OptionValues<'a> {
    info: &'static SolverInfo,
    given: &'a [(String, String)],
}

impl<'a> OptionValues<'a> {
    /// Checks `given` against `info.options`.
    ///
    /// # Errors
    /// [`SolverError::BadOption`] for a key the solver does not list (the message lists its keys).
    pub fn new(
        info: &'static SolverInfo,
        given: &'a [(String, String)],
    ) -> Result<OptionValues<'a>, SolverError> {
        for (key, _) in given {
            if !info.options.iter().any(|o| o.key == key) {
                return Err(SolverError::BadOption {
                    solver: info.name.to_string(),
                    message: if info.options.is_empty() {
                        format!("it has no option {key:?} (it takes no options)")
                    } else {
                        format!(
                            "it has no option {key:?} (its options: {})",
                            info.option_keys()
                        )
                    },
                });
            }
        }
        Ok(OptionValues { info, given })
    }

    /// The value of `key` (the last one given, else the default), parsed.
    ///
    /// # Errors
    /// [`SolverError::BadOption`] when the value does not parse.
    ///
    /// # Panics
    /// If `key` is not among the solver's listed options (a programming error).
    pub fn get<T: FromStr>(&self, key: &str) -> Result<T, SolverError> {
        let info = self
            .info
            .options
            .iter()
            .find(|o| o.key == key)
            .unwrap_or_else(|| panic!("{} lists no option {key}", self.info.name));
        let text = self
            .given
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map_or(info.default, |(_, v)| v.as_str());
        text.parse().map_err(|_| SolverError::BadOption {
            solver: self.info.name.to_string(),
            message: format!(
                "option {key}={text} is not valid (its default: {}): {}",
                info.default, info.help
            ),
        })
    }
}
