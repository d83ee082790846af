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
//! `--annotate N,... --out-dir DIR` writes `DIR/move-NNNN.png` for each move named: its frame with
//! the board as read drawn on it, the new tile framed in yellow, the move's number in the corner;
//! the text is then only the verdict ([`verdict_text`]).
//!
//! Exit codes: 0 every move fits; 3 a move does not fit (its number and the cells are named);
//! 1 the log cannot be read; 2 bad command line.
use super::exit::{self, UsageError};
use super::output;
use crate::engine::SpawnRule;
use crate::play::verify::{self, Report};
use crate::vision::{annotate, profile, Reader};
use anyhow::Context;
use clap::Args;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Real uses of `replay`, at the end of its `--help`.
pub const EXAMPLES: &[super::Example] = &[
    (
        "bot2048 replay game1",
        "check the recording `bot2048 play --record game1` wrote, and print the game move by move",
    ),
    (
        "bot2048 replay game1 --annotate 0,5,12 --out-dir pics",
        "draw what was read on the frames of the start and of moves 5 and 12 (pics/move-0005.png ...)",
    ),
    (
        "bot2048 replay game1 --spawn twos-only --json",
        "a gnome-2048 game (2s only), as JSON lines",
    ),
];

fn after_help() -> String {
    let mut s = exit::help_text(&[exit::OK, exit::ERROR, exit::USAGE]);
    s.push_str("    3  a move does not fit the engine (its number and the cells are named)\n");
    super::long_help_end(s, EXAMPLES)
}

/// Arguments of `bot2048 replay`.
#[derive(Debug, Args)]
#[command(after_long_help = after_help())]
pub struct ReplayArgs {
    /// A directory written by `bot2048 play --record DIR` (its log.jsonl is read).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// The spawn rule the game follows: `classic` or `twos-only`.
    ///
    /// `classic` (a new 2 or 4) or `twos-only` (gnome-2048: a new 4 is a misfit).
    #[arg(long, value_name = "RULE", default_value = "classic")]
    pub spawn: SpawnRule,
    /// One JSON object per line (`kind`: start, move, misfit, end) instead of text.
    #[arg(long)]
    pub json: bool,
    /// Write an annotated image of these moves' frames (0 = the start), comma-separated.
    ///
    /// Each shows the board as read (grid, every cell's value), the new tile framed in yellow and the move's
    /// number in the top-left corner. Needs --out-dir. Prints only the verdict then (the
    /// moves checked and whether they fit), not the whole game, unless --json.
    #[arg(
        long,
        value_name = "N,...",
        value_delimiter = ',',
        requires = "out_dir"
    )]
    pub annotate: Vec<u64>,
    /// Where the annotated images go: `move-NNNN.png` each.
    ///
    /// An existing file is never replaced without --force.
    #[arg(long, value_name = "DIR", requires = "annotate")]
    pub out_dir: Option<PathBuf>,
    /// Replace existing annotated images.
    #[arg(long)]
    pub force: bool,
}

/// The frame of move `n` of `r` (0 = the start): its sequence number and the new tile.
fn frame_of(r: &Report, n: u64) -> Option<(u64, Option<verify::Spawn>)> {
    if n == 0 {
        return Some((0, None));
    }
    let s = r.steps.get(usize::try_from(n - 1).ok()?)?;
    Some((s.seq, Some(s.spawn)))
}

/// Writes the annotated frames of `args.annotate` into `args.out_dir`; returns their paths.
///
/// # Errors
/// A move that the report does not have (exit 2), a frame that is missing or unreadable, an
/// existing output without --force.
fn write_annotated(args: &ReplayArgs, r: &Report) -> anyhow::Result<Vec<PathBuf>> {
    let Some(out) = &args.out_dir else {
        return Ok(Vec::new());
    };
    let mut plan = Vec::new();
    for &n in &args.annotate {
        let (seq, spawn) = frame_of(r, n).ok_or_else(|| {
            UsageError(format!(
                "--annotate {n}: the recording has moves 0 to {} that fit",
                r.steps.len()
            ))
        })?;
        plan.push((n, seq, spawn, out.join(format!("move-{n:04}.png"))));
    }
    let outputs: Vec<PathBuf> = plan.iter().map(|p| p.3.clone()).collect();
    output::check_outputs(&outputs, &[], args.force)?;
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let resolved = profile::resolve("auto")?;
    let mut reader = Reader::new(resolved.choice);
    for (n, seq, spawn, path) in plan {
        let frame = args.dir.join("frames").join(format!("{seq:06}.png"));
        let img = image::open(&frame)
            .with_context(|| format!("move {n}: frame {}", frame.display()))?
            .to_rgba8();
        let reading = reader
            .read(&img)
            .with_context(|| format!("move {n}: reading {}", frame.display()))?;
        let mut a = annotate::annotate(&img, &reading);
        let g = reading.grid;
        let t = (g.cell_width / 20.0).ceil().max(2.0) as i64;
        if let Some(sp) = spawn {
            let c = g.cell(sp.row, sp.col);
            let yellow = image::Rgba([255, 210, 0, 255]);
            annotate::draw_rect(
                &mut a,
                c.x0 as i64 - t,
                c.y0 as i64 - t,
                c.x1 as i64 + t,
                c.y1 as i64 + t,
                t,
                yellow,
            );
        }
        let scale = (g.cell_width / 25.0).floor().max(2.0) as i64;
        annotate::draw_text(
            &mut a,
            scale,
            scale,
            &n.to_string(),
            scale,
            image::Rgba([255, 255, 255, 255]),
            image::Rgba([0, 0, 0, 255]),
        );
        output::write_image(&path, &a, args.force)?;
    }
    Ok(outputs)
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
    t.push_str(&checked_line(r));
    t
}

/// The last line of [`report_text`]: how many moves were checked, the score, and whether every
/// move fits.
fn checked_line(r: &Report) -> String {
    format!(
        "{} moves checked, score {}: {}\n",
        r.steps.len(),
        r.score(),
        if r.misfit.is_some() {
            "a move does not fit the engine"
        } else {
            "every move fits the engine"
        }
    )
}

/// The verdict alone, what `--annotate` prints instead of the whole game: the misfit (if any)
/// and `checked_line`.
pub fn verdict_text(r: &Report) -> String {
    let mut t = String::new();
    if let Some(m) = &r.misfit {
        let key = m.key.map_or(String::new(), |k| format!(" ({k})"));
        t.push_str(&format!(
            "MISFIT at move {}{key}, frame {}: {}\n",
            m.number, m.seq, m.why
        ));
    }
    t.push_str(&checked_line(r));
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
    } else if args.annotate.is_empty() {
        write!(out, "{}", report_text(&report))?;
    } else {
        write!(out, "{}", verdict_text(&report))?;
    }
    out.flush()?;
    for p in write_annotated(&args, &report)? {
        eprintln!("bot2048: wrote {}", p.display());
    }
    Ok(ExitCode::from(if report.misfit.is_some() {
        exit::DESYNC
    } else {
        exit::OK
    }))
}
