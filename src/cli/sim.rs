//! `bot2048 sim`: plays many games on the built-in engine with a solver and measures it.
//!
//! The games, their statistics and the chart live in [`crate::sim`]; this file parses the
//! arguments and prints.
use super::solver_args::SolverArgs;
use crate::engine::{goal_exponent, Shape, SpawnRule};
use crate::sim::{self, GameResult, SimConfig, Summary};
use crate::solver::registry;
use anyhow::{bail, Context};
use clap::Args;
use image::{Rgb, RgbImage};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `bot2048 sim`.
#[derive(Debug, Args)]
pub struct SimArgs {
    /// Which solver, its options and its budget.
    #[command(flatten)]
    pub solver: SolverArgs,
    /// Number of games to play.
    #[arg(long, default_value_t = 10)]
    pub games: u32,
    /// Seed of the first game; each game's own seed is derived from it, so that every solver
    /// meets the same spawns for the same moves. A game replays exactly at a fixed --depth; a
    /// time budget (--time-ms, or the default budget) depends on the machine's speed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Board size, ROWSxCOLS (2 to 9 each) or N for NxN.
    #[arg(long, default_value = "4x4", value_name = "RxC")]
    pub size: Shape,
    /// Stop each game as won when a tile of this value is made (e.g. 2048, or 1024 on 3x3).
    #[arg(long, value_name = "TILE")]
    pub goal: Option<u64>,
    /// Stop each game after this many moves (large boards play for very long).
    #[arg(long, value_name = "N")]
    pub max_moves: Option<u32>,
    /// Print the summary as one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
    /// Draw the score distribution and the reach rates into this PNG file (overwritten).
    #[arg(long, value_name = "CHART.png")]
    pub out: Option<PathBuf>,
    /// The games' spawn rule: `classic` (90 % 2, 10 % 4) or `twos-only` (gnome-2048).
    #[arg(long, default_value = "classic", value_name = "RULE")]
    pub spawn: SpawnRule,
    /// The spawn rule the solver assumes (default: the games' own, --spawn).
    #[arg(long, value_name = "RULE")]
    pub solver_spawn: Option<SpawnRule>,
}

/// Runs `bot2048 sim`.
///
/// # Errors
/// An unknown solver or option, `--games 0`, a bad `--goal`, an `--out` that cannot be written,
/// or a chart that cannot be written.
pub fn run(args: SimArgs) -> anyhow::Result<ExitCode> {
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    args.solver.validate()?;
    if let Some(goal) = args.goal {
        goal_exponent(args.size, goal).context("--goal")?;
    }
    if let Some(out) = &args.out {
        check_chart_path(out)?;
    }
    let spawn = args.solver_spawn.unwrap_or(args.spawn);
    let template = args.solver.config(args.size, spawn, 0, false)?;
    registry::build(&args.solver.solver, &template)?;
    let mut config = SimConfig::new(args.size, args.games, args.seed);
    config.spawn = args.spawn;
    config.budget = args.solver.budget(None);
    config.goal = args.goal;
    config.max_moves = args.max_moves;

    let bar = ProgressBar::new(args.games as u64);
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} games {msg}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    let make = |seed: u64| {
        let mut c = template.clone();
        c.seed = seed;
        registry::build(&args.solver.solver, &c)
    };
    let on_game = |r: &GameResult| {
        bar.inc(1);
        bar.set_message(format!("last: {} ({} moves)", r.max_tile, r.moves));
    };
    let (results, summary, _) = sim::simulate(&config, &make, &on_game)?;
    bar.finish_and_clear();

    if args.json {
        println!("{}", serde_json::to_string(&summary)?);
    } else {
        print_text(&summary, &args);
    }
    if let Some(out) = &args.out {
        draw_chart(&results, &summary)
            .save(out)
            .with_context(|| format!("cannot write the chart to {}", out.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Refuses a chart path whose folder does not exist or that is not a `.png`, before the run.
fn check_chart_path(out: &Path) -> anyhow::Result<()> {
    let dir = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if !dir.is_dir() {
        bail!(
            "cannot write the chart to {}: folder {} does not exist",
            out.display(),
            dir.display()
        );
    }
    let png = out
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("png"));
    if !png {
        bail!(
            "the chart is a PNG image: give --out a name ending in .png (got {})",
            out.display()
        );
    }
    Ok(())
}

fn print_text(s: &Summary, args: &SimArgs) {
    println!(
        "solver        {} ({}), {} board, seed {}",
        args.solver.solver,
        args.solver.describe_budget(),
        args.size,
        args.seed
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
}

// ---- the chart ----------------------------------------------------------------------------

const CHART_W: u32 = 960;
const CHART_H: u32 = 420;
const WHITE: Rgb<u8> = Rgb([255, 255, 255]);
const INK: Rgb<u8> = Rgb([40, 40, 40]);
const GRID: Rgb<u8> = Rgb([220, 220, 220]);
const SCORE_BAR: Rgb<u8> = Rgb([70, 120, 200]);
const REACH_BAR: Rgb<u8> = Rgb([237, 194, 46]);

/// A 5×7 glyph: seven rows, the five low bits of each, bit 4 = leftmost pixel.
fn glyph(c: char) -> [u8; 7] {
    match c {
        '0' => [14, 17, 19, 21, 25, 17, 14],
        '1' => [4, 12, 4, 4, 4, 4, 14],
        '2' => [14, 17, 1, 2, 4, 8, 31],
        '3' => [31, 2, 4, 2, 1, 17, 14],
        '4' => [2, 6, 10, 18, 31, 2, 2],
        '5' => [31, 16, 30, 1, 1, 17, 14],
        '6' => [6, 8, 16, 30, 17, 17, 14],
        '7' => [31, 1, 2, 4, 8, 8, 8],
        '8' => [14, 17, 17, 14, 17, 17, 14],
        '9' => [14, 17, 17, 15, 1, 2, 12],
        'K' => [17, 18, 20, 24, 20, 18, 17],
        '%' => [24, 25, 2, 4, 8, 19, 3],
        '.' => [0, 0, 0, 0, 0, 12, 12],
        '-' => [0, 0, 0, 31, 0, 0, 0],
        'A' => [14, 17, 17, 31, 17, 17, 17],
        'C' => [14, 17, 16, 16, 16, 17, 14],
        'E' => [31, 16, 16, 30, 16, 16, 31],
        'G' => [14, 17, 16, 23, 17, 17, 15],
        'H' => [17, 17, 17, 31, 17, 17, 17],
        'I' => [14, 4, 4, 4, 4, 4, 14],
        'M' => [17, 27, 21, 21, 17, 17, 17],
        'N' => [17, 17, 25, 21, 19, 17, 17],
        'O' => [14, 17, 17, 17, 17, 17, 14],
        'R' => [30, 17, 17, 30, 20, 18, 17],
        'S' => [15, 16, 16, 14, 1, 1, 30],
        'T' => [31, 4, 4, 4, 4, 4, 4],
        _ => [0; 7],
    }
}

/// Draws `text` with its top-left corner at (x, y), each font pixel `scale`×`scale`.
fn draw_text(img: &mut RgbImage, x: i64, y: i64, text: &str, scale: i64, color: Rgb<u8>) {
    for (k, c) in text.chars().enumerate() {
        let g = glyph(c);
        for (row, bits) in g.iter().enumerate() {
            for col in 0..5 {
                if bits & (1 << (4 - col)) != 0 {
                    let px = x + (k as i64 * 6 + col) * scale;
                    let py = y + row as i64 * scale;
                    fill(img, px, py, scale, scale, color);
                }
            }
        }
    }
}

fn text_width(text: &str, scale: i64) -> i64 {
    (text.chars().count() as i64 * 6 - 1) * scale
}

fn fill(img: &mut RgbImage, x: i64, y: i64, w: i64, h: i64, color: Rgb<u8>) {
    for py in y.max(0)..(y + h).min(img.height() as i64) {
        for px in x.max(0)..(x + w).min(img.width() as i64) {
            img.put_pixel(px as u32, py as u32, color);
        }
    }
}

/// Short label of a number: 950, 12K, 131K.
fn short(v: f64) -> String {
    if v >= 10_000.0 {
        format!("{:.0}K", v / 1000.0)
    } else if v >= 1000.0 {
        format!("{:.1}K", v / 1000.0)
    } else {
        format!("{v:.0}")
    }
}

/// A bar panel in the rectangle (x, y, w, h): bars of `values` (0..=`top`), labels below, value
/// labels above each bar, a title on top.
#[allow(clippy::too_many_arguments)]
fn bar_panel(
    img: &mut RgbImage,
    x: i64,
    y: i64,
    w: i64,
    h: i64,
    title: &str,
    bars: &[(String, f64, String)],
    top: f64,
    color: Rgb<u8>,
) {
    draw_text(img, x, y, title, 2, INK);
    let plot_top = y + 40;
    let plot_bottom = y + h - 30;
    let plot_h = plot_bottom - plot_top;
    for k in 0..=4 {
        let gy = plot_bottom - plot_h * k / 4;
        fill(img, x, gy, w, 1, GRID);
    }
    let n = bars.len().max(1) as i64;
    let slot = w / n;
    for (i, (label, value, above)) in bars.iter().enumerate() {
        let bx = x + slot * i as i64;
        let bh = if top > 0.0 {
            ((value / top).clamp(0.0, 1.0) * plot_h as f64).round() as i64
        } else {
            0
        };
        fill(
            img,
            bx + slot / 8,
            plot_bottom - bh,
            slot - slot / 4,
            bh,
            color,
        );
        let lw = text_width(label, 1);
        draw_text(img, bx + (slot - lw) / 2, plot_bottom + 8, label, 1, INK);
        let aw = text_width(above, 1);
        draw_text(
            img,
            bx + (slot - aw) / 2,
            plot_bottom - bh - 12,
            above,
            1,
            INK,
        );
    }
    fill(img, x, plot_bottom, w, 1, INK);
}

/// The chart: the score distribution (10 bins) on the left, the reach rates on the right.
pub fn draw_chart(results: &[GameResult], summary: &Summary) -> RgbImage {
    let mut img = RgbImage::from_pixel(CHART_W, CHART_H, WHITE);
    let scores: Vec<f64> = results.iter().map(|r| r.score as f64).collect();
    let lo = scores.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = scores.iter().copied().fold(0.0, f64::max);
    let bins = 10usize;
    let width = ((hi - lo) / bins as f64).max(1.0);
    let mut counts = vec![0u32; bins];
    for s in &scores {
        counts[(((s - lo) / width) as usize).min(bins - 1)] += 1;
    }
    let top = counts.iter().copied().max().unwrap_or(1) as f64;
    let score_bars: Vec<(String, f64, String)> = counts
        .iter()
        .enumerate()
        .map(|(i, &c)| (short(lo + width * i as f64), c as f64, c.to_string()))
        .collect();
    bar_panel(
        &mut img,
        30,
        20,
        440,
        CHART_H as i64 - 40,
        "SCORES",
        &score_bars,
        top,
        SCORE_BAR,
    );
    let reach_bars: Vec<(String, f64, String)> = summary
        .reach_rates
        .iter()
        .map(|(&t, &r)| (short(t as f64), r, format!("{:.0}%", 100.0 * r)))
        .collect();
    bar_panel(
        &mut img,
        510,
        20,
        420,
        CHART_H as i64 - 40,
        "REACH",
        &reach_bars,
        1.0,
        REACH_BAR,
    );
    img
}
