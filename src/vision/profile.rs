//! Calibration profiles: how one 2048 game paints its board (TOML, documented in
//! `calibration/README.md`).
//!
//! A profile holds the board colour, the empty-cell colour, each tile value's background and text
//! colour, the semi-transparent overlays the game draws at game over / win, and digit glyph
//! templates learned from the game's own font. The built-in profiles are embedded with
//! `include_str!`, so the binary needs no files; they were made with `bot2048 calibrate`.
use super::colour::Rgb;
use super::BoardStatus;
use serde::{Deserialize, Serialize};
use std::path::Path;

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
/// `$XDG_CONFIG_HOME/bot2048/profiles`, else `$HOME/.config/bot2048/profiles`.
/// `bot2048 calibrate` writes there by default and `--profile NAME` looks there after the
/// built-in names.
pub fn user_dir() -> Option<std::path::PathBuf> {
    if let Some(d) = std::env::var_os("BOT2048_PROFILES") {
        return Some(d.into());
    }
    if let Some(d) = std::env::var_os("XDG_CONFIG_HOME") {
        return Some(Path::new(&d).join("bot2048/profiles"));
    }
    std::env::var_os("HOME").map(|h| Path::new(&h).join(".config/bot2048/profiles"))
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
    /// Neither a built-in name nor an existing file.
    #[error("no profile {name:?}: not a built-in profile ({builtins}) and no such file")]
    NotFound {
        /// What was asked for.
        name: String,
        /// The built-in names, comma-separated.
        builtins: String,
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

    /// Loads a built-in profile by name, or else a TOML file by path.
    ///
    /// # Errors
    /// [`ProfileError::NotFound`], `Io`, `TooLarge`, `Parse` or `Invalid`.
    pub fn load(name_or_path: &str) -> Result<Profile, ProfileError> {
        if let Some((n, text)) = BUILTIN.iter().find(|(n, _)| *n == name_or_path) {
            return Profile::parse(text, n);
        }
        if is_plain_name(name_or_path) {
            if let Some(dir) = user_dir() {
                let p = dir.join(format!("{name_or_path}.toml"));
                if p.is_file() {
                    return Profile::load_file(&p);
                }
            }
        }
        let path = Path::new(name_or_path);
        if !path.exists() {
            return Err(ProfileError::NotFound {
                name: name_or_path.to_string(),
                builtins: Profile::builtin_names().join(", "),
            });
        }
        Profile::load_file(path)
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

    /// The tile value a colour names under an overlay, for every profile entry: `(value, bg,
    /// text)` with value 0 for the empty cell (text = bg).
    pub fn palette(&self, overlay: Option<usize>) -> Vec<(u32, Rgb, Rgb)> {
        let shade = |c: Rgb| match overlay.and_then(|i| self.overlays.get(i)) {
            Some(o) => c.blend(o.colour, o.alpha),
            None => c,
        };
        let mut v = Vec::new();
        if let Some(c) = &self.cells {
            v.push((0, shade(c.empty), shade(c.empty)));
        }
        for t in &self.tiles {
            v.push((t.value, shade(t.background), shade(t.text)));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_parse() {
        for p in Profile::builtins().unwrap() {
            assert!(Profile::builtin_names().contains(&p.name.as_str()));
        }
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
    }
}
