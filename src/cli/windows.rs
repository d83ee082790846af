//! `bot2048 windows [--json] [--profile NAME|PATH|auto] [--all]`: lists the windows on the screen,
//! so a user knows what to pass to `--window`: title, app name (`WM_CLASS`), size, position, and
//! whether a 2048 board is found in each (with which profile, and its rows and columns).
//!
//! Every viewable window is captured once and read (covered parts of a window capture black, so a
//! covered game may show only part of its board; the `covered by` column says so). Exit codes: 0
//! listed (whether or not a board was found), 7 no usable X display or window manager, 2 bad
//! arguments, 1 other errors.
use super::exit;
use crate::platform::{self, ListedWindow};
use crate::vision::{profile, BoardStatus, Reader, Reading};
use anyhow::Context;
use clap::Args;
use serde_json::json;
use std::io::Write;
use std::process::ExitCode;

/// Real uses of `windows`, at the end of its `--help`.
pub const EXAMPLES: &[super::Example] = &[
    (
        "bot2048 windows",
        "list the windows; pass a title (or app) to --window of play, advise, read",
    ),
    (
        "bot2048 windows --json --all",
        "every window, also those not viewable or minimised, as one JSON array",
    ),
];

fn after_help() -> String {
    super::long_help_end(
        exit::help_text(&[exit::OK, exit::ERROR, exit::USAGE, exit::NO_DISPLAY]),
        EXAMPLES,
    )
}

/// Arguments of `bot2048 windows`.
#[derive(Debug, Args)]
#[command(after_long_help = after_help())]
pub struct WindowsArgs {
    /// Print one JSON array instead of the table.
    ///
    /// Per window its id, title, app, x, y, width, height, viewable, minimised, covered_by, and
    /// board (null, or profile, rows, cols, status, grid rectangle).
    #[arg(long)]
    pub json: bool,
    /// The profile to look for boards with (as `read --profile`).
    #[arg(long, default_value = "auto", value_name = "NAME|PATH|auto")]
    pub profile: String,
    /// Also list windows that are not viewable or are minimised (not captured).
    #[arg(long)]
    pub all: bool,
}

/// What reading one window gave.
enum Found {
    Board(Reading),
    NoBoard,
    NotCaptured(String),
}

/// Runs `bot2048 windows`.
///
/// # Errors
/// A bad `--profile`; no X display or window manager (exit 7).
pub fn run(args: WindowsArgs) -> anyhow::Result<ExitCode> {
    let resolved =
        profile::resolve(&args.profile).with_context(|| format!("--profile {}", args.profile))?;
    for w in &resolved.warnings {
        eprintln!("bot2048: warning: {w}");
    }
    let mut reader = Reader::new(resolved.choice);
    let desktop = platform::desktop()?;
    let listed = desktop.windows().context("listing the windows")?;
    let mut rows = Vec::new();
    // topmost first, as a user sees them
    for w in listed.into_iter().rev() {
        if !args.all && (!w.info.viewable || w.minimised) {
            continue;
        }
        let found = match &w.frame {
            Err(e) => Found::NotCaptured(e.to_string()),
            Ok(frame) => {
                reader.forget_grid();
                match reader.read(&frame.image) {
                    Ok(r) => Found::Board(r),
                    Err(_) => Found::NoBoard,
                }
            }
        };
        rows.push((w, found));
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        let v: Vec<serde_json::Value> = rows.iter().map(|(w, f)| row_json(w, f)).collect();
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        write_table(&mut out, &rows)?;
    }
    out.flush()?;
    Ok(ExitCode::from(exit::OK))
}

fn board_text(f: &Found) -> String {
    match f {
        Found::Board(r) => {
            let status = match r.status {
                BoardStatus::Ok => String::new(),
                s => format!(", {s}"),
            };
            format!(
                "{}x{} board, profile {}{status}",
                r.grid.rows, r.grid.cols, r.profile
            )
        }
        Found::NoBoard => "no board".into(),
        Found::NotCaptured(why) => format!("not captured: {why}"),
    }
}

fn write_table(out: &mut impl Write, rows: &[(ListedWindow, Found)]) -> std::io::Result<()> {
    if rows.is_empty() {
        return writeln!(out, "no windows on the display");
    }
    let quoted: Vec<String> = rows
        .iter()
        .map(|(w, _)| format!("{:?}", w.info.title))
        .collect();
    let tw = quoted
        .iter()
        .map(|t| t.chars().count())
        .max()
        .unwrap_or(5)
        .max(5);
    let aw = rows
        .iter()
        .map(|(w, _)| w.info.class.chars().count())
        .max()
        .unwrap_or(3)
        .max(3);
    writeln!(
        out,
        "{:<tw$}  {:<aw$}  {:>9}  {:>11}  2048 board",
        "title", "app", "size", "position"
    )?;
    for ((w, f), title) in rows.iter().zip(&quoted) {
        let r = w.info.rect;
        let mut board = board_text(f);
        if !w.covered_by.is_empty() {
            board.push_str(&format!(" (covered by {:?})", w.covered_by.join(", ")));
        }
        writeln!(
            out,
            "{title:<tw$}  {:<aw$}  {:>9}  {:>11}  {board}",
            w.info.class,
            format!("{}x{}", r.width, r.height),
            format!("{},{}", r.x, r.y),
        )?;
    }
    writeln!(
        out,
        "\nPass a title (or app name) to --window, e.g. bot2048 read --window {}",
        quoted
            .iter()
            .zip(rows)
            .find(|(_, (_, f))| matches!(f, Found::Board(_)))
            .map_or("TITLE", |(t, _)| t.as_str())
    )
}

fn row_json(w: &ListedWindow, f: &Found) -> serde_json::Value {
    let r = w.info.rect;
    let board = match f {
        Found::Board(rd) => json!({
            "profile": rd.profile, "rows": rd.grid.rows, "cols": rd.grid.cols,
            "status": rd.status,
            "grid": { "x": rd.grid.x, "y": rd.grid.y, "width": rd.grid.width, "height": rd.grid.height },
        }),
        _ => serde_json::Value::Null,
    };
    let not_captured = match f {
        Found::NotCaptured(why) => json!(why),
        _ => serde_json::Value::Null,
    };
    json!({
        "id": w.info.id, "title": w.info.title, "app": w.info.class,
        "x": r.x, "y": r.y, "width": r.width, "height": r.height,
        "viewable": w.info.viewable, "minimised": w.minimised,
        "covered_by": w.covered_by, "board": board, "not_captured": not_captured,
    })
}
