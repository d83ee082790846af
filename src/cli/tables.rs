//! `bot2048 tables`: build the endgame tables once (`build`), and see what is built (`status`).
//!
//! The tables live in the user's cache folder ([`crate::solver::tables::file::tables_dir`]), one
//! file per table, each written atomically; `build` skips the tables already there (whole and
//! of this format) unless `--force`, so an interrupted build carries on where it stopped.
use crate::solver::tables::build::build_table;
use crate::solver::tables::file::{self, Header};
use crate::solver::tables::{build_cost, TableKey, TableSet};
use anyhow::{bail, Context};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
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
        "Build the endgame tables (`--set small` by default).\n\n\
         What it costs:\n\
         - {}; {SMALL_BUILD_TIME}.\n\
         - {}; not timed: it holds {times:.1} times the small set's positions.\n\n\
         A table is built in memory and written atomically when it is done; the tables already \
         there are kept (unless --force), so an interrupted build carries on where it stopped.",
        build_cost(TableSet::Small),
        build_cost(TableSet::Full),
    )
}

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
    /// Build the endgame tables (`--set small` by default).
    #[command(long_about = build_long_about(), after_long_help = build_after_help())]
    Build {
        /// Which set: `small` (goals 64 to 256) or `full` (64 to 512, more disk and memory).
        #[arg(long, value_enum, default_value = "small")]
        set: TableSet,
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
        TablesAction::Build { set, force } => build(set, force, &dir),
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
    let paths = file::list(dir)?;
    if paths.is_empty() {
        println!(
            "no endgame tables in {} (run `bot2048 tables build`: {})",
            dir.display(),
            build_cost(TableSet::Small)
        );
        return Ok(ExitCode::SUCCESS);
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
    Ok(if bad > 0 {
        ExitCode::from(super::exit::ERROR)
    } else {
        ExitCode::SUCCESS
    })
}
