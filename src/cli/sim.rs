//! `bot2048 sim`: plays many games on the built-in engine with a solver and measures it.
//!
//! Games run several at once on rayon's threads, one game per thread with a single-threaded
//! search each (expectimax's root parallelism is switched off): with at least as many games as
//! cores every core is busy anyway, and a thread per game needs no synchronisation, keeps the
//! transposition table of a game whole across its four root moves, and makes each game replay
//! exactly from its seed at a fixed depth. Game `i` (0-based) uses the seed [`game_seed`]`(seed, i)`.
use crate::engine::{Game, SpawnRule};
use crate::solver::expectimax::Expectimax;
use crate::solver::{by_name, Solver, SolverOptions, SOLVER_NAMES};
use anyhow::{bail, Context};
use clap::Args;
use image::{Rgb, RgbImage};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Arguments of `bot2048 sim`.
#[derive(Debug, Args)]
pub struct SimArgs {
    /// Solver to measure (expectimax, greedy).
    #[arg(long, default_value = "expectimax")]
    pub solver: String,
    /// Number of games to play.
    #[arg(long, default_value_t = 10)]
    pub games: u32,
    /// Seed of the first game; each game's own seed is derived from it, so a game replays exactly.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Search depth in moves beyond the root move (default: adaptive, within a time budget).
    #[arg(long, conflicts_with = "time_ms")]
    pub depth: Option<u32>,
    /// Time budget per move, in milliseconds (iterative deepening).
    #[arg(long)]
    pub time_ms: Option<u64>,
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

/// The seed of game `index` of a run started with `seed`: a SplitMix64 step of `seed + index`,
/// so neighbouring games get unrelated spawns.
pub fn game_seed(seed: u64, index: u32) -> u64 {
    let mut z = seed.wrapping_add((index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The result of one game.
#[derive(Debug, Clone)]
pub struct GameResult {
    /// Final score (sum of merge scores).
    pub score: u64,
    /// Largest tile at the end.
    pub max_tile: u32,
    /// Moves played.
    pub moves: u32,
    /// Time of each decision, in milliseconds.
    pub decision_ms: Vec<f64>,
}

/// Plays one game from `seed` under the spawn rule `rule` to the end with `solver`.
pub fn play_game(solver: &mut dyn Solver, seed: u64, rule: SpawnRule) -> GameResult {
    let mut game = Game::with_rule(seed, rule);
    let mut decision_ms = Vec::new();
    loop {
        let d = solver.decide(game.board());
        decision_ms.push(d.elapsed_ms);
        let Some(m) = d.best else { break };
        if game.play(m).is_none() {
            // A solver proposing an illegal move would loop forever: play the first legal one.
            match game.board().legal_moves().next() {
                Some(legal) => {
                    game.play(legal);
                }
                None => break,
            }
        }
    }
    GameResult {
        score: game.score(),
        max_tile: game.board().max_value(),
        moves: game.moves(),
        decision_ms,
    }
}

/// The tiles whose reach rate `sim` reports.
pub const REACH_TILES: [u32; 7] = [1024, 2048, 4096, 8192, 16384, 32768, 65536];

/// The summary `sim` prints; with `--json`, exactly these keys.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// Games played.
    pub games: u32,
    /// Mean final score.
    pub avg_score: f64,
    /// Median final score.
    pub median_score: f64,
    /// Number of games ending with each largest tile (tile value → games).
    pub max_tile_counts: BTreeMap<u32, u32>,
    /// Share of games whose largest tile reached at least each tile of [`REACH_TILES`], 0..=1.
    pub reach_rates: BTreeMap<u32, f64>,
    /// Moves played over all games.
    pub moves: u64,
    /// Moves per wall-clock second over the whole run.
    pub moves_per_sec: f64,
    /// Median decision time in milliseconds.
    pub decision_ms_median: f64,
    /// 99th percentile of decision time in milliseconds.
    pub decision_ms_p99: f64,
}

/// The `q` quantile (0..=1) of sorted values, nearest rank; 0 for none.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// The median of sorted values (mean of the middle two for an even count); 0 for none.
fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    match n {
        0 => 0.0,
        _ if n % 2 == 1 => sorted[n / 2],
        _ => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// Summarises finished games; `seconds` is the run's wall-clock time.
pub fn summarize(results: &[GameResult], seconds: f64) -> Summary {
    let n = results.len().max(1) as f64;
    let mut scores: Vec<f64> = results.iter().map(|r| r.score as f64).collect();
    scores.sort_by(f64::total_cmp);
    let mut times: Vec<f64> = results
        .iter()
        .flat_map(|r| r.decision_ms.iter().copied())
        .collect();
    times.sort_by(f64::total_cmp);
    let mut max_tile_counts = BTreeMap::new();
    for r in results {
        *max_tile_counts.entry(r.max_tile).or_insert(0) += 1;
    }
    let reach_rates = REACH_TILES
        .iter()
        .map(|&t| {
            (
                t,
                results.iter().filter(|r| r.max_tile >= t).count() as f64 / n,
            )
        })
        .collect();
    let moves: u64 = results.iter().map(|r| r.moves as u64).sum();
    Summary {
        games: results.len() as u32,
        avg_score: scores.iter().sum::<f64>() / n,
        median_score: median(&scores),
        max_tile_counts,
        reach_rates,
        moves,
        moves_per_sec: if seconds > 0.0 {
            moves as f64 / seconds
        } else {
            0.0
        },
        decision_ms_median: median(&times),
        decision_ms_p99: quantile(&times, 0.99),
    }
}

fn make_solver(name: &str, opts: &SolverOptions) -> anyhow::Result<Box<dyn Solver>> {
    if name == "expectimax" {
        return Ok(Box::new(Expectimax::new(opts).with_root_parallel(false)));
    }
    Ok(by_name(name, opts)?)
}

/// Runs `bot2048 sim`.
///
/// # Errors
/// An unknown solver (the message lists [`SOLVER_NAMES`]), `--games 0`, an `--out` whose folder
/// does not exist, or a chart that cannot be written.
pub fn run(args: SimArgs) -> anyhow::Result<ExitCode> {
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    let opts = SolverOptions {
        depth: args.depth,
        time_ms: args.time_ms,
        spawn: args.solver_spawn.unwrap_or(args.spawn),
    };
    by_name(&args.solver, &opts)
        .with_context(|| format!("cannot run `sim` (solvers: {})", SOLVER_NAMES.join(", ")))?;
    if let Some(out) = &args.out {
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
    }

    let bar = ProgressBar::new(args.games as u64);
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} games {msg}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    let start = Instant::now();
    let results: Vec<GameResult> = (0..args.games)
        .into_par_iter()
        .map(|i| -> anyhow::Result<GameResult> {
            let mut solver = make_solver(&args.solver, &opts)?;
            let r = play_game(solver.as_mut(), game_seed(args.seed, i), args.spawn);
            bar.inc(1);
            bar.set_message(format!("last: {} ({} moves)", r.max_tile, r.moves));
            Ok(r)
        })
        .collect::<anyhow::Result<_>>()?;
    bar.finish_and_clear();
    let summary = summarize(&results, start.elapsed().as_secs_f64());

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

fn print_text(s: &Summary, args: &SimArgs) {
    let budget = match (args.depth, args.time_ms) {
        (Some(d), _) => format!("depth {d}"),
        (None, Some(t)) => format!("{t} ms a move"),
        (None, None) => "default budget".to_string(),
    };
    println!(
        "solver        {} ({budget}), seed {}",
        args.solver, args.seed
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
        .map(|(&t, &r)| (format!("{}K", t / 1024), r, format!("{:.0}%", 100.0 * r)))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_and_medians() {
        let v: Vec<f64> = (1..=100).map(|i| i as f64).collect();
        assert_eq!(quantile(&v, 0.99), 99.0);
        assert_eq!(median(&v), 50.5);
        assert_eq!(median(&[3.0]), 3.0);
        assert_eq!(median(&[]), 0.0);
    }

    #[test]
    fn summary_counts_reach_rates() {
        let r = |score, max_tile| GameResult {
            score,
            max_tile,
            moves: 10,
            decision_ms: vec![1.0],
        };
        let s = summarize(
            &[r(100, 1024), r(300, 4096), r(200, 2048), r(400, 512)],
            2.0,
        );
        assert_eq!(s.games, 4);
        assert_eq!(s.avg_score, 250.0);
        assert_eq!(s.median_score, 250.0);
        assert_eq!(s.reach_rates[&1024], 0.75);
        assert_eq!(s.reach_rates[&2048], 0.5);
        assert_eq!(s.reach_rates[&4096], 0.25);
        assert_eq!(s.reach_rates[&8192], 0.0);
        assert_eq!(s.max_tile_counts[&512], 1);
        assert_eq!(s.moves, 40);
        assert_eq!(s.moves_per_sec, 20.0);
    }

    #[test]
    fn game_seeds_differ() {
        assert_ne!(game_seed(1, 0), game_seed(1, 1));
        assert_ne!(game_seed(1, 1), game_seed(2, 0));
        assert_eq!(game_seed(7, 3), game_seed(7, 3));
    }

    #[test]
    fn play_game_is_replayable() {
        let opts = SolverOptions {
            depth: Some(0),
            ..SolverOptions::default()
        };
        let a = play_game(
            make_solver("expectimax", &opts).unwrap().as_mut(),
            5,
            SpawnRule::Classic,
        );
        let b = play_game(
            make_solver("expectimax", &opts).unwrap().as_mut(),
            5,
            SpawnRule::Classic,
        );
        assert_eq!(
            (a.score, a.moves, a.max_tile),
            (b.score, b.moves, b.max_tile)
        );
        assert!(a.moves > 0);
    }
}
