//! Learning a calibration profile from (image, known board) pairs.
//!
//! [`Learner`] takes screenshots with their boards (from labels offline, or from the engine's
//! predictions during a live calibration) and, in [`Learner::finish`], builds a [`Profile`]:
//! 1. each image's grid is found without a profile (the image's most common colours are tried as
//!    board colour, with the board shape known from its labels);
//! 2. the board colour shared by most images is the plain board; images whose board colour
//!    differs are under an overlay;
//! 3. each value's background is the median of its cells' dominant edge-ring colours, its text
//!    colour the dominant colour of the centre pixels farthest from the background;
//! 4. digit templates are the mean normalised glyph of every digit seen, from tiles whose glyph
//!    count matches their value's digit count;
//! 5. an overlay's colour and opacity are fitted by least squares to (plain colour, colour
//!    under overlay) pairs: `seen = (1 - alpha) * plain + alpha * colour`; it means "won" when its
//!    board holds a 2048 or higher tile, "game over" when its board has no legal move.
//!
//! Learning while playing (issue 24) takes one tile at a time: [`tile_lesson`] checks that a
//! cell the engine knows looks like a tile of its value (one plain background unlike the empty
//! cell, its value's number of digit-like shapes, nothing covering it) with the same per-cell
//! steps as the [`Learner`] (ring colour, text colour, digit glyphs), and
//! [`TileLesson::teach`] adds the look to a profile.
use super::cells::{faint_text_colour, glyphs, ring_colour, text_colour, MAX_FOREIGN};
use super::colour::{median, Rgb};
use super::glyph::Glyph;
use super::grid::{candidate_colours, find_grid, CellRect, GridRect};
use super::labels::Label;
use super::profile::{
    BoardLook, CellLook, GlyphTemplate, Glyphs, Overlay, OverlayStatus, Profile, TileLook,
    GLYPH_SIZE,
};
use image::RgbaImage;
use std::collections::BTreeMap;

/// Tolerance written into learned profiles at least (8-bit levels).
const MIN_TOLERANCE: u8 = 8;
/// Largest tolerance a learned profile gets.
const MAX_TOLERANCE: u8 = 20;
/// Board colours closer than this (levels) are the same board.
const SAME_BOARD: u8 = 4;
/// Share of an edge ring that must be one colour for the cell to be learned from.
const MIN_LEARN_SHARE: f32 = 0.6;
/// Board colours tried per image.
const CANDIDATE_COLOURS: usize = 10;
/// Tolerance used when searching a grid without a profile.
const SEARCH_TOLERANCE: u8 = 10;
/// Smallest colour distance (8-bit levels, largest channel) between a tile learned while
/// playing and the empty cell: a cell closer to the empty colour looks empty, and contradicts
/// the engine's tile.
pub const MIN_TILE_CONTRAST: u8 = 24;

/// One (image, board) pair.
struct Sample {
    origin: String,
    image: RgbaImage,
    label: Label,
}

/// What a calibration learned and what it could not.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct LearnReport {
    /// Images used.
    pub used: Vec<String>,
    /// Images skipped, with why.
    pub skipped: Vec<(String, String)>,
    /// Tile values whose look was learned.
    pub values: Vec<u32>,
    /// Powers of two 2..=131072 not seen (the profile cannot read them by colour).
    pub missing_values: Vec<u32>,
    /// Digits whose glyph was learned.
    pub digits: Vec<u8>,
    /// Overlays learned ("game_over" / "won").
    pub overlays: Vec<String>,
}

/// Errors of [`Learner::finish`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LearnError {
    /// No image had a findable board.
    #[error("no board found in any of the {0} image(s)")]
    NoBoard(usize),
    /// No empty cell or no tile was seen.
    #[error("learned too little: {0}")]
    TooLittle(String),
}

/// Collects (image, board) pairs and learns a profile from them.
pub struct Learner {
    name: String,
    samples: Vec<Sample>,
}

/// A sample with its grid found.
struct Located<'a> {
    sample: &'a Sample,
    grid: GridRect,
    board: Rgb,
}

impl Learner {
    /// A learner for a profile called `name`.
    pub fn new(name: &str) -> Learner {
        Learner {
            name: name.to_string(),
            samples: Vec::new(),
        }
    }

    /// Adds a screenshot and its board (`None` cells are unknown and not learned from);
    /// `origin` names it in the report.
    pub fn add(&mut self, origin: &str, image: RgbaImage, label: Label) {
        self.samples.push(Sample {
            origin: origin.to_string(),
            image,
            label,
        });
    }

    /// Number of pairs added.
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// Whether no pair was added.
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// Learns the profile.
    ///
    /// # Errors
    /// [`LearnError::NoBoard`] when no image shows a board of its label's shape;
    /// [`LearnError::TooLittle`] when no empty cell or no tile could be learned.
    pub fn finish(&self) -> Result<(Profile, LearnReport), LearnError> {
        let mut report = LearnReport::default();
        let located = self.locate_all(&mut report)?;
        let (board, plain, shaded) = split_by_board_colour(&located);
        let bgs = background_samples(&plain);
        let bg = learn_backgrounds(&bgs)?;
        let empty = bg[&0];
        let tiles = learn_tiles(&plain, &bg);
        let sums = sum_glyphs(&plain, &tiles);
        let digit = digit_templates(&sums);
        let overlays = learn_overlays(shaded, board, &bg, &mut report);
        let tolerance = learned_tolerance(&bgs, &bg);
        report.used = located.iter().map(|l| l.sample.origin.clone()).collect();
        report.values = tiles.iter().map(|t| t.value).collect();
        report.missing_values = (1..=17)
            .map(|e| 1u32 << e)
            .filter(|v| !report.values.contains(v))
            .collect();
        report.digits = sums.keys().copied().collect();
        let profile = Profile {
            name: self.name.clone(),
            format: 1,
            board: Some(BoardLook {
                colour: board,
                tolerance,
            }),
            cells: Some(CellLook { empty, tolerance }),
            tiles,
            overlays,
            glyphs: if digit.is_empty() {
                None
            } else {
                Some(Glyphs {
                    size: GLYPH_SIZE,
                    digit,
                })
            },
            animation: None,
            game: None,
        };
        Ok((profile, report))
    }

    /// Every sample whose grid is found; the others go to `report.skipped`.
    fn locate_all(&self, report: &mut LearnReport) -> Result<Vec<Located<'_>>, LearnError> {
        let mut located = Vec::new();
        for s in &self.samples {
            match locate(s) {
                Some(l) => located.push(l),
                None => report.skipped.push((
                    s.origin.clone(),
                    "no board of the label's shape found".into(),
                )),
            }
        }
        if located.is_empty() {
            return Err(LearnError::NoBoard(self.samples.len()));
        }
        Ok(located)
    }
}

/// The plain board colour, the samples showing it and those under an overlay. The plain colour
/// is the one shared by most ordinary boards (moves left, no 2048 yet: never under an overlay),
/// then by most images; the result is the median of the plain samples' board colours.
fn split_by_board_colour<'s, 'a>(
    located: &'s [Located<'a>],
) -> (Rgb, Vec<&'s Located<'a>>, Vec<&'s Located<'a>>) {
    let ordinary = |l: &Located| !no_moves(&l.sample.label) && max_value(&l.sample.label) < 2048;
    let base = located
        .iter()
        .map(|l| l.board)
        .max_by_key(|c| {
            let same = located.iter().filter(|o| o.board.dist(*c) <= SAME_BOARD);
            (same.clone().filter(|o| ordinary(o)).count(), same.count())
        })
        .unwrap_or_default();
    let (plain, shaded): (Vec<&Located>, Vec<&Located>) = located
        .iter()
        .partition(|l| l.board.dist(base) <= SAME_BOARD);
    let board = median(&plain.iter().map(|l| l.board).collect::<Vec<_>>()).unwrap_or(base);
    (board, plain, shaded)
}

/// Every clear ring colour seen per value (0 = empty) on plain boards.
fn background_samples(plain: &[&Located]) -> BTreeMap<u32, Vec<Rgb>> {
    let mut bgs: BTreeMap<u32, Vec<Rgb>> = BTreeMap::new();
    for l in plain {
        for_cells(l, |_, v, rect| {
            if let Some((c, share)) = ring_colour(&l.sample.image, &rect) {
                if share >= MIN_LEARN_SHARE {
                    bgs.entry(v).or_default().push(c);
                }
            }
        });
    }
    bgs
}

/// Each value's background: the median of its samples.
///
/// # Errors
/// [`LearnError::TooLittle`] when no empty cell or no tile was seen.
fn learn_backgrounds(bgs: &BTreeMap<u32, Vec<Rgb>>) -> Result<BTreeMap<u32, Rgb>, LearnError> {
    let bg: BTreeMap<u32, Rgb> = bgs
        .iter()
        .filter_map(|(v, cs)| median(cs).map(|m| (*v, m)))
        .collect();
    if !bg.contains_key(&0) {
        return Err(LearnError::TooLittle("no empty cell seen".into()));
    }
    if bg.len() < 2 {
        return Err(LearnError::TooLittle("no tile seen".into()));
    }
    Ok(bg)
}

/// The cell tolerance (8-bit levels): the 90th percentile of the samples' distances from their
/// value's background, plus 4, within [`MIN_TOLERANCE`]..=[`MAX_TOLERANCE`].
fn learned_tolerance(bgs: &BTreeMap<u32, Vec<Rgb>>, bg: &BTreeMap<u32, Rgb>) -> u8 {
    let mut deviations = Vec::new();
    for (v, cs) in bgs {
        deviations.extend(cs.iter().map(|c| c.dist(bg[v])));
    }
    deviations.sort_unstable();
    let p90 = deviations
        .get(deviations.len() * 9 / 10)
        .copied()
        .unwrap_or(0);
    (p90 + 4).clamp(MIN_TOLERANCE, MAX_TOLERANCE)
}

/// Each tile value's look: its background and the median of its text colours.
fn learn_tiles(plain: &[&Located], bg: &BTreeMap<u32, Rgb>) -> Vec<TileLook> {
    let mut texts: BTreeMap<u32, Vec<Rgb>> = BTreeMap::new();
    for l in plain {
        for_cells(l, |_, v, rect| {
            if v == 0 {
                return;
            }
            if let Some((c, share)) = ring_colour(&l.sample.image, &rect) {
                if share >= MIN_LEARN_SHARE && c.dist(bg[&v]) <= MIN_TOLERANCE {
                    if let Some(t) = text_colour(&l.sample.image, &rect, bg[&v]) {
                        texts.entry(v).or_default().push(t);
                    }
                }
            }
        });
    }
    bg.iter()
        .filter(|(v, _)| **v != 0)
        .filter_map(|(v, b)| {
            median(texts.get(v)?).map(|t| TileLook {
                value: *v,
                background: *b,
                text: t,
            })
        })
        .collect()
}

/// Sum of every glyph seen per digit: (summed levels, summed aspect, count).
type GlyphSums = BTreeMap<u8, (Vec<u32>, f32, u32)>;

/// Adds up the glyphs of every clear tile whose glyph count matches its value's digit count.
fn sum_glyphs(plain: &[&Located], tiles: &[TileLook]) -> GlyphSums {
    let mut sums = GlyphSums::new();
    for l in plain {
        for_cells(l, |_, v, rect| {
            let Some(t) = tiles.iter().find(|t| t.value == v) else {
                return;
            };
            let Some((c, share)) = ring_colour(&l.sample.image, &rect) else {
                return;
            };
            if share < MIN_LEARN_SHARE || c.dist(t.background) > MIN_TOLERANCE {
                return;
            }
            let Ok(gl) = digit_glyphs(&l.sample.image, &rect, v, t.background, t.text) else {
                return;
            };
            for (d, g) in &gl {
                let e = sums
                    .entry(*d)
                    .or_insert((vec![0; GLYPH_SIZE * GLYPH_SIZE], 0.0, 0));
                for (s, &x) in e.0.iter_mut().zip(&g.levels) {
                    *s += u32::from(x);
                }
                e.1 += g.aspect;
                e.2 += 1;
            }
        });
    }
    sums
}

/// The glyphs of a tile of `value` on background `bg` with text colour `text`, paired with the
/// value's decimal digits, left to right.
///
/// # Errors
/// [`LessonRefused::Covered`] when more than [`MAX_FOREIGN`] of the text box is in neither
/// colour (a dialog, an overlay caption, a tile mid-slide); [`LessonRefused::Glyphs`] when the
/// number of digit-like shapes is not the value's number of digits.
fn digit_glyphs(
    img: &RgbaImage,
    rect: &CellRect,
    value: u32,
    bg: Rgb,
    text: Rgb,
) -> Result<Vec<(u8, Glyph)>, LessonRefused> {
    let (gl, foreign) = glyphs(img, rect, bg, text);
    if foreign > MAX_FOREIGN {
        return Err(LessonRefused::Covered {
            percent: foreign * 100.0,
        });
    }
    let digits = value.to_string();
    if gl.len() != digits.len() {
        return Err(LessonRefused::Glyphs {
            seen: gl.len(),
            want: digits.len(),
        });
    }
    Ok(digits.bytes().map(|d| d - b'0').zip(gl).collect())
}

/// Why a cell's look is not learned as the tile the engine says is there (see [`tile_lesson`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LessonRefused {
    /// The reader is tracking no grid, so there is no cell to look at.
    #[error("no board grid is being tracked")]
    NoGrid,
    /// The cell is not on the tracked grid.
    #[error("the cell is outside the {rows}x{cols} board")]
    OutsideBoard {
        /// Rows of the tracked grid.
        rows: usize,
        /// Columns of the tracked grid.
        cols: usize,
    },
    /// The cell's edge ring is not mostly one colour (a tile between cells, a dialog).
    #[error("its edge is not one plain colour ({percent:.0}% of it is)")]
    NotPlain {
        /// Share of the ring in its dominant colour, percent.
        percent: f32,
    },
    /// The cell's background is the empty cell's colour (or too close to it).
    #[error("it looks like an empty cell (background {seen}, empty cells {empty})")]
    LooksEmpty {
        /// The cell's background.
        seen: Rgb,
        /// The empty cell's colour.
        empty: Rgb,
    },
    /// No empty cell to compare with: the board has none, and the profile gives none.
    #[error("no empty cell on the board to tell a tile from")]
    NoEmptyColour,
    /// The cell's centre is plain: no digits.
    #[error("no digits on it")]
    NoText,
    /// Something in neither the background nor the text colour covers the digits.
    #[error("something covers its digits ({percent:.1}% of its text box is in neither colour)")]
    Covered {
        /// Share of the text box in neither colour, percent.
        percent: f32,
    },
    /// The number of digit-like shapes is not the value's number of digits.
    #[error("{seen} digit-like shape(s) where the value has {want} digit(s)")]
    Glyphs {
        /// Shapes seen.
        seen: usize,
        /// Digits of the value.
        want: usize,
    },
}

/// One tile's look, taken from one frame on which the engine knows the tile's value: what
/// [`tile_lesson`] learned, for [`TileLesson::teach`].
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TileLesson {
    /// Row of the cell, 0 = top.
    pub row: usize,
    /// Column of the cell, 0 = left.
    pub col: usize,
    /// The tile's value (the engine's).
    pub value: u32,
    /// The tile's background colour (its edge ring's dominant colour).
    pub background: Rgb,
    /// The digits' colour.
    pub text: Rgb,
    /// Each digit of the value, left to right, with its glyph as seen.
    #[serde(skip)]
    pub glyphs: Vec<(u8, Glyph)>,
}

impl std::fmt::Display for TileLesson {
    /// In words, e.g. `row 1, column 0: a 16 (background #4fae7f, digits #ffffff)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let article = if self.value.to_string().starts_with('8') {
            "an"
        } else {
            "a"
        };
        write!(
            f,
            "row {}, column {}: {article} {} (background {}, digits {})",
            self.row, self.col, self.value, self.background, self.text
        )
    }
}

impl TileLesson {
    /// Adds this look to `profile`: the tile's colours when the profile has no look for its
    /// value, and a template for each of its digits in `new_digits` (`new_digits[d]`: learn
    /// digit `d`). Returns the digits added.
    pub fn teach(&self, profile: &mut Profile, new_digits: &[bool; 10]) -> Vec<u8> {
        if !profile.tiles.iter().any(|t| t.value == self.value) {
            profile.tiles.push(TileLook {
                value: self.value,
                background: self.background,
                text: self.text,
            });
            profile.tiles.sort_by_key(|t| t.value);
        }
        let mut added = Vec::new();
        for (d, g) in &self.glyphs {
            if !new_digits[usize::from(*d)] || added.contains(d) {
                continue;
            }
            let glyphs = profile.glyphs.get_or_insert_with(|| Glyphs {
                size: GLYPH_SIZE,
                digit: Vec::new(),
            });
            glyphs
                .digit
                .push(GlyphTemplate::from_levels(*d, g.aspect, &g.levels));
            added.push(*d);
        }
        added
    }
}

/// Looks at cell `rect` of `img`, which the engine says holds a tile of `value`, and learns its
/// look when what is seen fits: the cell's edge ring is at least 60% one colour, that colour is
/// at least [`MIN_TILE_CONTRAST`] from `empty` (the empty cell's colour), the centre has text,
/// and the text splits into the value's number of digit-like shapes with nothing else over them.
/// `(row, col)` only name the cell in the lesson.
///
/// # Errors
/// A [`LessonRefused`] saying what did not fit (a cell that looks empty contradicts the engine).
pub fn tile_lesson(
    img: &RgbaImage,
    rect: &CellRect,
    (row, col): (usize, usize),
    value: u32,
    empty: Rgb,
) -> Result<TileLesson, LessonRefused> {
    let (background, share) = ring_colour(img, rect).unwrap_or((Rgb::BLACK, 0.0));
    if background.dist(empty) < MIN_TILE_CONTRAST {
        return Err(LessonRefused::LooksEmpty {
            seen: background,
            empty,
        });
    }
    if share < MIN_LEARN_SHARE {
        return Err(LessonRefused::NotPlain {
            percent: share * 100.0,
        });
    }
    // digits of a colour close to the tile's (a terminal's 128: #eeeeee on #e5e5e5) are taken
    // only when they split into the value's number of digits
    let text = text_colour(img, rect, background)
        .or_else(|| faint_text_colour(img, rect, background))
        .ok_or(LessonRefused::NoText)?;
    let glyphs = digit_glyphs(img, rect, value, background, text)?;
    Ok(TileLesson {
        row,
        col,
        value,
        background,
        text,
        glyphs,
    })
}

/// A profile for a game found without one, to learn into while playing: its board colour
/// `board`, its empty cell `empty`, no tiles or digits yet (they come from [`TileLesson::teach`]).
pub fn blank_profile(name: &str, board: Rgb, empty: Rgb) -> Profile {
    Profile {
        name: name.to_string(),
        format: 1,
        board: Some(BoardLook {
            colour: board,
            tolerance: SEARCH_TOLERANCE,
        }),
        cells: Some(CellLook {
            empty,
            tolerance: (MIN_TOLERANCE + MAX_TOLERANCE) / 2,
        }),
        tiles: Vec::new(),
        overlays: Vec::new(),
        glyphs: None,
        animation: None,
        game: None,
    }
}

/// Each digit's template: the mean of its glyphs.
fn digit_templates(sums: &GlyphSums) -> Vec<GlyphTemplate> {
    sums.iter()
        .map(|(d, (s, a, n))| {
            let levels: Vec<u8> = s.iter().map(|x| (x / n) as u8).collect();
            GlyphTemplate::from_levels(*d, a / *n as f32, &levels)
        })
        .collect()
}

/// The overlays: shaded samples grouped by board colour, one overlay fitted per group; a group
/// that fits none (or whose status is unknown) goes to `report.skipped`.
fn learn_overlays(
    shaded: Vec<&Located>,
    board: Rgb,
    bg: &BTreeMap<u32, Rgb>,
    report: &mut LearnReport,
) -> Vec<Overlay> {
    let mut groups: Vec<Vec<&Located>> = Vec::new();
    for l in shaded {
        match groups
            .iter_mut()
            .find(|g| g[0].board.dist(l.board) <= SAME_BOARD)
        {
            Some(g) => g.push(l),
            None => groups.push(vec![l]),
        }
    }
    let mut overlays = Vec::new();
    for g in groups {
        let names: Vec<&str> = g.iter().map(|l| l.sample.origin.as_str()).collect();
        match (
            overlay_status(&g),
            fit_overlay(&overlay_pairs(&g, board, bg)),
        ) {
            (Some(status), Some((colour, alpha))) => {
                report
                    .overlays
                    .push(format!("{status:?} ({})", names.join(", ")));
                overlays.push(Overlay {
                    status,
                    colour,
                    alpha,
                });
            }
            _ => {
                for n in names {
                    report.skipped.push((
                        n.to_string(),
                        "board colour differs and no overlay fits".into(),
                    ));
                }
            }
        }
    }
    overlays
}

/// (plain colour, colour under the overlay) pairs of a group: its board, then every clear cell.
fn overlay_pairs(g: &[&Located], board: Rgb, bg: &BTreeMap<u32, Rgb>) -> Vec<(Rgb, Rgb)> {
    let mut pairs = vec![(board, g[0].board)];
    for l in g {
        for_cells(l, |_, v, rect| {
            if let (Some(b), Some((c, share))) = (bg.get(&v), ring_colour(&l.sample.image, &rect)) {
                if share >= MIN_LEARN_SHARE {
                    pairs.push((*b, c));
                }
            }
        });
    }
    pairs
}

/// What a group's overlay means: won when a board holds 2048 or more, game over when a board has
/// no legal move.
fn overlay_status(g: &[&Located]) -> Option<OverlayStatus> {
    if g.iter().any(|l| max_value(&l.sample.label) >= 2048) {
        Some(OverlayStatus::Won)
    } else if g.iter().any(|l| no_moves(&l.sample.label)) {
        Some(OverlayStatus::GameOver)
    } else {
        None
    }
}

/// Finds a sample's grid without a profile, with the shape of its label.
fn locate(s: &Sample) -> Option<Located<'_>> {
    let shape = s.label.shape();
    let mut best: Option<(f32, GridRect, Rgb)> = None;
    for c in candidate_colours(&s.image, CANDIDATE_COLOURS) {
        if let Some(fit) = find_grid(&s.image, &[c], SEARCH_TOLERANCE, Some(shape)) {
            if best.as_ref().is_none_or(|b| fit.contrast > b.0) {
                best = Some((fit.contrast, fit.rect, c));
            }
        }
    }
    let (_, grid, c) = best?;
    // Refine the board colour from the middle of the gaps.
    let mut gap = Vec::new();
    for r in 0..grid.rows {
        for col in 0..grid.cols.saturating_sub(1) {
            let cell = grid.cell(r, col);
            let x = (cell.x1 + grid.gap_x() / 2.0) as u32;
            for y in (cell.y0 as u32..cell.y1 as u32).step_by(3) {
                if x < s.image.width() && y < s.image.height() {
                    let p = Rgb::from_rgba(s.image.get_pixel(x, y).0);
                    if p.dist(c) <= SEARCH_TOLERANCE {
                        gap.push(p);
                    }
                }
            }
        }
    }
    Some(Located {
        sample: s,
        grid,
        board: median(&gap).unwrap_or(c),
    })
}

/// Calls `f(row, value, rect)` for every labelled (known) cell.
fn for_cells(l: &Located, mut f: impl FnMut(usize, u32, super::grid::CellRect)) {
    for (r, row) in l.sample.label.cells.iter().enumerate() {
        for (c, v) in row.iter().enumerate() {
            if let Some(v) = v {
                f(r, *v, l.grid.cell(r, c));
            }
        }
    }
}

fn max_value(l: &Label) -> u32 {
    l.cells
        .iter()
        .flatten()
        .flatten()
        .copied()
        .max()
        .unwrap_or(0)
}

fn no_moves(l: &Label) -> bool {
    let Some(v): Option<Vec<Vec<u32>>> = l
        .cells
        .iter()
        .map(|r| r.iter().copied().collect::<Option<Vec<u32>>>())
        .collect()
    else {
        return false;
    };
    let (rows, cols) = l.shape();
    for r in 0..rows {
        for c in 0..cols {
            if v[r][c] == 0
                || (c + 1 < cols && v[r][c] == v[r][c + 1])
                || (r + 1 < rows && v[r][c] == v[r + 1][c])
            {
                return false;
            }
        }
    }
    true
}

/// Least-squares fit of `seen = (1 - alpha) * plain + alpha * colour` over colour pairs;
/// `None` unless 0.05 < alpha < 0.95 and at least two distinct plain colours are given.
pub fn fit_overlay(pairs: &[(Rgb, Rgb)]) -> Option<(Rgb, f32)> {
    if pairs.len() < 2 {
        return None;
    }
    let n = pairs.len() as f64;
    let mut num = 0.0;
    let mut den = 0.0;
    let mut means = [(0.0f64, 0.0f64); 3];
    for (ch, m) in means.iter_mut().enumerate() {
        let mb = pairs.iter().map(|p| f64::from(p.0 .0[ch])).sum::<f64>() / n;
        let mo = pairs.iter().map(|p| f64::from(p.1 .0[ch])).sum::<f64>() / n;
        *m = (mb, mo);
        for p in pairs {
            let b = f64::from(p.0 .0[ch]) - mb;
            num += b * (f64::from(p.1 .0[ch]) - mo);
            den += b * b;
        }
    }
    if den < 1.0 {
        return None;
    }
    let slope = num / den;
    let alpha = 1.0 - slope;
    if !(0.05..0.95).contains(&alpha) {
        return None;
    }
    let mut c = [0u8; 3];
    for ch in 0..3 {
        let k = means[ch].1 - slope * means[ch].0;
        c[ch] = (k / alpha).round().clamp(0.0, 255.0) as u8;
    }
    Some((Rgb(c), alpha as f32))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Debian's text-mode 2048 in xterm (tests/data/text-2048/tile-128.png): its 128 at row 0,
    /// column 3 (cell x 254..338, y 50..122) is `#eeeeee` digits on `#e5e5e5`, 9 levels apart,
    /// below what counts as text on a tile; a lesson of the engine's 128 still takes its three
    /// digits 1, 2, 8 (as the faint text splits into the value's number of digits), while a
    /// lesson of a 16 there is refused (two digits expected, three seen).
    #[test]
    fn a_tile_with_faint_digits_is_learned_when_they_split_into_the_values_digits() {
        let path = format!(
            "{}/tests/data/text-2048/tile-128.png",
            env!("CARGO_MANIFEST_DIR")
        );
        let img = image::open(&path).expect(&path).to_rgba8();
        let rect = CellRect {
            x0: 254.0,
            y0: 50.0,
            x1: 338.0,
            y1: 122.0,
        };
        let empty = Rgb([0x7f, 0x7f, 0x7f]);
        assert_eq!(text_colour(&img, &rect, Rgb([0xe5, 0xe5, 0xe5])), None);
        let lesson = tile_lesson(&img, &rect, (0, 3), 128, empty).expect("128 learned");
        assert_eq!(lesson.background, Rgb([0xe5, 0xe5, 0xe5]));
        assert!(
            lesson.text.dist(Rgb([0xee, 0xee, 0xee])) <= 2,
            "{:?}",
            lesson.text
        );
        let digits: Vec<u8> = lesson.glyphs.iter().map(|(d, _)| *d).collect();
        assert_eq!(digits, vec![1, 2, 8]);
        let e = tile_lesson(&img, &rect, (0, 3), 16, empty).expect_err("not a 16");
        assert!(matches!(e, LessonRefused::Glyphs { .. }), "{e:?}");
    }

    #[test]
    fn overlay_fit_recovers_blend() {
        let over = Rgb([238, 228, 218]);
        let plain = [
            Rgb([187, 173, 160]),
            Rgb([238, 228, 218]),
            Rgb([242, 177, 121]),
            Rgb([60, 58, 50]),
        ];
        let pairs: Vec<(Rgb, Rgb)> = plain.iter().map(|p| (*p, p.blend(over, 0.5))).collect();
        let (c, a) = fit_overlay(&pairs).unwrap();
        assert!((a - 0.5).abs() < 0.02, "{a}");
        assert!(c.dist(over) <= 3, "{c}");
    }
}
