//! `bot2048 calibrate (--from DIR | --window TITLE) [--name NAME] [--out PATH] [--force]`:
//! learns a calibration profile (issue 4).
//!
//! `--from DIR` learns from labelled screenshots (images with `.txt` labels beside them).
//! `--window TITLE` (live calibration by playing) is not wired yet: it returns a clear error; the
//! library side is [`crate::vision::calibrate::Learner`], which takes (image, board) pairs from
//! any source. The profile is written atomically (temporary file + rename) and never over an
//! existing file without `--force`.
use crate::vision::calibrate::{LearnReport, Learner};
use crate::vision::io::load_image;
use crate::vision::labels::{labelled_images, Label};
use crate::vision::profile::{is_plain_name, user_dir};
use crate::vision::{Profile, ProfileChoice, Reader};
use anyhow::{bail, Context};
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `bot2048 calibrate`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["from", "window"])))]
pub struct CalibrateArgs {
    /// Learn from the labelled screenshots in this directory (image + `.txt` label pairs).
    #[arg(long, value_name = "DIR")]
    pub from: Option<PathBuf>,
    /// Learn live by playing the game window with this title (title or app name, as `play`).
    #[arg(long, value_name = "TITLE")]
    pub window: Option<String>,
    /// Live: play at most this many moves while learning.
    #[arg(long, default_value_t = 400, value_name = "N")]
    pub moves: u64,
    /// Live: stop learning once this tile is on the board.
    #[arg(long, default_value_t = 512, value_name = "TILE")]
    pub until: u32,
    /// Profile name (default: the directory's name).
    #[arg(long)]
    pub name: Option<String>,
    /// Where to write the profile (default: `<user profile dir>/<name>.toml`).
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// Overwrite an existing profile file.
    #[arg(long)]
    pub force: bool,
}

/// Runs `bot2048 calibrate`.
///
/// # Errors
/// No source, `--window` (not available yet), an unreadable directory or image, nothing
/// learned, an existing output without `--force`, or a failed write.
pub fn run(args: CalibrateArgs) -> anyhow::Result<ExitCode> {
    if let Some(title) = &args.window {
        return run_live(title, &args);
    }
    let Some(dir) = &args.from else {
        bail!("give --from DIR or --window TITLE")
    };
    let name = match &args.name {
        Some(n) => n.clone(),
        None => dir
            .canonicalize()
            .ok()
            .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "custom".into()),
    };
    if !is_plain_name(&name) {
        bail!("profile name {name:?} may only hold letters, digits, '-', '_' and '.'");
    }
    let out = output_path(args.out.as_deref(), &name, args.force)?;
    let pairs = labelled_images(dir).with_context(|| format!("cannot list {}", dir.display()))?;
    if pairs.is_empty() {
        bail!(
            "{} holds no image with a .txt label beside it",
            dir.display()
        );
    }
    let mut learner = Learner::new(&name);
    let mut images = Vec::new();
    for (img_path, txt) in &pairs {
        let img = load_image(img_path)?;
        let text = std::fs::read_to_string(txt)
            .with_context(|| format!("cannot read {}", txt.display()))?;
        let label = Label::parse(&text).with_context(|| format!("label {}", txt.display()))?;
        let origin = img_path.file_name().map_or_else(
            || img_path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        learner.add(&origin, img.clone(), label.clone());
        images.push((origin, img, label));
    }
    let (profile, report) = learner.finish()?;
    write_atomic(&out, &profile.to_toml())?;
    print_report(&report, &out);
    check(&profile, &images);
    Ok(ExitCode::SUCCESS)
}

/// Writes `text` to `path` through a temporary file in the same directory and a rename, so a
/// crash leaves either the old file or the new one, whole.
///
/// # Errors
/// The directory cannot be created or written.
pub fn write_atomic(path: &Path, text: &str) -> anyhow::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let file_name = path
        .file_name()
        .map_or_else(|| "profile".into(), |n| n.to_string_lossy().into_owned());
    let tmp = dir.join(format!(".{file_name}.tmp-{}", std::process::id()));
    let result = (|| -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(e).with_context(|| format!("cannot write {}", path.display()));
    }
    Ok(())
}

fn print_report(r: &LearnReport, out: &Path) {
    println!("wrote {}", out.display());
    println!("images used: {}", r.used.len());
    for (f, why) in &r.skipped {
        println!("skipped {f}: {why}");
    }
    println!("tile values learned: {:?}", r.values);
    println!(
        "values never seen (not readable by colour): {:?}",
        r.missing_values
    );
    println!("digits learned: {:?}", r.digits);
    let missing: Vec<u8> = (0..10).filter(|d| !r.digits.contains(d)).collect();
    if !missing.is_empty() {
        println!("digits not seen (built-in templates will be used): {missing:?}");
    }
    for o in &r.overlays {
        println!("overlay: {o}");
    }
}

/// Reads the training images back with the new profile and prints cells matched.
fn check(profile: &Profile, images: &[(String, image::RgbaImage, Label)]) {
    let mut reader = Reader::new(ProfileChoice::Given(profile.clone()));
    for (name, img, label) in images {
        reader.forget_grid();
        let got = match reader.read(img) {
            Ok(r) => r.cells_by_row(),
            Err(e) => {
                println!("check {name}: {e}");
                continue;
            }
        };
        let total = label.cells.iter().flatten().count();
        let ok = label
            .cells
            .iter()
            .flatten()
            .zip(got.iter().flatten())
            .filter(|(a, b)| a == b)
            .count();
        println!("check {name}: {ok}/{total} cells as labelled");
    }
}

/// `calibrate --window TITLE`: plays the game (expectimax, depth 2) and learns from every settled
/// frame, labelled by the engine ([`crate::play::calibrate::collect`]); then as `--from`.
fn run_live(title: &str, args: &CalibrateArgs) -> anyhow::Result<ExitCode> {
    use crate::input::FocusMode;
    use crate::play::live::LiveGame;
    let name = match &args.name {
        Some(n) => n.clone(),
        None => title
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .collect(),
    };
    if !is_plain_name(&name) {
        bail!("profile name {name:?} may only hold letters, digits, '-', '_' and '.'; give --name");
    }
    let out = output_path(args.out.as_deref(), &name, args.force)?;
    let mut game = LiveGame::open(title, FocusMode::Start)
        .with_context(|| format!("opening the game window `{title}`"))?;
    let mut reader = Reader::new(ProfileChoice::Auto);
    let mut solver_for = |shape| {
        let config = crate::solver::SolverConfig::new(shape);
        crate::solver::registry::build("expectimax", &config)
    };
    let stop = crate::cli::play::interrupt_flag();
    let settle = crate::capture::SettleOptions::default();
    let got = crate::play::calibrate::collect(
        &mut game,
        &mut reader,
        &mut solver_for,
        &settle,
        args.moves,
        args.until,
        &stop,
    )
    .map_err(|e| anyhow::anyhow!("live calibration of `{title}`: {e}"))?;
    println!(
        "played {} moves ({}); values seen: {:?}",
        got.samples.len().saturating_sub(1),
        got.ended,
        got.values
    );
    let mut learner = Learner::new(&name);
    for (origin, img, label) in &got.samples {
        learner.add(origin, img.clone(), label.clone());
    }
    let (profile, report) = learner.finish()?;
    write_atomic(&out, &profile.to_toml())?;
    print_report(&report, &out);
    let images: Vec<_> = got.samples.iter().rev().take(10).cloned().collect();
    check(&profile, &images);
    Ok(ExitCode::SUCCESS)
}

/// Where the profile named `name` goes: `out`, or `<user profile dir>/<name>.toml`.
///
/// # Errors
/// No HOME to put it in, or the file exists and `force` is false (nothing is overwritten).
fn output_path(out: Option<&Path>, name: &str, force: bool) -> anyhow::Result<PathBuf> {
    let out = match out {
        Some(p) => p.to_path_buf(),
        None => user_dir()
            .context("no HOME to put the profile in; give --out PATH")?
            .join(format!("{name}.toml")),
    };
    if out.exists() && !force {
        bail!(
            "{} already exists; use --force to overwrite it",
            out.display()
        );
    }
    Ok(out)
}
