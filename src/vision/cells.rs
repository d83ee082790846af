//! Reading one cell: its background colour against the profile palette, then its digits.
//!
//! A cell is sampled in a ring just inside its edge (between 6% and 16% of its side), where no
//! digit reaches: the palette entry most ring pixels match is the background. An empty cell must
//! show that colour and nothing else in its centre; a tile's text is turned into a coverage map
//! (each pixel's position on the segment background -> text colour), split into glyphs and
//! matched against the digit templates of every value that has this background. Anything else
//! in the picture (a dialog, a black occluded area, an overlay's caption) is "foreign": it is never
//! taken for background, so a covered cell is reported unreadable, never empty.
use super::colour::{dominant, Rgb};
use super::glyph::{segment, Glyph, TemplateSet};
use super::grid::CellRect;
use super::profile::PaletteEntry;
use super::CellProblem;
use image::RgbaImage;

/// Inner and outer inset of the background ring, as fractions of the cell side.
const RING: (f32, f32) = (0.06, 0.16);
/// Share of ring pixels that must match the background colour.
const MIN_RING_SHARE: f32 = 0.45;
/// Central box that must be plain background in an empty cell (fractions of the side).
const EMPTY_CENTRE: (f32, f32) = (0.35, 0.65);
/// Largest share of non-background pixels in an empty cell's centre.
const MAX_EMPTY_NOISE: f32 = 0.03;
/// Text box of a tile (fractions of width, then height).
const TEXT_BOX: (f32, f32, f32, f32) = (0.04, 0.96, 0.10, 0.90);
/// A pixel further than this (8-bit levels) from the segment background -> text is foreign.
const BLEND_TOL: f32 = 30.0;
/// Glyph similarity (0..1) that maps to confidence 0 and to confidence 1.
const GLYPH_SCORE_RANGE: (f32, f32) = (0.45, 0.75);
/// Two readings closer than this in glyph similarity are ambiguous.
const MIN_MARGIN: f32 = 0.02;

/// What one cell reads as.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum CellOutcome {
    /// A value (0 = empty) with confidence 0..=1.
    Read { value: u32, confidence: f32 },
    /// Not readable, with why and how sure.
    Unreadable {
        problem: CellProblem,
        confidence: f32,
    },
}

/// Largest share of foreign pixels (off the segment background -> text) in a tile's text box
/// for its digits to be trusted; more means something covers the cell.
pub(crate) const MAX_FOREIGN: f32 = 0.02;

/// Pixels of a rectangle `(x0, y0, x1, y1)` (exclusive ends), clipped to the image.
fn pixels_in(img: &RgbaImage, (x0, y0, x1, y1): (u32, u32, u32, u32), step: u32) -> Vec<Rgb> {
    let (x1, y1) = (x1.min(img.width()), y1.min(img.height()));
    let mut v = Vec::new();
    for y in (y0..y1).step_by(step as usize) {
        for x in (x0..x1).step_by(step as usize) {
            v.push(Rgb::from_rgba(img.get_pixel(x, y).0));
        }
    }
    v
}

/// Ring pixels of a cell (see [`RING`]).
pub(crate) fn ring_pixels(img: &RgbaImage, r: &CellRect) -> Vec<Rgb> {
    let outer = r.frac(RING.0, 1.0 - RING.0, RING.0, 1.0 - RING.0);
    let inner = r.frac(RING.1, 1.0 - RING.1, RING.1, 1.0 - RING.1);
    let step = if r.x1 - r.x0 > 60.0 { 2 } else { 1 };
    let (x1, y1) = (outer.2.min(img.width()), outer.3.min(img.height()));
    let mut v = Vec::new();
    for y in (outer.1..y1).step_by(step) {
        for x in (outer.0..x1).step_by(step) {
            if x >= inner.0 && x < inner.2 && y >= inner.1 && y < inner.3 {
                continue;
            }
            v.push(Rgb::from_rgba(img.get_pixel(x, y).0));
        }
    }
    v
}

/// The dominant ring colour and its share (for learning and for error messages).
pub(crate) fn ring_colour(img: &RgbaImage, r: &CellRect) -> Option<(Rgb, f32)> {
    dominant(&ring_pixels(img, r), 5)
}

/// Least difference (8-bit levels) of a tile's text from its background for [`text_colour`].
const MIN_TEXT_CONTRAST: u8 = 24;
/// The same for [`faint_text_colour`].
const MIN_FAINT_TEXT_CONTRAST: u8 = 6;

/// Text colour of a tile with background `bg`: the dominant colour among the centre pixels
/// farthest from `bg` (for learning). `None` when the centre is plain (no pixel
/// [`MIN_TEXT_CONTRAST`] levels off `bg`).
pub(crate) fn text_colour(img: &RgbaImage, r: &CellRect, bg: Rgb) -> Option<Rgb> {
    text_colour_off(img, r, bg, MIN_TEXT_CONTRAST)
}

/// [`text_colour`] for text nearly the colour of its tile (from [`MIN_FAINT_TEXT_CONTRAST`]
/// levels off `bg`: a terminal's 128, `#eeeeee` on `#e5e5e5`). Only for learning a tile the
/// engine knows, whose digits must then split into the value's number of digits.
pub(crate) fn faint_text_colour(img: &RgbaImage, r: &CellRect, bg: Rgb) -> Option<Rgb> {
    text_colour_off(img, r, bg, MIN_FAINT_TEXT_CONTRAST)
}

/// [`text_colour`] with the least contrast `min` (levels).
fn text_colour_off(img: &RgbaImage, r: &CellRect, bg: Rgb, min: u8) -> Option<Rgb> {
    let px = pixels_in(img, r.frac(0.2, 0.8, 0.25, 0.75), 1);
    let far = px.iter().map(|c| c.dist(bg)).max()?;
    if far < min {
        return None;
    }
    let sel: Vec<Rgb> = px
        .into_iter()
        .filter(|c| c.dist(bg) >= far - far / 5)
        .collect();
    dominant(&sel, 5).map(|(c, _)| c)
}

/// Text coverage map of a tile's text box: `(map, width, height, foreign share)`.
pub(crate) fn coverage(
    img: &RgbaImage,
    r: &CellRect,
    bg: Rgb,
    text: Rgb,
) -> (Vec<f32>, usize, usize, f32) {
    let (x0, y0, x1, y1) = r.frac(TEXT_BOX.0, TEXT_BOX.1, TEXT_BOX.2, TEXT_BOX.3);
    let (x1, y1) = (x1.min(img.width()), y1.min(img.height()));
    let (w, h) = (
        (x1.saturating_sub(x0)) as usize,
        (y1.saturating_sub(y0)) as usize,
    );
    let mut cov = vec![0.0f32; w * h];
    let mut foreign = 0usize;
    for y in 0..h {
        for x in 0..w {
            let c = Rgb::from_rgba(img.get_pixel(x0 + x as u32, y0 + y as u32).0);
            if c.dist(bg) <= 2 {
                continue;
            }
            let (t, d) = c.on_segment(bg, text);
            if d <= BLEND_TOL {
                cov[y * w + x] = t;
            } else if let Some(t) = c.subpixel_coverage(bg, text) {
                cov[y * w + x] = t;
            } else {
                foreign += 1;
            }
        }
    }
    let share = if w * h == 0 {
        1.0
    } else {
        foreign as f32 / (w * h) as f32
    };
    (cov, w, h, share)
}

/// Glyphs of a tile's text.
pub(crate) fn glyphs(img: &RgbaImage, r: &CellRect, bg: Rgb, text: Rgb) -> (Vec<Glyph>, f32) {
    let (cov, w, h, foreign) = coverage(img, r, bg, text);
    (segment(&cov, w, h, h / 2), foreign)
}

fn ramp(x: f32, (lo, hi): (f32, f32)) -> f32 {
    ((x - lo) / (hi - lo)).clamp(0.0, 1.0)
}

/// Share of the ring a tile of a value the profile never saw must fill with one colour.
const UNSEEN_RING_SHARE: f32 = 0.8;
/// Glyph similarity and margin required to read such a tile from its digits alone.
const UNSEEN_SCORE: (f32, f32) = (0.65, 0.05);

/// A tile in a colour the profile does not know: read from its digits alone, but only as a
/// value larger than every value of the profile (a calibration sees small values first, so the
/// colours it lacks are those of larger tiles), on a plain uniform background, with a clear
/// margin. Anything else (a dialog, a covered area) stays unreadable.
fn read_unseen_value(
    img: &RgbaImage,
    r: &CellRect,
    ring: &[Rgb],
    palette: &[PaletteEntry],
    templates: &TemplateSet,
) -> Option<CellOutcome> {
    let largest = palette.iter().map(|e| e.value).max().unwrap_or(0);
    let (bg, share) = dominant(ring, 5)?;
    if share < UNSEEN_RING_SHARE || largest == 0 {
        return None;
    }
    let text = text_colour(img, r, bg)?;
    let (gl, foreign) = glyphs(img, r, bg, text);
    if foreign > MAX_FOREIGN || gl.is_empty() {
        return None;
    }
    let per_glyph = templates.glyph_scores(&gl);
    read_larger_value(templates, &per_glyph, largest, ramp(share, (0.5, 0.9)))
}

/// Confidence (0..=1) given to a tile read from its background alone because its text is
/// clipped by the cell's sides.
const CLIPPED_TEXT_CONFIDENCE: f32 = 0.8;
/// Rows of the text box (fractions of its height) where clipped text must touch a side.
const CLIPPED_BAND: (f32, f32) = (0.35, 0.65);

/// Whether a tile's text runs into the left or right side of its text box (it is wider than
/// the cell, as in gnome-2048's narrow cells) in the middle rows, while staying clear of the
/// box's top and bottom (a dialog or a caption across the cell reaches them).
fn text_clipped_at_sides(img: &RgbaImage, r: &CellRect, bg: Rgb, text: Rgb) -> bool {
    let (cov, w, h, _) = coverage(img, r, bg, text);
    if w < 2 || h < 4 {
        return false;
    }
    let on = |x: usize, y: usize| cov[y * w + x] > 0.45;
    let (b0, b1) = (
        (h as f32 * CLIPPED_BAND.0) as usize,
        (h as f32 * CLIPPED_BAND.1) as usize,
    );
    let sides = (b0..b1).any(|y| on(0, y) || on(w - 1, y));
    let ends = (0..w).any(|x| on(x, 0) || on(x, h - 1));
    sides && !ends
}

/// A cell not readable, with why and how sure.
fn unreadable(problem: CellProblem, confidence: f32) -> CellOutcome {
    CellOutcome::Unreadable {
        problem,
        confidence,
    }
}

/// Reads one cell against a palette (`tol` in 8-bit levels) and digit templates: the ring's
/// background names the candidate values, then the centre decides (plain: empty; digits: which
/// candidate).
pub(crate) fn read_cell(
    img: &RgbaImage,
    r: &CellRect,
    palette: &[PaletteEntry],
    tol: u8,
    templates: &TemplateSet,
) -> CellOutcome {
    let ring = ring_pixels(img, r);
    if ring.is_empty() || palette.is_empty() {
        return unreadable(CellProblem::UnknownColour { seen: Rgb::BLACK }, 0.0);
    }
    let bg = match match_background(&ring, palette, tol) {
        Ok(bg) => bg,
        Err(share) => {
            if let Some(out) = read_unseen_value(img, r, &ring, palette, templates) {
                return out;
            }
            let seen = dominant(&ring, 5).map_or(Rgb::BLACK, |d| d.0);
            return unreadable(CellProblem::UnknownColour { seen }, share);
        }
    };
    if bg.candidates.iter().all(|e| e.value == 0) {
        return read_empty(img, r, &bg, tol);
    }
    let tiles: Vec<PaletteEntry> = bg
        .candidates
        .iter()
        .copied()
        .filter(|e| e.value != 0)
        .collect();
    let largest = palette.iter().map(|e| e.value).max().unwrap_or(0);
    read_tile(img, r, &bg, &tiles, largest, templates)
}

/// A cell's background as matched against the palette.
struct Background {
    /// The matched palette colour.
    colour: Rgb,
    /// Confidence (0..=1) from the share of the ring that matches it.
    confidence: f32,
    /// Every palette entry painted on this background (nearly as many ring matches, same colour).
    candidates: Vec<PaletteEntry>,
}

/// The palette background most ring pixels match (within `tol`, 8-bit levels); `Err(share)`
/// when its share of the ring is below [`MIN_RING_SHARE`].
fn match_background(ring: &[Rgb], palette: &[PaletteEntry], tol: u8) -> Result<Background, f32> {
    let counts: Vec<usize> = palette
        .iter()
        .map(|e| ring.iter().filter(|c| c.dist(e.background) <= tol).count())
        .collect();
    let best = (0..palette.len()).max_by_key(|&i| counts[i]).unwrap_or(0);
    let share = counts[best] as f32 / ring.len() as f32;
    if share < MIN_RING_SHARE {
        return Err(share);
    }
    let colour = palette[best].background;
    let candidates = palette
        .iter()
        .zip(&counts)
        .filter(|(e, &n)| n * 10 >= counts[best] * 9 && e.background.dist(colour) <= tol)
        .map(|(e, _)| *e)
        .collect();
    Ok(Background {
        colour,
        confidence: ramp(share, (0.3, 0.7)),
        candidates,
    })
}

/// An empty cell: its centre must be plain background (at most [`MAX_EMPTY_NOISE`] off it),
/// else something covers it.
fn read_empty(img: &RgbaImage, r: &CellRect, bg: &Background, tol: u8) -> CellOutcome {
    let (lo, hi) = EMPTY_CENTRE;
    let centre = pixels_in(img, r.frac(lo, hi, lo, hi), 1);
    let noise = centre.iter().filter(|c| c.dist(bg.colour) > tol).count() as f32
        / centre.len().max(1) as f32;
    if noise > MAX_EMPTY_NOISE {
        return unreadable(CellProblem::Occluded { foreign: noise }, 1.0 - noise);
    }
    CellOutcome::Read {
        value: 0,
        confidence: bg.confidence,
    }
}

/// What a tile's text box shows.
struct TileText<'a> {
    /// Values the background can be (none of them 0).
    tiles: &'a [PaletteEntry],
    /// The glyphs found.
    glyphs: Vec<Glyph>,
    /// Share of foreign pixels in the text box, 0..=1.
    foreign: f32,
}

impl TileText<'_> {
    /// Why the digits did not read: covered, or no candidate fits them.
    fn problem(&self) -> CellProblem {
        if self.foreign > MAX_FOREIGN {
            CellProblem::Occluded {
                foreign: self.foreign,
            }
        } else {
            CellProblem::DigitsUnreadable {
                glyphs: self.glyphs.len(),
                values: self.tiles.iter().map(|e| e.value).collect(),
            }
        }
    }
}

/// A tile: its digits decide between the values its background can be, and are cross-checked
/// against every power of two. On the background of the profile's `largest` value, digits that
/// spell none of them may spell a larger power of two ([`read_larger_value`]).
fn read_tile(
    img: &RgbaImage,
    r: &CellRect,
    bg: &Background,
    tiles: &[PaletteEntry],
    largest: u32,
    templates: &TemplateSet,
) -> CellOutcome {
    let text = tiles[0].text;
    let (glyphs, foreign) = glyphs(img, r, bg.colour, text);
    if (0..10).all(|d| !templates.has(d)) {
        return read_by_colour_alone(tiles, bg.confidence);
    }
    let seen = TileText {
        tiles,
        glyphs,
        foreign,
    };
    let per_glyph = templates.glyph_scores(&seen.glyphs);
    let scored = rank_candidates(templates, &per_glyph, tiles);
    let Some(&(value, score)) = scored.first() else {
        let on_largest = tiles.iter().any(|e| e.value == largest);
        let larger = (on_largest && seen.foreign <= MAX_FOREIGN)
            .then(|| read_larger_value(templates, &per_glyph, largest, bg.confidence))
            .flatten();
        return larger.unwrap_or_else(|| read_clipped_text(img, r, bg, text, &seen));
    };
    let conf = bg.confidence.min(ramp(score, GLYPH_SCORE_RANGE));
    if let Some(&(other, s2)) = scored.get(1) {
        if score - s2 < MIN_MARGIN {
            let values = vec![value, other];
            return unreadable(CellProblem::Ambiguous { values }, conf * 0.5);
        }
    }
    let conf = match cross_check_powers(templates, &per_glyph, value, score, conf) {
        Ok(conf) => conf,
        Err(out) => return out,
    };
    if conf < super::MIN_CONFIDENCE {
        return unreadable(seen.problem(), conf);
    }
    CellOutcome::Read {
        value,
        confidence: conf,
    }
}

/// A tile read from its digits alone as a power of two above `largest`: the best power of two
/// the glyphs spell scores at least [`UNSEEN_SCORE`]`.0` and beats the next by `.1`; the
/// confidence is the glyphs' score's, at most `background_confidence` (how surely the tile's
/// background was seen). For a colour the profile never saw ([`read_unseen_value`]), and for
/// the colour of its largest value ([`read_tile`]): games paint every tile from some value on
/// in one colour (the web game and 2048-qt from 4096), so a profile that saw their 4096 and 8192
/// reads a 16384 there from its five digits.
fn read_larger_value(
    templates: &TemplateSet,
    per_glyph: &[[f32; 10]],
    largest: u32,
    background_confidence: f32,
) -> Option<CellOutcome> {
    let scored = templates.rank_powers_of_two(per_glyph);
    let &(value, score) = scored.first()?;
    let second = scored.get(1).map_or(0.0, |s| s.1);
    if value <= largest || score < UNSEEN_SCORE.0 || score - second < UNSEEN_SCORE.1 {
        return None;
    }
    let confidence = ramp(score, GLYPH_SCORE_RANGE).min(background_confidence);
    (confidence >= super::MIN_CONFIDENCE).then_some(CellOutcome::Read { value, confidence })
}

/// Without digit templates a background names a tile only when one value has it.
fn read_by_colour_alone(tiles: &[PaletteEntry], confidence: f32) -> CellOutcome {
    if let [tile] = tiles {
        return CellOutcome::Read {
            value: tile.value,
            confidence,
        };
    }
    let values = tiles.iter().map(|e| e.value).collect();
    unreadable(CellProblem::Ambiguous { values }, 0.0)
}

/// Every candidate value the glyphs can spell, with its score, best first.
fn rank_candidates(
    templates: &TemplateSet,
    per_glyph: &[[f32; 10]],
    tiles: &[PaletteEntry],
) -> Vec<(u32, f32)> {
    let mut scored: Vec<(u32, f32)> = tiles
        .iter()
        .filter_map(|e| {
            templates
                .value_score_from(per_glyph, e.value)
                .map(|s| (e.value, s))
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    scored
}

/// No candidate fits the glyphs. Text wider than the cell (gnome-2048 keeps its font size in
/// narrow stretched cells and clips the digits at the cell's sides) leaves no whole glyph, but a
/// background that only one value has still names the tile.
fn read_clipped_text(
    img: &RgbaImage,
    r: &CellRect,
    bg: &Background,
    text: Rgb,
    seen: &TileText,
) -> CellOutcome {
    if let [tile] = seen.tiles {
        if seen.foreign <= MAX_FOREIGN && text_clipped_at_sides(img, r, bg.colour, text) {
            return CellOutcome::Read {
                value: tile.value,
                confidence: bg.confidence.min(CLIPPED_TEXT_CONFIDENCE),
            };
        }
    }
    unreadable(seen.problem(), 0.0)
}

/// Confidence (0..=1) left to a tile when another power of two fits its digits clearly better.
const DISPUTED_CONFIDENCE: f32 = 0.3;
/// Glyph score by which another power of two must beat the read value to dispute it.
const DISPUTE_MARGIN: f32 = 0.08;

/// A different power of two whose digits fit clearly better means the colour lies: the
/// confidence drops to [`DISPUTED_CONFIDENCE`], and below the reading threshold the cell is
/// unreadable (`Err`). Otherwise `Ok` with the confidence, lowered or not.
fn cross_check_powers(
    templates: &TemplateSet,
    per_glyph: &[[f32; 10]],
    value: u32,
    score: f32,
    conf: f32,
) -> Result<f32, CellOutcome> {
    // The best other power; among equal scores the larger value.
    let alt = templates
        .rank_powers_of_two(per_glyph)
        .into_iter()
        .filter(|&(v, _)| v != value)
        .max_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    let Some((digits, s2)) = alt else {
        return Ok(conf);
    };
    if s2 <= score + DISPUTE_MARGIN {
        return Ok(conf);
    }
    let conf = conf.min(DISPUTED_CONFIDENCE);
    if conf < super::MIN_CONFIDENCE {
        let problem = CellProblem::ColourDigitsDisagree {
            colour: value,
            digits,
        };
        return Err(unreadable(problem, conf));
    }
    Ok(conf)
}

/// Central box of a cell searched for a growing tile (fractions of the side).
const GROW_BOX: (f32, f32) = (0.25, 0.75);
/// Share of that box a growing tile must cover (pixels off the empty colour), 0..=1.
const GROW_MIN_COVER: f32 = 0.15;
/// Share of the off-empty pixels that must be the tile's body colour (the rest: its digits and
/// anti-aliased edges), 0..=1.
const GROW_MIN_BODY: f32 = 0.5;
/// Lowest opacity (0..=1, position on the segment empty -> tile colour) at which a growing tile
/// is read: below it a 2 and a 4 differ by fewer than 9 levels in blue (18 at full opacity). At
/// 0.35 a real game misread a growing 4 at 0.41 with 3.8 levels of margin.
const GROW_MIN_ALPHA: f32 = 0.5;
/// Highest opacity (0..=1) taken for a growing tile: a tile at full opacity over an empty cell is
/// full size (read as a whole tile) or a tile sliding across it.
const GROW_MAX_ALPHA: f32 = 0.95;
/// Largest distance (8-bit levels) of the body colour from the segment empty -> tile colour.
const GROW_MAX_RESIDUAL: f32 = 2.5;
/// Least amount (8-bit levels) by which the other value's segment must be farther (over half of
/// the 2-to-4 distance at the lowest opacity).
const GROW_MIN_MARGIN: f32 = 5.0;

/// A new tile read while it still fades and grows in over an empty cell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Growing {
    /// The tile's value (one of the two candidates given).
    pub value: u32,
    /// Its opacity as seen, 0..=1 (the body colour's position from the empty colour to the tile
    /// colour).
    pub alpha: f32,
    /// How much farther (8-bit levels) the body colour lies from the other candidate's segment
    /// than from this one's.
    pub margin: f32,
}

/// Reads a cell as a tile growing in over the empty colour `empty`: the dominant colour of its
/// centre, off the empty colour, must lie on the segment `empty -> background` of exactly one of
/// the `candidates` (value, background), within [`GROW_MAX_RESIDUAL`] and at least
/// [`GROW_MIN_MARGIN`] closer than to the other's, at an opacity from [`GROW_MIN_ALPHA`] to
/// [`GROW_MAX_ALPHA`].
/// `None` otherwise (too small or faint yet, another colour, or too close to call); `tol` (8-bit
/// levels) is how far a pixel may be from `empty` and still count as empty.
pub(crate) fn read_growing(
    img: &RgbaImage,
    r: &CellRect,
    empty: Rgb,
    candidates: [(u32, Rgb); 2],
    tol: u8,
) -> Option<Growing> {
    let centre = pixels_in(
        img,
        r.frac(GROW_BOX.0, GROW_BOX.1, GROW_BOX.0, GROW_BOX.1),
        1,
    );
    let off: Vec<Rgb> = centre
        .iter()
        .copied()
        .filter(|c| c.dist(empty) > tol)
        .collect();
    if (off.len() as f32) < GROW_MIN_COVER * centre.len().max(1) as f32 {
        return None;
    }
    let (body, share) = dominant(&off, 6)?;
    if share < GROW_MIN_BODY {
        return None;
    }
    let fits = candidates.map(|(v, bg)| {
        let (t, d) = body.on_segment(empty, bg);
        (v, t, d)
    });
    let (best, other) = if fits[0].2 <= fits[1].2 {
        (fits[0], fits[1])
    } else {
        (fits[1], fits[0])
    };
    let margin = other.2 - best.2;
    let alpha_ok = (GROW_MIN_ALPHA..=GROW_MAX_ALPHA).contains(&best.1);
    (alpha_ok && best.2 <= GROW_MAX_RESIDUAL && margin >= GROW_MIN_MARGIN).then_some(Growing {
        value: best.0,
        alpha: best.1,
        margin,
    })
}
