//! Calibration profiles: how one 2048 game paints its board (TOML, documented in
//! `calibration/README.md`).
//!
//! A profile holds the board colour, the empty-cell colour, each tile value's background and text
//! colour, the semi-transparent overlays the game draws at game over / win, and digit glyph
//! templates learned from the game's own font. The built-in profiles are embedded with
//! `include_str!`, so the binary needs no files; they were made with `bot2048 calibrate`.
use super::colour::Rgb;
use super::{BoardStatus, ProfileChoice};
use crate::engine::SpawnRule;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Side of a glyph template bitmap in pixels (templates are `GLYPH_SIZE x GLYPH_SIZE`).
pub const GLYPH_SIZE: usize = 24;

/// Largest profile file accepted, in bytes (a profile with every glyph is about 30 KB).
const MAX_PROFILE_BYTES: u64 = 4 << 20;

/// The built-in profiles: (name, TOML text).
const BUILTIN: &[(&str, &str)] = &[
    (
        "gnome-2048",
        include_str!("../../calibration/gnome-2048.toml"),
    ),
    ("2048-qt", include_str!("../../calibration/2048-qt.toml")),
    ("web-2048", include_str!("../../calibration/web-2048.toml")),
];

/// Whether `s` can be a profile name (letters, digits, `-`, `_`, `.`; no path separator).
pub fn is_plain_name(s: &str) -> bool {
    !s.is_empty()
        && !s.ends_with(".toml")
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && !s.starts_with('.')
}

/// Directory of the user's own profiles: `$BOT2048_PROFILES`, else
/// `$XDG_CONFIG_HOME/bot2048/profiles`, else `$HOME/.config/bot2048/profiles` (empty or relative
/// `XDG_CONFIG_HOME` is ignored, as the XDG spec says). `bot2048 calibrate` writes there by
/// default and `--profile NAME` looks there after the built-in names (see [`resolve`]).
pub fn user_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("BOT2048_PROFILES").filter(|d| !d.is_empty()) {
        return Some(d.into());
    }
    if let Some(d) = std::env::var_os("XDG_CONFIG_HOME").filter(|d| Path::new(d).is_absolute()) {
        return Some(Path::new(&d).join("bot2048/profiles"));
    }
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| Path::new(&h).join(".config/bot2048/profiles"))
}

/// Whether `name` is one of the built-in profile names.
pub fn is_builtin(name: &str) -> bool {
    BUILTIN.iter().any(|(n, _)| *n == name)
}

/// Most numbered names [`save_learned`] tries (`NAME.2` … `NAME.99`).
const MAX_LEARNED_NAMES: u32 = 99;

/// Saves `profile` (learned while playing) in the folder `dir` as `NAME.toml`, where NAME is
/// the first of `base`, `base.2`, `base.3` … that is no built-in profile's name and no file of
/// `dir` (a number already ending `base`, as in `web-2048-learned.2`, is dropped first, so a
/// second run's profile becomes `web-2048-learned.3`, not `web-2048-learned.2.2`). The file is written
/// atomically and never over an existing file, even one that appears meanwhile; `dir` is made
/// when missing. The profile's `name` becomes NAME. Returns NAME and the path.
///
/// # Errors
/// [`ProfileError::Invalid`] when `base` is not a plain name ([`is_plain_name`]);
/// [`ProfileError::NoFreeName`] when every name is taken; [`ProfileError::Write`] when the folder
/// or the file cannot be written.
pub fn save_learned(
    profile: &Profile,
    base: &str,
    dir: &Path,
) -> Result<(String, PathBuf), ProfileError> {
    if !is_plain_name(base) {
        return Err(ProfileError::Invalid {
            origin: dir.display().to_string(),
            key: "name".into(),
            reason: format!("{base:?} is not a plain profile name"),
        });
    }
    let stem = match base.rsplit_once('.') {
        Some((s, n)) if !s.is_empty() && n.parse::<u32>().is_ok_and(|n| n >= 2) => s,
        _ => base,
    };
    let write_err = |path: &Path, source| ProfileError::Write {
        path: path.display().to_string(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(|e| {
        write_err(
            dir,
            crate::fsio::WriteError::Io {
                path: dir.to_path_buf(),
                source: e,
            },
        )
    })?;
    for n in 1..=MAX_LEARNED_NAMES {
        let name = if n == 1 {
            stem.to_string()
        } else {
            format!("{stem}.{n}")
        };
        let path = dir.join(format!("{name}.toml"));
        if is_builtin(&name) || path.exists() {
            continue;
        }
        let mut p = profile.clone();
        p.name = name.clone();
        match crate::fsio::write_bytes(&path, p.to_toml().as_bytes(), crate::fsio::Existing::Keep) {
            Ok(()) => return Ok((name, path)),
            // appeared meanwhile: the next name
            Err(crate::fsio::WriteError::Exists(_)) => continue,
            Err(e) => return Err(write_err(&path, e)),
        }
    }
    Err(ProfileError::NoFreeName {
        dir: dir.display().to_string(),
        base: stem.to_string(),
        last: MAX_LEARNED_NAMES,
    })
}

/// Where a resolved `--profile` came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProfileOrigin {
    /// `auto`: every built-in profile and every valid user profile, the best fit wins.
    Auto,
    /// A built-in profile, by name.
    Builtin(String),
    /// `<user profile dir>/NAME.toml`, by name.
    User(PathBuf),
    /// A TOML file given by path.
    File(PathBuf),
}

impl std::fmt::Display for ProfileOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProfileOrigin::Auto => f.write_str("auto (built-in and user profiles)"),
            ProfileOrigin::Builtin(n) => write!(f, "built-in profile {n}"),
            ProfileOrigin::User(p) => write!(f, "user profile {}", p.display()),
            ProfileOrigin::File(p) => write!(f, "profile file {}", p.display()),
        }
    }
}

/// A `--profile` argument resolved by [`resolve`]: what to read with, where it came from, and
/// warnings for the user (print them; they never stop the run).
#[derive(Clone, Debug)]
pub struct Resolved {
    /// The profile(s) for [`super::Reader::new`].
    pub choice: ProfileChoice,
    /// Where it came from.
    pub origin: ProfileOrigin,
    /// Things the user should know: a user profile shadowed by a built-in name, a user profile
    /// that failed to load under `auto`, a file whose `name` differs from its file name.
    pub warnings: Vec<String>,
}

/// Resolves a `--profile` argument the same way for every subcommand:
///
/// 1. `auto`: every built-in profile plus every valid `*.toml` in the user profile directory
///    ([`user_dir`]); the best fit wins (see [`super::Reader::read`]); broken user files are
///    skipped with a warning.
/// 2. a built-in name (`gnome-2048`, `2048-qt`, `web-2048`): always the built-in one; a user file
///    of the same name is ignored, with a warning saying so.
/// 3. a plain name (letters, digits, `-`, `_`, `.`) with `<user profile dir>/NAME.toml`.
/// 4. a path to a TOML file.
///
/// # Errors
/// [`ProfileError::NotFound`] (the message lists the built-in and user profile names),
/// or the error of loading the file (`Io`, `TooLarge`, `Parse`, `Invalid`).
pub fn resolve(spec: &str) -> Result<Resolved, ProfileError> {
    resolve_in(spec, user_dir().as_deref())
}

/// [`resolve`] with the user profile directory given (`None`: there is none).
///
/// # Errors
/// As [`resolve`].
pub fn resolve_in(spec: &str, user: Option<&Path>) -> Result<Resolved, ProfileError> {
    let mut warnings = Vec::new();
    let user_file = |name: &str| {
        user.map(|d| d.join(format!("{name}.toml")))
            .filter(|p| p.is_file())
    };
    if spec == "auto" {
        let mut profiles = Profile::builtins()?;
        for path in user_profiles(user) {
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            if is_builtin(&stem) {
                warnings.push(shadow_warning(&stem, &path));
                continue;
            }
            match Profile::load_file(&path) {
                Ok(p) => profiles.push(p),
                Err(e) => warnings.push(format!("skipped: {e}")),
            }
        }
        return Ok(Resolved {
            choice: ProfileChoice::Among(profiles),
            origin: ProfileOrigin::Auto,
            warnings,
        });
    }
    if let Some((n, text)) = BUILTIN.iter().find(|(n, _)| *n == spec) {
        if let Some(p) = user_file(n) {
            warnings.push(shadow_warning(n, &p));
        }
        return Ok(Resolved {
            choice: ProfileChoice::Given(Profile::parse(text, n)?),
            origin: ProfileOrigin::Builtin(n.to_string()),
            warnings,
        });
    }
    if is_plain_name(spec) {
        if let Some(p) = user_file(spec) {
            let profile = Profile::load_file(&p)?;
            if profile.name != spec {
                warnings.push(format!(
                    "{} calls itself {:?}: readings will name that profile",
                    p.display(),
                    profile.name
                ));
            }
            return Ok(Resolved {
                choice: ProfileChoice::Given(profile),
                origin: ProfileOrigin::User(p),
                warnings,
            });
        }
    }
    let path = Path::new(spec);
    if !path.is_file() {
        let mut known: Vec<String> = Profile::builtin_names()
            .iter()
            .map(|s| s.to_string())
            .collect();
        known.extend(
            user_profiles(user)
                .iter()
                .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
                .filter(|s| !is_builtin(s)),
        );
        return Err(ProfileError::NotFound {
            name: spec.to_string(),
            builtins: known.join(", "),
            user_dir: user.map_or_else(|| "none".into(), |d| d.display().to_string()),
        });
    }
    Ok(Resolved {
        choice: ProfileChoice::Given(Profile::load_file(path)?),
        origin: ProfileOrigin::File(path.to_path_buf()),
        warnings,
    })
}

fn shadow_warning(name: &str, path: &Path) -> String {
    format!(
        "{} is ignored: {name} is a built-in profile name and --profile {name} means the built-in \
         one; rename the file (and its `name`) to use it",
        path.display()
    )
}

/// The `*.toml` files of the user profile directory, sorted by name (none when it is missing).
pub fn user_profiles(user: Option<&Path>) -> Vec<PathBuf> {
    let Some(dir) = user else { return Vec::new() };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|x| x == "toml")
                && p.file_stem()
                    .is_some_and(|s| is_plain_name(&s.to_string_lossy()))
                && p.is_file()
        })
        .collect();
    v.sort();
    v
}

/// A calibration profile (see `calibration/README.md` for every key, unit and default).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// Name used in `--profile NAME` and reported in every [`super::Reading`].
    pub name: String,
    /// Format version; only 1 exists.
    #[serde(default = "one")]
    pub format: u32,
    /// The board frame and the gaps between cells.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<BoardLook>,
    /// The empty cell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cells: Option<CellLook>,
    /// One entry per tile value the game can show.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tiles: Vec<TileLook>,
    /// Semi-transparent layers the game draws over the whole board ("Game over!", "You win!").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overlays: Vec<Overlay>,
    /// Digit glyph templates learned from this game's font.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub glyphs: Option<Glyphs>,
    /// How the game animates a move (absent: as gnome-2048 and 2048-qt, nothing is read early).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub animation: Option<AnimationLook>,
    /// What the game does beyond its looks: its windows, spawns, dialogs and win-screen button
    /// (absent: classic spawns, no dialogs or buttons of its own). Boxed: most profiles have
    /// none, and a profile is moved whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<Box<GameLook>>,
}

/// What a game does beyond its looks, as far as playing it goes: which windows are its own, how
/// it spawns tiles, its dialogs and its win screen's button (the `[game]` table). A profile
/// without it describes a game that spawns as the classic game and has no dialogs or buttons of
/// its own.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameLook {
    /// Titles of the game's main window, compared exactly (gnome-2048: `"GNOME 2048"`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub window_titles: Vec<String>,
    /// A part of the app name (X11: the class of `WM_CLASS`) of the game's windows, compared
    /// without case (gnome-2048: `"gnome-2048"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_class: Option<String>,
    /// How the game spawns its new tiles.
    #[serde(default, skip_serializing_if = "is_classic")]
    pub spawn: SpawnRule,
    /// Titles of the game's game-over and score dialogs (windows of the game above it); the bot
    /// stops there and never answers them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub game_over_dialogs: Vec<String>,
    /// The game's win dialogs (opened when the win tile appears), each with the key that closes
    /// it and keeps playing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub win_dialogs: Vec<WinDialogLook>,
    /// The "Keep going" button on the game's win screen (an overlay over the board).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep_going: Option<ButtonLook>,
}

impl GameLook {
    /// Checks the keys a type cannot: a win dialog's key, the button's place.
    ///
    /// # Errors
    /// The key (below `game.`) and why.
    pub fn validate(&self) -> Result<(), (String, String)> {
        for (i, d) in self.win_dialogs.iter().enumerate() {
            if d.dialog_key().is_none() {
                return Err((
                    format!("win_dialogs[{i}].key"),
                    "must be \"escape\" or one lower-case letter or digit".into(),
                ));
            }
        }
        if let Some(b) = &self.keep_going {
            if !b.at.iter().all(|v| (0.0..=1.5).contains(v)) {
                return Err((
                    "keep_going.at".into(),
                    "must be two fractions of the grid, each 0 to 1.5".into(),
                ));
            }
        }
        Ok(())
    }

    /// Whether the window titled `title` of the app `class` is this game's main window (by
    /// [`GameLook::window_titles`] or [`GameLook::window_class`]).
    pub fn owns_window(&self, title: &str, class: &str) -> bool {
        self.window_titles.iter().any(|t| t == title)
            || self
                .window_class
                .as_ref()
                .is_some_and(|c| class.to_ascii_lowercase().contains(&c.to_ascii_lowercase()))
    }
}

/// True for the classic spawn rule, the `[game]` table's default (left out when written).
fn is_classic(rule: &SpawnRule) -> bool {
    *rule == SpawnRule::Classic
}

/// A win dialog of the game and the key that closes it to keep playing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WinDialogLook {
    /// The dialog's window title, `""` for an untitled one (gnome-2048's).
    pub title: String,
    /// The key that keeps playing: `"escape"` (gnome-2048), or one lower-case letter, the
    /// mnemonic of the button that does (2048-qt's "You Win": `"y"`, its Yes button; its
    /// Escape would start a new game).
    pub key: String,
}

/// The key of a [`WinDialogLook`], read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DialogKeyLook {
    /// Escape.
    Escape,
    /// A letter or digit (a button's mnemonic).
    Letter(char),
}

impl WinDialogLook {
    /// The key as a [`DialogKeyLook`]; `None` when it is neither `"escape"` nor one lower-case
    /// letter or digit.
    pub fn dialog_key(&self) -> Option<DialogKeyLook> {
        let mut chars = self.key.chars();
        match (chars.next(), chars.next()) {
            _ if self.key == "escape" => Some(DialogKeyLook::Escape),
            (Some(c), None) if c.is_ascii_lowercase() || c.is_ascii_digit() => {
                Some(DialogKeyLook::Letter(c))
            }
            _ => None,
        }
    }
}

/// A button drawn on the game's screen, found by its colour at a place relative to the grid.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ButtonLook {
    /// The button's colour.
    pub colour: Rgb,
    /// Where the button is clicked, as fractions of the grid's width and height from its
    /// top-left corner (each 0 to 1.5: the button may sit below the grid).
    pub at: [f32; 2],
}

/// The values [`AnimationLook::slide_ms`] may take, ms: 0 would let every frame pass for one
/// after the slide, and no 2048 slides for seconds.
pub const SLIDE_MS_RANGE: std::ops::RangeInclusive<u32> = 20..=2000;

/// How the game animates a move, as far as reading it early goes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnimationLook {
    /// The game takes a key pressed during its animation (its model moves at once), and its new
    /// tile fades and grows in over the empty cell (opacity and size from 0 to 1, as the web
    /// game's CSS `appear`): the reader may then read the new 2 or 4 from its colour while it is
    /// still growing ([`super::Reader::growing_tile`]), and the next key be pressed at once.
    /// `false` (the default) for a game that drops keys while animating (gnome-2048).
    #[serde(default)]
    pub early_spawn: bool,
    /// The longest a move's slide lasts on screen, ms from the first frame that changes (the web
    /// game's CSS moves tiles in 100 ms): a frame taken this long after the first change shows
    /// no tile between cells, so a new tile read on it cannot be a tile still sliding past, and
    /// it may be used at once even where a tile of its value was on its line, at or upstream of
    /// its cell, before the move. Absent, such a frame waits for the whole quiet window. Too
    /// long only waits longer; too short lets a sliding tile pass for a new one. In
    /// [`SLIDE_MS_RANGE`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slide_ms: Option<u32>,
    /// Where the game keeps its slide time when the user can change it: a GSettings key,
    /// `"SCHEMA KEY"`, whose value is the slide time in ms (gnome-2048:
    /// `"org.gnome.TwentyFortyEight animations-speed"`, 130 by default, 20 to 2000). `play` and
    /// `advise` read it once at the start (`gsettings get`), and a value in [`SLIDE_MS_RANGE`]
    /// becomes [`AnimationLook::slide_ms`] ([`AnimationLook::with_setting`]); a key that cannot be
    /// read leaves `slide_ms` as the profile gives it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slide_ms_setting: Option<String>,
}

/// What an [`AnimationLook::slide_ms_setting`] must look like, for the messages that refuse one.
pub const SETTING_FORM: &str =
    "\"SCHEMA KEY\", two words (e.g. \"org.gnome.TwentyFortyEight animations-speed\")";

/// The schema and key of a [`AnimationLook::slide_ms_setting`]: exactly two words, `None`
/// otherwise (the one check of `calibrate --slide-ms-setting`, of a loaded profile and of `play`).
pub fn setting_schema_and_key(setting: &str) -> Option<(&str, &str)> {
    let mut words = setting.split_whitespace();
    match (words.next(), words.next(), words.next()) {
        (Some(schema), Some(key), None) => Some((schema, key)),
        _ => None,
    }
}

impl AnimationLook {
    /// This look with [`AnimationLook::slide_ms`] taken from `gsettings get`'s output for
    /// [`AnimationLook::slide_ms_setting`] (`"130.0"`, `"uint32 130"`, `"130"`: a number, ms,
    /// rounded up to whole ms, that may follow a GVariant type word).
    ///
    /// # Errors
    /// The output is not one number, or the number is outside [`SLIDE_MS_RANGE`]: a message
    /// that quotes it; the look is then to be used unchanged.
    pub fn with_setting(&self, output: &str) -> Result<AnimationLook, String> {
        let text = output.trim();
        let number = text.rsplit(' ').next().unwrap_or_default();
        // `as` saturates (and maps NaN to 0), so anything out of u32 falls outside the range
        let ms = number
            .parse::<f64>()
            .ok()
            .map(|ms| ms.ceil() as u32)
            .filter(|ms| SLIDE_MS_RANGE.contains(ms))
            .ok_or_else(|| {
                format!(
                    "{text:?} is not a slide time of {}..={} ms",
                    SLIDE_MS_RANGE.start(),
                    SLIDE_MS_RANGE.end()
                )
            })?;
        Ok(AnimationLook {
            slide_ms: Some(ms),
            ..self.clone()
        })
    }
}

fn one() -> u32 {
    1
}
fn default_tolerance() -> u8 {
    8
}

/// Board colour (frame and gaps).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardLook {
    /// The board colour.
    pub colour: Rgb,
    /// Largest per-channel difference (8-bit levels) at which a pixel still counts as board.
    #[serde(default = "default_tolerance")]
    pub tolerance: u8,
}

/// Empty-cell colour.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CellLook {
    /// Colour of an empty cell.
    pub empty: Colour,
    /// Largest per-channel difference (8-bit levels) at which a cell background matches a profile
    /// colour (empty or tile).
    #[serde(default = "default_tolerance")]
    pub tolerance: u8,
}

/// A colour as written in a profile (`"#rrggbb"`).
pub type Colour = Rgb;

/// The look of one tile value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TileLook {
    /// Tile value: a power of two, 2..=131072.
    pub value: u32,
    /// Tile background colour.
    pub background: Rgb,
    /// Digit colour.
    pub text: Rgb,
}

/// A semi-transparent overlay: every pixel under it becomes `alpha * colour + (1 - alpha) * pixel`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Overlay {
    /// The status it means: `"game_over"` or `"won"`.
    pub status: OverlayStatus,
    /// Overlay colour.
    pub colour: Rgb,
    /// Opacity, strictly between 0 and 1.
    pub alpha: f32,
}

/// What an overlay means.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OverlayStatus {
    /// "Game over" layer.
    GameOver,
    /// "You win" layer.
    Won,
}

impl OverlayStatus {
    /// The board status this overlay reports.
    pub fn board_status(self) -> BoardStatus {
        match self {
            OverlayStatus::GameOver => BoardStatus::GameOver,
            OverlayStatus::Won => BoardStatus::Won,
        }
    }
}

/// Digit templates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Glyphs {
    /// Side of each bitmap in pixels; must equal [`GLYPH_SIZE`].
    pub size: usize,
    /// Templates; several per digit are allowed.
    #[serde(default)]
    pub digit: Vec<GlyphTemplate>,
}

/// One digit template: the glyph scaled to `size` pixels high, centred horizontally, as
/// text-coverage levels (0 = background, 255 = text), row-major, two hex digits a pixel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GlyphTemplate {
    /// The digit, 0..=9.
    pub digit: u8,
    /// Width / height of the glyph's bounding box as seen (a `1` is narrow).
    pub aspect: f32,
    /// `size * size` coverage levels, hex.
    pub bitmap: String,
}

impl GlyphTemplate {
    /// The bitmap as coverage levels (0..=255), `GLYPH_SIZE * GLYPH_SIZE`, row-major.
    ///
    /// # Errors
    /// A message when the hex text is malformed or of the wrong length.
    pub fn levels(&self) -> Result<Vec<u8>, String> {
        let b = self.bitmap.as_bytes();
        if b.len() != GLYPH_SIZE * GLYPH_SIZE * 2 {
            return Err(format!(
                "expected {} hex digits, found {}",
                GLYPH_SIZE * GLYPH_SIZE * 2,
                b.len()
            ));
        }
        b.chunks(2)
            .map(|p| {
                std::str::from_utf8(p)
                    .ok()
                    .and_then(|s| u8::from_str_radix(s, 16).ok())
                    .ok_or_else(|| "not hexadecimal".to_string())
            })
            .collect()
    }

    /// Encodes coverage levels (`GLYPH_SIZE * GLYPH_SIZE`) as a template.
    pub fn from_levels(digit: u8, aspect: f32, levels: &[u8]) -> GlyphTemplate {
        let bitmap = levels.iter().map(|v| format!("{v:02x}")).collect();
        GlyphTemplate {
            digit,
            aspect,
            bitmap,
        }
    }
}

/// Errors of loading a profile.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    /// Neither a built-in name, nor a user profile, nor an existing file.
    #[error("no profile {name:?}: not a known profile ({builtins}; user profiles in {user_dir}) and no such file")]
    NotFound {
        /// What was asked for.
        name: String,
        /// The built-in and user profile names, comma-separated.
        builtins: String,
        /// The user profile directory searched, or "none".
        user_dir: String,
    },
    /// The file could not be read.
    #[error("cannot read profile {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is larger than any profile.
    #[error("profile {path} is {bytes} bytes, larger than the {max}-byte limit")]
    TooLarge {
        /// The file.
        path: String,
        /// Its size.
        bytes: u64,
        /// The limit.
        max: u64,
    },
    /// Not valid TOML, a missing key, or a value of the wrong type (the message names the key).
    #[error("profile {origin}: {message}")]
    Parse {
        /// File path or built-in name.
        origin: String,
        /// The TOML parser's message (line, column and key).
        message: String,
    },
    /// A learned profile could not be written.
    #[error("cannot write profile {path}: {source}")]
    Write {
        /// The file.
        path: String,
        /// What went wrong.
        source: crate::fsio::WriteError,
    },
    /// No free name was found for a learned profile (`NAME`, `NAME.2` … all taken).
    #[error("no free name for a learned profile in {dir}: {base} to {base}.{last} are all taken")]
    NoFreeName {
        /// The folder.
        dir: String,
        /// The name tried first.
        base: String,
        /// The last number tried.
        last: u32,
    },
    /// A key has a value out of range.
    #[error("profile {origin}: key `{key}`: {reason}")]
    Invalid {
        /// File path or built-in name.
        origin: String,
        /// The key, e.g. `tiles[3].value`.
        key: String,
        /// What is wrong.
        reason: String,
    },
}

impl Profile {
    /// Names of the built-in profiles.
    pub fn builtin_names() -> Vec<&'static str> {
        BUILTIN.iter().map(|(n, _)| *n).collect()
    }

    /// All built-in profiles.
    ///
    /// # Errors
    /// Only if a built-in file is malformed (a build defect; tests check they are not).
    pub fn builtins() -> Result<Vec<Profile>, ProfileError> {
        BUILTIN
            .iter()
            .map(|(n, text)| Profile::parse(text, n))
            .collect()
    }

    /// Loads one profile by name or path, as [`resolve`] does (warnings dropped); `auto` is not
    /// one profile and is refused as not found.
    ///
    /// # Errors
    /// [`ProfileError::NotFound`], `Io`, `TooLarge`, `Parse` or `Invalid`.
    pub fn load(name_or_path: &str) -> Result<Profile, ProfileError> {
        match resolve(name_or_path)?.choice {
            ProfileChoice::Given(p) => Ok(p),
            _ => Err(ProfileError::NotFound {
                name: name_or_path.to_string(),
                builtins: Profile::builtin_names().join(", "),
                user_dir: "(auto is not one profile)".into(),
            }),
        }
    }

    /// Loads a TOML profile file.
    ///
    /// # Errors
    /// `Io`, `TooLarge`, `Parse` or `Invalid`.
    pub fn load_file(path: &Path) -> Result<Profile, ProfileError> {
        let shown = path.display().to_string();
        let io = |source| ProfileError::Io {
            path: shown.clone(),
            source,
        };
        let meta = std::fs::metadata(path).map_err(io)?;
        if meta.len() > MAX_PROFILE_BYTES {
            return Err(ProfileError::TooLarge {
                path: shown,
                bytes: meta.len(),
                max: MAX_PROFILE_BYTES,
            });
        }
        let bytes = std::fs::read(path).map_err(io)?;
        let text = String::from_utf8(bytes).map_err(|_| ProfileError::Parse {
            origin: shown.clone(),
            message: "not UTF-8 text".into(),
        })?;
        Profile::parse(&text, &shown)
    }

    /// Parses and validates profile TOML; `origin` names it in errors.
    ///
    /// # Errors
    /// `Parse` (syntax, missing key, wrong type) or `Invalid` (out-of-range value).
    pub fn parse(text: &str, origin: &str) -> Result<Profile, ProfileError> {
        let p: Profile = toml::from_str(text).map_err(|e| ProfileError::Parse {
            origin: origin.to_string(),
            message: e.to_string().trim_end().to_string(),
        })?;
        p.validate(origin)?;
        Ok(p)
    }

    /// Serialises to TOML.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }

    fn validate(&self, origin: &str) -> Result<(), ProfileError> {
        let bad = |key: String, reason: &str| ProfileError::Invalid {
            origin: origin.to_string(),
            key,
            reason: reason.to_string(),
        };
        if self.name.trim().is_empty() {
            return Err(bad("name".into(), "must not be empty"));
        }
        if self.format != 1 {
            return Err(bad("format".into(), "only format 1 exists"));
        }
        if let Some(b) = &self.board {
            if b.tolerance > 64 {
                return Err(bad("board.tolerance".into(), "must be 0..=64"));
            }
        }
        if let Some(c) = &self.cells {
            if c.tolerance > 64 {
                return Err(bad("cells.tolerance".into(), "must be 0..=64"));
            }
        }
        for (i, t) in self.tiles.iter().enumerate() {
            if t.value < 2 || t.value > 131_072 || !t.value.is_power_of_two() {
                return Err(bad(
                    format!("tiles[{i}].value"),
                    "must be a power of two from 2 to 131072",
                ));
            }
            if self.tiles[..i].iter().any(|o| o.value == t.value) {
                return Err(bad(format!("tiles[{i}].value"), "value listed twice"));
            }
        }
        for (i, o) in self.overlays.iter().enumerate() {
            if !(o.alpha > 0.0 && o.alpha < 1.0) {
                return Err(bad(
                    format!("overlays[{i}].alpha"),
                    "must be strictly between 0 and 1",
                ));
            }
        }
        let slide = self.animation.as_ref().and_then(|a| a.slide_ms);
        if slide.is_some_and(|ms| !SLIDE_MS_RANGE.contains(&ms)) {
            return Err(bad(
                "animation.slide_ms".into(),
                &format!(
                    "must be {}..={} ms (leave it out when the slide time is not known)",
                    SLIDE_MS_RANGE.start(),
                    SLIDE_MS_RANGE.end()
                ),
            ));
        }
        let setting = self
            .animation
            .as_ref()
            .and_then(|a| a.slide_ms_setting.as_ref());
        if setting.is_some_and(|s| setting_schema_and_key(s).is_none()) {
            return Err(bad(
                "animation.slide_ms_setting".into(),
                &format!("must be {SETTING_FORM}"),
            ));
        }
        if let Some(g) = &self.game {
            g.validate()
                .map_err(|(key, reason)| bad(format!("game.{key}"), &reason))?;
        }
        if let Some(g) = &self.glyphs {
            if g.size != GLYPH_SIZE {
                return Err(bad("glyphs.size".into(), &format!("must be {GLYPH_SIZE}")));
            }
            for (i, t) in g.digit.iter().enumerate() {
                if t.digit > 9 {
                    return Err(bad(format!("glyphs.digit[{i}].digit"), "must be 0..=9"));
                }
                if !(t.aspect > 0.05 && t.aspect < 5.0) {
                    return Err(bad(
                        format!("glyphs.digit[{i}].aspect"),
                        "must be in 0.05..5",
                    ));
                }
                if let Err(e) = t.levels() {
                    return Err(bad(format!("glyphs.digit[{i}].bitmap"), &e));
                }
            }
        }
        Ok(())
    }

    /// The board colours to look for: the plain board, then the board under each overlay, with
    /// the overlay index (`None` = no overlay).
    pub fn board_variants(&self) -> Vec<(Rgb, Option<usize>)> {
        let Some(b) = &self.board else {
            return Vec::new();
        };
        let mut v = vec![(b.colour, None)];
        for (i, o) in self.overlays.iter().enumerate() {
            v.push((b.colour.blend(o.colour, o.alpha), Some(i)));
        }
        v
    }

    /// The tile value a colour names under an overlay, for every profile entry, the empty cell
    /// first (value 0, text = background).
    pub fn palette(&self, overlay: Option<usize>) -> Vec<PaletteEntry> {
        let shade = |c: Rgb| match overlay.and_then(|i| self.overlays.get(i)) {
            Some(o) => c.blend(o.colour, o.alpha),
            None => c,
        };
        let mut v = Vec::new();
        if let Some(c) = &self.cells {
            v.push(PaletteEntry {
                value: 0,
                background: shade(c.empty),
                text: shade(c.empty),
            });
        }
        for t in &self.tiles {
            v.push(PaletteEntry {
                value: t.value,
                background: shade(t.background),
                text: shade(t.text),
            });
        }
        v
    }

    /// Tolerance for cell colours (8-bit levels).
    pub fn cell_tolerance(&self) -> u8 {
        self.cells
            .as_ref()
            .map_or(default_tolerance(), |c| c.tolerance)
    }
}

/// One colour a cell can show, as [`Profile::palette`] lists them: the value it names and its
/// colours, shaded by the overlay asked for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PaletteEntry {
    /// Tile value; 0 = the empty cell.
    pub value: u32,
    /// Cell background.
    pub background: Rgb,
    /// Digit colour (the background for the empty cell).
    pub text: Rgb,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_parse() {
        for p in Profile::builtins().unwrap() {
            assert!(Profile::builtin_names().contains(&p.name.as_str()));
        }
    }

    /// A small valid profile named `name`.
    fn tiny(name: &str) -> String {
        format!("name = \"{name}\"\n[board]\ncolour = \"#102030\"\n")
    }

    /// A learned profile is saved beside the user's own files and never over one: a user file
    /// of the name keeps its bytes and the learned one takes the next number; a name that is no
    /// plain name is refused; the folder is made when missing.
    #[test]
    fn a_learned_profile_never_replaces_a_users_file() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("made/profiles");
        let learned = Profile::parse(&tiny("learned"), "test").unwrap();
        let (name, path) = save_learned(&learned, "mine", &user).unwrap();
        assert_eq!(
            (name.as_str(), path.clone()),
            ("mine", user.join("mine.toml"))
        );
        std::fs::write(user.join("game.toml"), tiny("game")).unwrap();
        std::fs::write(user.join("game.2.toml"), "not mine to touch").unwrap();
        let (name, path) = save_learned(&learned, "game", &user).unwrap();
        assert_eq!(name, "game.3");
        assert_eq!(Profile::load_file(&path).unwrap().name, "game.3");
        assert_eq!(
            std::fs::read_to_string(user.join("game.toml")).unwrap(),
            tiny("game")
        );
        assert_eq!(
            std::fs::read_to_string(user.join("game.2.toml")).unwrap(),
            "not mine to touch"
        );
        for bad in ["../up", "a/b", "", "x.toml"] {
            assert!(
                matches!(
                    save_learned(&learned, bad, &user),
                    Err(ProfileError::Invalid { .. })
                ),
                "{bad}"
            );
        }
        // no temporary file is left beside them
        let mut names: Vec<String> = std::fs::read_dir(&user)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            ["game.2.toml", "game.3.toml", "game.toml", "mine.toml"]
        );
    }

    #[test]
    fn resolve_order_builtin_user_path_and_auto() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("profiles");
        std::fs::create_dir(&user).unwrap();
        std::fs::write(user.join("mine.toml"), tiny("mine")).unwrap();
        // a user file with a built-in's name: never used, always warned about
        std::fs::write(user.join("web-2048.toml"), tiny("web-2048")).unwrap();
        std::fs::write(user.join("broken.toml"), "name = ").unwrap();

        let r = resolve_in("web-2048", Some(&user)).unwrap();
        assert_eq!(r.origin, ProfileOrigin::Builtin("web-2048".into()));
        match &r.choice {
            // the built-in has tiles; the user's copy has none
            ProfileChoice::Given(p) => assert!(!p.tiles.is_empty()),
            other => panic!("{other:?}"),
        }
        assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
        assert!(r.warnings[0].contains("web-2048.toml is ignored"));

        let r = resolve_in("mine", Some(&user)).unwrap();
        assert_eq!(r.origin, ProfileOrigin::User(user.join("mine.toml")));
        assert!(r.warnings.is_empty());

        let path = user.join("mine.toml");
        let r = resolve_in(path.to_str().unwrap(), None).unwrap();
        assert_eq!(r.origin, ProfileOrigin::File(path.clone()));

        let r = resolve_in("auto", Some(&user)).unwrap();
        assert_eq!(r.origin, ProfileOrigin::Auto);
        match &r.choice {
            ProfileChoice::Among(list) => {
                let names: Vec<&str> = list.iter().map(|p| p.name.as_str()).collect();
                assert_eq!(names, ["gnome-2048", "2048-qt", "web-2048", "mine"]);
            }
            other => panic!("{other:?}"),
        }
        // broken.toml skipped, web-2048.toml shadowed: two warnings
        assert_eq!(r.warnings.len(), 2, "{:?}", r.warnings);

        let e = resolve_in("nope", Some(&user)).unwrap_err();
        let text = e.to_string();
        assert!(matches!(e, ProfileError::NotFound { .. }));
        assert!(text.contains("web-2048") && text.contains("mine"), "{text}");
        assert!(matches!(
            resolve_in("broken", Some(&user)).unwrap_err(),
            ProfileError::Parse { .. }
        ));
        // no user directory at all: built-ins and paths still work
        assert!(resolve_in("2048-qt", None).unwrap().warnings.is_empty());
    }

    #[test]
    fn malformed_profile_names_the_key() {
        let e = Profile::parse("name = \"x\"\n[board]\ncolour = \"red\"\n", "t").unwrap_err();
        assert!(e.to_string().contains("colour"), "{e}");
        let e = Profile::parse(
            "name = \"x\"\n[[tiles]]\nvalue = 3\nbackground = \"#000000\"\ntext = \"#ffffff\"\n",
            "t",
        )
        .unwrap_err();
        assert!(e.to_string().contains("tiles[0].value"), "{e}");
        let e = Profile::parse("name = \"x\"\n[board]\ntolerance = 3\n", "t").unwrap_err();
        assert!(e.to_string().contains("colour"), "{e}");
        let e = Profile::parse("nme = \"x\"\n", "t").unwrap_err();
        assert!(e.to_string().contains("nme"), "{e}");
        // a slide time of 0 would let a mid-slide frame pass; 20..=2000 ms is taken
        for (ms, ok) in [
            (0, false),
            (19, false),
            (20, true),
            (2000, true),
            (2001, false),
        ] {
            let text = format!("name = \"x\"\n[animation]\nslide_ms = {ms}\n");
            match Profile::parse(&text, "t") {
                Ok(p) => assert!(ok && p.animation.unwrap().slide_ms == Some(ms), "{ms}"),
                Err(e) => assert!(
                    !ok && e.to_string().contains("animation.slide_ms"),
                    "{ms}: {e}"
                ),
            }
        }
    }

    #[test]
    fn a_slide_time_setting_is_taken_in_whole_ms_within_the_range() {
        // what `gsettings get` prints for gnome-2048's animations-speed (a double), and for an
        // integer key with and without its GVariant type word
        let look = AnimationLook {
            slide_ms: Some(300),
            slide_ms_setting: Some("org.gnome.TwentyFortyEight animations-speed".into()),
            ..AnimationLook::default()
        };
        for (out, ms) in [
            ("130.0\n", 130),
            ("uint32 250\n", 250),
            ("20", 20),
            ("2000.0", 2000),
            ("129.2", 130),
        ] {
            let read = look.with_setting(out).unwrap();
            assert_eq!(read.slide_ms, Some(ms), "{out:?}");
            assert_eq!(read.slide_ms_setting, look.slide_ms_setting);
        }
        // out of range or not a number: refused, quoting what was read
        for out in ["19", "2000.5", "0", "-130", "fast", "", "nan", "inf"] {
            let e = look.with_setting(out).unwrap_err();
            assert!(e.contains(&format!("{:?}", out.trim())), "{out:?}: {e}");
        }
        // a profile names the setting in its [animation] section
        let p = Profile::parse(
            "name = \"x\"\n[animation]\nslide_ms_setting = \"a.b c\"\n",
            "t",
        )
        .unwrap();
        assert_eq!(
            p.animation.unwrap().slide_ms_setting.as_deref(),
            Some("a.b c")
        );
        for bad in ["animations-speed", "a b c", ""] {
            let text = format!("name = \"x\"\n[animation]\nslide_ms_setting = \"{bad}\"\n");
            let e = Profile::parse(&text, "t").unwrap_err();
            assert!(
                e.to_string().contains("animation.slide_ms_setting"),
                "{bad:?}: {e}"
            );
        }
    }

    #[test]
    fn the_builtin_games_are_known_by_their_windows_as_before() {
        // the rule that lived in cli/play.rs: the title "GNOME 2048", or an app name holding
        // "gnome-2048" in any case, is gnome-2048, which spawns only 2s; any other is classic
        let games: Vec<GameLook> = Profile::builtins()
            .unwrap()
            .into_iter()
            .filter_map(|p| p.game.map(|g| *g))
            .collect();
        let spawn = |title: &str, class: &str| {
            games
                .iter()
                .find(|g| g.owns_window(title, class))
                .map(|g| g.spawn)
        };
        assert_eq!(spawn("GNOME 2048", ""), Some(SpawnRule::TwosOnly));
        assert_eq!(spawn("x", "Gnome-2048"), Some(SpawnRule::TwosOnly));
        assert_eq!(spawn("x", "org.GNOME-2048.app"), Some(SpawnRule::TwosOnly));
        assert_eq!(spawn("GNOME 2048 ", "2048-qt"), None);
        assert_eq!(spawn("2048 Game", "2048-qt"), None);
        assert_eq!(spawn("2048", "Chromium"), None);
    }

    #[test]
    fn a_win_dialog_key_is_escape_or_one_letter() {
        let key = |k: &str| {
            WinDialogLook {
                title: String::new(),
                key: k.into(),
            }
            .dialog_key()
        };
        assert_eq!(key("escape"), Some(DialogKeyLook::Escape));
        assert_eq!(key("y"), Some(DialogKeyLook::Letter('y')));
        for bad in ["", "Y", "yes", "return", "é"] {
            assert_eq!(key(bad), None, "{bad:?}");
        }
    }
}
