//! The chart of `bot2048 sim --out CHART.png`: a PNG of one run or of a comparison, drawn with
//! plotters. The only module that imports plotters; it takes the statistics of
//! [`super::compare`] ([`SolverRun`]: each game's result and the [`super::Summary`]).
//!
//! - One solver: the histogram of final scores, with its mean and median, beside the share of
//!   games reaching each tile.
//! - Several: a box plot of each solver's final scores (box from the first to the third
//!   quartile, a bar at the median, whiskers to the lowest and highest game, a dot per game)
//!   beside grouped reach-rate bars, one colour per solver.
//!
//! The caption names the solvers, their budgets, the board size, the games and the seed. Text is
//! DejaVu Sans, embedded (`assets/fonts`, licence beside it): plotters' `ab_glyph` feature
//! loads no system font. plotters draws into an RGB buffer ([`BitMapBackend::with_buffer`]);
//! our `image` crate encodes the PNG.
use super::compare::SolverRun;
use super::{summarize_with, SimConfig};
use crate::fsio::{self, Existing, WriteError};
use crate::stats;
use image::{ImageFormat, RgbImage};
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Width of the chart, pixels.
pub const WIDTH: u32 = 1280;
/// Height of the chart, pixels.
pub const HEIGHT: u32 = 640;
/// Fill of the score histogram's bars (one solver), RGB.
pub const SCORE_COLOUR: [u8; 3] = [66, 116, 196];
/// Fill of the reach-rate bars (one solver), RGB: the 2048 tile's yellow.
pub const REACH_COLOUR: [u8; 3] = [230, 180, 30];
/// Each solver's colour in a comparison, RGB, in the order of the runs (repeating after 8): the
/// tab10 palette without its grey, which anti-aliased text makes too.
pub const PALETTE: [[u8; 3]; 8] = [
    [31, 119, 180],
    [255, 127, 14],
    [44, 160, 44],
    [214, 39, 40],
    [148, 103, 189],
    [140, 86, 75],
    [227, 119, 194],
    [188, 189, 34],
];

/// The font's family name, as plotters knows it.
const FONT: &str = "sans-serif";
/// DejaVu Sans 2.37 (Bitstream Vera licence, `assets/fonts/LICENSE-DejaVu.txt`).
const FONT_BYTES: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");
/// Height of the caption band above the panels, pixels.
const CAPTION_H: u32 = 86;
/// The most bins of the score histogram.
const MAX_BINS: usize = 24;
/// The fewest bins of the score histogram.
const MIN_BINS: usize = 6;
/// Share of a category's width taken by its bars (the rest is the gap between categories).
const GROUP_WIDTH: f64 = 0.8;
/// The fewest tiles of the reach panel.
const MIN_TILES: u32 = 4;
/// The most tiles of the reach panel.
const MAX_TILES: u32 = 10;
/// Half the width of a box of the box plot, in category units (1 = from one box to the next).
const BOX_HALF_WIDTH: f64 = 0.28;

/// The most runs of a box plot whose medians are written beside their boxes (more would
/// overlap the next box; the table has them).
const MAX_MEDIAN_LABELS: usize = 5;
/// The most bars of a reach panel that get a percentage above them.
const MAX_LABELLED_BARS: usize = 24;

const INK: RGBColor = RGBColor(40, 40, 40);
const MUTED: RGBColor = RGBColor(90, 90, 90);
const GRID: RGBColor = RGBColor(232, 232, 232);

/// Why a chart could not be drawn or written.
#[derive(Debug, thiserror::Error)]
pub enum ChartError {
    /// The embedded font did not load (a corrupt asset; a build problem).
    #[error("the chart's embedded font does not load")]
    Font,
    /// plotters failed to draw.
    #[error("cannot draw the chart: {0}")]
    Draw(String),
    /// No run to draw.
    #[error("no run to draw")]
    Empty,
    /// The PNG could not be encoded.
    #[error("cannot encode the chart as PNG: {0}")]
    Encode(#[from] image::ImageError),
    /// The path does not end in `.png`.
    #[error("the chart is a PNG image: give --out a name ending in .png (got {})", .0.display())]
    NotPng(PathBuf),
    /// The path's folder does not exist.
    #[error("cannot write the chart to {}: folder {} does not exist", path.display(), dir.display())]
    NoFolder {
        /// The chart's path.
        path: PathBuf,
        /// Its folder.
        dir: PathBuf,
    },
    /// A file is already there and overwriting was not allowed.
    #[error("{} already exists: not overwritten (--force replaces it)", .0.display())]
    Exists(PathBuf),
    /// Writing the file failed.
    #[error("cannot write the chart to {}: {source}", path.display())]
    Io {
        /// The chart's path.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for ChartError {
    fn from(e: DrawingAreaErrorKind<E>) -> ChartError {
        ChartError::Draw(e.to_string())
    }
}

/// Checks, before any game is played, that the chart can go to `path`: a `.png` name in an
/// existing folder, and no file there unless `force`.
///
/// # Errors
/// [`ChartError::NotPng`], [`ChartError::NoFolder`], [`ChartError::Exists`].
pub fn check_path(path: &Path, force: bool) -> Result<(), ChartError> {
    let png = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("png"));
    if !png {
        return Err(ChartError::NotPng(path.to_path_buf()));
    }
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if !dir.is_dir() {
        return Err(ChartError::NoFolder {
            path: path.to_path_buf(),
            dir: dir.to_path_buf(),
        });
    }
    if !force && path.symlink_metadata().is_ok() {
        return Err(ChartError::Exists(path.to_path_buf()));
    }
    Ok(())
}

/// Encodes `img` as PNG into `path`, atomically ([`crate::fsio::write_atomic`]). Without
/// `force` the file is created only if none is there (checked atomically, so a file that appeared
/// during the run is kept too); with `force` it is replaced.
///
/// # Errors
/// [`ChartError::Exists`], [`ChartError::Encode`], [`ChartError::Io`].
pub fn write_png(img: &RgbImage, path: &Path, force: bool) -> Result<(), ChartError> {
    let mut png = Cursor::new(Vec::new());
    img.write_to(&mut png, ImageFormat::Png)?;
    fsio::write_bytes(path, png.get_ref(), Existing::replace_if(force)).map_err(|e| match e {
        WriteError::Exists(path) => ChartError::Exists(path),
        WriteError::Io { path, source } => ChartError::Io { path, source },
    })
}

/// Registers the embedded font with plotters, once.
fn font() -> Result<(), ChartError> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = REGISTERED.get_or_init(|| {
        plotters::style::register_font(FONT, FontStyle::Normal, FONT_BYTES).is_ok()
    });
    if *ok {
        Ok(())
    } else {
        Err(ChartError::Font)
    }
}

/// The chart of `runs` (all of `config`'s games): one run gives the score histogram and its
/// reach rates; several give box plots and grouped reach bars. [`WIDTH`] × [`HEIGHT`] pixels.
///
/// # Errors
/// [`ChartError::Empty`] for no run; [`ChartError::Font`] or [`ChartError::Draw`].
pub fn draw(config: &SimConfig, runs: &[SolverRun]) -> Result<RgbImage, ChartError> {
    if runs.is_empty() {
        return Err(ChartError::Empty);
    }
    font()?;
    let mut buf = vec![0u8; (WIDTH * HEIGHT * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut buf, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE)?;
        let (top, body) = root.split_vertically(CAPTION_H);
        caption(&top, config, runs)?;
        let (left, right) = body.split_horizontally(WIDTH * 11 / 20);
        if let [run] = runs {
            score_histogram(&left, run)?;
        } else {
            score_boxes(&left, runs)?;
        }
        reach_bars(&right, runs)?;
        // `Drop` would ignore a failed write; here it is the buffer, and still checked.
        root.present()?;
    }
    RgbImage::from_raw(WIDTH, HEIGHT, buf).ok_or_else(|| ChartError::Draw("buffer size".into()))
}

/// A linear axis over `lo..hi` with exactly the ticks given: categories at 0, 1, … (solvers,
/// tiles) or percentages at 0, 20, …, 100 (plotters' own `with_key_points` cannot be formatted).
struct Ticked {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
}

impl Ticked {
    /// Categories 0..n, each one unit wide, centred on its index.
    fn categories(n: usize) -> Ticked {
        Ticked {
            lo: -0.5,
            hi: n as f64 - 0.5,
            ticks: (0..n).map(|i| i as f64).collect(),
        }
    }
}

impl Ranged for Ticked {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let f = (value - self.lo) / (self.hi - self.lo);
        limit.0 + (f * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, _hint: H) -> Vec<f64> {
        self.ticks.clone()
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

fn rgb(c: [u8; 3]) -> RGBColor {
    RGBColor(c[0], c[1], c[2])
}

/// The colour of run `i` of several.
pub fn solver_colour(i: usize) -> [u8; 3] {
    PALETTE[i % PALETTE.len()]
}

/// "1 game", "40 games".
fn games(n: usize) -> String {
    if n == 1 {
        "1 game".to_string()
    } else {
        format!("{n} games")
    }
}

/// 12345 → "12,345".
fn thousands(v: f64) -> String {
    let digits = format!("{:.0}", v.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if v < -0.5 {
        out.insert(0, '-');
    }
    out
}

/// An axis label: 950, 12k, 1.5k, 1.2M.
fn short(v: f64) -> String {
    let a = v.abs();
    let (x, unit) = if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e3 {
        (v / 1e3, "k")
    } else {
        return format!("{v:.0}");
    };
    if (x - x.round()).abs() < 1e-9 {
        format!("{x:.0}{unit}")
    } else {
        format!("{x:.1}{unit}")
    }
}

/// A budget in words for a title: without its parenthesised remark, e.g. "default: max(3,
/// distinct tiles - 2) within 20 ms" of the same followed by "(under 16 cells: ...)".
fn brief_budget(budget: &str) -> &str {
    match budget.rfind(" (") {
        Some(i) if budget.ends_with(')') => &budget[..i],
        _ => budget,
    }
}

/// A tile's label: 1024, 16384, 131072 (the tile's own number).
fn tile_label(t: u64) -> String {
    t.to_string()
}

/// The band above the panels: the solver and its budget (several: each with its colour, the
/// chart's legend, on one or two lines), then board, games and seed.
fn caption(
    area: &DrawingArea<BitMapBackend<'_>, Shift>,
    config: &SimConfig,
    runs: &[SolverRun],
) -> Result<(), ChartError> {
    let centre = Pos::new(HPos::Center, VPos::Top);
    let x = (WIDTH / 2) as i32;
    let (games, sub_y) = if let [run] = runs {
        area.draw(&Text::new(
            format!("{} · {}", run.name, brief_budget(&run.budget)),
            (x, 14),
            (FONT, 28).into_font().color(&INK).pos(centre),
        ))?;
        (games(config.game_count() as usize), 52)
    } else {
        let bottom = legend(area, runs)?;
        let games = format!("{} games per solver on the same seeds", config.game_count());
        (games, bottom + 6)
    };
    let sub = format!("{} board · {games} · {}", config.shape, config.origin());
    area.draw(&Text::new(
        sub,
        (x, sub_y),
        (FONT, 19).into_font().color(&MUTED).pos(centre),
    ))?;
    Ok(())
}

/// Width of a legend entry's colour swatch, pixels.
const SWATCH: i32 = 18;
/// Gap between a swatch and its text, pixels.
const SWATCH_GAP: i32 = 8;
/// Space between two legend entries on a line, pixels.
const ENTRY_SPACE: i32 = 36;
/// Height the legend may take in the caption band (the rest is the subtitle), pixels.
const LEGEND_H: i32 = 52;
/// Widest a legend line may be, pixels.
const LEGEND_W: i32 = WIDTH as i32 - 40;

/// Packs legend entries whose texts are `widths` pixels wide into lines of at most `max`
/// pixels, in order: the indices of each line's entries. An entry wider than `max` gets a line
/// of its own.
fn legend_lines(widths: &[i32], max: i32) -> Vec<Vec<usize>> {
    let mut lines: Vec<Vec<usize>> = Vec::new();
    let mut used = 0;
    for (i, w) in widths.iter().enumerate() {
        let entry = SWATCH + SWATCH_GAP + w;
        match lines.last_mut() {
            Some(line) if used + ENTRY_SPACE + entry <= max => {
                line.push(i);
                used += ENTRY_SPACE + entry;
            }
            _ => {
                lines.push(vec![i]);
                used = entry;
            }
        }
    }
    lines
}

/// The title of a comparison: a colour swatch and "solver (budget)" per run, on centred lines,
/// in the largest font size (28 to 12 px) whose lines fit the width and [`LEGEND_H`]; returns
/// the legend's bottom, pixels from the band's top.
fn legend(
    area: &DrawingArea<BitMapBackend<'_>, Shift>,
    runs: &[SolverRun],
) -> Result<i32, ChartError> {
    let texts: Vec<String> = runs
        .iter()
        .map(|r| format!("{} ({})", r.name, brief_budget(&r.budget)))
        .collect();
    let mut size = 28;
    let (widths, lines, style) = loop {
        let style = (FONT, size).into_font().color(&INK);
        let widths = texts
            .iter()
            .map(|t| Ok(area.estimate_text_size(t, &style)?.0 as i32))
            .collect::<Result<Vec<i32>, ChartError>>()?;
        let lines = legend_lines(&widths, LEGEND_W);
        if lines.len() as i32 * (size + 8) <= LEGEND_H || size <= 12 {
            break (widths, lines, style);
        }
        size -= 2;
    };
    let line_h = size + 8;
    let top = 6;
    let left = Pos::new(HPos::Left, VPos::Center);
    for (l, line) in lines.iter().enumerate() {
        let total: i32 = line
            .iter()
            .map(|&i| SWATCH + SWATCH_GAP + widths[i] + ENTRY_SPACE)
            .sum::<i32>()
            - ENTRY_SPACE;
        let mut x = (WIDTH as i32 - total).max(0) / 2;
        let y = top + line_h * l as i32 + line_h / 2;
        for &i in line {
            area.draw(&Rectangle::new(
                [(x, y - SWATCH / 2), (x + SWATCH, y + SWATCH / 2)],
                rgb(solver_colour(i)).filled(),
            ))?;
            let text = Text::new(
                texts[i].as_str(),
                (x + SWATCH + SWATCH_GAP, y),
                style.pos(left),
            );
            area.draw(&text)?;
            x += SWATCH + SWATCH_GAP + widths[i] + ENTRY_SPACE;
        }
    }
    Ok(top + line_h * lines.len() as i32)
}

/// The nice bin width nearest to `raw` (by ratio): 1, 2 or 5 times a power of ten, at least 1.
fn nice_width(raw: f64) -> f64 {
    let raw = raw.max(1.0);
    let p = 10f64.powf(raw.log10().floor());
    let ratio = |w: f64| (w / raw).max(raw / w);
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .min_by(|a, b| ratio(*a).total_cmp(&ratio(*b)))
        .unwrap_or(p)
}

/// The bins of `scores`: first bin start, bin width and count per bin.
fn bins(scores: &[f64]) -> (f64, f64, Vec<u32>) {
    let lo = scores.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let k = ((1.5 * (scores.len() as f64).sqrt()).ceil() as usize).clamp(MIN_BINS, MAX_BINS);
    let width = nice_width(((hi - lo) / k as f64).max(hi * 0.02));
    let start = (lo / width).floor() * width;
    let n = (((hi - start) / width).floor() as usize + 1).max(1);
    let mut counts = vec![0u32; n];
    for s in scores {
        counts[(((s - start) / width).floor() as usize).min(n - 1)] += 1;
    }
    (start, width, counts)
}

/// One run's final scores as a histogram, with lines at the mean and the median.
fn score_histogram(
    area: &DrawingArea<BitMapBackend<'_>, Shift>,
    run: &SolverRun,
) -> Result<(), ChartError> {
    let scores: Vec<f64> = run.results.iter().map(|r| r.score as f64).collect();
    let (start, width, counts) = bins(&scores);
    let end = start + width * counts.len() as f64;
    let top = counts.iter().copied().max().unwrap_or(1);
    let y_top = top + (top / 8).max(1);
    let mut chart = ChartBuilder::on(area)
        .margin_left(16)
        .margin_right(24)
        .margin_bottom(12)
        .caption(
            format!("Final score of {}", games(scores.len())),
            (FONT, 21).into_font().color(&INK),
        )
        .x_label_area_size(54)
        .y_label_area_size(64)
        .build_cartesian_2d(start..end, 0u32..y_top)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(WHITE)
        .bold_line_style(GRID)
        .x_desc("final score (points)")
        .y_desc("games")
        .x_label_formatter(&|v| short(*v))
        .label_style((FONT, 15).into_font().color(&INK))
        .axis_desc_style((FONT, 17).into_font().color(&INK))
        .draw()?;
    let fill = rgb(SCORE_COLOUR).filled();
    chart.draw_series(
        counts
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(i, &c)| {
                let x0 = start + width * i as f64;
                let mut bar = Rectangle::new([(x0, 0), (x0 + width, c)], fill);
                bar.set_margin(0, 0, 1, 1);
                bar
            }),
    )?;
    let mean = stats::mean(&scores);
    let median = stats::median(&mut scores.clone());
    for (value, what, colour) in [(median, "median", INK), (mean, "mean", RED)] {
        chart
            .draw_series(LineSeries::new(
                [(value, 0), (value, y_top)],
                colour.stroke_width(2),
            ))?
            .label(format!("{what} {}", thousands(value)))
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], colour.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.9))
        .border_style(GRID)
        .label_font((FONT, 15).into_font().color(&INK))
        .draw()?;
    Ok(())
}

/// The font size of the box plot's solver names, pixels: 15, or less (down to 11) when the
/// longest name is wider than its share of the panel's width.
fn category_label_size(
    area: &DrawingArea<BitMapBackend<'_>, Shift>,
    names: &[String],
    n: usize,
) -> Result<u32, ChartError> {
    let share = (WIDTH * 11 / 20 - 110) / n.max(1) as u32;
    for size in (11..=15).rev() {
        let style = (FONT, size).into_font().color(&INK);
        let widest = names
            .iter()
            .map(|t| Ok(area.estimate_text_size(t, &style)?.0))
            .collect::<Result<Vec<u32>, ChartError>>()?
            .into_iter()
            .max()
            .unwrap_or(0);
        if widest + 6 <= share {
            return Ok(size);
        }
    }
    Ok(11)
}

/// Width of a median label such as "median 341,552" at 14 px, in pixels (a little more).
const MEDIAN_LABEL_PX: f64 = 110.0;

/// How far (in category units) the box plot's x range must reach beyond the last category so
/// that the last box's median label, drawn right of the box (at `BOX_HALF_WIDTH + 0.03`), is not
/// cut off by the plot's edge: `n` boxes in an area `area_px` wide (its left label area and
/// margins, about 104 px, taken off). 0 when the label fits anyway.
fn median_label_room(n: usize, area_px: u32) -> f64 {
    let plot_px = (f64::from(area_px) - 104.0).max(2.0 * MEDIAN_LABEL_PX);
    let per_unit = MEDIAN_LABEL_PX / plot_px;
    ((BOX_HALF_WIDTH + 0.03 - 0.5 + per_unit * n as f64) / (1.0 - per_unit)).max(0.0)
}

/// Several runs' final scores, a box plot each, with a dot per game.
fn score_boxes(
    area: &DrawingArea<BitMapBackend<'_>, Shift>,
    runs: &[SolverRun],
) -> Result<(), ChartError> {
    let n = runs.len();
    let top = runs
        .iter()
        .flat_map(|r| r.results.iter().map(|g| g.score as f64))
        .fold(1.0, f64::max);
    let names: Vec<String> = runs.iter().map(|r| r.name.clone()).collect();
    let label_size = category_label_size(area, &names, n)?;
    let mut x_axis = Ticked::categories(n);
    if n <= MAX_MEDIAN_LABELS {
        x_axis.hi += median_label_room(n, area.dim_in_pixel().0);
    }
    let mut chart = ChartBuilder::on(area)
        .margin_left(16)
        .margin_right(24)
        .margin_bottom(12)
        .caption(
            "Final score of each game",
            (FONT, 21).into_font().color(&INK),
        )
        .x_label_area_size(54)
        .y_label_area_size(64)
        .build_cartesian_2d(x_axis, 0.0..top * 1.08)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(WHITE)
        .bold_line_style(GRID)
        .x_desc("box: quartiles · bar: median · whiskers: lowest and highest · dot: a game")
        .y_desc("final score (points)")
        .x_label_formatter(&|v| names.get(v.round() as usize).cloned().unwrap_or_default())
        .y_label_formatter(&|v| short(*v))
        .label_style((FONT, 15).into_font().color(&INK))
        .x_label_style((FONT, label_size).into_font().color(&INK))
        .axis_desc_style((FONT, 17).into_font().color(&INK))
        .draw()?;
    let half = BOX_HALF_WIDTH;
    for (i, run) in runs.iter().enumerate() {
        let colour = rgb(solver_colour(i));
        let mut scores: Vec<f64> = run.results.iter().map(|r| r.score as f64).collect();
        let q1 = stats::quantile(&mut scores, 0.25);
        let q3 = stats::quantile(&mut scores, 0.75);
        let median = stats::median(&mut scores);
        let (lo, hi) = (scores[0], scores[scores.len() - 1]);
        let x = i as f64;
        chart.draw_series([
            PathElement::new([(x, lo), (x, q1)], INK.stroke_width(1)),
            PathElement::new([(x, q3), (x, hi)], INK.stroke_width(1)),
            PathElement::new(
                [(x - half / 2.0, lo), (x + half / 2.0, lo)],
                INK.stroke_width(2),
            ),
            PathElement::new(
                [(x - half / 2.0, hi), (x + half / 2.0, hi)],
                INK.stroke_width(2),
            ),
        ])?;
        chart.draw_series([
            Rectangle::new([(x - half, q1), (x + half, q3)], colour.filled()),
            Rectangle::new([(x - half, q1), (x + half, q3)], INK.stroke_width(1)),
        ])?;
        // one dot per game, spread across the box so that equal scores stay apart
        let k = run.results.len().max(2) as f64;
        chart.draw_series(run.results.iter().enumerate().map(|(j, g)| {
            let dx = -half * 0.8 + 1.6 * half * j as f64 / (k - 1.0);
            Circle::new((x + dx, g.score as f64), 2, INK.mix(0.45).filled())
        }))?;
        chart.draw_series([PathElement::new(
            [(x - half, median), (x + half, median)],
            INK.stroke_width(3),
        )])?;
        if n > MAX_MEDIAN_LABELS {
            continue;
        }
        chart.draw_series([Text::new(
            format!("median {}", thousands(median)),
            (x + half + 0.03, median),
            (FONT, 14)
                .into_font()
                .color(&INK)
                .pos(Pos::new(HPos::Left, VPos::Center)),
        )])?;
    }
    Ok(())
}

/// The tiles of the reach panel: the powers of two from the smallest largest tile of any game
/// (every game reached it), or the first tile the summaries list if smaller (1024 on 4×4, as
/// `sim` prints them), to the largest tile of any game, at least [`MIN_TILES`] of them
/// (extended downwards), at most [`MAX_TILES`] (the highest kept).
fn chart_tiles(runs: &[SolverRun]) -> Vec<u64> {
    let games = || {
        runs.iter()
            .flat_map(|r| r.results.iter().map(|g| g.max_tile))
    };
    let listed = runs
        .iter()
        .filter_map(|r| r.summary.reach_rates.keys().next())
        .min()
        .map_or(u32::MAX, |t| t.trailing_zeros());
    let lo = games()
        .min()
        .unwrap_or(2)
        .max(2)
        .trailing_zeros()
        .min(listed);
    let hi = games().max().unwrap_or(2).max(2).trailing_zeros();
    let lo = lo.min(hi.saturating_sub(MIN_TILES - 1)).max(1);
    let lo = lo.max(hi.saturating_sub(MAX_TILES - 1));
    (lo..=hi).map(|e| 1u64 << e).collect()
}

/// The share of games reaching each tile of [`chart_tiles`]: one bar per tile, or one group of
/// bars per tile with a bar per run. The rates are those of the summaries (`summarize_with`),
/// over the tiles that tell these runs apart rather than the summaries' fixed list.
fn reach_bars(
    area: &DrawingArea<BitMapBackend<'_>, Shift>,
    runs: &[SolverRun],
) -> Result<(), ChartError> {
    let tiles = chart_tiles(runs);
    let t = tiles.len().max(1);
    let n = runs.len();
    let x_axis = Ticked::categories(t);
    let y_axis = Ticked {
        lo: 0.0,
        hi: 108.0,
        ticks: vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0],
    };
    let mut chart = ChartBuilder::on(area)
        .margin_left(8)
        .margin_right(24)
        .margin_bottom(12)
        .caption(
            "Games whose largest tile reached each tile",
            (FONT, 21).into_font().color(&INK),
        )
        .x_label_area_size(54)
        .y_label_area_size(80)
        .build_cartesian_2d(x_axis, y_axis)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(WHITE)
        .bold_line_style(GRID)
        .x_desc("tile")
        .y_desc("games reaching it (%)")
        .x_label_formatter(&|v| {
            tiles
                .get(v.round() as usize)
                .map(|&t| tile_label(t))
                .unwrap_or_default()
        })
        .y_label_formatter(&|v| format!("{v:.0}%"))
        .label_style((FONT, 15).into_font().color(&INK))
        .axis_desc_style((FONT, 17).into_font().color(&INK))
        .draw()?;
    let bar = GROUP_WIDTH / n as f64;
    let labelled = n * t <= MAX_LABELLED_BARS;
    for (i, run) in runs.iter().enumerate() {
        let rates = summarize_with(&run.results, run.seconds, &tiles).reach_rates;
        let colour = if n == 1 {
            rgb(REACH_COLOUR)
        } else {
            rgb(solver_colour(i))
        };
        let bars: Vec<(f64, f64)> = tiles
            .iter()
            .enumerate()
            .map(|(k, tile)| {
                let x0 = k as f64 - GROUP_WIDTH / 2.0 + bar * i as f64;
                (x0, 100.0 * rates.get(tile).copied().unwrap_or(0.0))
            })
            .collect();
        chart.draw_series(bars.iter().filter(|(_, p)| *p > 0.0).map(|&(x0, p)| {
            let mut r = Rectangle::new([(x0, 0.0), (x0 + bar, p)], colour.filled());
            r.set_margin(0, 0, 1, 1);
            r
        }))?;
        if labelled {
            let size = if n == 1 { 15 } else { 12 };
            chart.draw_series(bars.iter().map(|&(x0, p)| {
                Text::new(
                    format!("{p:.0}%"),
                    (x0 + bar / 2.0, p + 1.0),
                    (FONT, size)
                        .into_font()
                        .color(&INK)
                        .pos(Pos::new(HPos::Center, VPos::Bottom)),
                )
            }))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{AnyBoard, Shape};
    use crate::sim::{summarize, GameEnd, GameResult};

    #[test]
    fn the_last_median_label_fits_inside_the_box_plot() {
        // 2 boxes in 624 px: a 520 px plot, 110/520 of it a label; worked by hand, the range
        // must reach (0.31 - 0.5 + 2 * 0.21154) / (1 - 0.21154) = 0.2956 past the last box
        assert!((median_label_room(2, 624) - 0.2956).abs() < 1e-3);
        // one box in a wide area: its label fits without room
        assert_eq!(median_label_room(1, 1104), 0.0);
        for n in 1..=MAX_MEDIAN_LABELS {
            for width in [400u32, 624, 900, 1400] {
                let room = median_label_room(n, width);
                let hi = n as f64 - 0.5 + room;
                let plot_px = (f64::from(width) - 104.0).max(2.0 * MEDIAN_LABEL_PX);
                let label_units = MEDIAN_LABEL_PX * (n as f64 + room) / plot_px;
                let label_end = (n - 1) as f64 + BOX_HALF_WIDTH + 0.03 + label_units;
                assert!(
                    label_end <= hi + 1e-9,
                    "n {n}, {width} px: {label_end} > {hi}"
                );
            }
        }
    }

    fn game(score: u64, max_tile: u64) -> GameResult {
        GameResult {
            index: 0,
            seed: 0,
            score,
            max_tile,
            moves: 100,
            resumed_at: 0,
            end: GameEnd::GameOver,
            decision_ms: vec![0.5; 100],
            exact_decisions: 0,
            final_board: AnyBoard::empty(Shape::FOUR),
            spawn: crate::engine::SpawnRule::Classic,
            first_reached: Vec::new(),
            resume_points: Vec::new(),
        }
    }

    fn run(name: &str, games: Vec<GameResult>) -> SolverRun {
        SolverRun {
            name: name.to_string(),
            budget: "depth 1".to_string(),
            summary: summarize(Shape::FOUR, &games, 1.0),
            results: games,
            seconds: 1.0,
        }
    }

    /// The chart as written to a file and read back, and how many pixels have each colour.
    fn drawn(runs: &[SolverRun]) -> (image::DynamicImage, impl Fn([u8; 3]) -> usize) {
        let config = SimConfig::new(Shape::FOUR, runs[0].results.len() as u32, 7);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("chart.png");
        write_png(&draw(&config, runs).unwrap(), &path, false).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        let img = image::load_from_memory_with_format(&bytes, ImageFormat::Png).unwrap();
        let rgb = img.to_rgb8();
        let count = move |c: [u8; 3]| rgb.pixels().filter(|p| p.0 == c).count();
        (img, count)
    }

    #[test]
    fn one_run_is_a_png_of_the_stated_size_with_both_series() {
        let games: Vec<GameResult> = (0..20).map(|i| game(20_000 + 1000 * i, 2048)).collect();
        let (img, count) = drawn(&[run("expectimax", games)]);
        assert_eq!((img.width(), img.height()), (WIDTH, HEIGHT));
        assert!(count(SCORE_COLOUR) > 2000, "{}", count(SCORE_COLOUR));
        assert!(count(REACH_COLOUR) > 2000, "{}", count(REACH_COLOUR));
        for c in PALETTE {
            assert_eq!(count(c), 0, "{c:?} is a comparison's colour");
        }
    }

    #[test]
    fn reach_bars_are_as_tall_as_their_rates() {
        // Every game at 2048: tiles 256..=2048, four bars of 100 %. Half the games at 1024:
        // the same tiles at 100, 100, 100 and 50 %, so 3.5/4 of the yellow area.
        let all: Vec<GameResult> = (0..8).map(|i| game(30_000 + i, 2048)).collect();
        let half: Vec<GameResult> = (0..8)
            .map(|i| game(30_000 + i, if i % 2 == 0 { 2048 } else { 1024 }))
            .collect();
        let (_, full) = drawn(&[run("a", all)]);
        let (_, part) = drawn(&[run("a", half)]);
        let ratio = part(REACH_COLOUR) as f64 / full(REACH_COLOUR) as f64;
        assert!((ratio - 0.875).abs() < 0.02, "{ratio}");
    }

    #[test]
    fn a_comparison_has_each_solvers_colour() {
        let a: Vec<GameResult> = (0..10).map(|i| game(30_000 + 500 * i, 2048)).collect();
        let b: Vec<GameResult> = (0..10).map(|i| game(3_000 + 100 * i, 256)).collect();
        let (img, count) = drawn(&[run("expectimax", a), run("greedy", b)]);
        assert_eq!((img.width(), img.height()), (WIDTH, HEIGHT));
        for c in &PALETTE[..2] {
            assert!(count(*c) > 1000, "{c:?}: {}", count(*c));
        }
        for c in [PALETTE[2], SCORE_COLOUR, REACH_COLOUR] {
            assert_eq!(count(c), 0, "{c:?}");
        }
    }

    #[test]
    fn legend_entries_wrap_onto_lines_that_fit() {
        // an entry is 18 + 8 + 200 = 226 px, 36 px apart: four take 4 * 226 + 3 * 36 = 1012 px,
        // five 1274 px, more than 1240
        assert_eq!(
            legend_lines(&[200; 6], 1240),
            vec![vec![0, 1, 2, 3], vec![4, 5]]
        );
        assert_eq!(legend_lines(&[100, 100], 1240), vec![vec![0, 1]]);
        assert_eq!(legend_lines(&[2000, 10], 1240), vec![vec![0], vec![1]]);
    }

    #[test]
    fn six_solvers_legend_stays_inside_the_chart() {
        // the six entries of `sim --compare expectimax,greedy,montecarlo,aco,bfs,ntuple`
        // once ran off the right edge on one line
        let names = ["expectimax", "greedy", "montecarlo", "aco", "bfs", "ntuple"];
        let runs: Vec<SolverRun> = names
            .iter()
            .enumerate()
            .map(|(k, name)| {
                let games = (0..6)
                    .map(|i| game(1000 * (k as u64 + 1) + i, 256))
                    .collect();
                let mut r = run(name, games);
                r.budget = "ignores budgets of 20 ms a move".to_string();
                r
            })
            .collect();
        let (img, count) = drawn(&runs);
        let rgb = img.to_rgb8();
        for y in 0..CAPTION_H {
            for x in (0..16).chain(WIDTH - 16..WIDTH) {
                assert_eq!(rgb.get_pixel(x, y).0, [255, 255, 255], "ink at ({x}, {y})");
            }
        }
        for c in &PALETTE[..6] {
            assert!(count(*c) > 100, "{c:?}: {}", count(*c));
        }
    }

    #[test]
    fn the_path_must_be_a_new_png_in_a_folder() {
        let dir = tempfile::tempdir().unwrap();
        let txt = dir.path().join("c.txt");
        assert!(matches!(check_path(&txt, true), Err(ChartError::NotPng(_))));
        let lost = dir.path().join("no/such/c.png");
        assert!(matches!(
            check_path(&lost, false),
            Err(ChartError::NoFolder { .. })
        ));
        let png = dir.path().join("c.PNG");
        check_path(&png, false).unwrap();
        std::fs::write(&png, b"keep me").unwrap();
        let err = check_path(&png, false).unwrap_err();
        assert!(err.to_string().contains("--force"), "{err}");
        check_path(&png, true).unwrap();
        let img = RgbImage::new(3, 2);
        assert!(matches!(
            write_png(&img, &png, false),
            Err(ChartError::Exists(_))
        ));
        assert_eq!(std::fs::read(&png).unwrap(), b"keep me");
        write_png(&img, &png, true).unwrap();
        assert_eq!(image::open(&png).unwrap().width(), 3);
    }

    #[test]
    fn bins_and_labels() {
        assert_eq!(nice_width(6800.0), 5000.0);
        assert_eq!(nice_width(8000.0), 10_000.0);
        assert_eq!(nice_width(1.4), 1.0);
        assert_eq!(nice_width(0.2), 1.0);
        // 9 scores from 1000 to 9000: 6 bins wanted, (9000-1000)/6 = 1333 -> 1000 wide
        let scores: Vec<f64> = (1..=9).map(|i| 1000.0 * i as f64).collect();
        let (start, width, counts) = bins(&scores);
        assert_eq!((start, width), (1000.0, 1000.0));
        assert_eq!(counts, vec![1; 9]);
        assert_eq!(thousands(1_234_567.0), "1,234,567");
        assert_eq!(thousands(999.0), "999");
        assert_eq!(short(12_000.0), "12k");
        assert_eq!(short(1_500.0), "1.5k");
        assert_eq!(short(2_000_000.0), "2M");
    }

    #[test]
    fn titles_leave_out_the_budgets_remark() {
        assert_eq!(
            brief_budget("default: max(3, distinct tiles - 2) within 20 ms (under 16 cells: as deep as 20 ms allows)"),
            "default: max(3, distinct tiles - 2) within 20 ms"
        );
        assert_eq!(
            brief_budget("depth 2 within 50 ms a move"),
            "depth 2 within 50 ms a move"
        );
        assert_eq!(
            brief_budget("default: option rollouts"),
            "default: option rollouts"
        );
    }

    #[test]
    fn the_reach_panel_spans_the_tiles_the_games_ended_on() {
        let r = |tiles: &[u64]| run("a", tiles.iter().map(|&t| game(1, t)).collect());
        assert_eq!(
            chart_tiles(&[r(&[256, 4096])]),
            [256, 512, 1024, 2048, 4096]
        );
        assert_eq!(chart_tiles(&[r(&[2048])]), [256, 512, 1024, 2048]);
        // every game past 1024, which the text lists first on 4x4: the panel shows it too
        assert_eq!(
            chart_tiles(&[r(&[2048, 16384])]),
            [1024, 2048, 4096, 8192, 16384]
        );
        assert_eq!(chart_tiles(&[r(&[4]), r(&[8])]), [2, 4, 8]);
        assert_eq!(
            chart_tiles(&[r(&[2, 4096])]),
            (3..=12).map(|e| 1u64 << e).collect::<Vec<_>>()
        );
    }
}
