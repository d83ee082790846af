//! `bot2048 replay DIR`: checks a `play --record` directory against the engine and prints the
//! game move by move ([`crate::play::verify`]).
//!
//! Text: the start board, then per move its number, key, points, score, the new tile and the
//! board; the events logged during a move (re-reads, retries, the win screen) under it; the stop
//! at the end. `--json`: one JSON object per line (JSON lines), each with a `kind`:
//! `start` (`board`), `move` (`move`, `key`, `gained`, `score`, `spawn` {`row`, `col`, `value`}
//! from 0, `board`, `seq`, `events`), `misfit` (`move`, `key`, `seq`, `why`), `end` (`moves`,
//! `score`, `fits`, `unverified_last`, `events`).
//!
//! Exit codes: 0 every move fits; 3 a move does not fit (its number and the cells are named);
//! 1 the log cannot be read; 2 bad command line.
use super::exit;
use crate::engine::SpawnRule;
use crate::play::verify::{self, Report};
use anyhow::Context;
use clap::Args;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

fn after_help() -> String {
    let mut s = exit::help_text(&[exit::OK, exit::ERROR, exit::USAGE]);
    s.push_str("    3  a move does not fit the engine (its number and the cells are named)\n");
    s
}

/// Arguments of `bot2048 replay`.
#[derive(Debug, Args)]
#[command(after_help = after_help())]
pub struct ReplayArgs {
    /// A directory written by `bot2048 play --record DIR` (its log.jsonl is read).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// The spawn rule the game follows: `classic` (a new 2 or 4) or `twos-only` (gnome-2048: a
    /// 4 is a misfit).
    #[arg(long, value_name = "RULE", default_value = "classic")]
    pub spawn: SpawnRule,
    /// One JSON object per line (`kind`: start, move, misfit, end) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// A board as text lines, `.` for empty, each indented by two spaces.
fn board_text(rows: &[Vec<u64>]) -> String {
    let w = rows
        .iter()
        .flatten()
        .map(|v| v.to_string().len())
        .max()
        .unwrap_or(1);
    rows.iter()
        .map(|r| {
            let cells: Vec<String> = r
                .iter()
                .map(|&v| {
                    let t = if v == 0 {
                        ".".to_string()
                    } else {
                        v.to_string()
                    };
                    format!("{t:>w$}")
                })
                .collect();
            format!("  {}\n", cells.join(" "))
        })
        .collect()
}

/// The report as text, see the module doc.
pub fn report_text(r: &Report) -> String {
    let mut t = format!("start\n{}", board_text(&r.start));
    for s in &r.steps {
        t.push_str(&format!(
            "move {} {}: +{} score {}, a new {} at row {} col {} (frame {})\n",
            s.number,
            s.key,
            s.gained,
            s.score,
            s.spawn.value,
            s.spawn.row + 1,
            s.spawn.col + 1,
            s.seq
        ));
        for e in &s.events {
            t.push_str(&format!("  ({})\n", verify::describe_event(e)));
        }
        t.push_str(&board_text(&s.board));
    }
    if let Some(m) = &r.misfit {
        let key = m.key.map_or(String::new(), |k| format!(" ({k})"));
        t.push_str(&format!(
            "MISFIT at move {}{key}, frame {}: {}\n",
            m.number, m.seq, m.why
        ));
    }
    for e in &r.trailing_events {
        t.push_str(&format!("{}\n", verify::describe_event(e)));
    }
    if let Some(k) = r.unverified_last {
        t.push_str(&format!(
            "the last key chosen ({k}) has no frame after it: not checked\n"
        ));
    }
    t.push_str(&format!(
        "{} moves checked, score {}: {}\n",
        r.steps.len(),
        r.score(),
        if r.misfit.is_some() {
            "a move does not fit the engine"
        } else {
            "every move fits the engine"
        }
    ));
    t
}

/// The report as JSON lines, see the module doc.
pub fn report_json(r: &Report) -> Vec<serde_json::Value> {
    let mut v = vec![serde_json::json!({ "kind": "start", "board": r.start })];
    for s in &r.steps {
        let mut j = serde_json::to_value(s).unwrap_or_default();
        j["kind"] = "move".into();
        v.push(j);
    }
    if let Some(m) = &r.misfit {
        let mut j = serde_json::to_value(m).unwrap_or_default();
        j["kind"] = "misfit".into();
        v.push(j);
    }
    v.push(serde_json::json!({
        "kind": "end",
        "moves": r.steps.len(),
        "score": r.score(),
        "fits": r.misfit.is_none(),
        "unverified_last": r.unverified_last,
        "events": r.trailing_events,
    }));
    v
}

/// Runs `bot2048 replay`.
///
/// # Errors
/// The log cannot be read or is not a `play --record` log; stdout cannot be written.
pub fn run(args: ReplayArgs) -> anyhow::Result<ExitCode> {
    let report = verify::check(&args.dir, args.spawn)
        .with_context(|| format!("checking the recording in {}", args.dir.display()))?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        for j in report_json(&report) {
            writeln!(out, "{j}")?;
        }
    } else {
        write!(out, "{}", report_text(&report))?;
    }
    out.flush()?;
    Ok(ExitCode::from(if report.misfit.is_some() {
        exit::DESYNC
    } else {
        exit::OK
    }))
}
