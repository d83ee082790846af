//! The evaluations a user can name (`--eval NAME`), and how a solver is built over the one
//! chosen.
//!
//! Each evaluation lives in its own file and implements [`NamedEvaluation`] there: the names it
//! answers to, how it parses them, and the evaluator it gives on 4×4 bitboards and on other
//! shapes. The [`Evaluation`] enum, its parsing, its catalogue and [`dispatch`] are generated from
//! the one list at the `evaluations!` call below, so **adding an evaluation is one new file plus
//! one line there**. A solver writes its construction once ([`Build`]); [`dispatch`] monomorphises
//! it for the board type and evaluation of a [`SolverConfig`], so the search's hot path calls no
//! virtual function.
use super::article::ArticleEval;
use super::config::SolverConfig;
use super::corner::CornerHeuristic;
use super::heuristic::RowHeuristic;
use super::ntuple::NTupleEval;
use super::tables::middle::MiddleChoice;
use super::tables::TableChoice;
use super::{Evaluator, Solver, SolverError};
use crate::engine::{Board, GridBoard, Position, Shape};
use std::fmt::Debug;
use std::str::FromStr;

/// An evaluation a user can name with `--eval`: its names, how they parse, and the evaluator it
/// gives for each board type.
pub trait NamedEvaluation: Clone + Debug + Send + Sync + Sized + 'static {
    /// The names it answers to on the command line, each with one line saying what it is (for
    /// `--help` and `bot2048 solvers`).
    const NAMES: &'static [(&'static str, &'static str)];

    /// The evaluator it gives on 4×4 bitboards.
    type OnFour: Evaluator<Board> + 'static;

    /// The evaluator it gives on boards of other shapes ([`Refused`] when it has none).
    type OnGrid: Evaluator<GridBoard> + 'static;

    /// The evaluation `name` names, `None` when `name` is not one of its [`Self::NAMES`].
    ///
    /// # Errors
    /// (inside the `Some`) what loading it needs failed: a network or table file that cannot be
    /// loaded, naming it.
    fn parse(name: &str) -> Option<Result<Self, SolverError>>;

    /// Its name, as [`Evaluation::name`] reports it: the first of [`Self::NAMES`].
    fn name(&self) -> &'static str {
        Self::NAMES[0].0
    }

    /// The evaluator for 4×4 bitboards.
    fn on_four(&self) -> Self::OnFour;

    /// The evaluator for a board of `shape` (not 4×4), for the solver called `solver`.
    ///
    /// # Errors
    /// [`SolverError::Unsupported`] when it has none for that shape.
    fn on_grid(&self, solver: &str, shape: Shape) -> Result<Self::OnGrid, SolverError>;
}

/// The evaluator of an evaluation that has none for a board type: it cannot be made (no value
/// of it exists), so a solver over it is never built.
#[derive(Clone, Copy, Debug)]
pub enum Refused {}

impl<P: Position> Evaluator<P> for Refused {
    fn evaluate(&self, _: P) -> f32 {
        match *self {}
    }
}

/// Makes one solver type for a board type `P` and an evaluation `E`; [`dispatch`] picks `P` and
/// `E` from a [`SolverConfig`], so each solver writes its construction once.
pub trait Build {
    /// The solver's registry name (for messages).
    const SOLVER: &'static str;

    /// The solver over `P`, scoring with `eval`.
    fn build<P: Position, E: Evaluator<P> + 'static>(self, eval: E) -> Box<dyn Solver>;
}

/// `b` built over `kind`'s evaluator for `config.shape`: the bitboard for 4×4, the grid board
/// otherwise.
fn build_over<K: NamedEvaluation, B: Build>(
    kind: &K,
    config: &SolverConfig,
    b: B,
) -> Result<Box<dyn Solver>, SolverError> {
    if config.shape.is_four() {
        Ok(b.build::<Board, _>(kind.on_four()))
    } else {
        Ok(b.build::<GridBoard, _>(kind.on_grid(B::SOLVER, config.shape)?))
    }
}

/// Generates [`Evaluation`] (one variant per evaluation), its parsing, catalogue and name, and
/// [`dispatch`], from a list of `Variant(Type)` lines whose types implement [`NamedEvaluation`].
macro_rules! evaluations {
    ($($(#[$doc:meta])* $variant:ident($kind:ty),)+) => {
        /// A static evaluation a solver can score boards with (`--eval NAME`); each variant holds
        /// the evaluation ready to use (tables and networks loaded).
        #[derive(Clone, Debug)]
        pub enum Evaluation {
            $($(#[$doc])* $variant($kind),)+
        }

        impl Evaluation {
            /// The evaluation's name.
            pub fn name(&self) -> &'static str {
                match self {
                    $(Evaluation::$variant(kind) => kind.name(),)+
                }
            }

            /// Every name `--eval` takes, with its one-line description: the evaluations in the
            /// order of the list, then [`AUTO`].
            pub fn catalogue() -> Vec<(&'static str, &'static str)> {
                let mut all = Vec::new();
                $(all.extend_from_slice(<$kind as NamedEvaluation>::NAMES);)+
                all.push(AUTO);
                all
            }

            fn parse_named(name: &str) -> Option<Result<Evaluation, SolverError>> {
                $(
                    if let Some(parsed) = <$kind as NamedEvaluation>::parse(name) {
                        return Some(parsed.map(Evaluation::$variant));
                    }
                )+
                None
            }
        }

        /// Calls `b.build` with the board type of `config.shape` (the bitboard for 4×4) and the
        /// evaluator of `config.evaluation`.
        ///
        /// # Errors
        /// [`SolverError::Unsupported`] for an evaluation that does not exist for the shape (the
        /// network, or the tables named on the command line, on a board that is not 4×4).
        pub fn dispatch<B: Build>(
            config: &SolverConfig,
            b: B,
        ) -> Result<Box<dyn Solver>, SolverError> {
            match &config.evaluation {
                $(Evaluation::$variant(kind) => build_over(kind, config, b),)+
            }
        }
    };
}

evaluations! {
    /// nneonneo/2048-ai's per-line heuristic (`heuristic`).
    Heuristic(RowHeuristic),
    /// Rows and columns falling away from the top-left corner (`corner`).
    Corner(CornerHeuristic),
    /// Article 001's evaluation with its weights (`article`).
    Article(ArticleEval),
    /// The heuristic with the endgame tables on 4×4 boards (`tables`, or `auto` when they are
    /// built).
    Tables(TableChoice),
    /// The corner heuristic with the endgame tables on 4×4 boards (`corner-tables`).
    CornerTables(TableChoice<CornerHeuristic>),
    /// The heuristic with the middle-game tables, computed as play meets them (`middle`).
    Middle(MiddleChoice),
    /// The corner heuristic with the middle-game tables (`corner-middle`).
    CornerMiddle(MiddleChoice<CornerHeuristic>),
    /// An n-tuple network: its value plus the points scored (`ntuple`, `ntuple:FILE`), 4×4 only.
    NTuple(NTupleEval),
}

impl Default for Evaluation {
    /// The heuristic.
    fn default() -> Evaluation {
        Evaluation::Heuristic(RowHeuristic::new())
    }
}

/// `--eval auto`: the middle-game tables over the corner heuristic when they are built, else
/// the endgame tables when they are, else the heuristic; not an evaluation of its own, so it is
/// not in the `evaluations!` list.
pub const AUTO: (&str, &str) = (
    "auto",
    "corner-middle when `bot2048 tables build --set middle` has built it, else tables when `bot2048 tables build` has, else heuristic",
);

impl Evaluation {
    /// What `--eval auto` chooses: `corner-middle` when the middle-game tables are saved in
    /// the tables folder (the strongest: BENCHMARKS.md), else `tables` when endgame tables are
    /// built, else the heuristic.
    ///
    /// # Errors
    /// [`SolverError::Tables`] when a built table file cannot be loaded (it is named, with what
    /// to run; the heuristic is not quietly used instead).
    pub fn auto() -> Result<Evaluation, SolverError> {
        let middle_saved = crate::solver::tables::file::tables_dir()
            .is_some_and(|d| crate::solver::tables::middle_file::middle_path(&d).exists());
        if middle_saved {
            return Ok(Evaluation::CornerMiddle(MiddleChoice::load()?));
        }
        Ok(TableChoice::load_if_built(false)?.map_or_else(Evaluation::default, Evaluation::Tables))
    }
}

impl FromStr for Evaluation {
    type Err = SolverError;

    /// The evaluation called `s` (see [`Evaluation::catalogue`]), loaded: a network or the
    /// tables are read once per process.
    ///
    /// # Errors
    /// [`SolverError::UnknownEvaluation`] listing the names; what the evaluation's
    /// [`NamedEvaluation::parse`] refuses (a network or table file that cannot be loaded).
    fn from_str(s: &str) -> Result<Evaluation, SolverError> {
        if s == AUTO.0 {
            return Evaluation::auto();
        }
        Evaluation::parse_named(s).unwrap_or_else(|| {
            Err(SolverError::UnknownEvaluation {
                name: s.to_string(),
                known: Evaluation::catalogue()
                    .iter()
                    .map(|(n, _)| n.to_string())
                    .collect(),
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::registry::build;

    #[test]
    fn the_catalogue_lists_each_name_once_heuristic_first() {
        let names: Vec<&str> = Evaluation::catalogue().iter().map(|(n, _)| *n).collect();
        assert_eq!(
            names,
            [
                "heuristic",
                "corner",
                "article",
                "tables",
                "corner-tables",
                "middle",
                "corner-middle",
                "ntuple",
                "auto"
            ]
        );
        assert_eq!(Evaluation::default().name(), "heuristic");
    }

    #[test]
    fn evaluations_parse_by_name_and_build_on_every_shape() {
        for name in ["heuristic", "corner", "article"] {
            let e: Evaluation = name.parse().unwrap();
            assert_eq!(e.name(), name);
            for shape in ["4x4", "3x3"] {
                let mut cfg = SolverConfig::new(shape.parse().unwrap());
                cfg.evaluation = e.clone();
                assert!(build("greedy", &cfg).is_ok(), "{name} on {shape}");
            }
        }
        // (ntuple and tables load files: see their own tests)
        let err = "snake".parse::<Evaluation>().unwrap_err();
        assert!(
            matches!(&err, SolverError::UnknownEvaluation { known, .. } if known.len() == 9),
            "{err}"
        );
    }
}
