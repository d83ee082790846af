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
use super::grid::{self, GridRect};
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

/// Reads every cell of `grid` from digits alone.
pub(crate) fn read_cells(
    img: &RgbaImage,
    grid: &GridRect,
    templates: &TemplateSet,
) -> (Vec<CellRead>, Vec<CellIssue>) {
    enum Pre {
        Plain(Rgb),
        Text(u32, f32),
        Bad(CellProblem),
    }
    let mut pre = Vec::with_capacity(grid.rows * grid.cols);
    for r in 0..grid.rows {
        for c in 0..grid.cols {
            let rect = grid.cell(r, c);
            // Median ring colour and the share of the ring near it (tolerant of gradients).
            let ring = ring_pixels(img, &rect);
            let Some(bg) = median(&ring) else {
                pre.push(Pre::Bad(CellProblem::UnknownColour { seen: Rgb::BLACK }));
                continue;
            };
            let share =
                ring.iter().filter(|c| c.dist(bg) <= RING_TOL).count() as f32 / ring.len() as f32;
            if share < 0.45 {
                pre.push(Pre::Bad(CellProblem::UnknownColour { seen: bg }));
                continue;
            }
            let (x0, y0, x1, y1) = rect.frac(0.35, 0.65, 0.35, 0.65);
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
            if (noisy as f32) <= MAX_NOISE * n.max(1) as f32 {
                pre.push(Pre::Plain(bg));
                continue;
            }
            let Some(text) = text_colour(img, &rect, bg) else {
                pre.push(Pre::Plain(bg));
                continue;
            };
            let (gl, _) = glyphs(img, &rect, bg, text);
            let per: Vec<[f32; 10]> = gl.iter().map(|g| templates.digit_scores(g)).collect();
            let mut scored: Vec<(u32, f32)> = (1..=17u32)
                .map(|e| 1u32 << e)
                .filter_map(|v| templates.value_score_from(&per, v).map(|s| (v, s)))
                .collect();
            scored.sort_by(|a, b| b.1.total_cmp(&a.1));
            match (scored.first(), scored.get(1)) {
                (None, _) => pre.push(Pre::Bad(CellProblem::DigitsUnreadable {
                    glyphs: gl.len(),
                    values: Vec::new(),
                })),
                (Some(&(v, s)), second) => {
                    let mut conf =
                        ((s - SCORE_RANGE.0) / (SCORE_RANGE.1 - SCORE_RANGE.0)).clamp(0.0, 1.0);
                    if let Some(&(v2, s2)) = second {
                        if s - s2 < MIN_MARGIN {
                            pre.push(Pre::Bad(CellProblem::Ambiguous {
                                values: vec![v, v2],
                            }));
                            continue;
                        }
                    }
                    conf = conf.min(((share - 0.3) / 0.4).clamp(0.0, 1.0));
                    pre.push(Pre::Text(v, conf));
                }
            }
        }
    }
    // The empty colour: the most common background among plain cells.
    let plains: Vec<Rgb> = pre
        .iter()
        .filter_map(|p| {
            if let Pre::Plain(c) = p {
                Some(*c)
            } else {
                None
            }
        })
        .collect();
    let empty = plains
        .iter()
        .max_by_key(|c| plains.iter().filter(|o| o.dist(**c) <= SAME_COLOUR).count())
        .copied();
    let mut cells = Vec::with_capacity(pre.len());
    let mut issues = Vec::new();
    for (i, p) in pre.into_iter().enumerate() {
        let (row, col) = (i / grid.cols, i % grid.cols);
        let outcome = match p {
            Pre::Plain(c) if empty.is_some_and(|e| e.dist(c) <= SAME_COLOUR) => Ok((0, 1.0)),
            Pre::Plain(c) => Err((
                CellProblem::DigitsUnreadable {
                    glyphs: 0,
                    values: Vec::new(),
                },
                c,
            )),
            Pre::Text(v, conf) if conf >= MIN_CONFIDENCE => Ok((v, conf)),
            Pre::Text(_, conf) => {
                cells.push(CellRead {
                    value: None,
                    confidence: conf,
                });
                issues.push(CellIssue {
                    row,
                    col,
                    problem: CellProblem::DigitsUnreadable {
                        glyphs: 0,
                        values: Vec::new(),
                    },
                });
                continue;
            }
            Pre::Bad(problem) => {
                cells.push(CellRead {
                    value: None,
                    confidence: 0.0,
                });
                issues.push(CellIssue { row, col, problem });
                continue;
            }
        };
        match outcome {
            Ok((v, conf)) => cells.push(CellRead {
                value: Some(v),
                confidence: conf,
            }),
            Err((problem, _)) => {
                cells.push(CellRead {
                    value: None,
                    confidence: 0.0,
                });
                issues.push(CellIssue { row, col, problem });
            }
        }
    }
    (cells, issues)
}
