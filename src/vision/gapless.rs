//! Boards drawn without gaps between their cells (flat themes whose square tiles touch, a 2048
//! drawn in a terminal): the lattice from the cells' colour edges.
//!
//! Method: every colour common enough to fill a cell is masked and its connected components are
//! taken; the "blocks" are those that fill most of their bounding box and do not touch the
//! image's border (the page does). A tile is one block, neighbouring equal tiles one block
//! together, a digit a small block inside a tile. Blocks that touch each other form a cluster,
//! and a cluster whose blocks cover its bounding box is a board-like area. A lattice of
//! `rows x cols` (3..=9 each) fits the area when every block either lies inside one cell (a
//! digit) or has all four sides on lattice lines, and every line inside the area is the side of
//! some block; exactly one lattice must fit, or the area is refused. An empty area of equal
//! tiles has no edges, so a board with too few tiles (or too many equal neighbours) is refused
//! rather than guessed. [`super::Reader`] tries this only when no board with gaps is found, and
//! keeps its result only when the cells' digits read.
use super::colour::Rgb;
use super::grid::{board_mask, GridRect, MAX_CELLS, MAX_CELL_ASPECT, MIN_CELLS, MIN_CELL_PX};
use image::RgbaImage;
use std::collections::HashMap;

/// Colours examined (most common first).
const MAX_COLOURS: usize = 24;
/// Pixels within this of a colour (8-bit levels, largest channel difference) belong to it.
const COLOUR_TOL: u8 = 8;
/// Least share of its bounding box a block's own pixels fill (digits cut holes in a tile).
const MIN_BLOCK_FILL: f32 = 0.5;
/// Blocks whose bounding boxes are this close (pixels) touch (one blended pixel between tiles).
const TOUCH_PX: usize = 2;
/// Least share of a board-like area its blocks' bounding boxes cover.
const MIN_AREA_COVER: f32 = 0.97;
/// A side lies on a lattice line within this share of the cell's side (at least 2 pixels).
const LINE_TOL: f32 = 0.05;

/// Why a board-like area without gaps was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LatticeRefusal {
    /// No lattice of 3 to 9 cells a side has every block side on its lines and every line
    /// shown by some block's side.
    #[error("no lattice of 3 to 9 cells a side fits its colour edges")]
    NoFit,
    /// Several lattices fit the edges seen.
    #[error("its colour edges fit {} lattices ({})", .0.len(), list(.0))]
    Ambiguous(Vec<(usize, usize)>),
    /// The lattice fits, but fewer than [`super::MIN_GAPLESS_TILES`] of its cells read as
    /// tiles (plain rectangles, or digits no profile knows).
    #[error("a {rows}x{cols} lattice fits its colour edges, but fewer than {} of its cells read as tiles", super::MIN_GAPLESS_TILES)]
    NoTiles {
        /// Rows of the lattice.
        rows: usize,
        /// Columns of the lattice.
        cols: usize,
    },
}

fn list(shapes: &[(usize, usize)]) -> String {
    shapes
        .iter()
        .map(|(r, c)| format!("{r}x{c}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A board-like area (tiles touching edge to edge) whose lattice could not be found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "a board-like area at {x},{y} {width}x{height} has no gaps between its cells: bot2048 \
     cannot find its lattice ({reason})"
)]
pub struct NoLattice {
    /// Left edge of the area, pixels.
    pub x: u32,
    /// Top edge of the area, pixels.
    pub y: u32,
    /// Width of the area, pixels.
    pub width: u32,
    /// Height of the area, pixels.
    pub height: u32,
    /// Why no lattice was taken.
    pub reason: LatticeRefusal,
}

/// A block: bounding box `[x0, x1) x [y0, y1)` in pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Block {
    x0: usize,
    y0: usize,
    x1: usize,
    y1: usize,
}

impl Block {
    fn touches(&self, o: &Block) -> bool {
        self.x0 <= o.x1 + TOUCH_PX
            && o.x0 <= self.x1 + TOUCH_PX
            && self.y0 <= o.y1 + TOUCH_PX
            && o.y0 <= self.y1 + TOUCH_PX
    }
}

/// The board-like areas of `img` with their lattice: `Ok(grid)` for each area whose lattice was
/// found, `Err` for each refused, largest area first. Empty when nothing looks like a board.
pub(crate) fn find(img: &RgbaImage) -> Vec<Result<GridRect, NoLattice>> {
    let (w, h) = (img.width() as usize, img.height() as usize);
    if w < MIN_CELLS * MIN_CELL_PX || h < MIN_CELLS * MIN_CELL_PX {
        return Vec::new();
    }
    let blocks = blocks(img);
    let mut out: Vec<(usize, Result<GridRect, NoLattice>)> = Vec::new();
    for cluster in clusters(&blocks) {
        let area = bounds(&cluster);
        let (aw, ah) = (area.x1 - area.x0, area.y1 - area.y0);
        // A board-like area holds at least a tile beside something else and is big enough.
        if cluster.len() < 2 || aw < MIN_CELLS * MIN_CELL_PX || ah < MIN_CELLS * MIN_CELL_PX {
            continue;
        }
        if cover(&cluster, &area) < MIN_AREA_COVER {
            continue;
        }
        let result = fit(&cluster, &area).map_err(|reason| NoLattice {
            x: area.x0 as u32,
            y: area.y0 as u32,
            width: aw as u32,
            height: ah as u32,
            reason,
        });
        out.push((aw * ah, result));
    }
    out.sort_by_key(|o| std::cmp::Reverse(o.0));
    out.into_iter().map(|o| o.1).collect()
}

/// The colours covering at least a smallest cell's worth of pixels, most common first, with
/// near-equal colours (within [`COLOUR_TOL`]) taken once.
fn common_colours(img: &RgbaImage) -> Vec<Rgb> {
    let mut counts: HashMap<[u8; 3], u32> = HashMap::new();
    for p in img.pixels() {
        *counts.entry([p.0[0], p.0[1], p.0[2]]).or_insert(0) += 1;
    }
    let mut all: Vec<([u8; 3], u32)> = counts
        .into_iter()
        .filter(|&(_, n)| n as usize >= MIN_CELL_PX * MIN_CELL_PX / 2)
        .collect();
    all.sort_by_key(|&(c, n)| (std::cmp::Reverse(n), c));
    let mut chosen: Vec<Rgb> = Vec::new();
    for (c, _) in all {
        let c = Rgb(c);
        if chosen.iter().all(|k| k.dist(c) > COLOUR_TOL) {
            chosen.push(c);
            if chosen.len() == MAX_COLOURS {
                break;
            }
        }
    }
    chosen
}

/// The blocks of every common colour (see the module doc).
fn blocks(img: &RgbaImage) -> Vec<Block> {
    let (w, h) = (img.width() as usize, img.height() as usize);
    let mut out = Vec::new();
    for c in common_colours(img) {
        let mask = board_mask(img, &[c], COLOUR_TOL);
        for (x0, y0, x1, y1, n) in super::grid::components(&mask, w, h) {
            let b = Block {
                x0,
                y0,
                x1: x1 + 1,
                y1: y1 + 1,
            };
            let (bw, bh) = (b.x1 - b.x0, b.y1 - b.y0);
            let border = x0 == 0 || y0 == 0 || b.x1 == w || b.y1 == h;
            if bw >= MIN_CELL_PX
                && bh >= MIN_CELL_PX
                && !border
                && n as f32 >= MIN_BLOCK_FILL * (bw * bh) as f32
            {
                out.push(b);
            }
        }
    }
    out
}

/// Groups of blocks that touch, directly or through others.
fn clusters(blocks: &[Block]) -> Vec<Vec<Block>> {
    let mut parent: Vec<usize> = (0..blocks.len()).collect();
    fn root(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    for (i, a) in blocks.iter().enumerate() {
        for (j, b) in blocks.iter().enumerate().skip(i + 1) {
            if a.touches(b) {
                let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                parent[a] = b;
            }
        }
    }
    let mut groups: HashMap<usize, Vec<Block>> = HashMap::new();
    for (i, b) in blocks.iter().enumerate() {
        let r = root(&mut parent, i);
        groups.entry(r).or_default().push(*b);
    }
    let mut v: Vec<Vec<Block>> = groups.into_values().collect();
    v.sort_by_key(|g| (g[0].y0, g[0].x0));
    v
}

/// The bounding box of a cluster.
fn bounds(cluster: &[Block]) -> Block {
    cluster.iter().fold(cluster[0], |a, b| Block {
        x0: a.x0.min(b.x0),
        y0: a.y0.min(b.y0),
        x1: a.x1.max(b.x1),
        y1: a.y1.max(b.y1),
    })
}

/// Share of `area` covered by the blocks' bounding boxes.
fn cover(cluster: &[Block], area: &Block) -> f32 {
    let (aw, ah) = (area.x1 - area.x0, area.y1 - area.y0);
    let mut on = vec![false; aw * ah];
    for b in cluster {
        for y in b.y0..b.y1 {
            on[(y - area.y0) * aw + (b.x0 - area.x0)..(y - area.y0) * aw + (b.x1 - area.x0)]
                .fill(true);
        }
    }
    on.iter().filter(|&&o| o).count() as f32 / on.len() as f32
}

/// The one lattice that fits the cluster's blocks (see the module doc).
fn fit(cluster: &[Block], area: &Block) -> Result<GridRect, LatticeRefusal> {
    let (aw, ah) = ((area.x1 - area.x0) as f32, (area.y1 - area.y0) as f32);
    let mut fits = Vec::new();
    for rows in MIN_CELLS..=MAX_CELLS {
        for cols in MIN_CELLS..=MAX_CELLS {
            let (cw, ch) = (aw / cols as f32, ah / rows as f32);
            if cw < MIN_CELL_PX as f32
                || ch < MIN_CELL_PX as f32
                || !(1.0 / MAX_CELL_ASPECT..=MAX_CELL_ASPECT).contains(&(cw / ch))
            {
                continue;
            }
            let x = Axis::new(area.x0, cw, cols);
            let y = Axis::new(area.y0, ch, rows);
            if lattice_fits(cluster, &x, &y) {
                fits.push((rows, cols));
            }
        }
    }
    match fits[..] {
        [(rows, cols)] => {
            let (cw, ch) = (aw / cols as f32, ah / rows as f32);
            Ok(GridRect {
                x: area.x0 as u32,
                y: area.y0 as u32,
                width: aw as u32,
                height: ah as u32,
                rows,
                cols,
                cell_width: cw,
                cell_height: ch,
                pitch_x: cw,
                pitch_y: ch,
            })
        }
        [] => Err(LatticeRefusal::NoFit),
        _ => Err(LatticeRefusal::Ambiguous(fits)),
    }
}

/// One axis of a candidate lattice: start and cell side in pixels, cell count.
struct Axis {
    start: f32,
    side: f32,
    count: usize,
    tol: f32,
}

impl Axis {
    fn new(start: usize, side: f32, count: usize) -> Axis {
        Axis {
            start: start as f32,
            side,
            count,
            tol: (side * LINE_TOL).max(2.0),
        }
    }

    /// The lattice line (0..=count) that `pos` lies on, if any.
    fn line(&self, pos: usize) -> Option<usize> {
        let k = ((pos as f32 - self.start) / self.side).round();
        let on = (pos as f32 - (self.start + k * self.side)).abs() <= self.tol;
        (on && (0.0..=self.count as f32).contains(&k)).then_some(k as usize)
    }

    /// Whether `[a, b)` lies inside one cell, clear of its lines.
    fn inside_one(&self, a: usize, b: usize) -> bool {
        let k = ((a as f32 - self.start) / self.side).floor();
        let lo = self.start + k * self.side + self.tol;
        let hi = self.start + (k + 1.0) * self.side - self.tol;
        a as f32 > lo && (b as f32) < hi
    }
}

/// Whether every block is inside one cell or on the lattice's lines, and every inner line is
/// some block's side.
fn lattice_fits(cluster: &[Block], x: &Axis, y: &Axis) -> bool {
    let mut seen_x = vec![false; x.count + 1];
    let mut seen_y = vec![false; y.count + 1];
    for b in cluster {
        if x.inside_one(b.x0, b.x1) && y.inside_one(b.y0, b.y1) {
            continue;
        }
        let (Some(l), Some(r), Some(t), Some(d)) =
            (x.line(b.x0), x.line(b.x1), y.line(b.y0), y.line(b.y1))
        else {
            return false;
        };
        if l >= r || t >= d {
            return false;
        }
        for k in [l, r] {
            seen_x[k] = true;
        }
        for k in [t, d] {
            seen_y[k] = true;
        }
    }
    seen_x[1..x.count].iter().all(|&s| s) && seen_y[1..y.count].iter().all(|&s| s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A flat board: `rows x cols` square tiles of `side` px touching, at (20, 20) on a page;
    /// `colour(r, c)` gives each tile's colour.
    fn flat(rows: u32, cols: u32, side: u32, colour: impl Fn(u32, u32) -> [u8; 3]) -> RgbaImage {
        let mut img = RgbaImage::from_pixel(
            cols * side + 40,
            rows * side + 40,
            image::Rgba([250, 248, 239, 255]),
        );
        for r in 0..rows {
            for c in 0..cols {
                let k = colour(r, c);
                for y in 0..side {
                    for x in 0..side {
                        img.put_pixel(
                            20 + c * side + x,
                            20 + r * side + y,
                            image::Rgba([k[0], k[1], k[2], 255]),
                        );
                    }
                }
            }
        }
        img
    }

    const PALETTE: [[u8; 3]; 4] = [
        [255, 255, 255],
        [252, 233, 79],
        [138, 226, 52],
        [114, 159, 207],
    ];

    #[test]
    fn a_checkerboard_of_touching_tiles_has_its_lattice() {
        for (rows, cols, side) in [(4u32, 4u32, 60u32), (3, 3, 90), (5, 5, 40), (3, 5, 50)] {
            let img = flat(rows, cols, side, |r, c| PALETTE[((r + 2 * c) % 4) as usize]);
            let found = find(&img);
            let g = found[0].clone().expect("lattice");
            assert_eq!((g.rows, g.cols), (rows as usize, cols as usize));
            assert_eq!((g.x, g.y, g.width), (20, 20, cols * side));
            assert_eq!(g.cell_width, side as f32);
        }
    }

    #[test]
    fn an_area_of_equal_tiles_is_refused_with_a_reason() {
        // Two columns of one colour beside two of another: lines 1 and 3 have no edge.
        let img = flat(4, 4, 50, |_, c| PALETTE[(c / 2) as usize]);
        let found = find(&img);
        let e = found[0].clone().expect_err("no lattice");
        assert!(e.to_string().contains("no gaps between its cells"), "{e}");
        assert_eq!((e.x, e.y, e.width, e.height), (20, 20, 200, 200));
    }

    #[test]
    fn one_flat_rectangle_is_no_board() {
        let img = flat(4, 4, 50, |_, _| PALETTE[1]);
        assert!(find(&img).is_empty());
    }
}
