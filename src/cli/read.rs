//! `bot2048 read IMAGE... [--profile NAME|PATH|auto] [--json] [--annotate OUT.png]`: reads the
//! board from screenshots (issue 3).
//!
//! Plain output is the label format of `../shared/corpus` (`?` for an unreadable cell); for
//! several images a line with the file name precedes each board. Exit status: 0 every image
//! read; 2 a board was not found or had unreadable cells (stderr says which and why); 1 any
//! other error (missing, empty, corrupt, huge or non-image file; bad profile).
use crate::vision::io::load_image;
use crate::vision::labels::format_board;
use crate::vision::{annotate, Profile, ProfileChoice, ReadError, Reader, Reading};
use anyhow::Context;
use clap::Args;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Arguments of `bot2048 read`.
#[derive(Debug, Args)]
pub struct ReadArgs {
    /// Screenshots to read (PNG or JPEG).
    #[arg(required = true, value_name = "IMAGE")]
    pub images: Vec<PathBuf>,
    /// Calibration profile: a built-in name, a profile name from the user profile directory,
    /// a TOML file path, or `auto` (the best-fitting built-in profile).
    #[arg(long, default_value = "auto", value_name = "NAME|PATH|auto")]
    pub profile: String,
    /// Print JSON: image size, grid rectangle, rows, columns, each cell's value and
    /// confidence, status, profile and time taken.
    #[arg(long)]
    pub json: bool,
    /// Write the image with the grid and each cell's value and confidence drawn on it. With
    /// several images, `OUT-<image stem>.png` for each.
    #[arg(long, value_name = "OUT.png")]
    pub annotate: Option<PathBuf>,
}

/// Parses `--profile`.
///
/// # Errors
/// The profile cannot be loaded.
pub fn profile_choice(name: &str) -> anyhow::Result<ProfileChoice> {
    if name == "auto" {
        return Ok(ProfileChoice::Auto);
    }
    Ok(ProfileChoice::Given(
        Profile::load(name).with_context(|| format!("--profile {name}"))?,
    ))
}

/// Outcome of one image, ordered by severity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    Read,
    NotRead,
    Failed,
}

/// Runs `bot2048 read`.
///
/// # Errors
/// A bad `--profile` (exit 1 via `main`); per-image errors are reported and counted.
pub fn run(args: ReadArgs) -> anyhow::Result<ExitCode> {
    let mut reader = Reader::new(profile_choice(&args.profile)?);
    let many = args.images.len() > 1;
    let mut worst = Outcome::Read;
    let mut json_out = Vec::new();
    for path in &args.images {
        let (outcome, value) = read_one(&mut reader, path, &args, many);
        worst = worst.max(outcome);
        if let Some(v) = value {
            json_out.push(v);
        }
    }
    if args.json {
        let v = if many {
            serde_json::Value::Array(json_out)
        } else {
            json_out.pop().unwrap_or_default()
        };
        println!("{}", serde_json::to_string_pretty(&v)?);
    }
    Ok(match worst {
        Outcome::Read => ExitCode::SUCCESS,
        Outcome::NotRead => ExitCode::from(2),
        Outcome::Failed => ExitCode::from(1),
    })
}

fn annotate_path(out: &Path, image: &Path, many: bool) -> PathBuf {
    if !many {
        return out.to_path_buf();
    }
    let stem = out
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("annotated");
    let img = image
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("image");
    out.with_file_name(format!("{stem}-{img}.png"))
}

fn read_one(
    reader: &mut Reader,
    path: &Path,
    args: &ReadArgs,
    many: bool,
) -> (Outcome, Option<serde_json::Value>) {
    let shown = path.display().to_string();
    let img = match load_image(path) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("bot2048: error: {e}");
            let v = json!({ "file": shown, "error": e.to_string(), "status": "error" });
            return (Outcome::Failed, Some(v));
        }
    };
    reader.forget_grid();
    let start = Instant::now();
    let result = reader.read(&img);
    let ms = start.elapsed().as_secs_f64() * 1e3;
    match result {
        Err(e) => {
            eprintln!("bot2048: {shown}: {e}");
            let v = json!({
                "file": shown,
                "image": { "width": img.width(), "height": img.height() },
                "status": "unreadable", "error": e.to_string(), "time_ms": ms,
            });
            if many && !args.json {
                println!("{shown}");
            }
            (Outcome::NotRead, Some(v))
        }
        Ok(reading) => {
            let mut outcome = Outcome::Read;
            if !reading.issues.is_empty() {
                let err = ReadError::Unreadable {
                    issues: reading.issues.clone(),
                };
                eprintln!("bot2048: {shown}: {err}");
                outcome = Outcome::NotRead;
            }
            if let Some(out) = &args.annotate {
                let target = annotate_path(out, path, many);
                if let Err(e) = annotate::annotate(&img, &reading)
                    .save_with_format(&target, image::ImageFormat::Png)
                {
                    eprintln!("bot2048: error: cannot write {}: {e}", target.display());
                    outcome = Outcome::Failed;
                }
            }
            if !args.json {
                if many {
                    println!("{shown}");
                }
                print!("{}", format_board(&reading.cells_by_row()));
            }
            (outcome, Some(reading_json(&shown, &img, &reading, ms)))
        }
    }
}

/// The `--json` object of one reading.
fn reading_json(file: &str, img: &image::RgbaImage, r: &Reading, ms: f64) -> serde_json::Value {
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
        "image": { "width": img.width(), "height": img.height() },
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
