//! Boards drawn without gaps between their cells (flat themes whose square tiles touch, a 2048
//! drawn in a terminal): the lattice from the cells' colour edges.
//!
//! Method: every colour common enough to fill a cell is masked and its connected components are
//! taken; the "blocks" are those that fill a good part of their bounding box and do not touch the
//! image's border (the page does). A tile is one block, neighbouring equal tiles one block
//! together, a digit a small block inside a tile. Blocks that touch each other form a cluster,
//! and a cluster whose blocks cover its bounding box is a board-like area. A lattice of
//! `rows x cols` (3..=9 each) fits the area when every block either lies inside one cell (a
//! digit) or has all four sides on lattice lines, and every line inside the area is the side of
//! some block; exactly one lattice must fit, or the area is refused. An empty area of equal
//! tiles has no edges, so a board with too few tiles (or too many equal neighbours) is refused
//! rather than guessed, unless its empty cells are marked (below). [`super::Reader`] tries this
//! only when no board with gaps is found, and keeps its result only when the cells' digits read.
//!
//! Empty-cell marks (a terminal's 2048 draws each empty cell as a dot on one grey): when the
//! edges alone fit no single lattice, the small shapes inside the area that belong to no block
//! are taken (smaller than the smallest cell) and grouped by size (within a pixel). The mark is
//! the largest group at most half as tall as the tallest shape (a digit: a board always holds
//! two tiles) whose shapes lie in different cells, less those not on the colour most of them
//! sit on (pieces of a tile's faint digits). A lattice then also fits when every mark alone in
//! its cell is centred there, and an inner line that no block side shows counts as seen when
//! both cells beside it hold a centred shape: a mark, or a shape of another group (digits) all
//! of whose shapes alone in their cell are centred. A cell whose only small shape is a mark
//! reads as empty. A flat board without marks is refused as before.
use super::colour::Rgb;
use super::grid::{board_mask, GridRect, MAX_CELLS, MAX_CELL_ASPECT, MIN_CELLS, MIN_CELL_PX};
use image::RgbaImage;
use std::collections::HashMap;

/// Colours examined (most common first).
const MAX_COLOURS: usize = 24;
/// Pixels within this of a colour (8-bit levels, largest channel difference) belong to it.
const COLOUR_TOL: u8 = 8;
/// Least share of its bounding box a block's own pixels fill: digits cut holes in a tile, and
/// the empty cells of one colour can form an L or a staircase (on an n x n board at least
/// (2n - 1) / n^2 of its box: 0.31 for 6 x 6).
const MIN_BLOCK_FILL: f32 = 0.25;
/// Blocks whose bounding boxes are this close (pixels) touch (one blended pixel between tiles).
const TOUCH_PX: usize = 2;
/// Least share of a board-like area its blocks' bounding boxes cover.
const MIN_AREA_COVER: f32 = 0.97;
/// A side lies on a lattice line within this share of the cell's side (at least 2 pixels).
const LINE_TOL: f32 = 0.05;
/// Sizes (pixels, each side) within which small shapes are one mark.
const MARK_SIZE_TOL: usize = 1;
/// Fewest shapes of one size that make a group of marks.
const MIN_GROUP: usize = 2;

/// A board-like area's lattice, and the cells that show its empty-cell mark.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Found {
    /// The lattice.
    pub grid: GridRect,
    /// Cells `(row, column)` whose only small shape is the empty-cell mark (none when the area
    /// has no marks): they are empty.
    pub empty: Vec<(usize, usize)>,
}

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

/// A block: bounding box `[x0, x1) x [y0, y1)` in pixels, and its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Block {
    x0: usize,
    y0: usize,
    x1: usize,
    y1: usize,
    colour: Rgb,
}

/// The small shapes that show where cells are (see the module doc).
#[derive(Clone, Debug, Default)]
struct Marks {
    /// The empty-cell marks: each must be centred in a cell of its own.
    empty: Vec<Shape>,
    /// Other groups of shapes of one size (digits): a group shows its cells when all its
    /// shapes alone in their cell are centred there; otherwise it shows nothing (the digits of
    /// a 16 share a cell, off its centre).
    others: Vec<Vec<Shape>>,
    /// Every small shape of the area: an empty-cell mark that shares its cell with another
    /// (a piece of a tile's faint digits of the same size) is no empty cell's mark.
    all: Vec<Shape>,
}

impl Marks {
    fn is_empty(&self) -> bool {
        self.empty.is_empty() && self.others.is_empty()
    }
}

/// A small shape inside a board-like area: bounding box `[x0, x1) x [y0, y1)` in pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Shape {
    x0: usize,
    y0: usize,
    x1: usize,
    y1: usize,
}

impl Shape {
    fn size(&self) -> (usize, usize) {
        (self.x1 - self.x0, self.y1 - self.y0)
    }

    fn same_size(&self, o: &Shape) -> bool {
        let ((w, h), (ow, oh)) = (self.size(), o.size());
        w.abs_diff(ow) <= MARK_SIZE_TOL && h.abs_diff(oh) <= MARK_SIZE_TOL
    }

    /// Centre, pixels (twice the coordinate, to stay whole).
    fn centre2(&self) -> (usize, usize) {
        (self.x0 + self.x1, self.y0 + self.y1)
    }
}

impl Block {
    fn touches(&self, o: &Block) -> bool {
        self.x0 <= o.x1 + TOUCH_PX
            && o.x0 <= self.x1 + TOUCH_PX
            && self.y0 <= o.y1 + TOUCH_PX
            && o.y0 <= self.y1 + TOUCH_PX
    }
}

/// The board-like areas of `img` with their lattice: `Ok` for each area whose lattice was
/// found (with the cells its empty-cell mark shows empty), `Err` for each refused, largest area
/// first. Empty when nothing looks like a board.
pub(crate) fn find(img: &RgbaImage) -> Vec<Result<Found, NoLattice>> {
    let (w, h) = (img.width() as usize, img.height() as usize);
    if w < MIN_CELLS * MIN_CELL_PX || h < MIN_CELLS * MIN_CELL_PX {
        return Vec::new();
    }
    let blocks = blocks(img);
    let mut out: Vec<(usize, Result<Found, NoLattice>)> = Vec::new();
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
        let marks = marks(img, &cluster, &area);
        let result = fit(&cluster, &Marks::default(), &area)
            .or_else(|e| match marks.is_empty() {
                true => Err(e),
                false => fit(&cluster, &marks, &area),
            })
            .map(|grid| Found {
                empty: marked_cells(&grid, &marks),
                grid,
            })
            .map_err(|reason| NoLattice {
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
                colour: c,
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
        colour: a.colour,
    })
}

/// The small shapes inside `area` (connected pixels that belong to no block of the cluster:
/// within [`COLOUR_TOL`] of the colour of no block whose box holds them), smaller than the
/// smallest cell a lattice may have; and of those the empty-cell marks and the other groups of
/// shapes of one size (see the module doc), possibly none.
fn marks(img: &RgbaImage, cluster: &[Block], area: &Block) -> Marks {
    let (aw, ah) = (area.x1 - area.x0, area.y1 - area.y0);
    let mut mask = vec![0u8; aw * ah];
    for y in area.y0..area.y1 {
        for x in area.x0..area.x1 {
            let c = Rgb::from_rgba(img.get_pixel(x as u32, y as u32).0);
            let in_block = cluster.iter().any(|b| {
                (b.x0..b.x1).contains(&x)
                    && (b.y0..b.y1).contains(&y)
                    && b.colour.dist(c) <= COLOUR_TOL
            });
            if !in_block {
                mask[(y - area.y0) * aw + (x - area.x0)] = 1;
            }
        }
    }
    let shapes: Vec<Shape> = super::grid::components(&mask, aw, ah)
        .into_iter()
        .map(|(x0, y0, x1, y1, _)| Shape {
            x0: area.x0 + x0,
            y0: area.y0 + y0,
            x1: area.x0 + x1 + 1,
            y1: area.y0 + y1 + 1,
        })
        .filter(|s| s.size().0 * MAX_CELLS < aw && s.size().1 * MAX_CELLS < ah)
        .collect();
    let mut groups: Vec<Vec<Shape>> = Vec::new();
    for sh in &shapes {
        match groups.iter_mut().find(|g| g[0].same_size(sh)) {
            Some(g) => g.push(*sh),
            None => groups.push(vec![*sh]),
        }
    }
    groups.retain(|g| g.len() >= MIN_GROUP);
    // empty-cell marks lie in different cells: a group with two shapes closer than the
    // smallest cell is pieces of one tile's (faint) digits
    let apart = |a: &Shape, b: &Shape| {
        let ((ax, ay), (bx, by)) = (a.centre2(), b.centre2());
        ax.abs_diff(bx) >= 2 * MIN_CELL_PX || ay.abs_diff(by) >= 2 * MIN_CELL_PX
    };
    let all_apart = |g: &[Shape]| {
        g.iter()
            .enumerate()
            .all(|(i, a)| g[i + 1..].iter().all(|b| apart(a, b)))
    };
    // the empty-cell mark: the largest such group at most half as tall as the tallest shape
    let tallest = shapes.iter().map(|s| s.size().1).max().unwrap_or(0);
    let empty = groups
        .iter()
        .enumerate()
        .filter(|(_, g)| 2 * g[0].size().1 <= tallest && all_apart(g))
        .max_by_key(|(i, g)| (g.len(), std::cmp::Reverse(*i)))
        .map(|(i, _)| i);
    // and only those on the empty cells' colour (the colour most of them sit on): a piece of
    // a tile's faint digits of the mark's size sits on the tile's colour
    let host = |s: &Shape| {
        let (x, y) = (s.x0.saturating_sub(2), (s.y0 + s.y1) / 2);
        Rgb::from_rgba(img.get_pixel(x as u32, y as u32).0)
    };
    let on_empty = |g: &[Shape]| -> Vec<Shape> {
        let hosts: Vec<Rgb> = g.iter().map(host).collect();
        let Some(common) = hosts
            .iter()
            .max_by_key(|c| hosts.iter().filter(|o| o.dist(**c) <= COLOUR_TOL).count())
        else {
            return Vec::new();
        };
        g.iter()
            .zip(&hosts)
            .filter(|(_, h)| h.dist(*common) <= COLOUR_TOL)
            .map(|(s, _)| *s)
            .collect()
    };
    Marks {
        empty: empty.map(|i| on_empty(&groups[i])).unwrap_or_default(),
        others: groups
            .iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != empty)
            .map(|(_, g)| g.clone())
            .collect(),
        all: shapes,
    }
}

/// The cells of `grid` whose only small shape (of `marks.all`) is an empty-cell mark.
fn marked_cells(grid: &GridRect, marks: &Marks) -> Vec<(usize, usize)> {
    let cell_of = |s: &Shape| {
        let (cx, cy) = s.centre2();
        let col = ((cx as f32 / 2.0 - grid.x as f32) / grid.pitch_x).floor();
        let row = ((cy as f32 / 2.0 - grid.y as f32) / grid.pitch_y).floor();
        let inside =
            (0.0..grid.cols as f32).contains(&col) && (0.0..grid.rows as f32).contains(&row);
        inside.then_some((row as usize, col as usize))
    };
    let mut out: Vec<(usize, usize)> = marks
        .empty
        .iter()
        .filter_map(cell_of)
        .filter(|&cell| {
            marks
                .all
                .iter()
                .filter(|s| cell_of(s) == Some(cell))
                .count()
                == 1
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
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

/// The one lattice that fits the cluster's blocks, and its marks if any (see the module doc).
fn fit(cluster: &[Block], marks: &Marks, area: &Block) -> Result<GridRect, LatticeRefusal> {
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
            if lattice_fits(cluster, marks, &x, &y) {
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

    /// The cell (`None` outside `0..count`) that `centre2 / 2` lies in.
    fn cell(&self, centre2: usize) -> Option<usize> {
        let k = ((centre2 as f32 / 2.0 - self.start) / self.side).floor();
        (0.0..self.count as f32).contains(&k).then_some(k as usize)
    }

    /// The cell (0..count) whose centre lies within the tolerance of `centre2 / 2`, if any.
    fn centred(&self, centre2: usize) -> Option<usize> {
        let pos = centre2 as f32 / 2.0;
        let k = ((pos - self.start) / self.side - 0.5).round();
        let on = (pos - (self.start + (k + 0.5) * self.side)).abs() <= self.tol;
        (on && (0.0..self.count as f32).contains(&k)).then_some(k as usize)
    }
}

/// The cells `(row, column)` of the lattice in which `group`'s shapes are centred, each in its
/// own; `None` when one is not.
fn centred_cells(group: &[Shape], x: &Axis, y: &Axis) -> Option<Vec<(usize, usize)>> {
    let mut cells = Vec::with_capacity(group.len());
    for m in group {
        let (cx, cy) = m.centre2();
        let cell = (y.centred(cy)?, x.centred(cx)?);
        if cells.contains(&cell) {
            return None;
        }
        cells.push(cell);
    }
    Some(cells)
}

/// Whether every block is inside one cell or on the lattice's lines, every empty-cell mark
/// centred in a cell of its own, and every inner line some block's side or between two cells
/// that hold a centred mark (see [`Marks`]).
fn lattice_fits(cluster: &[Block], marks: &Marks, x: &Axis, y: &Axis) -> bool {
    let mut seen_x = vec![false; x.count + 1];
    let mut seen_y = vec![false; y.count + 1];
    let mut marked_x = vec![false; x.count];
    let mut marked_y = vec![false; y.count];
    // the shapes of `group` alone in their cell
    let alone = |group: &[Shape]| -> Vec<Shape> {
        let cell = |s: &Shape| (x.cell(s.centre2().0), y.cell(s.centre2().1));
        group
            .iter()
            .copied()
            .filter(|m| marks.all.iter().all(|o| o == m || cell(o) != cell(m)))
            .collect()
    };
    // an empty-cell mark alone in its cell must be centred there
    let Some(mut cells) = centred_cells(&alone(&marks.empty), x, y) else {
        return false;
    };
    for group in &marks.others {
        cells.extend(centred_cells(&alone(group), x, y).unwrap_or_default());
    }
    for (row, col) in cells {
        marked_x[col] = true;
        marked_y[row] = true;
    }
    for k in 1..x.count {
        seen_x[k] |= marked_x[k - 1] && marked_x[k];
    }
    for k in 1..y.count {
        seen_y[k] |= marked_y[k - 1] && marked_y[k];
    }
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
            let g = found[0].clone().expect("lattice").grid;
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

    /// Draws a `w x h` rectangle of `colour` with its top-left corner at (x, y).
    fn rect(img: &mut RgbaImage, (x, y): (u32, u32), (w, h): (u32, u32), colour: [u8; 3]) {
        for yy in y..y + h {
            for xx in x..x + w {
                img.put_pixel(xx, yy, image::Rgba([colour[0], colour[1], colour[2], 255]));
            }
        }
    }

    const GREY: [u8; 3] = [127, 127, 127];
    const RED: [u8; 3] = [205, 0, 0];
    const WHITE: [u8; 3] = [238, 238, 238];

    /// A terminal's opening board (as Debian's `2048` draws it in xterm): 4x4 cells of 84x72 px
    /// touching, grey with a 3x3 white dot in the middle of each empty cell, and two red tiles
    /// `tiles` (row, column) with a 10x14 white "digit" in their middle.
    fn dotted(tiles: &[(u32, u32)], dots: bool) -> RgbaImage {
        let mut img = RgbaImage::from_pixel(400, 360, image::Rgba([255, 255, 255, 255]));
        for r in 0..4 {
            for c in 0..4 {
                let (x, y) = (20 + c * 84, 20 + r * 72);
                if tiles.contains(&(r, c)) {
                    rect(&mut img, (x, y), (84, 72), RED);
                    rect(&mut img, (x + 37, y + 29), (10, 14), WHITE);
                } else {
                    rect(&mut img, (x, y), (84, 72), GREY);
                    if dots {
                        rect(&mut img, (x + 41, y + 35), (3, 3), WHITE);
                    }
                }
            }
        }
        img
    }

    #[test]
    fn an_opening_board_is_found_from_its_empty_cells_dots() {
        let img = dotted(&[(2, 2), (3, 3)], true);
        let found = find(&img);
        let f = found[0].clone().expect("lattice");
        assert_eq!((f.grid.rows, f.grid.cols), (4, 4));
        assert_eq!(
            (f.grid.x, f.grid.y, f.grid.width, f.grid.height),
            (20, 20, 336, 288)
        );
        assert_eq!((f.grid.cell_width, f.grid.cell_height), (84.0, 72.0));
        // every cell but the two tiles shows the dot alone
        let mut empty = Vec::new();
        for r in 0..4 {
            for c in 0..4 {
                if ![(2, 2), (3, 3)].contains(&(r, c)) {
                    empty.push((r as usize, c as usize));
                }
            }
        }
        assert_eq!(f.empty, empty);
    }

    #[test]
    fn the_same_board_without_dots_is_refused() {
        let img = dotted(&[(2, 2), (3, 3)], false);
        let found = find(&img);
        let e = found[0].clone().expect_err("no lattice without marks");
        assert_eq!(e.reason, LatticeRefusal::NoFit);
        assert_eq!((e.x, e.y, e.width, e.height), (20, 20, 336, 288));
    }

    #[test]
    fn empty_cells_in_an_l_are_one_block_and_the_board_is_found() {
        // the empty cells form an L (column 0 and row 3: 7 of 16 cells of their box)
        let tiles: Vec<(u32, u32)> = (0..3).flat_map(|r| (1..4).map(move |c| (r, c))).collect();
        let img = dotted(&tiles, true);
        let f = find(&img)[0].clone().expect("lattice");
        assert_eq!((f.grid.rows, f.grid.cols, f.grid.width), (4, 4, 336));
        assert_eq!(
            f.empty,
            vec![(0, 0), (1, 0), (2, 0), (3, 0), (3, 1), (3, 2), (3, 3)]
        );
    }
}
