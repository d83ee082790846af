//! The one list of solvers: names, one-line descriptions, sources, options, and how each is
//! built for a board shape and an evaluation.
//!
//! `--solver`, `--help`, `sim` and the error for an unknown name all come from [`SOLVERS`]; a new
//! solver is one file plus one entry here. Each solver parses its own typed options from the
//! `KEY=VALUE` pairs of [`SolverConfig::options`] through [`OptionValues`], which refuses keys the
//! solver does not list.
use super::article::{ArticleEval, ARTICLE_WEIGHTS};
use super::heuristic::RowHeuristic;
use super::ntuple::{self, NTupleEval, Network};
use super::tables::{self, EndgameTables};
use super::{aco, bfs, expectimax, greedy, montecarlo, Evaluator, Solver, SolverError};
use crate::engine::{Board, GridBoard, Position, Shape, SpawnRule};
use std::fmt::Write as _;
use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;

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

/// A solver the registry knows.
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
    /// Builds it (use [`build`]).
    pub build: fn(&SolverConfig) -> Result<Box<dyn Solver>, SolverError>,
}

/// Every solver, the default ([`DEFAULT_SOLVER`]) first.
pub static SOLVERS: &[SolverInfo] = &[
    expectimax::INFO,
    greedy::INFO,
    montecarlo::INFO,
    aco::INFO,
    bfs::INFO,
    ntuple::eval::INFO,
];

/// The solver used when none is named.
pub const DEFAULT_SOLVER: &str = "expectimax";

/// A static evaluation a solver can score boards with (`--eval NAME`).
#[derive(Clone, Debug, Default)]
pub enum Evaluation {
    /// nneonneo/2048-ai's per-line heuristic ([`RowHeuristic`]).
    #[default]
    Heuristic,
    /// Article 001's evaluation with its weights ([`ArticleEval`]).
    Article,
    /// An n-tuple network ([`NTupleEval`]: its value plus the points scored), 4×4 only.
    NTuple(Arc<Network>),
    /// The heuristic with the endgame tables ([`tables::TableEval`]), 4×4 only; `named` is false
    /// when `auto` chose it, and then a board of another shape plays with the heuristic alone
    /// instead of being refused.
    Tables {
        /// The tables loaded.
        tables: Arc<EndgameTables>,
        /// Named on the command line (`tables`), not chosen by `auto`.
        named: bool,
    },
}

/// The evaluations' names and one-line descriptions.
pub const EVALUATIONS: &[(&str, &str)] = &[
    (
        "heuristic",
        "nneonneo/2048-ai's per-line heuristic: empty cells, merges, monotonicity, tile sum",
    ),
    (
        "article",
        "article 001 on tile values: monotonicity 1.0, smoothness 1.0, empty cells 2.7, largest tile in a corner 1.0",
    ),
    (
        "tables",
        "the heuristic, and the endgame tables where they cover the board (4x4; built by `bot2048 tables build`)",
    ),
    (
        "auto",
        "tables when `bot2048 tables build` has built them, else heuristic",
    ),
    (
        "ntuple",
        "the n-tuple network's points to come + points scored (4x4); ntuple:FILE names a weights file, else networks/ntuple-4x6.bin or $BOT2048_NETWORK",
    ),
];

impl FromStr for Evaluation {
    type Err = SolverError;

    /// An evaluation by name (see [`EVALUATIONS`]); `ntuple` and `ntuple:FILE` load the network
    /// (once per process, [`ntuple::load_shared`]).
    ///
    /// # Errors
    /// [`SolverError::UnknownEvaluation`] listing the names; [`SolverError::BadNetwork`] for a
    /// network file that cannot be loaded.
    fn from_str(s: &str) -> Result<Evaluation, SolverError> {
        match s {
            "heuristic" => Ok(Evaluation::Heuristic),
            "tables" => Ok(Evaluation::Tables {
                tables: load_tables()?,
                named: true,
            }),
            "auto" => {
                let built = load_tables().ok().filter(|t| !t.is_empty());
                Ok(
                    built.map_or(Evaluation::Heuristic, |tables| Evaluation::Tables {
                        tables,
                        named: false,
                    }),
                )
            }
            "article" => Ok(Evaluation::Article),
            "ntuple" => Ok(Evaluation::NTuple(ntuple::load_shared(
                &ntuple::default_path(),
            )?)),
            _ if s.starts_with("ntuple:") => Ok(Evaluation::NTuple(ntuple::load_shared(
                Path::new(&s["ntuple:".len()..]),
            )?)),
            _ => Err(SolverError::UnknownEvaluation {
                name: s.to_string(),
                known: EVALUATIONS.iter().map(|(n, _)| n.to_string()).collect(),
            }),
        }
    }
}

impl Evaluation {
    /// The evaluation's name.
    pub fn name(&self) -> &'static str {
        match self {
            Evaluation::Heuristic => "heuristic",
            Evaluation::Article => "article",
            Evaluation::NTuple(_) => "ntuple",
            Evaluation::Tables { .. } => "tables",
        }
    }
}

/// The endgame tables of the user's tables folder, loaded once per process.
///
/// # Errors
/// [`SolverError::Tables`] for a file that cannot be loaded, or no table at all (saying what to
/// run).
fn load_tables() -> Result<Arc<EndgameTables>, SolverError> {
    let bad = |message: String| SolverError::Tables { message };
    let loaded = tables::load_shared(None).map_err(|e| bad(e.to_string()))?;
    if loaded.is_empty() {
        let dir = tables::file::tables_dir().unwrap_or_default();
        return Err(bad(format!(
            "no endgame tables in {}: run `bot2048 tables build` first ({})",
            dir.display(),
            tables::build_cost(tables::TableSet::Small)
        )));
    }
    Ok(loaded)
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
            evaluation: Evaluation::Heuristic,
            options: Vec::new(),
            goal: None,
            parallel: true,
        }
    }
}

/// The names of every solver, default first.
pub fn names() -> Vec<&'static str> {
    SOLVERS.iter().map(|s| s.name).collect()
}

/// The solver called `name`.
///
/// # Errors
/// [`SolverError::UnknownSolver`], listing the known names.
pub fn find(name: &str) -> Result<&'static SolverInfo, SolverError> {
    SOLVERS
        .iter()
        .find(|s| s.name == name)
        .ok_or_else(|| SolverError::UnknownSolver {
            name: name.to_string(),
            known: names().iter().map(|n| n.to_string()).collect(),
        })
}

/// Builds the solver called `name` for `config`.
///
/// # Errors
/// An unknown name, an option it does not have or cannot parse, or an evaluation it cannot use
/// on `config.shape`.
pub fn build(name: &str, config: &SolverConfig) -> Result<Box<dyn Solver>, SolverError> {
    (find(name)?.build)(config)
}

/// A text listing every solver with its summary, work measure and options (for `--help`).
pub fn describe() -> String {
    let mut out = String::new();
    for s in SOLVERS {
        let _ = writeln!(out, "  {:<11} {}", s.name, s.summary);
        let work = s.work.unwrap_or("none (takes no --depth)");
        let _ = writeln!(out, "  {:<11}   --depth: {work}", "");
        for o in s.options {
            let _ = writeln!(
                out,
                "  {:<11}   --opt {}={}  {}",
                "", o.key, o.default, o.help
            );
        }
    }
    out.push_str("Evaluations (--eval):\n");
    for (name, what) in EVALUATIONS {
        let _ = writeln!(out, "  {name:<11} {what}");
    }
    out
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
                let known: Vec<&str> = info.options.iter().map(|o| o.key).collect();
                return Err(SolverError::BadOption {
                    solver: info.name.to_string(),
                    message: if known.is_empty() {
                        format!("it has no option {key:?} (it takes no options)")
                    } else {
                        format!(
                            "it has no option {key:?} (its options: {})",
                            known.join(", ")
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
            message: format!("option {key}={text} is not valid: {}", info.help),
        })
    }
}

/// The keys of `info`'s options, for messages: "cprob, table-bits" or "no options".
fn option_keys(info: &SolverInfo) -> String {
    if info.options.is_empty() {
        "no options".to_string()
    } else {
        let keys: Vec<&str> = info.options.iter().map(|o| o.key).collect();
        keys.join(", ")
    }
}

/// Splits `--opt` pairs among the solvers called `names` (one solver, or the solvers of a
/// comparison): an unprefixed `KEY=VALUE` goes to every solver of `names` that has the option
/// KEY; a prefixed `SOLVER:KEY=VALUE` goes to SOLVER only. Returns each solver's own pairs, in
/// the order of `names` (a solver named twice, e.g. with two evaluations, gets its pairs twice),
/// keys without the prefix, ready for [`SolverConfig::options`].
/// Values are not parsed here (the solver's build does that).
///
/// # Errors
/// - [`SolverError::UnknownSolver`] for an unknown name, in `names` or as a prefix;
/// - [`SolverError::BadOption`] for a prefix naming a solver that is not in `names`, for a key
///   the prefixed solver does not have, or, with one solver, for a key it does not have;
/// - [`SolverError::NoSuchOption`] for an unprefixed key that none of several solvers has.
pub fn assign_options(
    names: &[&str],
    given: &[(String, String)],
) -> Result<Vec<Vec<(String, String)>>, SolverError> {
    let infos = names
        .iter()
        .map(|n| find(n))
        .collect::<Result<Vec<_>, _>>()?;
    let mut out = vec![Vec::new(); infos.len()];
    for (key, value) in given {
        let pair = |k: &str| vec![(k.to_string(), value.clone())];
        if let Some((solver, k)) = key.split_once(':') {
            let info = find(solver)?;
            let at: Vec<usize> = (0..infos.len())
                .filter(|&i| infos[i].name == info.name)
                .collect();
            if at.is_empty() {
                return Err(SolverError::BadOption {
                    solver: info.name.to_string(),
                    message: format!(
                        "--opt {key}={value}: {} is not among the solvers run ({})",
                        info.name,
                        names.join(", ")
                    ),
                });
            }
            OptionValues::new(info, &pair(k))?;
            for i in at {
                out[i].extend(pair(k));
            }
            continue;
        }
        let having: Vec<usize> = (0..infos.len())
            .filter(|&i| infos[i].options.iter().any(|o| o.key == key))
            .collect();
        if having.is_empty() {
            if let [info] = infos.as_slice() {
                OptionValues::new(info, &pair(key))?;
            }
            return Err(SolverError::NoSuchOption {
                key: key.clone(),
                known: infos
                    .iter()
                    .map(|s| format!("{}: {}", s.name, option_keys(s)))
                    .collect(),
            });
        }
        for i in having {
            out[i].extend(pair(key));
        }
    }
    Ok(out)
}

/// Makes one solver type for a board type `P` and an evaluation `E`; [`dispatch`] picks `P` and
/// `E` from a [`SolverConfig`], so each solver writes its construction once.
pub trait Build {
    /// The solver's registry name (for messages).
    const SOLVER: &'static str;

    /// The solver over `P`, scoring with `eval`.
    fn build<P: Position, E: Evaluator<P> + 'static>(self, eval: E) -> Box<dyn Solver>;
}

/// Calls `b.build` with the board type of `config.shape` (the bitboard for 4×4) and the
/// evaluation `config.evaluation`.
///
/// # Errors
/// [`SolverError::Unsupported`] for an evaluation that does not exist for the shape (the
/// network on a board that is not 4×4).
pub fn dispatch<B: Build>(config: &SolverConfig, b: B) -> Result<Box<dyn Solver>, SolverError> {
    match (&config.evaluation, config.shape.is_four()) {
        (Evaluation::Heuristic, true) => Ok(b.build::<Board, _>(RowHeuristic::new())),
        (Evaluation::Heuristic, false) => Ok(b.build::<GridBoard, _>(RowHeuristic::new())),
        (Evaluation::Article, true) => Ok(b.build::<Board, _>(ArticleEval::new(ARTICLE_WEIGHTS))),
        (Evaluation::Article, false) => {
            Ok(b.build::<GridBoard, _>(ArticleEval::new(ARTICLE_WEIGHTS)))
        }
        (Evaluation::NTuple(net), true) => Ok(b.build::<Board, _>(NTupleEval::new(net.clone()))),
        (Evaluation::NTuple(_), false) => Err(ntuple::eval::unsupported(B::SOLVER, config.shape)),
        (Evaluation::Tables { tables, .. }, true) => {
            Ok(b.build::<Board, _>(tables::evaluation(tables.clone())))
        }
        (Evaluation::Tables { named: false, .. }, false) => {
            Ok(b.build::<GridBoard, _>(RowHeuristic::new()))
        }
        (Evaluation::Tables { named: true, .. }, false) => Err(SolverError::Unsupported {
            solver: B::SOLVER.to_string(),
            shape: config.shape,
            why: "the endgame tables are for 4x4 boards only".to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_name_lists_every_solver_once() {
        let text = find("minimax").unwrap_err().to_string();
        assert!(text.contains("\"minimax\""), "{text}");
        for s in SOLVERS {
            assert_eq!(text.matches(s.name).count(), 1, "{text}");
        }
    }

    #[test]
    fn names_are_unique_and_the_default_is_first() {
        let n = names();
        assert_eq!(n[0], DEFAULT_SOLVER);
        let mut sorted = n.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), n.len());
    }

    #[test]
    fn options_are_checked_and_parsed() {
        let info = find("expectimax").unwrap();
        let bad = vec![("rollouts".to_string(), "3".to_string())];
        let err = OptionValues::new(info, &bad).unwrap_err().to_string();
        assert!(err.contains("rollouts") && err.contains("cprob"), "{err}");
        let given = vec![("cprob".to_string(), "0.001".to_string())];
        let v = OptionValues::new(info, &given).unwrap();
        assert_eq!(v.get::<f32>("cprob").unwrap(), 0.001);
        let none = OptionValues::new(info, &[]).unwrap();
        assert_eq!(none.get::<f32>("cprob").unwrap(), 1e-4);
        let junk = vec![("cprob".to_string(), "lots".to_string())];
        let v = OptionValues::new(info, &junk).unwrap();
        assert!(v.get::<f32>("cprob").is_err());
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn options_go_to_the_solvers_that_have_them() {
        let given = pairs(&[("cprob", "0.01"), ("expectimax:table-bits", "16")]);
        let split = assign_options(&["greedy", "expectimax"], &given).unwrap();
        assert_eq!(split[0], pairs(&[]));
        assert_eq!(split[1], pairs(&[("cprob", "0.01"), ("table-bits", "16")]));
        // one solver: the same rules, and a prefix naming it is allowed
        let one = assign_options(&["expectimax"], &pairs(&[("expectimax:cprob", "0.5")]));
        assert_eq!(one.unwrap(), vec![pairs(&[("cprob", "0.5")])]);
    }

    #[test]
    fn options_no_solver_can_take_are_refused() {
        let both = ["expectimax", "greedy"];
        let err = assign_options(&both, &pairs(&[("rollouts", "3")])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "option \"rollouts\": none of the solvers run has it \
             (expectimax: cprob, table-bits; greedy: no options)"
        );
        let err = assign_options(&both, &pairs(&[("greedy:cprob", "3")])).unwrap_err();
        assert!(
            err.to_string()
                .contains("greedy: it has no option \"cprob\""),
            "{err}"
        );
        let err = assign_options(&["greedy"], &pairs(&[("expectimax:cprob", "3")])).unwrap_err();
        assert!(
            err.to_string()
                .contains("not among the solvers run (greedy)"),
            "{err}"
        );
        let err = assign_options(&both, &pairs(&[("minimax:depth", "3")])).unwrap_err();
        assert!(matches!(err, SolverError::UnknownSolver { .. }), "{err}");
        // one solver keeps today's message, which lists its own keys
        let err = assign_options(&["expectimax"], &pairs(&[("x", "1")])).unwrap_err();
        assert!(matches!(err, SolverError::BadOption { .. }), "{err}");
        assert!(
            err.to_string().contains("its options: cprob, table-bits"),
            "{err}"
        );
    }

    #[test]
    fn describe_lists_every_solver_its_work_and_options() {
        let text = describe();
        for s in SOLVERS {
            assert!(
                text.contains(&format!("  {:<11} {}", s.name, s.summary)),
                "{}",
                s.name
            );
            assert!(
                text.contains(s.work.unwrap_or("none (takes no --depth)")),
                "{}",
                s.name
            );
            for o in s.options {
                assert!(text.contains(&format!("--opt {}={}  {}", o.key, o.default, o.help)));
            }
        }
        assert!(text.contains("article 001 on tile values"));
    }

    #[test]
    fn evaluations_parse_by_name_and_build_on_every_shape() {
        for (name, _) in EVALUATIONS
            .iter()
            .filter(|(n, _)| !["ntuple", "tables", "auto"].contains(n))
        {
            let e: Evaluation = name.parse().unwrap();
            assert_eq!(e.name(), *name);
            for shape in ["4x4", "3x3"] {
                let mut cfg = SolverConfig::new(shape.parse().unwrap());
                cfg.evaluation = e.clone();
                assert!(build("greedy", &cfg).is_ok(), "{name} on {shape}");
            }
        }
        // (ntuple loads a file: see ntuple::eval's tests)
        assert!(matches!(
            "snake".parse::<Evaluation>(),
            Err(SolverError::UnknownEvaluation { .. })
        ));
    }

    #[test]
    fn every_solver_is_built_for_4x4_and_other_shapes() {
        for shape in ["4x4", "3x3", "5x5", "3x6"] {
            let cfg = SolverConfig::new(shape.parse().unwrap());
            // ntuple loads the shipped network (4x4 only): see ntuple::eval's tests
            for s in SOLVERS.iter().filter(|s| s.name != "ntuple") {
                let solver = build(s.name, &cfg).unwrap();
                assert_eq!(solver.name(), s.name);
                assert_eq!(solver.shape(), cfg.shape);
            }
        }
    }
}
