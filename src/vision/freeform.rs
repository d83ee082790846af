//! Reading a board without a calibration profile ("reads without one where it can").
//!
//! The grid is searched with each of the image's most common colours as board colour (see
//! [`grid::candidate_colours`]). Each cell's background is its edge ring's dominant colour; a
//! cell whose centre is plain is empty only if its background is the empty colour (the most
//! common background of plain cells), otherwise it is unreadable (a tile whose digits cannot be
//! seen). A cell with text is read from its digits alone, against the digit templates of every
//! built-in profile, as the power of two whose digits fit best (clear margin required).
use super::cells::{glyphs, ring_pixels, text_colour};
use super::colour::{median, Rgb};
use super::glyph::TemplateSet;
use super::grid::{self, CellRect, GridRect};
use super::{CellIssue, CellProblem, CellRead, MIN_CONFIDENCE};
use image::RgbaImage;

/// Board colours tried.
const CANDIDATES: usize = 10;
/// Tolerance for the board colour (8-bit levels; JPEG needs slack).
const BOARD_TOL: u8 = 12;
/// Ring pixels within this of the ring's median colour (levels) count as background.
const RING_TOL: u8 = 24;
/// A centre pixel this far from the background (levels) is not background.
const NOISE_TOL: u8 = 28;
/// Largest share of such pixels in an empty cell's centre.
const MAX_NOISE: f32 = 0.02;
/// Backgrounds closer than this (levels) are the same colour.
const SAME_COLOUR: u8 = 14;
/// Glyph similarity mapped to confidence 0 and 1.
const SCORE_RANGE: (f32, f32) = (0.5, 0.75);
/// Margin over the second-best value required.
const MIN_MARGIN: f32 = 0.03;

/// Finds the grid without a profile: `(grid, board colour, fit quality)`.
pub(crate) fn find(img: &RgbaImage) -> Option<(GridRect, Rgb, f32)> {
    let mut best: Option<(GridRect, Rgb, f32)> = None;
    for c in grid::candidate_colours(img, CANDIDATES) {
        if let Some(fit) = grid::find_grid(img, &[c], BOARD_TOL, None) {
            if best.as_ref().is_none_or(|b| fit.contrast > b.2) {
                best = Some((fit.rect, c, fit.contrast));
            }
        }
    }
    best
}

/// Share of the ring that must lie near its median colour for a background to be seen.
const MIN_RING_SHARE: f32 = 0.45;
/// Central box that must be plain background in an empty cell (fractions of the side).
const CENTRE: (f32, f32) = (0.35, 0.65);

/// What one cell shows, before the empty colour is known.
enum CellLook {
    /// A plain centre on this background: empty, or a tile whose digits cannot be seen.
    Plain(Rgb),
    /// Digits read as this value, with confidence 0..=1.
    Text(u32, f32),
    /// Not readable.
    Bad(CellProblem),
}

/// Reads every cell of `grid` from digits alone.
pub(crate) fn read_cells(
    img: &RgbaImage,
    grid: &GridRect,
    templates: &TemplateSet,
) -> (Vec<CellRead>, Vec<CellIssue>) {
    let mut looks = Vec::with_capacity(grid.rows * grid.cols);
    for r in 0..grid.rows {
        for c in 0..grid.cols {
            looks.push(look_at_cell(img, &grid.cell(r, c), templates));
        }
    }
    let empty = empty_colour(&looks);
    let mut cells = Vec::with_capacity(looks.len());
    let mut issues = Vec::new();
    for (i, look) in looks.into_iter().enumerate() {
        let (read, problem) = settle(look, empty);
        cells.push(read);
        if let Some(problem) = problem {
            let (row, col) = (i / grid.cols, i % grid.cols);
            issues.push(CellIssue { row, col, problem });
        }
    }
    (cells, issues)
}

/// One cell's background (median ring colour, tolerant of gradients), then its centre.
fn look_at_cell(img: &RgbaImage, rect: &CellRect, templates: &TemplateSet) -> CellLook {
    let ring = ring_pixels(img, rect);
    let Some(bg) = median(&ring) else {
        return CellLook::Bad(CellProblem::UnknownColour { seen: Rgb::BLACK });
    };
    let share = ring.iter().filter(|c| c.dist(bg) <= RING_TOL).count() as f32 / ring.len() as f32;
    if share < MIN_RING_SHARE {
        return CellLook::Bad(CellProblem::UnknownColour { seen: bg });
    }
    if centre_is_plain(img, rect, bg) {
        return CellLook::Plain(bg);
    }
    let Some(text) = text_colour(img, rect, bg) else {
        return CellLook::Plain(bg);
    };
    read_digits(img, rect, bg, text, share, templates)
}

/// Whether at most [`MAX_NOISE`] of the cell's centre is off the background `bg`.
fn centre_is_plain(img: &RgbaImage, rect: &CellRect, bg: Rgb) -> bool {
    let (x0, y0, x1, y1) = rect.frac(CENTRE.0, CENTRE.1, CENTRE.0, CENTRE.1);
    let (x1, y1) = (x1.min(img.width()), y1.min(img.height()));
    let mut n = 0usize;
    let mut noisy = 0usize;
    for y in y0..y1 {
        for x in x0..x1 {
            n += 1;
            if Rgb::from_rgba(img.get_pixel(x, y).0).dist(bg) > NOISE_TOL {
                noisy += 1;
            }
        }
    }
    (noisy as f32) <= MAX_NOISE * n.max(1) as f32
}

/// A tile's digits as the power of two they fit best, with a clear margin over the second;
/// `ring_share` (0..=1) caps the confidence.
fn read_digits(
    img: &RgbaImage,
    rect: &CellRect,
    bg: Rgb,
    text: Rgb,
    ring_share: f32,
    templates: &TemplateSet,
) -> CellLook {
    let (gl, _) = glyphs(img, rect, bg, text);
    let scored = templates.rank_powers_of_two(&templates.glyph_scores(&gl));
    let Some(&(v, s)) = scored.first() else {
        return CellLook::Bad(CellProblem::DigitsUnreadable {
            glyphs: gl.len(),
            values: Vec::new(),
        });
    };
    if let Some(&(v2, s2)) = scored.get(1) {
        if s - s2 < MIN_MARGIN {
            return CellLook::Bad(CellProblem::Ambiguous {
                values: vec![v, v2],
            });
        }
    }
    let conf = ((s - SCORE_RANGE.0) / (SCORE_RANGE.1 - SCORE_RANGE.0)).clamp(0.0, 1.0);
    CellLook::Text(v, conf.min(((ring_share - 0.3) / 0.4).clamp(0.0, 1.0)))
}

/// The empty colour: the most common background among plain cells.
fn empty_colour(looks: &[CellLook]) -> Option<Rgb> {
    let plains: Vec<Rgb> = looks
        .iter()
        .filter_map(|p| match p {
            CellLook::Plain(c) => Some(*c),
            _ => None,
        })
        .collect();
    plains
        .iter()
        .max_by_key(|c| plains.iter().filter(|o| o.dist(**c) <= SAME_COLOUR).count())
        .copied()
}

/// A cell's reading once the empty colour is known, and its problem if it is not read: a plain
/// cell of another colour is a tile whose digits cannot be seen.
fn settle(look: CellLook, empty: Option<Rgb>) -> (CellRead, Option<CellProblem>) {
    let unread = |confidence: f32| CellRead {
        value: None,
        confidence,
    };
    let no_digits = || CellProblem::DigitsUnreadable {
        glyphs: 0,
        values: Vec::new(),
    };
    match look {
        CellLook::Plain(c) if empty.is_some_and(|e| e.dist(c) <= SAME_COLOUR) => {
            let read = CellRead {
                value: Some(0),
                confidence: 1.0,
            };
            (read, None)
        }
        CellLook::Plain(_) => (unread(0.0), Some(no_digits())),
        CellLook::Text(v, conf) if conf >= MIN_CONFIDENCE => {
            let read = CellRead {
                value: Some(v),
                confidence: conf,
            };
            (read, None)
        }
        CellLook::Text(_, conf) => (unread(conf), Some(no_digits())),
        CellLook::Bad(problem) => (unread(0.0), Some(problem)),
    }
}
