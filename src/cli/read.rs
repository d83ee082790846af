//! `bot2048 read (IMAGE... | --window TITLE | --region X,Y,W,H) [--profile NAME|PATH|auto] [--json]
//! [--annotate OUT.png] [--save FRAME.png] [--force]`: reads the board from screenshots, or from
//! the live frame of a game window or screen region (issues 3 and 14).
//!
//! Plain output is the label format of the test corpus (`?` for an unreadable cell); for several
//! images a line with the file name precedes each board. Outputs (`--annotate`, `--save`) are
//! checked before anything is read ([`super::output::check_outputs`]): never an input, never an
//! existing file without `--force`, in the format the extension names. Exit codes: see
//! [`super::exit`] (0 read; 5 no board; 6 unreadable cells; 1 a bad file; 2 bad arguments; 7 no
//! X display; 8 no such window).
use super::exit::{self, UsageError};
use super::output::{check_outputs, write_image, ImageKind};
use crate::capture::{FrameSource, Rect};
use crate::platform;
use crate::vision::io::load_image;
use crate::vision::labels::format_board;
use crate::vision::{annotate, profile, ReadError, Reader, Reading};
use anyhow::Context;
use clap::Args;
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Real uses of `read`, at the end of its `--help`.
pub const EXAMPLES: &[super::Example] = &[
    (
        "bot2048 read shot.png",
        "print the board in a screenshot (0 = empty, ? = unreadable)",
    ),
    (
        "bot2048 read --json a.png b.png",
        "read two screenshots; one JSON array, with each cell's confidence",
    ),
    (
        "bot2048 read --window \"GNOME 2048\" --annotate seen.png",
        "read the live game window and draw what was read into seen.png",
    ),
];

fn after_help() -> String {
    super::long_help_end(
        exit::help_text(&[
            exit::OK,
            exit::ERROR,
            exit::USAGE,
            exit::NO_BOARD,
            exit::UNREADABLE,
            exit::NO_DISPLAY,
            exit::NO_WINDOW,
        ]),
        EXAMPLES,
    )
}

/// Arguments of `bot2048 read`.
#[derive(Debug, Args)]
#[command(
    group(clap::ArgGroup::new("source").required(true).args(["images", "window", "region"])),
    after_long_help = after_help()
)]
pub struct ReadArgs {
    /// Screenshots to read (PNG or JPEG).
    #[arg(value_name = "IMAGE")]
    pub images: Vec<PathBuf>,
    /// Read the live frame of this game window instead (`bot2048 windows` lists them).
    ///
    /// Its title (exact, then case-insensitive, then a substring) or app name; `bot2048 windows`
    /// lists them. The window is captured even when something covers it (covered parts come back
    /// black; a warning names the window above).
    #[arg(long, short = 'w', value_name = "TITLE")]
    pub window: Option<String>,
    /// Read the live frame of this screen rectangle instead.
    ///
    /// X,Y,W,H in screen pixels.
    #[arg(long, value_name = "X,Y,W,H", value_parser = Rect::parse)]
    pub region: Option<Rect>,
    /// Calibration profile: a name, a TOML file, or `auto`.
    ///
    /// A built-in name (gnome-2048, 2048-qt, web-2048), the name of a user profile (made by
    /// `bot2048 calibrate`), a TOML file path, or `auto` (every built-in and user profile; the
    /// best fit wins).
    #[arg(long, default_value = "auto", value_name = "NAME|PATH|auto")]
    pub profile: String,
    /// Print JSON instead of the board.
    ///
    /// Per image: its size, the grid rectangle, rows, columns, each cell's value and confidence,
    /// status, profile and time taken (an array for several images).
    #[arg(long)]
    pub json: bool,
    /// Write the image with what was read drawn on it.
    ///
    /// The grid, each cell's value and confidence (green read, red unreadable). When no board is found, it shows where the reader looked: a
    /// red frame around the area searched, and the pixels of the profiles' board colours in
    /// magenta. PNG or JPEG by the extension. With several images, `OUT-<image stem>.<ext>` for
    /// each.
    #[arg(long, value_name = "OUT.png")]
    pub annotate: Option<PathBuf>,
    /// With --window or --region: also save the frame as captured.
    ///
    /// PNG or JPEG by the extension; e.g. to make a labelled screenshot for `calibrate --from`.
    #[arg(long, value_name = "FRAME.png")]
    pub save: Option<PathBuf>,
    /// Overwrite existing --annotate / --save files.
    ///
    /// An input image is never overwritten.
    #[arg(long)]
    pub force: bool,
}

/// Outcome of one image, ordered by severity; each has its exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    Read,
    Unreadable,
    NoBoard,
    Failed,
}

impl Outcome {
    fn code(self) -> u8 {
        match self {
            Outcome::Read => exit::OK,
            Outcome::Unreadable => exit::UNREADABLE,
            Outcome::NoBoard => exit::NO_BOARD,
            Outcome::Failed => exit::ERROR,
        }
    }
}

/// Where a frame comes from.
enum Source<'a> {
    File(&'a Path),
    Live,
}

/// Runs `bot2048 read`.
///
/// # Errors
/// A bad `--profile`, a refused output path (exit 2), a live capture that fails (no display, no
/// such window); per-image errors are reported and counted in the exit code.
pub fn run(args: ReadArgs) -> anyhow::Result<ExitCode> {
    if args.save.is_some() && args.window.is_none() && args.region.is_none() {
        return Err(UsageError("--save needs --window or --region (a live frame)".into()).into());
    }
    let resolved =
        profile::resolve(&args.profile).with_context(|| format!("--profile {}", args.profile))?;
    for w in &resolved.warnings {
        eprintln!("bot2048: warning: {w}");
    }
    let sources: Vec<Source> = if args.images.is_empty() {
        vec![Source::Live]
    } else {
        args.images.iter().map(|p| Source::File(p)).collect()
    };
    let many = sources.len() > 1;
    let annotate_targets = check_all_outputs(&args, &sources, many)?;
    let mut reader = Reader::new(resolved.choice);
    let mut worst = Outcome::Read;
    let mut reports = Vec::new();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for (i, source) in sources.iter().enumerate() {
        let (mut report, img) = read_source(&args, &mut reader, source)?;
        if let Some(message) = report.message() {
            eprintln!("bot2048: {message}");
        }
        if !args.json {
            write!(out, "{}", report.text(many))?;
        }
        worst = worst.max(report.outcome());
        if let (Some(target), Some(img)) = (annotate_targets.get(i), img) {
            let drawn = annotated(&reader, &img, &report.result);
            if let Err(e) = write_image(target, &drawn, args.force) {
                if matches!(source, Source::Live) {
                    return Err(e);
                }
                eprintln!("bot2048: error: {e:#}");
                worst = worst.max(Outcome::Failed);
            }
            report.annotated = Some(target.clone());
        }
        reports.push(report);
    }
    if args.json {
        let mut json_out: Vec<serde_json::Value> = reports.iter().map(ImageReport::json).collect();
        let v = if many {
            serde_json::Value::Array(json_out)
        } else {
            json_out.pop().unwrap_or_default()
        };
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
    }
    out.flush()?;
    Ok(ExitCode::from(worst.code()))
}

/// Checks every output before anything is read or written; returns the `--annotate` file of each
/// source.
fn check_all_outputs(
    args: &ReadArgs,
    sources: &[Source],
    many: bool,
) -> anyhow::Result<Vec<PathBuf>> {
    let mut annotate_targets = Vec::new();
    if let Some(out) = &args.annotate {
        ImageKind::of(out)?;
        for s in sources {
            annotate_targets.push(match s {
                Source::File(img) => annotate_path(out, img, many),
                Source::Live => out.clone(),
            });
        }
    }
    let mut outputs = annotate_targets.clone();
    if let Some(save) = &args.save {
        ImageKind::of(save)?;
        outputs.push(save.clone());
    }
    check_outputs(&outputs, &args.images, args.force)?;
    Ok(annotate_targets)
}

/// What reading one image gave: one value, rendered as text ([`ImageReport::text`]) or as JSON
/// ([`ImageReport::json`]).
struct ImageReport {
    /// How messages name the image: its path, or the window or region.
    shown: String,
    /// The image's width and height in pixels (0 when it did not load).
    size: (u32, u32),
    /// The read, or why there is none.
    result: ImageResult,
    /// Time the read took, ms.
    ms: f64,
    /// The annotated image written, if any.
    annotated: Option<PathBuf>,
    /// What a live capture adds to the JSON (`window` or `region`); an empty object for files.
    capture: serde_json::Value,
}

/// The read of one image, or why there is none.
enum ImageResult {
    /// The file did not load: the error.
    LoadFailed(String),
    /// No board found: the error and the profiles tried.
    NoBoard {
        error: ReadError,
        profiles_tried: Vec<String>,
    },
    /// A board read (perhaps with unreadable cells).
    Read(Reading),
}

impl ImageReport {
    /// The image's outcome, for the exit code.
    fn outcome(&self) -> Outcome {
        match &self.result {
            ImageResult::LoadFailed(_) => Outcome::Failed,
            ImageResult::NoBoard { .. } => Outcome::NoBoard,
            ImageResult::Read(r) if !r.issues.is_empty() => Outcome::Unreadable,
            ImageResult::Read(_) => Outcome::Read,
        }
    }

    /// The message for stderr (without the `bot2048: ` prefix), if any.
    fn message(&self) -> Option<String> {
        let shown = &self.shown;
        match &self.result {
            ImageResult::LoadFailed(e) => Some(format!("error: {e}")),
            ImageResult::NoBoard { error, .. } => Some(format!("{shown}: {error}")),
            ImageResult::Read(r) if !r.issues.is_empty() => {
                let err = ReadError::Unreadable {
                    issues: r.issues.clone(),
                };
                Some(format!("{shown}: {err}"))
            }
            ImageResult::Read(_) => None,
        }
    }

    /// The plain output: the board in the label format, after a line naming the image when
    /// there are `many`.
    fn text(&self, many: bool) -> String {
        let header = if many {
            format!("{}\n", self.shown)
        } else {
            String::new()
        };
        match &self.result {
            ImageResult::LoadFailed(_) => String::new(),
            ImageResult::NoBoard { .. } => header,
            ImageResult::Read(r) => header + &format_board(&r.cells_by_row()),
        }
    }

    /// The `--json` object.
    fn json(&self) -> serde_json::Value {
        let (width, height) = self.size;
        let mut value = match &self.result {
            ImageResult::LoadFailed(e) => {
                return json!({ "file": self.shown, "error": e, "status": "error" });
            }
            ImageResult::NoBoard {
                error,
                profiles_tried,
            } => json!({
                "file": self.shown,
                "image": { "width": width, "height": height },
                "status": "no_board", "error": error.to_string(), "time_ms": self.ms,
                "profiles_tried": profiles_tried,
            }),
            ImageResult::Read(r) => reading_json(&self.shown, self.size, r, self.ms),
        };
        if let Some(obj) = value.as_object_mut() {
            if let Some(target) = &self.annotated {
                obj.insert("annotated".into(), json!(target.display().to_string()));
            }
            if let Some(e) = self.capture.as_object() {
                for (k, v) in e {
                    obj.insert(k.clone(), v.clone());
                }
            }
        }
        value
    }
}

/// Loads or captures one source (saving a live frame with `--save`) and reads it; returns the
/// report and the image, if there is one.
fn read_source(
    args: &ReadArgs,
    reader: &mut Reader,
    source: &Source,
) -> anyhow::Result<(ImageReport, Option<image::RgbaImage>)> {
    let (img, shown, capture) = match source {
        Source::File(path) => match load_image(path) {
            Ok(img) => (img, path.display().to_string(), json!({})),
            Err(e) => {
                let report = ImageReport {
                    shown: path.display().to_string(),
                    size: (0, 0),
                    result: ImageResult::LoadFailed(e.to_string()),
                    ms: 0.0,
                    annotated: None,
                    capture: json!({}),
                };
                return Ok((report, None));
            }
        },
        Source::Live => {
            let (img, shown, capture) = live_frame(args)?;
            if let Some(save) = &args.save {
                write_image(save, &img, args.force)?;
            }
            (img, shown, capture)
        }
    };
    reader.forget_grid();
    let start = Instant::now();
    let read = reader.read(&img);
    let ms = start.elapsed().as_secs_f64() * 1e3;
    let result = match read {
        Ok(reading) => ImageResult::Read(reading),
        Err(error) => ImageResult::NoBoard {
            error,
            profiles_tried: reader.profile_names(),
        },
    };
    let report = ImageReport {
        shown,
        size: img.dimensions(),
        result,
        ms,
        annotated: None,
        capture,
    };
    Ok((report, Some(img)))
}

/// The `--annotate` picture: what was read, or where the reader looked when it found no board.
fn annotated(reader: &Reader, img: &image::RgbaImage, result: &ImageResult) -> image::RgbaImage {
    match result {
        ImageResult::Read(reading) => annotate::annotate(img, reading),
        _ => {
            let colours: Vec<_> = reader
                .board_colours()
                .into_iter()
                .map(|(_, c, t)| (c, t))
                .collect();
            annotate::annotate_search(img, &colours)
        }
    }
}

/// Captures the live frame of `--window` or `--region`: the image, how to name it in messages,
/// and what to add to the JSON (`window` or `region`).
fn live_frame(args: &ReadArgs) -> anyhow::Result<(image::RgbaImage, String, serde_json::Value)> {
    let desktop = platform::desktop()?;
    if let Some(r) = args.region {
        let mut src = desktop.region(r).context("capturing --region")?;
        let frame = src.next_frame().context("capturing --region")?;
        let region = json!({ "x": r.x, "y": r.y, "width": r.width, "height": r.height });
        return Ok((
            frame.image,
            format!("region {r}"),
            json!({ "region": region }),
        ));
    }
    let title = args.window.as_deref().unwrap_or_default();
    let mut src = desktop
        .find(title)
        .with_context(|| format!("finding the window `{title}`"))?;
    let (frame, above) = src
        .snapshot()
        .with_context(|| format!("capturing the window `{title}`"))?;
    let info = src.info().clone();
    for w in &above {
        eprintln!(
            "bot2048: warning: window `{}` ({}) is above `{}`: the parts it covers capture black",
            w.title, w.class, info.title
        );
    }
    let window = json!({
        "id": info.id, "title": info.title, "app": info.class,
        "x": frame.origin.0, "y": frame.origin.1,
        "width": frame.image.width(), "height": frame.image.height(),
        "covered_by": above.iter().map(|w| w.title.clone()).collect::<Vec<_>>(),
    });
    Ok((
        frame.image,
        format!("window `{}`", info.title),
        json!({ "window": window }),
    ))
}

/// Where the annotated image of `image` goes: `out` for one image; `OUT-<image stem>.<ext>`
/// beside `out` for several.
fn annotate_path(out: &Path, image: &Path, many: bool) -> PathBuf {
    if !many {
        return out.to_path_buf();
    }
    let stem = out
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("annotated");
    let ext = out.extension().and_then(|s| s.to_str()).unwrap_or("png");
    let img = image
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("image");
    out.with_file_name(format!("{stem}-{img}.{ext}"))
}

/// The `--json` object of one reading.
fn reading_json(
    file: &str,
    (width, height): (u32, u32),
    r: &Reading,
    ms: f64,
) -> serde_json::Value {
    let cells: Vec<Vec<serde_json::Value>> = r
        .cells
        .chunks(r.grid.cols)
        .map(|row| {
            row.iter()
                .map(|c| json!({ "value": c.value, "confidence": c.confidence }))
                .collect()
        })
        .collect();
    json!({
        "file": file,
        "image": { "width": width, "height": height },
        "grid": { "x": r.grid.x, "y": r.grid.y, "width": r.grid.width, "height": r.grid.height },
        "rows": r.grid.rows,
        "cols": r.grid.cols,
        "cells": cells,
        "status": r.status,
        "profile": r.profile,
        "issues": r.issues,
        "time_ms": ms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn several_images_get_one_annotated_file_each_in_the_asked_format() {
        let out = Path::new("dir/seen.jpg");
        assert_eq!(
            annotate_path(out, Path::new("a/shot.png"), true),
            PathBuf::from("dir/seen-shot.jpg")
        );
        assert_eq!(annotate_path(out, Path::new("a/shot.png"), false), out);
    }
}
