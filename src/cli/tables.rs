//! `bot2048 tables`: build the endgame tables or the middle-game tables once (`build`), and see
//! what is built (`status`).
//!
//! The tables live in the user's cache folder ([`crate::solver::tables::file::tables_dir`]), one
//! file per table, each written atomically; `build` skips the tables already there (whole and
//! of this format) unless `--force`, so an interrupted build carries on where it stopped.
use crate::engine::Shape;
use crate::sim::{run_games, GameResult, SimConfig};
use crate::solver::evaluation::Evaluation;
use crate::solver::tables::build::build_table;
use crate::solver::tables::file::{self, Header};
use crate::solver::tables::middle::{MiddleChoice, MiddleTables};
use crate::solver::tables::middle_file::{self, MiddleHeader};
use crate::solver::tables::{build_cost, TableKey, TableSet};
use crate::solver::{registry, Budget, SolverConfig};
use anyhow::{bail, Context};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

/// Real uses of `tables`, at the end of its `--help`.
pub const EXAMPLES: &[super::Example] = &[
    (
        "bot2048 tables build",
        "build the small set once (`bot2048 tables build --help` says what it costs)",
    ),
    (
        "bot2048 tables status --verify",
        "list the tables built, reading every file whole to check it",
    ),
    (
        "bot2048 sim --eval tables --games 10",
        "play with them (so do play and advise; --eval auto: with them when built)",
    ),
];

/// Real uses of `tables build`, at the end of its `--help`.
pub const BUILD_EXAMPLES: &[super::Example] = &[
    (
        "bot2048 tables build",
        "the small set, into the default folder",
    ),
    (
        "bot2048 tables build --set full --dir /data/tables",
        "the full set, into another folder (then BOT2048_TABLES=/data/tables for the solvers)",
    ),
    (
        "bot2048 tables build --force",
        "build every table of the small set again",
    ),
    (
        "bot2048 tables build --set middle",
        "compute the middle-game tables once, by playing games (`--eval auto` then uses them)",
    ),
];

/// Real uses of `tables status`, at the end of its `--help`.
pub const STATUS_EXAMPLES: &[super::Example] = &[
    (
        "bot2048 tables status",
        "the tables built, from each file's header",
    ),
    (
        "bot2048 tables status --verify",
        "the same, reading every file whole and checking its checksum",
    ),
];

/// The time `tables build` took for the small set on a 2-core machine (measured; the sizes come
/// from [`build_cost`]).
const SMALL_BUILD_TIME: &str = "about 4 minutes on a 2-core machine";

fn exit_codes() -> String {
    super::exit::help_text(&[super::exit::OK, super::exit::ERROR, super::exit::USAGE])
}

fn after_help() -> String {
    super::long_help_end(exit_codes(), EXAMPLES)
}

fn build_after_help() -> String {
    super::long_help_end(exit_codes(), BUILD_EXAMPLES)
}

fn status_after_help() -> String {
    super::long_help_end(exit_codes(), STATUS_EXAMPLES)
}

/// The long text of `tables build --help`: what it does and what each set costs.
fn build_long_about() -> String {
    let positions = |set: TableSet| -> u64 { set.keys().iter().map(TableKey::entries).sum() };
    let times = positions(TableSet::Full) as f64 / positions(TableSet::Small) as f64;
    format!(
        "Build the endgame tables (`--set small` by default), or the middle-game tables \
         (`--set middle`, the stronger: `--eval auto` plays with them once they are built).\n\n\
         What it costs:\n\
         - `--set middle`: plays {MIDDLE_BUILD_GAMES} games at depth 3 (or `--games N`), \
         stopping once the values reach 4 GB; measured: 2 to 36 games (long games fill them \
         sooner), 2 to 10.5 minutes on a 2-core machine, 1.2 to 1.4 GB on disk (one file, \
         middle.mtb), as much in memory once loaded (1.4 GB, packed; 8 s). Build both sets: \
         corner-middle plays with the endgame tables under the middle-game ones.\n\
         - {}; {SMALL_BUILD_TIME}.\n\
         - {}; not timed: it holds {times:.1} times the small set's positions.\n\n\
         A table is built in memory and written atomically when it is done; the tables already \
         there are kept (unless --force), so an interrupted build carries on where it stopped.",
        build_cost(TableSet::Small),
        build_cost(TableSet::Full),
    )
}

/// The sets `tables build` makes: the endgame tables' two sets, or the middle-game tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BuildSet {
    /// The endgame tables' small set (goals 64 to 256).
    Small,
    /// The endgame tables' full set (64 to 512, more disk and memory).
    Full,
    /// The middle-game tables: the values play meets in `--games` games, saved in one file.
    Middle,
}

/// Games `tables build --set middle` plays by default.
pub const MIDDLE_BUILD_GAMES: u32 = 40;

/// The depth of the searches of `tables build --set middle` (the positions met are those a
/// depth-3 player meets; deeper players meet mostly the same ones).
const MIDDLE_BUILD_DEPTH: u64 = 3;

/// The seed of the games `tables build --set middle` plays: not the benchmarks' seed (7), so
/// that `sim --seed 7` measures games the tables were not computed on.
const MIDDLE_BUILD_SEED: u64 = 2048;

/// Memory (bytes) the computed values of `tables build --set middle` may take (kept whole, none
/// dropped): the rest of the 6 GB play allows ([`crate::solver::tables::middle::MIDDLE_MEMORY_LIMIT`])
/// is left to the positions a later game meets first.
const MIDDLE_BUILD_MEMORY: u64 = 4 << 30;

/// Arguments of `bot2048 tables`.
#[derive(Debug, Args)]
#[command(after_long_help = after_help())]
pub struct TablesArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: TablesAction,
    /// The tables folder.
    ///
    /// Default: $BOT2048_TABLES, else $XDG_CACHE_HOME/bot2048/tables, else
    /// ~/.cache/bot2048/tables.
    #[arg(long, value_name = "DIR", global = true)]
    pub dir: Option<PathBuf>,
}

/// The actions of `bot2048 tables`.
#[derive(Debug, Subcommand)]
pub enum TablesAction {
    /// Build the endgame tables (`--set small` by default) or the middle-game tables.
    #[command(long_about = build_long_about(), after_long_help = build_after_help())]
    Build {
        /// Which set: `small` (endgame tables, goals 64 to 256), `full` (64 to 512, more disk
        /// and memory), or `middle` (the middle-game tables, computed by playing games).
        #[arg(long, value_enum, default_value = "small")]
        set: BuildSet,
        /// Games to play for `--set middle` (two at a time); it stops sooner when the values
        /// reach 4 GB.
        #[arg(long, value_name = "N", default_value_t = MIDDLE_BUILD_GAMES, value_parser = clap::value_parser!(u32).range(1..))]
        games: u32,
        /// End each game of `--set middle` after this many moves (a quick, smaller build).
        #[arg(long, value_name = "N")]
        max_moves: Option<u32>,
        /// Build again the tables that are already there.
        ///
        /// Without it, a table whose file is there whole and of this format is kept.
        #[arg(long)]
        force: bool,
    },
    /// List the tables built: formation, anchor, goal, size, build time.
    ///
    /// List the tables built: formation, anchor, goal, size, build time; check each file's
    /// checksum with --verify. A file that is truncated, damaged or of another version is
    /// refused with its name (exit 1).
    #[command(after_long_help = status_after_help())]
    Status {
        /// Read every file whole and check its checksum (slower).
        ///
        /// Without it, only each file's header is read.
        #[arg(long)]
        verify: bool,
    },
}

/// Runs `bot2048 tables`.
///
/// # Errors
/// No tables folder; a file that cannot be written or read.
pub fn run(args: TablesArgs) -> anyhow::Result<ExitCode> {
    let dir = match args.dir.or_else(file::tables_dir) {
        Some(d) => d,
        None => {
            bail!("no tables folder: set BOT2048_TABLES, XDG_CACHE_HOME or HOME, or pass --dir")
        }
    };
    match args.action {
        TablesAction::Build {
            set: BuildSet::Middle,
            force,
            games,
            max_moves,
        } => build_middle(games, max_moves, force, &dir),
        TablesAction::Build { set, force, .. } => {
            let set = if set == BuildSet::Full {
                TableSet::Full
            } else {
                TableSet::Small
            };
            build(set, force, &dir)
        }
        TablesAction::Status { verify } => status(&dir, verify),
    }
}

fn build(set: TableSet, force: bool, dir: &Path) -> anyhow::Result<ExitCode> {
    let keys = set.keys();
    let todo: Vec<TableKey> = keys
        .iter()
        .filter(|k| force || file::read_header(&dir.join(k.file_name())).is_err())
        .cloned()
        .collect();
    eprintln!("{} into {}", build_cost(set), dir.display());
    if todo.is_empty() {
        eprintln!(
            "all {} tables are already built (--force builds them again)",
            keys.len()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let total: u64 = todo.iter().map(TableKey::entries).sum();
    eprintln!(
        "building {} of {} tables: {} positions",
        todo.len(),
        keys.len(),
        total
    );
    let bar = ProgressBar::new(total).with_style(
        ProgressStyle::with_template(
            "{bar:40} {percent:>3}% {msg} [{elapsed_precise}, about {eta} left]",
        )
        .expect("valid template"),
    );
    let start = Instant::now();
    let mut before = 0u64;
    for (k, key) in todo.iter().enumerate() {
        bar.set_message(key.file_name());
        let t0 = Instant::now();
        let table = build_table(key, &|done| bar.set_position(before + done));
        let path = file::save(&table, t0.elapsed().as_millis() as u64, dir)
            .with_context(|| format!("saving the table of {key}"))?;
        before += key.entries();
        bar.set_position(before);
        let left = start.elapsed().as_secs_f64() * (total - before) as f64 / before as f64;
        let line = format!(
            "[{}/{}] {} ({:.1} s; about {:.0} s left)",
            k + 1,
            todo.len(),
            path.display(),
            t0.elapsed().as_secs_f64(),
            left
        );
        if bar.is_hidden() {
            eprintln!("{line}");
        } else {
            bar.println(line);
        }
    }
    bar.finish_and_clear();
    println!(
        "built {} tables ({:.2} GB) in {:.0} s into {}",
        todo.len(),
        (2 * total) as f64 / 1e9,
        start.elapsed().as_secs_f64(),
        dir.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn status(dir: &Path, verify: bool) -> anyhow::Result<ExitCode> {
    let middle_ok = middle_status(dir, verify);
    let endgame_ok = endgame_status(dir, verify)?;
    Ok(if middle_ok && endgame_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::exit::ERROR)
    })
}

/// Prints the middle-game tables' file of `dir` (checked whole when `verify`); false when it is
/// there but refused.
fn middle_status(dir: &Path, verify: bool) -> bool {
    let path = middle_file::middle_path(dir);
    if !path.exists() {
        println!(
            "no middle-game tables in {} (run `bot2048 tables build --set middle`: 2 to 11 minutes, 1.2 to 1.4 GB on disk and in memory)",
            dir.display()
        );
        return true;
    }
    let checked = if verify {
        middle_file::load_middle(&path).map(|(_, h)| h)
    } else {
        middle_file::read_middle_header(&path)
    };
    match checked {
        Ok(h) => {
            println!(
                "middle-game tables: {} ({})",
                path.display(),
                middle_summary(&h)
            );
            true
        }
        Err(e) => {
            println!("middle-game tables: refused: {e}");
            false
        }
    }
}

/// Prints the endgame tables of `dir` (each checked whole when `verify`); false when one is
/// refused.
fn endgame_status(dir: &Path, verify: bool) -> anyhow::Result<bool> {
    let paths = file::list(dir)?;
    if paths.is_empty() {
        println!(
            "no endgame tables in {} (run `bot2048 tables build`: {})",
            dir.display(),
            build_cost(TableSet::Small)
        );
        return Ok(true);
    }
    println!(
        "{:<22} {:>12} {:>10} {:>9}  table",
        "file", "entries", "MB", "built in"
    );
    let (mut bytes, mut bad) = (0u64, 0);
    for path in &paths {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let checked = if verify {
            file::load(path).map(|(_, h)| h)
        } else {
            file::read_header(path)
        };
        match checked {
            Ok(Header {
                key,
                entries,
                build_ms,
            }) => {
                let len = 2 * entries + file::HEADER_LEN + 4;
                bytes += len;
                println!(
                    "{name:<22} {entries:>12} {:>10.1} {:>8.1}s  {key}",
                    len as f64 / 1e6,
                    build_ms as f64 / 1e3
                );
            }
            Err(e) => {
                bad += 1;
                println!("{name:<22} refused: {e}");
            }
        }
    }
    println!(
        "{} tables, {:.2} GB in {}{}",
        paths.len() - bad,
        bytes as f64 / 1e9,
        dir.display(),
        if bad > 0 {
            format!("; {bad} refused")
        } else {
            String::new()
        }
    );
    Ok(bad == 0)
}

/// `tables build --set middle`: plays `games` games (two at a time, each to its end or
/// `max_moves`) at depth 3 with `corner-middle` on empty middle-game tables, then saves every
/// value computed into `dir` ([`middle_file::save_middle`]). A file already there and whole is
/// kept unless `force`.
fn build_middle(
    games: u32,
    max_moves: Option<u32>,
    force: bool,
    dir: &Path,
) -> anyhow::Result<ExitCode> {
    let path = middle_file::middle_path(dir);
    if !force {
        if let Ok(h) = middle_file::read_middle_header(&path) {
            eprintln!(
                "the middle-game tables are already built: {} ({}; --force builds them again)",
                path.display(),
                middle_summary(&h)
            );
            return Ok(ExitCode::SUCCESS);
        }
    }
    eprintln!(
        "computing the middle-game tables: {games} games at depth {MIDDLE_BUILD_DEPTH}, two at a time, \
         until the values reach {} GB; 2 to 11 minutes on a 2-core machine",
        MIDDLE_BUILD_MEMORY >> 30
    );
    let tables = Arc::new(
        MiddleTables::new()
            .with_memory_limit(MIDDLE_BUILD_MEMORY)
            .without_eviction(),
    );
    let bar = ProgressBar::new(u64::from(games)).with_style(
        ProgressStyle::with_template(
            "{bar:40} {pos}/{len} games {msg} [{elapsed_precise}, about {eta} left]",
        )
        .expect("valid template"),
    );
    let start = Instant::now();
    let played = play_middle_games(&tables, games, max_moves, &bar)?;
    bar.finish_and_clear();
    let ms = start.elapsed().as_millis() as u64;
    let (path, header) = middle_file::save_middle(&tables, played, ms, dir)
        .context("saving the middle-game tables")?;
    println!(
        "built the middle-game tables in {:.0} s: {} ({})",
        ms as f64 / 1e3,
        path.display(),
        middle_summary(&header)
    );
    Ok(ExitCode::SUCCESS)
}

/// Plays up to `games` games with `tables`, two at a time, stopping once they hold
/// [`MIDDLE_BUILD_MEMORY`]; returns the games played.
fn play_middle_games(
    tables: &Arc<MiddleTables>,
    games: u32,
    max_moves: Option<u32>,
    bar: &ProgressBar,
) -> anyhow::Result<u32> {
    let mut config = SolverConfig::new(Shape::FOUR);
    config.evaluation = Evaluation::CornerMiddle(MiddleChoice::with_tables(tables.clone()));
    let mut sim = SimConfig::new(Shape::FOUR, 2, MIDDLE_BUILD_SEED);
    sim.budget = Budget {
        time: None,
        work: Some(MIDDLE_BUILD_DEPTH),
        stop: None,
    };
    sim.max_moves = max_moves;
    let make = |seed| {
        let mut c = config.clone();
        c.seed = seed;
        registry::build("expectimax", &c)
    };
    let mut played = 0;
    while played < games && tables.memory() < MIDDLE_BUILD_MEMORY {
        sim.games = (games - played).min(2);
        sim.seed = MIDDLE_BUILD_SEED + u64::from(played);
        let on_game = |r: &GameResult| {
            bar.inc(1);
            bar.set_message(format!(
                "last {} ({} moves); {:.2} GB of values",
                r.max_tile,
                r.moves,
                tables.memory() as f64 / 1e9
            ));
            if bar.is_hidden() {
                eprintln!(
                    "game {}: {} in {} moves; {:.2} GB of values",
                    bar.position(),
                    r.max_tile,
                    r.moves,
                    tables.memory() as f64 / 1e9
                );
            }
        };
        run_games(&sim, &make, &on_game).context("playing the games of the middle-game tables")?;
        played += sim.games;
    }
    Ok(played)
}

/// One line on a middle-game tables' file: positions, size, games, build time.
fn middle_summary(h: &MiddleHeader) -> String {
    format!(
        "{} positions, {:.2} GB, from {} games in {:.0} s",
        h.positions,
        h.file_len() as f64 / 1e9,
        h.games,
        h.build_ms as f64 / 1e3
    )
}
