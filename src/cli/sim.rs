//! `bot2048 sim`: plays many games on the built-in engine with a solver, or with several on
//! the same seeds (`--compare`), and measures them.
//!
//! The games, the comparison, their statistics and the chart live in [`crate::sim`]; this file
//! checks the arguments (all of them before the first game), then prints.
use super::exit::UsageError;
use super::solver_args::{played_evaluation, SolverArgs};
use crate::engine::{Shape, SpawnRule};
use crate::sim::chart;
use crate::sim::compare::{self, Comparison, Entrant, SolverRun};
use crate::sim::{self, GameResult, ResumeFrom, SimConfig, Summary};
use crate::solver::{registry, SolverError};
use anyhow::{bail, Context};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Real uses of `sim`, at the end of its `--help`.
pub const EXAMPLES: &[super::Example] = &[
    (
        "bot2048 sim --games 20",
        "20 games with the default solver (expectimax, its default budget)",
    ),
    (
        "bot2048 sim --compare expectimax,greedy --games 20 --depth 3",
        "two solvers on the same 20 seeds, one table",
    ),
    (
        "bot2048 sim --solver montecarlo --opt rollouts=50 --time-ms 20 --out chart.png",
        "one solver with one of its options, and the chart of scores and reach rates",
    ),
    (
        "bot2048 sim --size 3x3 --goal 1024 --games 100",
        "3x3 games, each stopped as won at the largest tile a 3x3 board holds",
    ),
];

fn after_help() -> String {
    super::long_help_end(
        super::exit::help_text(&[super::exit::OK, super::exit::ERROR, super::exit::USAGE]),
        EXAMPLES,
    )
}

/// Arguments of `bot2048 sim`.
#[derive(Debug, Args)]
#[command(after_long_help = after_help())]
pub struct SimArgs {
    /// Which solver, its options and its budget.
    #[command(flatten)]
    pub solver: SolverArgs,
    /// Compare these solvers on the same seeds, e.g. expectimax,greedy.
    ///
    /// Comma-separated: one table, `--json` as one object keyed by solver, one chart.
    /// `SOLVER/EVAL` runs a solver with its own evaluation (e.g.
    /// expectimax/ntuple,expectimax/heuristic; else --eval's). `--time-ms` is every solver's
    /// per-move budget (to compare at equal time); `--depth` goes to every solver that has a
    /// measure of work, in its own unit (`bot2048 solvers` lists them); otherwise each solver's
    /// default. `--opt KEY=VALUE` goes to every listed solver that has KEY; `--opt
    /// SOLVER:KEY=VALUE` to SOLVER only.
    #[arg(
        long,
        value_name = "SOLVER,...",
        value_delimiter = ',',
        conflicts_with = "solver"
    )]
    pub compare: Option<Vec<String>>,
    /// Number of games to play.
    #[arg(long, default_value_t = 10)]
    pub games: u32,
    /// Seed of the first game.
    ///
    /// Each game's own seed is derived from it, so that every solver meets the same spawns for
    /// the same moves. A game replays exactly at a fixed --depth; a
    /// time budget (--time-ms, or the default budget) depends on the machine's speed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Board size, ROWSxCOLS (2 to 9 each) or N for NxN.
    #[arg(long, default_value = "4x4", value_name = "RxC")]
    pub size: Shape,
    /// Stop each game as won when a tile of this value is made: a power of two from 4.
    ///
    /// TILE is a tile value: a power of two from 4 (e.g. 2048), no larger than a --size board
    /// holds (131072 on 4x4, 1024 on 3x3). `play --goal` takes the same values; both refuse any
    /// other, before anything else, in the same words (exit 2).
    #[arg(long, value_name = "TILE")]
    pub goal: Option<u64>,
    /// Stop each game after this many moves (large boards play for very long).
    #[arg(long, value_name = "N")]
    pub max_moves: Option<u32>,
    /// Print the summary as one JSON object on stdout (with `--compare`, one per solver, keyed
    /// by name); its `evaluation` names the evaluation played with, `auto` resolved.
    #[arg(long)]
    pub json: bool,
    /// Draw the score distribution and the reach rates into this PNG file.
    ///
    /// A new file: an existing one is refused unless --force.
    #[arg(long, value_name = "CHART.png")]
    pub out: Option<PathBuf>,
    /// Write each game, as it ends, as one line of JSON into this file (in the order the games end).
    ///
    /// A line holds the solver, the game's index in the run (0-based) and its seed, its score,
    /// largest tile, moves and how it ended, the final board's rows, the move at which each
    /// largest tile first stood on the board, and the share of moves a table decided: which
    /// boards end the games, and when. The lines are written as the games end, so a run stopped
    /// early keeps its finished games; the threads play games from several places in the range
    /// at once (on 2 cores, from the first and from the middle), so those are not its first
    /// ones, and "index" says which they are. A new file: an existing one is refused unless
    /// --force.
    #[arg(long, value_name = "GAMES.jsonl")]
    pub games_out: Option<PathBuf>,
    /// Let --out and --games-out replace existing files.
    #[arg(long)]
    pub force: bool,
    /// The games' spawn rule: `classic` or `twos-only`.
    ///
    /// `classic`: 90 % 2, 10 % 4 (the web game, 2048-qt); `twos-only`: 2s only (gnome-2048).
    #[arg(long, default_value = "classic", value_name = "RULE")]
    pub spawn: SpawnRule,
    /// The spawn rule the solver assumes (default: the games' own, --spawn).
    #[arg(long, value_name = "RULE")]
    pub solver_spawn: Option<SpawnRule>,
    /// Play at a real game's rhythm: ponder this long after each move, ms.
    ///
    /// After each move, ponder its afterstate (spawn unknown) for this long, ms, as `play` does
    /// during the game's animation, then decide on the spawned board with the normal budget
    /// (--time-ms, --depth or the default). E.g. 140 (2048-qt), 280 (gnome-2048), 320 (the web
    /// game).
    #[arg(long, value_name = "MS")]
    pub animation_ms: Option<u64>,
    /// Play on the games of an earlier run's --games-out file, each from where it first had the
    /// tile --resume-at names, with the spawns it would have met.
    ///
    /// Each line of a --games-out file keeps where its game stood when each of its last three
    /// largest tiles first stood on the board. `--resume FILE --resume-at 32768` plays every
    /// game of FILE that keeps a point at 32768 on from that board (one game each, on their
    /// board size and spawn rule; a line on stderr says how many, and how many made 32768
    /// without a point there), so that a change to late play is measured on the same boards
    /// without the moves that lead there. The FILE of a --compare run holds several solvers'
    /// games: take one solver's lines first. At a fixed --depth the same solver ends a resumed
    /// game as the original did, but for a close decision that a search's caches or the
    /// middle-game values in memory can tip. A resumed game counts its moves from its start
    /// (--max-moves, the lines of --games-out, whose "resumed_at_move" says where it was taken
    /// up) and the summary the moves played from the point; --goal must be above the tile.
    #[arg(
        long,
        value_name = "GAMES.jsonl",
        requires = "resume_at",
        conflicts_with_all = ["games", "seed", "size", "spawn"]
    )]
    pub resume: Option<PathBuf>,
    /// The tile --resume plays on from: a tile value, e.g. 32768.
    #[arg(long, value_name = "TILE", requires = "resume")]
    pub resume_at: Option<u64>,
}

/// Runs `bot2048 sim`.
///
/// # Errors
/// Before any game: an unknown solver or option, `--games 0`, a bad `--goal`, an `--out` that
/// is not a new `.png` in an existing folder (or an existing one without `--force`). After: a
/// solver's error, or a chart that cannot be written.
pub fn run(args: SimArgs) -> anyhow::Result<ExitCode> {
    if args.force && args.out.is_none() && args.games_out.is_none() {
        return Err(UsageError(
            "--force replaces the file of --out or --games-out: give one".into(),
        )
        .into());
    }
    if let Some(path) = &args.games_out {
        check_games_out(path, args.force)?;
    }
    let resume = match (&args.resume, args.resume_at) {
        (Some(path), Some(tile)) => resumable(path, tile, args.goal)?,
        _ => Vec::new(),
    };
    // every check before the first game is about the arguments: a usage error (exit 2)
    // (but a network or table file that cannot be loaded is a bad file: exit 1)
    let (config, entrants) = plan(&args, resume).map_err(|e| {
        let bad_file = e.chain().any(|c| {
            matches!(
                c.downcast_ref::<SolverError>(),
                Some(SolverError::BadNetwork { .. } | SolverError::Tables { .. })
            )
        });
        if bad_file {
            e
        } else {
            UsageError(format!("{e:#}")).into()
        }
    })?;
    // a bad option value (only a build checks it) fails before --games-out is created
    compare::check_entrants(&entrants)?;
    let games_out = match &args.games_out {
        Some(path) => Some(Mutex::new(open_games_out(path, args.force)?)),
        None => None,
    };
    let total = u64::from(config.game_count()) * entrants.len() as u64;
    let terminal = std::io::stderr().is_terminal();
    let bar = if terminal {
        ProgressBar::new(total)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} games {msg}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    let log = ProgressLines::new(total);
    let on_game = |solver: &str, r: &GameResult| {
        bar.inc(1);
        bar.set_message(format!("{solver}: last {} ({} moves)", r.max_tile, r.moves));
        log.game_done(solver, r);
        if let Some(file) = &games_out {
            let mut file = file.lock().unwrap_or_else(|e| e.into_inner());
            if let Err(e) = write_game_line(&mut *file, solver, r) {
                // the run goes on: its summary is still printed; the file says where it stopped
                eprintln!("sim: cannot write a game to --games-out: {e}");
            }
        }
    };
    let mut comparison = std::thread::scope(|scope| {
        if !terminal {
            scope.spawn(|| log.tick_until_done());
        }
        // ends the ticker however the games end (an error, a panic), so the scope can close
        let _finish = FinishOnDrop(&log);
        compare::compare(&config, &entrants, &on_game)
    })?;
    bar.finish_and_clear();
    // the last progress line, for a run long enough to have printed the others
    let took = log.started.elapsed();
    if !terminal && took >= Duration::from_secs(PROGRESS_LINE_SECS) {
        eprintln!("sim: {total}/{total} games in {} s", took.as_secs());
    }

    for (run, entrant) in comparison.runs.iter_mut().zip(&entrants) {
        run.summary.evaluation = evaluation_name(entrant)?;
        run.summary.resumed_at = config.resume.first().map(ResumeFrom::tile);
    }
    match (&args.compare, args.json) {
        (None, true) => println!("{}", serde_json::to_string(&comparison.runs[0].summary)?),
        (None, false) => print_run(&comparison.runs[0], &args, &config),
        (Some(_), true) => println!("{}", serde_json::to_string(&comparison)?),
        (Some(_), false) => print_table(&comparison, &args, &config),
    }
    if let Some(out) = &args.out {
        let img = chart::draw(&config, &comparison.runs)?;
        chart::write_png(&img, out, args.force)?;
        eprintln!("sim: chart written to {}", out.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// The games of `--resume`'s file to play on from `tile`, with a line on stderr that says how
/// many (and how many made `tile` but keep no point there).
///
/// # Errors
/// A usage error (exit 2) for a `tile` that is no tile or a `goal` the resumed boards already
/// hold; the file's [`sim::resume::ResumeError`] (exit 1).
fn resumable(
    path: &std::path::Path,
    tile: u64,
    goal: Option<u64>,
) -> anyhow::Result<Vec<ResumeFrom>> {
    if !tile.is_power_of_two() || tile < 4 {
        let why = format!("--resume-at {tile}: a tile value is a power of two from 4");
        return Err(UsageError(why).into());
    }
    if let Some(goal) = goal.filter(|&g| g <= tile) {
        let why = format!("--goal {goal}: the games resumed at {tile} have made it already");
        return Err(UsageError(why).into());
    }
    let set = sim::resume::read_resume_points(path, tile)?;
    let mut note = format!(
        "sim: resuming {} of the {} games of {} at {tile}",
        set.games.len(),
        set.lines,
        path.display()
    );
    if set.without_point > 0 {
        note += &format!(
            " ({} more made {tile} but keep no point there: a game keeps one for each of its \
             last {} largest tiles)",
            set.without_point,
            sim::RESUME_POINTS
        );
    }
    eprintln!("{note}");
    Ok(set.games)
}

/// Refuses `--games-out` before anything else runs: a file that exists without `force`, or a
/// folder that does not exist (usage errors, exit 2).
fn check_games_out(path: &std::path::Path, force: bool) -> anyhow::Result<()> {
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty());
    if folder.is_some_and(|f| !f.is_dir()) {
        return Err(UsageError(format!(
            "--games-out {}: its folder does not exist",
            path.display()
        ))
        .into());
    }
    if !force && path.exists() {
        return Err(UsageError(format!(
            "--games-out {} already exists (--force replaces it)",
            path.display()
        ))
        .into());
    }
    Ok(())
}

/// Opens `--games-out`'s file before any game: a new file, or with `force` an existing one
/// emptied.
///
/// # Errors
/// A usage error (exit 2) when the file exists without `force` (made since
/// [`check_games_out`] looked); the I/O error, named, when it cannot be created.
fn open_games_out(
    path: &std::path::Path,
    force: bool,
) -> anyhow::Result<std::io::LineWriter<std::fs::File>> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true);
    if force {
        options.create(true).truncate(true);
    } else {
        options.create_new(true);
    }
    match options.open(path) {
        Ok(file) => Ok(std::io::LineWriter::new(file)),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(UsageError(format!(
            "--games-out {} already exists (--force replaces it)",
            path.display()
        ))
        .into()),
        Err(e) => Err(e).with_context(|| format!("cannot create {}", path.display())),
    }
}

/// Writes game `r` of `solver` as one line of JSON ([`GameResult::line`]).
fn write_game_line(
    file: &mut impl std::io::Write,
    solver: &str,
    r: &GameResult,
) -> std::io::Result<()> {
    serde_json::to_writer(&mut *file, &r.line(solver))?;
    file.write_all(b"\n")
}

/// Seconds between two progress lines when stderr is not a terminal (a log file, a pipe), where
/// the progress bar is hidden.
const PROGRESS_LINE_SECS: u64 = 30;

/// Progress of a run as plain lines on stderr, for a log: one every [`PROGRESS_LINE_SECS`]
/// whether or not a game ended meanwhile (a game can take minutes), by
/// [`ProgressLines::tick_until_done`] on a thread of its own, then the last one when all are
/// done; a run shorter than that prints none.
struct ProgressLines {
    total: u64,
    started: Instant,
    /// Games done, and the last one's line ("expectimax: last 8192 (4520 moves)").
    state: Mutex<(u64, String)>,
    /// Set when the run is over; wakes the ticker.
    done: Mutex<bool>,
    wake: std::sync::Condvar,
}

impl ProgressLines {
    fn new(total: u64) -> ProgressLines {
        ProgressLines {
            total,
            started: Instant::now(),
            state: Mutex::new((0, String::new())),
            done: Mutex::new(false),
            wake: std::sync::Condvar::new(),
        }
    }

    /// Counts a finished game.
    fn game_done(&self, solver: &str, r: &GameResult) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.0 += 1;
        state.1 = format!("; {solver}: last {} ({} moves)", r.max_tile, r.moves);
    }

    /// Prints a line every [`PROGRESS_LINE_SECS`] until [`ProgressLines::finish`].
    fn tick_until_done(&self) {
        let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        // (checked before each wait: a finish that came before this thread first waited would
        // otherwise be a lost wake-up, and a short sim would sit 30 s and print a stale line)
        while !*done {
            let (d, timeout) = self
                .wake
                .wait_timeout(done, Duration::from_secs(PROGRESS_LINE_SECS))
                .unwrap_or_else(|e| e.into_inner());
            done = d;
            if !*done && timeout.timed_out() {
                let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
                eprintln!(
                    "sim: {}/{} games after {} s{}",
                    state.0,
                    self.total,
                    self.started.elapsed().as_secs(),
                    state.1
                );
            }
        }
    }

    /// Ends the ticker.
    fn finish(&self) {
        *self.done.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.wake.notify_all();
    }
}

/// Calls [`ProgressLines::finish`] when dropped.
struct FinishOnDrop<'a>(&'a ProgressLines);

impl Drop for FinishOnDrop<'_> {
    fn drop(&mut self) {
        self.0.finish();
    }
}

/// The per-move time budget of a run in ms: `--time-ms`, or expectimax's own default when
/// neither `--time-ms` nor `--depth` is given; `None` when no time limits the decisions.
fn time_budget_ms(solver: &str, args: &SimArgs) -> Option<u64> {
    match (args.solver.time_ms, args.solver.depth) {
        (Some(t), _) => Some(t),
        (None, None) if solver == "expectimax" => Some(crate::solver::expectimax::DEFAULT_TIME_MS),
        _ => None,
    }
}

/// The share of `run`'s decisions that took longer than `budget_ms`, 0..=1.
fn share_over(run: &SolverRun, budget_ms: u64) -> f64 {
    let (over, all) = run
        .results
        .iter()
        .flat_map(|g| g.decision_ms.iter())
        .fold((0u64, 0u64), |(o, a), &ms| {
            (o + u64::from(ms > budget_ms as f64), a + 1)
        });
    if all == 0 {
        0.0
    } else {
        over as f64 / all as f64
    }
}

/// The solver's name in a run's name: `expectimax` of `expectimax/ntuple`.
fn solver_of(run_name: &str) -> &str {
    run_name.split('/').next().unwrap_or(run_name)
}

/// A budget in words, short enough for a table column: a solver's own default (the words of
/// [`compare::describe_budget`] after "default: ") is just "default".
fn short_budget(budget: &str) -> &str {
    if budget.starts_with("default: ") {
        "default"
    } else {
        budget
    }
}

/// The name of the evaluation `entrant` played with (`auto` resolved), `None` for a solver that
/// uses none.
fn evaluation_name(entrant: &Entrant) -> anyhow::Result<Option<String>> {
    let name = played_evaluation(&entrant.solver_name, &entrant.solver.evaluation)?;
    Ok(name.map(str::to_string))
}

/// One `--compare` entry, `SOLVER` or `SOLVER/EVAL` (e.g. `expectimax/ntuple`): the entry's
/// text (its name in the table), the solver's name, the evaluation named (`None`: `--eval`'s).
fn compare_entry(entry: &str) -> (String, &str, Option<&str>) {
    match entry.split_once('/') {
        Some((solver, eval)) => (entry.to_string(), solver, Some(eval)),
        None => (entry.to_string(), entry, None),
    }
}

/// Checks every argument and makes the run's configuration and its solvers, before any game.
fn plan(args: &SimArgs, resume: Vec<ResumeFrom>) -> anyhow::Result<(SimConfig, Vec<Entrant>)> {
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    let size = resume.first().map_or(args.size, ResumeFrom::shape);
    super::play::check_goal_on(args.goal, Some(size))?;
    if let Some(out) = &args.out {
        chart::check_path(out, args.force)?;
    }
    let s = &args.solver;
    let entries: Vec<(String, &str, Option<&str>)> = match &args.compare {
        None => {
            s.validate()?;
            vec![(s.solver.clone(), s.solver.as_str(), None)]
        }
        Some(list) => {
            if let Some(twice) = list
                .iter()
                .find(|n| list.iter().filter(|m| m == n).count() > 1)
            {
                bail!("solver {twice} is named twice in --compare");
            }
            let entries: Vec<_> = list.iter().map(|e| compare_entry(e)).collect();
            let infos = entries
                .iter()
                .map(|(_, n, _)| registry::find(n))
                .collect::<Result<Vec<_>, _>>()?;
            s.evaluation()?;
            if let Some(d) = s.depth {
                if infos.iter().all(|i| i.work.is_none()) {
                    bail!("--depth {d}: none of the solvers compared has a depth or work measure");
                }
            }
            for info in &infos {
                s.check_depth(info)?;
            }
            entries
        }
    };
    let names: Vec<&str> = entries.iter().map(|(_, n, _)| *n).collect();
    let options = s.options_for(&names)?;
    let games_spawn = resume.first().map_or(args.spawn, |r| r.state.rule);
    let spawn = args.solver_spawn.unwrap_or(games_spawn);
    let mut template = s.config(size, spawn, 0, false)?;
    template.goal = args.goal;
    let default_evaluation = template.evaluation.clone();
    if !args.json {
        if let Some(note) = s.evaluation_note()? {
            eprintln!("sim: {note}");
        }
    }
    let mut entrants = Vec::new();
    for ((name, solver_name, eval), options) in entries.into_iter().zip(options) {
        template.options = options;
        template.evaluation = match eval {
            Some(e) => e.parse().with_context(|| format!("--compare {name}"))?,
            None => default_evaluation.clone(),
        };
        entrants.push(Entrant {
            name,
            solver_name: solver_name.to_string(),
            solver: template.clone(),
        });
    }
    let mut config = SimConfig::new(size, args.games, args.seed);
    config.resume = resume;
    config.spawn = games_spawn;
    config.budget = s.budget(None);
    config.goal = args.goal;
    config.max_moves = args.max_moves;
    config.ponder = args
        .animation_ms
        .filter(|&ms| ms > 0)
        .map(std::time::Duration::from_millis);
    Ok((config, entrants))
}

fn print_run(run: &SolverRun, args: &SimArgs, config: &SimConfig) {
    let s: &Summary = &run.summary;
    println!(
        "solver        {} ({}), {} board, {}",
        run.name,
        run.budget,
        config.shape,
        config.origin()
    );
    println!("games         {}", s.games);
    println!(
        "score         avg {:.0}, median {:.0}",
        s.avg_score, s.median_score
    );
    let tiles: Vec<String> = s
        .max_tile_counts
        .iter()
        .map(|(t, n)| format!("{t}: {n}"))
        .collect();
    println!("max tile      {}", tiles.join(", "));
    let reach: Vec<String> = s
        .reach_rates
        .iter()
        .map(|(t, r)| format!("{t}: {:.1}%", 100.0 * r))
        .collect();
    println!("reached       {}", reach.join(", "));
    if let Some(goal) = args.goal {
        println!("won           {} of {} (goal {goal})", s.won, s.games);
    }
    println!("moves         {} ({:.1} moves/s)", s.moves, s.moves_per_sec);
    println!(
        "decision      median {:.2} ms, p99 {:.2} ms",
        s.decision_ms_median, s.decision_ms_p99
    );
    if let Some(share) = s.table_share {
        println!("tables        decided {:.1}% of the moves", 100.0 * share);
    }
    if let Some(budget) = time_budget_ms(solver_of(&run.name), args) {
        let over = share_over(run, budget);
        if over > 0.0 {
            println!(
                "over budget   {:.1} % of decisions took longer than {budget} ms (the time is \
                 checked as the search goes; a loaded machine overruns more)",
                100.0 * over
            );
        }
    }
}

/// A time in ms to three significant digits (at least the units): 0.000123, 0.0651, 12.3, 150.
fn ms(v: f64) -> String {
    if v <= 0.0 {
        return "0".to_string();
    }
    let decimals = (2 - v.log10().floor() as i32).max(0) as usize;
    format!("{v:.decimals$}")
}

/// The comparison as one table: a row per solver.
fn print_table(c: &Comparison, args: &SimArgs, config: &SimConfig) {
    println!(
        "{} board, {} games per solver on the same seeds ({}); reach = share of games whose largest tile reached it",
        config.shape,
        config.game_count(),
        config.origin()
    );
    let name_w = c
        .runs
        .iter()
        .map(|r| r.name.len())
        .max()
        .unwrap_or(0)
        .max(6);
    let budget_w = c
        .runs
        .iter()
        .map(|r| short_budget(&r.budget).len())
        .max()
        .unwrap_or(0)
        .max(6);
    // the reach columns up to the largest tile any game reached (the ones after would be 0 %)
    let reached = c
        .reach_tiles
        .iter()
        .rposition(|t| {
            c.runs
                .iter()
                .any(|r| r.summary.reach_rates.get(t).copied().unwrap_or(0.0) > 0.0)
        })
        .map_or(1, |i| i + 1);
    let reach_tiles = &c.reach_tiles[..reached.min(c.reach_tiles.len())];
    let tile_w: Vec<usize> = reach_tiles
        .iter()
        .map(|t| t.to_string().len().max(6))
        .collect();
    let mut head = format!(
        "{:<name_w$}  {:<budget_w$}  {:>10}  {:>10}",
        "solver", "budget", "avg score", "median"
    );
    for (t, w) in reach_tiles.iter().zip(&tile_w) {
        head.push_str(&format!("  {:>w$}", t.to_string()));
    }
    if args.goal.is_some() {
        head.push_str(&format!("  {:>5}", "won"));
    }
    head.push_str(&format!("  {:>8}  {:>9}", "ms/move", "moves/s"));
    println!("{head}");
    for run in &c.runs {
        let s = &run.summary;
        let mut row = format!(
            "{:<name_w$}  {:<budget_w$}  {:>10.0}  {:>10.0}",
            run.name,
            short_budget(&run.budget),
            s.avg_score,
            s.median_score
        );
        for (t, w) in reach_tiles.iter().zip(&tile_w) {
            let r = s.reach_rates.get(t).copied().unwrap_or(0.0);
            row.push_str(&format!("  {:>w$}", format!("{:.1}%", 100.0 * r)));
        }
        if args.goal.is_some() {
            row.push_str(&format!("  {:>5}", s.won));
        }
        row.push_str(&format!(
            "  {:>8}  {:>9.0}",
            ms(s.decision_ms_mean),
            s.moves_per_sec
        ));
        println!("{row}");
    }
    if args.solver.depth.is_some() {
        for run in &c.runs {
            if let Some(work) = registry::find(&run.name).ok().and_then(|i| i.work) {
                let unit = work.split(';').next().unwrap_or(work);
                println!("--depth for {}: {unit}", run.name);
            }
        }
    }
    for run in &c.runs {
        if short_budget(&run.budget) != run.budget {
            println!("budget of {}: {}", run.name, run.budget);
        }
        if let Some(budget) = time_budget_ms(solver_of(&run.name), args) {
            let over = share_over(run, budget);
            if over > 0.0 {
                println!(
                    "{}: {:.1} % of decisions took longer than {budget} ms",
                    run.name,
                    100.0 * over
                );
            }
        }
    }
    println!("ms/move: mean decision time; moves/s: moves of all games over the solver's wall-clock time (games in parallel)");
}
