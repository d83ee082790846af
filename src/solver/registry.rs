//! The one list of solvers: names, one-line descriptions, sources, options, and how each is
//! built for a board shape and an evaluation.
//!
//! `--solver`, `--help`, `sim` and the error for an unknown name all come from [`SOLVERS`]; a new
//! solver is one file (with its [`SolverInfo`]) plus one entry here. Each solver parses its own
//! typed options from the `KEY=VALUE` pairs of [`SolverConfig::options`] through
//! [`super::config::OptionValues`], which refuses keys the solver does not list. The registry
//! imports the solvers; they import only [`super::config`] and [`super::evaluation`].
use super::config::{OptionValues, SolverConfig, SolverInfo};
use super::evaluation::Evaluation;
use super::{aco, bfs, expectimax, greedy, montecarlo, ntuple, Solver, SolverError};
use std::fmt::Write as _;

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
    for (name, what) in Evaluation::catalogue() {
        let _ = writeln!(out, "  {name:<11} {what}");
    }
    out
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
                    .map(|s| format!("{}: {}", s.name, s.option_keys()))
                    .collect(),
            });
        }
        for i in having {
            out[i].extend(pair(key));
        }
    }
    Ok(out)
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
             (expectimax: cprob, table-bits, extend-below, extend-twice-below, table-margin, table-floor; greedy: no options)"
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
    fn a_value_that_does_not_parse_is_refused_with_the_options_default() {
        let given = pairs(&[("extend-below", "x")]);
        let values = OptionValues::new(&super::super::expectimax::INFO, &given).unwrap();
        let err = values.get::<u32>("extend-below").unwrap_err();
        assert!(matches!(err, SolverError::BadOption { .. }), "{err}");
        assert!(
            err.to_string()
                .contains("option extend-below=x is not valid (its default: 4): a board with"),
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
