//! The tables as an evaluation ([`TableEval`]): another evaluation (the heuristic) wherever no
//! table covers the board, the tables' exact answer where one does; and the one loaded copy of
//! the tables a process shares ([`load_shared`]).
use super::file::{self, TableFileError};
use super::{build_cost, EndgameTables, TableSet};
use crate::engine::{Board, GridBoard, Shape};
use crate::solver::corner::CornerHeuristic;
use crate::solver::evaluation::NamedEvaluation;
use crate::solver::heuristic::RowHeuristic;
use crate::solver::{Evaluator, SolverError};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The evaluation `tables`: `inner` (the heuristic) on every board, and, on a board a table
/// covers, the table.
///
/// - [`Evaluator::decide_exactly`]: the tables' chance of success for each move of a covered
///   board whose best move keeps a chance above 0; the solver plays the best, or searches among
///   the moves near it (expectimax's `table-margin`), or, below expectimax's `table-floor`,
///   among every legal move.
/// - [`Evaluator::exact`]: on a covered afterstate inside a search, `inner`'s value plus
///   `weight` × the chance of success (with `weight` 0, the default, the search does not consult
///   the tables below the root and goes on with `inner`).
#[derive(Clone, Debug)]
pub struct TableEval<E> {
    tables: Arc<EndgameTables>,
    inner: E,
    weight: f32,
}

impl<E> TableEval<E> {
    /// `inner` with `tables`: decisions from the tables on covered boards whose best move has
    /// any chance of success; no weight inside the search.
    pub fn new(tables: Arc<EndgameTables>, inner: E) -> TableEval<E> {
        TableEval {
            tables,
            inner,
            weight: 0.0,
        }
    }

    /// The same with `weight` (in `inner`'s units per unit of probability) on covered chance
    /// nodes inside the search.
    pub fn with_weight(mut self, weight: f32) -> TableEval<E> {
        self.weight = weight;
        self
    }
}

impl<E: Evaluator<Board>> Evaluator<Board> for TableEval<E> {
    #[inline(always)]
    fn evaluate(&self, afterstate: Board) -> f32 {
        self.inner.evaluate(afterstate)
    }

    #[inline]
    fn exact(&self, afterstate: Board) -> Option<f32> {
        if self.weight == 0.0 {
            return None;
        }
        let p = self.tables.afterstate_probability(afterstate)?;
        Some(self.inner.evaluate(afterstate) + self.weight * p)
    }

    fn decide_exactly(&self, board: Board) -> Option<[Option<f32>; 4]> {
        let values = self.tables.move_values(board)?;
        let best = values.iter().flatten().fold(0.0f32, |a, &b| a.max(b));
        (best > 0.0).then_some(values)
    }
}

/// The tables of `dir` (default: [`file::tables_dir`]), loaded once per process and shared:
/// every later call for the same folder returns the same copy.
///
/// # Errors
/// A table file that cannot be loaded ([`TableFileError`], naming it); no folder to look in.
pub fn load_shared(dir: Option<&Path>) -> Result<Arc<EndgameTables>, TableFileError> {
    static LOADED: Mutex<Option<(PathBuf, Arc<EndgameTables>)>> = Mutex::new(None);
    let dir = match dir {
        Some(d) => d.to_path_buf(),
        None => file::tables_dir().ok_or_else(|| TableFileError::Foreign {
            path: PathBuf::from("~/.cache/bot2048/tables"),
            why: "cannot be found: neither BOT2048_TABLES, XDG_CACHE_HOME nor HOME is set"
                .to_string(),
        })?,
    };
    let mut loaded = LOADED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((d, tables)) = loaded.as_ref() {
        if *d == dir {
            return Ok(tables.clone());
        }
    }
    let tables = Arc::new(file::load_dir(&dir)?);
    *loaded = Some((dir, tables.clone()));
    Ok(tables)
}

/// A heuristic the tables can sit on: it scores the boards no table covers, and names the
/// evaluation it makes with the tables.
pub trait TableInner:
    NamedEvaluation<OnFour = Self, OnGrid = Self>
    + Evaluator<Board>
    + Evaluator<GridBoard>
    + Copy
    + Default
{
    /// The names (`--eval`) of this heuristic with the tables, each with its one-line description.
    const WITH_TABLES: &'static [(&'static str, &'static str)];

    /// The names (`--eval`) of this heuristic with the middle-game tables
    /// ([`super::middle::MiddleChoice`]), each with its one-line description.
    const WITH_MIDDLE: &'static [(&'static str, &'static str)];
}

impl TableInner for RowHeuristic {
    const WITH_TABLES: &'static [(&'static str, &'static str)] = &[(
        "tables",
        "the heuristic, and the endgame tables where they cover the board (4x4; built by `bot2048 tables build`)",
    )];
    const WITH_MIDDLE: &'static [(&'static str, &'static str)] = &[(
        "middle",
        "the heuristic, and the middle-game tables where they cover the board (a block of five or six large tiles; computed as play meets them; 4x4)",
    )];
}

impl TableInner for CornerHeuristic {
    const WITH_TABLES: &'static [(&'static str, &'static str)] = &[(
        "corner-tables",
        "the corner heuristic, and the endgame tables where they cover the board (4x4; built by `bot2048 tables build`)",
    )];
    const WITH_MIDDLE: &'static [(&'static str, &'static str)] = &[(
        "corner-middle",
        "the corner heuristic, and the middle-game tables where they cover the board (4x4)",
    )];
}

/// The evaluation `--eval tables` (or `auto` when tables are built) names: a heuristic `H` with
/// the loaded tables ([`TableEval`] over `H`) on 4×4 boards (`tables` over [`RowHeuristic`],
/// `corner-tables` over [`CornerHeuristic`]).
#[derive(Clone, Debug)]
pub struct TableChoice<H = RowHeuristic> {
    tables: Arc<EndgameTables>,
    named: bool,
    inner: H,
}

impl<H: TableInner> TableChoice<H> {
    /// The tables of the user's tables folder ([`file::tables_dir`]), loaded once per process;
    /// `named` says the user named them (`tables`) rather than `auto` choosing them: a board of
    /// another shape is then refused instead of played with the heuristic alone.
    ///
    /// # Errors
    /// [`SolverError::Tables`] for a file that cannot be loaded, or no table at all (saying what
    /// to run).
    pub fn load(named: bool) -> Result<TableChoice<H>, SolverError> {
        TableChoice::load_if_built(named)?.ok_or_else(|| {
            let dir = file::tables_dir().unwrap_or_default();
            SolverError::Tables {
                message: format!(
                    "no endgame tables in {}: run `bot2048 tables build` first ({})",
                    dir.display(),
                    build_cost(TableSet::Small)
                ),
            }
        })
    }

    /// As [`TableChoice::load`], with `None` when no table is built (no folder, or none in it):
    /// what `--eval auto` asks.
    ///
    /// # Errors
    /// [`SolverError::Tables`] for a table file that cannot be loaded (named): a damaged file is
    /// refused, never passed over.
    pub fn load_if_built(named: bool) -> Result<Option<TableChoice<H>>, SolverError> {
        if file::tables_dir().is_none() {
            return Ok(None);
        }
        let tables = load_shared(None).map_err(|e| SolverError::Tables {
            message: e.to_string(),
        })?;
        Ok((!tables.is_empty()).then_some(TableChoice {
            tables,
            named,
            inner: H::default(),
        }))
    }

    /// The tables.
    pub fn tables(&self) -> &Arc<EndgameTables> {
        &self.tables
    }

    /// The name of the heuristic under the tables.
    pub fn inner_name(&self) -> &'static str {
        self.inner.name()
    }
}

impl<H: TableInner> NamedEvaluation for TableChoice<H> {
    const NAMES: &'static [(&'static str, &'static str)] = H::WITH_TABLES;
    type OnFour = TableEval<H>;
    type OnGrid = H;

    fn parse(name: &str) -> Option<Result<TableChoice<H>, SolverError>> {
        (name == Self::NAMES[0].0).then(|| TableChoice::load(true))
    }

    /// The heuristic, with the tables deciding the boards they cover and no weight inside the
    /// search (BENCHMARKS.md, "Endgame tables", gives the weights measured).
    fn on_four(&self) -> TableEval<H> {
        TableEval::new(self.tables.clone(), self.inner)
    }

    /// The heuristic alone when `auto` chose the tables; refused when they were named.
    fn on_grid(&self, solver: &str, shape: Shape) -> Result<H, SolverError> {
        if self.named {
            return Err(SolverError::Unsupported {
                solver: solver.to_string(),
                shape,
                why: "the endgame tables are for 4x4 boards only".to_string(),
            });
        }
        Ok(self.inner)
    }
}
