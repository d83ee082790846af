//! `bot2048 calibrate (--from DIR | --window TITLE) [--name NAME] [--out PATH] [--force]`:
//! learns a calibration profile (issue 4).
//!
//! `--from DIR` learns from labelled screenshots (images with `.txt` labels beside them).
//! `--window TITLE` learns live: it plays the game and labels every settled frame with the
//! engine's board (`crate::play::calibrate::collect`). Both feed
//! `crate::vision::calibrate::Learner`. The profile goes to the user profile directory
//! (`crate::vision::profile::user_dir`) as `NAME.toml`, where `--profile NAME` finds it; a name
//! of a built-in profile is refused there (`--profile NAME` would always mean the built-in). It is
//! written atomically and never over an existing file without `--force`.
use super::exit::{self, UsageError};
use super::output::write_atomic;
use crate::vision::calibrate::{LearnReport, Learner};
use crate::vision::io::load_image;
use crate::vision::labels::{labelled_images, Label};
use crate::vision::profile::{self, is_builtin, is_plain_name, user_dir};
use crate::vision::{AnimationLook, GameLook, Profile, ProfileChoice, Reader};
use anyhow::{bail, Context};
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Real uses of `calibrate`, at the end of its `--help`.
pub const EXAMPLES: &[super::Example] = &[
    (
        "bot2048 calibrate --window \"My 2048\" --name mygame",
        "learn a new game live (start a new game first), then: bot2048 play --window \"My 2048\" --profile mygame",
    ),
    (
        "bot2048 calibrate --from shots --name mygame",
        "learn from labelled screenshots: shots/x.png with shots/x.png.txt (one line per row, 0 = empty)",
    ),
    (
        "bot2048 calibrate --window \"My 2048\" --out mygame.toml --moves 200 --until 256",
        "a shorter live run, the profile written to a file of your choice",
    ),
];

fn after_help() -> String {
    let mut s = exit::help_text(&[
        exit::OK,
        exit::ERROR,
        exit::USAGE,
        exit::NO_DISPLAY,
        exit::NO_WINDOW,
        exit::INTERRUPTED,
    ]);
    s.push_str(
        "\nUser profiles live in $BOT2048_PROFILES, else $XDG_CONFIG_HOME/bot2048/profiles, else\n\
         ~/.config/bot2048/profiles; `--profile NAME` finds NAME.toml there.",
    );
    super::long_help_end(s, EXAMPLES)
}

/// Arguments of `bot2048 calibrate`.
#[derive(Debug, Args)]
#[command(
    group(clap::ArgGroup::new("source").required(true).args(["from", "window"])),
    after_long_help = after_help()
)]
pub struct CalibrateArgs {
    /// Learn from the labelled screenshots in this directory (image + `.txt` label pairs).
    #[arg(long, value_name = "DIR")]
    pub from: Option<PathBuf>,
    /// Learn live by playing this game window (its title or app name).
    ///
    /// Learn live by playing the game window with this title (title or app name, as `play`;
    /// `bot2048 windows` lists them). Start a new game first: the opening board (2s and 4s) must
    /// be read with an existing profile.
    #[arg(long, value_name = "TITLE")]
    pub window: Option<String>,
    /// Live: the profile that reads the opening board (as `read --profile`).
    #[arg(long, default_value = "auto", value_name = "NAME|PATH|auto")]
    pub profile: String,
    /// Live: play at most this many moves while learning.
    #[arg(long, default_value_t = 400, value_name = "N")]
    pub moves: u64,
    /// Live: stop learning once this tile is on the board.
    #[arg(long, default_value_t = 512, value_name = "TILE")]
    pub until: u32,
    /// Profile name (default: the directory's name, or the window title).
    ///
    /// Profile name (default: the directory's name, or the window title in lower case with `-`
    /// for other characters). Letters, digits, `-`, `_`, `.`; not a built-in name unless --out is
    /// given.
    #[arg(long)]
    pub name: Option<String>,
    /// Where to write the profile (default: NAME.toml in the user profile directory).
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// Overwrite an existing profile file.
    #[arg(long)]
    pub force: bool,
    /// Mark the game as one that takes keys during its animation and grows its new tile in.
    ///
    /// Mark the game as one that takes keys during its animation and fades and grows its new
    /// tile in over the empty cell (as the web game's CSS does): `play` then reads a new 2 or 4
    /// while it grows and presses the next key at once. Not for a game that drops keys while it
    /// animates (gnome-2048): its keys would be lost. Screenshots cannot show this; say it.
    #[arg(long)]
    pub early_spawn: bool,
    /// The longest a move's slide lasts on screen, ms (if unsure, leave it out).
    ///
    /// The longest a move's slide lasts on screen, ms from the first changed frame (the web
    /// game's CSS and 2048-qt's QML: 100). A new tile seen this long after the change cannot be
    /// a tile sliding past, so `play` may take it at once even where a tile of its value was on
    /// its line, at or upstream of its cell, before the move (without it, such a move waits for
    /// the quiet window). Written to `[animation]`; screenshots cannot show it. Take it from the
    /// game's source or settings, or time frames after a key (`examples/frames.rs`) and round
    /// up: too long only waits longer, too short lets a sliding tile pass for a new one. If
    /// unsure, leave it out. 20 to 2000.
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u32).range(20..=2000))]
    pub slide_ms: Option<u32>,
    /// The GSettings key, "SCHEMA KEY", that holds the game's slide time in ms.
    ///
    /// The GSettings key, "SCHEMA KEY", that holds the game's slide time in ms when the user can
    /// change it (gnome-2048: "org.gnome.TwentyFortyEight animations-speed"): `play` and
    /// `advise` read it with `gsettings get` at the start and use it as --slide-ms would be
    /// used; where it cannot be read, --slide-ms (or none) stands. Written to `[animation]`.
    #[arg(long, value_name = "SCHEMA KEY", value_parser = parse_setting)]
    pub slide_ms_setting: Option<String>,
    /// One line of the profile's `[game]` table, in TOML (repeat it for more keys): what the game
    /// does beyond its looks, which screenshots cannot show, e.g. `--game 'spawn = "twos-only"'`
    /// or `--game 'window_titles = ["GNOME 2048"]'`. The keys are in calibration/README.md.
    #[arg(long = "game", value_name = "KEY = VALUE")]
    pub game: Vec<String>,
}

/// The `[game]` table the `--game` lines make; `None` without any.
///
/// # Errors
/// [`UsageError`] for lines that are not TOML keys of `[game]`, or values it refuses.
fn game_table(lines: &[String]) -> anyhow::Result<Option<GameLook>> {
    if lines.is_empty() {
        return Ok(None);
    }
    let game: GameLook =
        toml::from_str(&lines.join("\n")).map_err(|e| UsageError(format!("--game: {e}")))?;
    game.validate()
        .map_err(|(key, why)| UsageError(format!("--game: {key} {why}")))?;
    Ok(Some(game))
}

/// A `--slide-ms-setting` value: two words, a GSettings schema and key.
fn parse_setting(s: &str) -> Result<String, String> {
    match crate::vision::profile::setting_schema_and_key(s) {
        Some((schema, key)) => Ok(format!("{schema} {key}")),
        None => Err(format!(
            "{s:?} is not {}",
            crate::vision::profile::SETTING_FORM
        )),
    }
}

/// Runs `bot2048 calibrate`.
///
/// # Errors
/// No source, a bad name or output (exit 2), an unreadable directory or image, nothing learned,
/// a failed write; live: no display, no such window, an unreadable opening board.
pub fn run(args: CalibrateArgs) -> anyhow::Result<ExitCode> {
    game_table(&args.game)?;
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
    let profile = with_flags(profile, &args)?;
    write_atomic(&out, profile.to_toml().as_bytes(), args.force)?;
    let mut w = std::io::stdout().lock();
    print_report(&mut w, &report, &out)?;
    check(&mut w, &profile, &images)?;
    Ok(ExitCode::SUCCESS)
}

fn print_report(w: &mut impl Write, r: &LearnReport, out: &Path) -> std::io::Result<()> {
    writeln!(w, "wrote {}", out.display())?;
    writeln!(w, "images used: {}", r.used.len())?;
    for (f, why) in &r.skipped {
        writeln!(w, "skipped {f}: {why}")?;
    }
    writeln!(w, "tile values learned: {:?}", r.values)?;
    writeln!(
        w,
        "values never seen (not readable by colour): {:?}",
        r.missing_values
    )?;
    writeln!(w, "digits learned: {:?}", r.digits)?;
    let missing: Vec<u8> = (0..10).filter(|d| !r.digits.contains(d)).collect();
    if !missing.is_empty() {
        writeln!(
            w,
            "digits not seen (built-in templates will be used): {missing:?}"
        )?;
    }
    for o in &r.overlays {
        writeln!(w, "overlay: {o}")?;
    }
    Ok(())
}

/// Reads the training images back with the new profile and prints cells matched.
fn check(
    w: &mut impl Write,
    profile: &Profile,
    images: &[(String, image::RgbaImage, Label)],
) -> std::io::Result<()> {
    let mut reader = Reader::new(ProfileChoice::Given(profile.clone()));
    for (name, img, label) in images {
        reader.forget_grid();
        let got = match reader.read(img) {
            Ok(r) => r.cells_by_row(),
            Err(e) => {
                writeln!(w, "check {name}: {e}")?;
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
        writeln!(w, "check {name}: {ok}/{total} cells as labelled")?;
    }
    Ok(())
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
    let out = output_path(args.out.as_deref(), &name, args.force)?;
    let resolved =
        profile::resolve(&args.profile).with_context(|| format!("--profile {}", args.profile))?;
    for w in &resolved.warnings {
        eprintln!("bot2048: warning: {w}");
    }
    let desktop = crate::platform::desktop()?;
    let mut game = LiveGame::open(&*desktop, title, FocusMode::Start)
        .with_context(|| format!("opening the game window `{title}`"))?;
    let mut reader = Reader::new(resolved.choice);
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
    let mut w = std::io::stdout().lock();
    writeln!(
        w,
        "played {} moves ({}); values seen: {:?}",
        got.samples.len().saturating_sub(1),
        got.ended,
        got.values
    )?;
    let mut learner = Learner::new(&name);
    for (origin, img, label) in &got.samples {
        learner.add(origin, img.clone(), label.clone());
    }
    let (profile, report) = learner.finish()?;
    let profile = with_flags(profile, args)?;
    write_atomic(&out, profile.to_toml().as_bytes(), args.force)?;
    print_report(&mut w, &report, &out)?;
    let images: Vec<_> = got.samples.iter().rev().take(10).cloned().collect();
    check(&mut w, &profile, &images)?;
    Ok(ExitCode::SUCCESS)
}

/// `profile` with the `[animation]` section that `--early-spawn`, `--slide-ms` and
/// `--slide-ms-setting` ask for (none without any), and the `[game]` table of `--game`.
///
/// # Errors
/// As [`game_table`].
fn with_flags(profile: Profile, args: &CalibrateArgs) -> anyhow::Result<Profile> {
    let look = AnimationLook {
        early_spawn: args.early_spawn,
        slide_ms: args.slide_ms,
        slide_ms_setting: args.slide_ms_setting.clone(),
    };
    Ok(Profile {
        animation: (look != AnimationLook::default()).then_some(look),
        game: game_table(&args.game)?.map(Box::new),
        ..profile
    })
}

/// Where the profile named `name` goes: `out`, or `<user profile dir>/<name>.toml`.
///
/// # Errors
/// [`UsageError`] for a name that is not plain, a built-in name without `out` (the user profile
/// would be shadowed: `--profile NAME` always means the built-in), or an existing file without
/// `force` (nothing is overwritten); no HOME to put it in.
fn output_path(out: Option<&Path>, name: &str, force: bool) -> anyhow::Result<PathBuf> {
    if !is_plain_name(name) {
        return Err(UsageError(format!(
            "profile name {name:?} may only hold letters, digits, '-', '_' and '.'; give --name"
        ))
        .into());
    }
    let out = match out {
        Some(p) => p.to_path_buf(),
        None if is_builtin(name) => {
            return Err(UsageError(format!(
            "{name} is a built-in profile: `--profile {name}` would never use a user profile of \
                 that name; give another --name (or --out PATH to write the file elsewhere)"
        ))
            .into())
        }
        None => user_dir()
            .context("no HOME to put the profile in; give --out PATH")?
            .join(format!("{name}.toml")),
    };
    if out.exists() && !force {
        return Err(UsageError(format!(
            "{} already exists; use --force to overwrite it",
            out.display()
        ))
        .into());
    }
    Ok(out)
}
