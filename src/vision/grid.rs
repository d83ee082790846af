//! Grid detection: where the board is, and its rows and columns.
//!
//! Method: pixels of the board colour (frame and gaps between cells) are masked; the mask's
//! connected components (4-connected, by runs) give candidate boards; inside a candidate's
//! bounding box the fraction of board pixels per column (and per row) is high on gaps and low on
//! cells, so a lattice `cells x (size, gap)` is fitted to each profile by maximising
//! mean(gaps) - mean(cells) over every count 3..=9, size and gap (prefix sums, integer pixels).
//! A board covered in part (a dialog, a black occluded area) still fits, since every other gap
//! still votes. Noise and single tile-like decoys have no lattice and are rejected.
use super::colour::Rgb;
use image::RgbaImage;

/// Fewest and most cells along one side.
pub const MIN_CELLS: usize = 3;
/// Most cells along one side.
pub const MAX_CELLS: usize = 9;
/// Smallest cell side accepted, in pixels (here and by [`super::gapless`]).
pub const MIN_CELL_PX: usize = 16;
/// A fitted lattice needs gaps at least this full of board colour (fraction 0..1)...
const MIN_GAP_FILL: f32 = 0.05;
/// ...a correlation with the lattice of at least this...
const MIN_CORR: f32 = 0.6;
/// ...and cells at most this share of the gaps' fill.
const MAX_CELL_RATIO: f32 = 0.25;
/// Most a cell's width may differ from its height, either way (width / height or height /
/// width): gnome-2048 stretches its cells to the window, so a board of 3 columns and 9 rows in a
/// near-square window has cells about 3 times as tall as wide. Also [`super::gapless`]'s bound.
pub const MAX_CELL_ASPECT: f32 = 3.5;
/// Candidate components examined per colour (largest first).
const MAX_CANDIDATES: usize = 6;

/// The detected grid, in image pixels: the rectangle from the top-left of the first cell to the
/// bottom-right of the last, its rows and columns, and the cell pitch.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct GridRect {
    /// Left edge of the first column of cells, pixels.
    pub x: u32,
    /// Top edge of the first row of cells, pixels.
    pub y: u32,
    /// Width from the first cell's left edge to the last cell's right edge, pixels.
    pub width: u32,
    /// Height from the first cell's top edge to the last cell's bottom edge, pixels.
    pub height: u32,
    /// Rows of cells (3..=9).
    pub rows: usize,
    /// Columns of cells (3..=9).
    pub cols: usize,
    /// Cell width, pixels.
    pub cell_width: f32,
    /// Cell height, pixels.
    pub cell_height: f32,
    /// Distance between the left edges of neighbouring columns, pixels.
    pub pitch_x: f32,
    /// Distance between the top edges of neighbouring rows, pixels.
    pub pitch_y: f32,
}

/// A cell's rectangle in image pixels: `[x0, x1) x [y0, y1)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CellRect {
    /// Left, pixels.
    pub x0: f32,
    /// Top, pixels.
    pub y0: f32,
    /// Right (exclusive), pixels.
    pub x1: f32,
    /// Bottom (exclusive), pixels.
    pub y1: f32,
}

impl CellRect {
    /// The sub-rectangle between fractions `a` and `b` (0..=1) of the width and `c`..`d` of the
    /// height, as integer pixel bounds `(x0, y0, x1, y1)`, `x1`/`y1` exclusive.
    pub fn frac(&self, a: f32, b: f32, c: f32, d: f32) -> (u32, u32, u32, u32) {
        let w = self.x1 - self.x0;
        let h = self.y1 - self.y0;
        let x0 = (self.x0 + a * w).round().max(0.0) as u32;
        let x1 = (self.x0 + b * w).round().max(0.0) as u32;
        let y0 = (self.y0 + c * h).round().max(0.0) as u32;
        let y1 = (self.y0 + d * h).round().max(0.0) as u32;
        (x0, y0, x1.max(x0), y1.max(y0))
    }
}

impl GridRect {
    /// Rectangle of cell `(row, col)`.
    pub fn cell(&self, row: usize, col: usize) -> CellRect {
        let x0 = self.x as f32 + col as f32 * self.pitch_x;
        let y0 = self.y as f32 + row as f32 * self.pitch_y;
        CellRect {
            x0,
            y0,
            x1: x0 + self.cell_width,
            y1: y0 + self.cell_height,
        }
    }

    /// Gap between neighbouring columns, pixels.
    pub fn gap_x(&self) -> f32 {
        self.pitch_x - self.cell_width
    }

    /// Gap between neighbouring rows, pixels.
    pub fn gap_y(&self) -> f32 {
        self.pitch_y - self.cell_height
    }

    /// This grid carried to where `found` is, when `found` (the same shape) starts more than a
    /// quarter of a cell pitch away from it on either axis: the board moved in its window (a
    /// browser's infobar, a page that scrolled), and a grid remembered where the board was
    /// would sample the neighbouring cells. Keeps this grid's size and pitch (a profile's, found
    /// on a settled frame). `None` when `found` is as near as that, or of another shape.
    pub fn moved_onto(&self, found: &GridRect) -> Option<GridRect> {
        let far = |a: u32, b: u32, pitch: f32| (a.abs_diff(b) as f32) > pitch / 4.0;
        let same_shape = (self.rows, self.cols) == (found.rows, found.cols);
        let moved = far(self.x, found.x, self.pitch_x) || far(self.y, found.y, self.pitch_y);
        (same_shape && moved).then_some(GridRect {
            x: found.x,
            y: found.y,
            ..*self
        })
    }
}

/// A fitted grid with the board colour variant that matched and the fit's quality.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GridFit {
    pub rect: GridRect,
    /// Index into the colour list given to [`find_grid`] that most gap pixels matched.
    pub variant: usize,
    /// Mean of the two axes' correlation of fill with the fitted lattice, up to 1.
    pub contrast: f32,
}

/// One axis of a fitted lattice, in pixels from the start of the profile.
#[derive(Clone, Copy, Debug)]
struct Fit1 {
    count: usize,
    offset: usize,
    size: usize,
    gap: usize,
    gap_fill: f32,
    cell_fill: f32,
    /// Correlation of the fill profile with the lattice's gap indicator, -1..=1.
    corr: f32,
}

/// Board-colour mask: 0 = not board, `1 + i` = matches colour `i` (first match).
pub(crate) fn board_mask(img: &RgbaImage, colours: &[Rgb], tol: u8) -> Vec<u8> {
    let raw = img.as_raw();
    let mut mask = vec![0u8; (img.width() * img.height()) as usize];
    for (m, px) in mask.iter_mut().zip(raw.chunks_exact(4)) {
        let c = Rgb([px[0], px[1], px[2]]);
        for (i, k) in colours.iter().enumerate() {
            if c.dist(*k) <= tol {
                *m = i as u8 + 1;
                break;
            }
        }
    }
    mask
}

/// Connected component bounding boxes of the mask: `(x0, y0, x1, y1, pixels)`, inclusive bounds.
pub(crate) fn components(
    mask: &[u8],
    w: usize,
    h: usize,
) -> Vec<(usize, usize, usize, usize, usize)> {
    // Runs per row, then union-find over overlapping runs of neighbouring rows.
    let mut runs: Vec<(usize, usize, usize)> = Vec::new(); // (y, x0, x1 inclusive)
    let mut row_start = Vec::with_capacity(h + 1);
    for y in 0..h {
        row_start.push(runs.len());
        let row = &mask[y * w..(y + 1) * w];
        let mut x = 0;
        while x < w {
            if row[x] != 0 {
                let s = x;
                while x < w && row[x] != 0 {
                    x += 1;
                }
                runs.push((y, s, x - 1));
            } else {
                x += 1;
            }
        }
    }
    row_start.push(runs.len());
    let mut parent: Vec<usize> = (0..runs.len()).collect();
    fn find(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    for y in 1..h {
        let (a0, a1) = (row_start[y - 1], row_start[y]);
        let (b0, b1) = (row_start[y], row_start[y + 1]);
        let mut i = a0;
        let mut j = b0;
        while i < a1 && j < b1 {
            let (_, ax0, ax1) = runs[i];
            let (_, bx0, bx1) = runs[j];
            if ax0 <= bx1 && bx0 <= ax1 {
                let ra = find(&mut parent, i);
                let rb = find(&mut parent, j);
                if ra != rb {
                    parent[ra] = rb;
                }
            }
            if ax1 < bx1 {
                i += 1;
            } else {
                j += 1;
            }
        }
    }
    let mut boxes: std::collections::HashMap<usize, (usize, usize, usize, usize, usize)> =
        std::collections::HashMap::new();
    for (i, &(y, x0, x1)) in runs.iter().enumerate() {
        let r = find(&mut parent, i);
        let e = boxes.entry(r).or_insert((x0, y, x1, y, 0));
        e.0 = e.0.min(x0);
        e.1 = e.1.min(y);
        e.2 = e.2.max(x1);
        e.3 = e.3.max(y);
        e.4 += x1 - x0 + 1;
    }
    boxes.into_values().collect()
}

/// Fits `count` cells of `size` separated by `gap` to a fill profile (fraction of board pixels
/// per column or row); returns the best lattice, or `None` if no lattice fits.
fn fit_axis(fill: &[f32], counts: &[usize]) -> Option<Fit1> {
    let n = fill.len();
    let mut pre = vec![0.0f64; n + 1];
    let mut pre2 = vec![0.0f64; n + 1];
    for (i, f) in fill.iter().enumerate() {
        pre[i + 1] = pre[i] + f64::from(*f);
        pre2[i + 1] = pre2[i] + f64::from(*f) * f64::from(*f);
    }
    let sum = |a: usize, b: usize| pre[b] - pre[a];
    let mut best: Option<(f32, Fit1)> = None;
    for &count in counts {
        if count * MIN_CELL_PX > n {
            continue;
        }
        for size in MIN_CELL_PX..=n / count {
            let max_gap = (size / 2).max(1);
            for gap in 1..=max_gap {
                let total = count * size + (count - 1) * gap;
                if total > n {
                    break;
                }
                let margin = n - total;
                // The frame around the cells is narrower than a cell: no sub-lattice of a
                // larger board.
                if margin > size + 2 * gap {
                    continue;
                }
                let mid = margin / 2;
                let lo = mid.saturating_sub(2);
                let hi = (mid + 2).min(margin);
                for offset in lo..=hi {
                    let mut cells = 0.0;
                    let mut gaps = 0.0;
                    for k in 0..count {
                        let s = offset + k * (size + gap);
                        cells += sum(s, s + size);
                        if k + 1 < count {
                            gaps += sum(s + size, s + size + gap);
                        }
                    }
                    let cell_fill = (cells / (count * size) as f64) as f32;
                    let gap_fill = (gaps / ((count - 1) * gap) as f64) as f32;
                    // Pearson correlation of the fill with the gap indicator over the lattice.
                    let nn = total as f64;
                    let mean = (cells + gaps) / nn;
                    let var_f = (pre2[offset + total] - pre2[offset]) / nn - mean * mean;
                    let pg = ((count - 1) * gap) as f64 / nn;
                    let cov = gaps / nn - mean * pg;
                    let den = (var_f * pg * (1.0 - pg)).sqrt();
                    let score = if den > 1e-12 { (cov / den) as f32 } else { 0.0 };
                    if best.as_ref().is_none_or(|(s, _)| score > *s + 1e-6) {
                        best = Some((
                            score,
                            Fit1 {
                                count,
                                offset,
                                size,
                                gap,
                                gap_fill,
                                cell_fill,
                                corr: score,
                            },
                        ));
                    }
                }
            }
        }
    }
    best.map(|(_, f)| f)
}

/// Statistics of one lattice on a fill profile (`None` if it does not fit inside).
fn lattice(fill: &[f32], count: usize, offset: usize, size: usize, gap: usize) -> Option<Fit1> {
    let total = count * size + (count - 1) * gap;
    if count < 2 || gap == 0 || offset + total > fill.len() {
        return None;
    }
    let (mut cells, mut gaps, mut sq) = (0.0f64, 0.0f64, 0.0f64);
    for (i, &f) in fill[offset..offset + total].iter().enumerate() {
        let f = f64::from(f);
        sq += f * f;
        if i % (size + gap) < size {
            cells += f;
        } else {
            gaps += f;
        }
    }
    let nn = total as f64;
    let mean = (cells + gaps) / nn;
    let var_f = sq / nn - mean * mean;
    let pg = ((count - 1) * gap) as f64 / nn;
    let den = (var_f * pg * (1.0 - pg)).sqrt();
    let corr = if den > 1e-12 {
        ((gaps / nn - mean * pg) / den) as f32
    } else {
        0.0
    };
    Some(Fit1 {
        count,
        offset,
        size,
        gap,
        gap_fill: (gaps / ((count - 1) * gap) as f64) as f32,
        cell_fill: (cells / (count * size) as f64) as f32,
        corr,
    })
}

/// Fits a lattice from the peaks of a fill profile, wherever it lies: for boards without a
/// frame (the gaps are the page itself), whose candidate box is the whole page. The gaps are the
/// longest run of evenly spaced peaks of similar width; the cells lie between and beside them.
fn fit_peaks(fill: &[f32], counts: &[usize]) -> Option<Fit1> {
    let max = fill.iter().copied().fold(0.0f32, f32::max);
    if max <= 0.0 {
        return None;
    }
    let mut peaks = Vec::new(); // (start, end exclusive)
    let mut i = 0;
    while i < fill.len() {
        if fill[i] >= max / 2.0 {
            let s = i;
            while i < fill.len() && fill[i] >= max / 2.0 {
                i += 1;
            }
            peaks.push((s, i));
        } else {
            i += 1;
        }
    }
    let centre = |p: (usize, usize)| (p.0 + p.1) as f32 / 2.0;
    let mut best: Option<Fit1> = None;
    for a in 0..peaks.len() {
        for b in a + 1..peaks.len() {
            let pitch = centre(peaks[b]) - centre(peaks[a]);
            let width = (peaks[a].1 - peaks[a].0) as f32;
            if width * 2.0 > pitch || pitch < (MIN_CELL_PX + 1) as f32 {
                continue;
            }
            let mut chain = vec![a, b];
            let mut next = centre(peaks[b]) + pitch;
            for (k, p) in peaks.iter().enumerate().skip(b + 1) {
                let w = (p.1 - p.0) as f32;
                if (centre(*p) - next).abs() <= (pitch * 0.04).max(2.0)
                    && (w - width).abs() <= width * 0.4 + 1.0
                {
                    chain.push(k);
                    next = centre(*p) + pitch;
                }
            }
            let count = chain.len() + 1;
            if !counts.contains(&count) {
                continue;
            }
            let gap = ((peaks[chain[0]].1 - peaks[chain[0]].0) as f32).round() as usize;
            let size = (pitch - gap as f32).round() as usize;
            let Some(offset) = peaks[chain[0]].0.checked_sub(size) else {
                continue;
            };
            if let Some(f) = lattice(fill, count, offset, size, gap) {
                if best
                    .as_ref()
                    .is_none_or(|o| (f.count, f.corr) > (o.count, o.corr))
                {
                    best = Some(f);
                }
            }
        }
    }
    best
}

/// Finds the grid drawn in board colour `colours[i]` (any `i`) within `tol` levels.
/// `shape`: required (rows, cols), or `None` for any 3..=9 each.
pub(crate) fn find_grid(
    img: &RgbaImage,
    colours: &[Rgb],
    tol: u8,
    shape: Option<(usize, usize)>,
) -> Option<GridFit> {
    let (w, h) = (img.width() as usize, img.height() as usize);
    if w < MIN_CELLS * MIN_CELL_PX || h < MIN_CELLS * MIN_CELL_PX || colours.is_empty() {
        return None;
    }
    let mask = board_mask(img, colours, tol);
    let mut comps = components(&mask, w, h);
    let min_side = MIN_CELLS * MIN_CELL_PX;
    comps.retain(|c| c.2 - c.0 + 1 >= min_side && c.3 - c.1 + 1 >= min_side);
    comps.sort_by_key(|c| std::cmp::Reverse(c.4));
    comps.truncate(MAX_CANDIDATES);
    // A glow across a whole gap can cut the board colour in two: big neighbouring parts are also
    // tried together.
    let big = comps.first().map_or(0, |c| c.4) / 4;
    let mut merged = Vec::new();
    for (i, a) in comps.iter().enumerate() {
        for b in &comps[i + 1..] {
            if a.4 < big || b.4 < big {
                continue;
            }
            let near = |a0: usize, a1: usize, b0: usize, b1: usize| {
                let slack = (a1 - a0).max(b1 - b0) / 10;
                a0 <= b1 + slack && b0 <= a1 + slack
            };
            if near(a.0, a.2, b.0, b.2) && near(a.1, a.3, b.1, b.3) {
                merged.push((
                    a.0.min(b.0),
                    a.1.min(b.1),
                    a.2.max(b.2),
                    a.3.max(b.3),
                    a.4 + b.4,
                ));
            }
        }
    }
    comps.extend(merged);
    let mut best: Option<GridFit> = None;
    for (x0, y0, x1, y1, _) in comps {
        if let Some(fit) = fit_box(&mask, w, (x0, y0, x1, y1), colours.len(), shape) {
            if best.as_ref().is_none_or(|b| fit.contrast > b.contrast) {
                best = Some(fit);
            }
        }
    }
    best
}

/// Fits a lattice inside one candidate bounding box (inclusive bounds).
///
/// The fill profiles count only "strip" pixels: board-coloured runs short enough to be a gap
/// between two cells (at most an eighth of the box) with non-board pixels on both ends. Long runs
/// (the frame, the gaps across the board) and the page around do not count, so a column's fill
/// is the visible share of a vertical gap there, even when most of the board is covered.
fn fit_box(
    mask: &[u8],
    w: usize,
    (x0, y0, x1, y1): (usize, usize, usize, usize),
    variants: usize,
    shape: Option<(usize, usize)>,
) -> Option<GridFit> {
    let bw = x1 - x0 + 1;
    let bh = y1 - y0 + 1;
    let h = mask.len() / w;
    let mut col = vec![0u32; bw];
    let mut row = vec![0u32; bh];
    let mut votes = vec![0u32; variants + 1];
    let max_x = (bw / 8).max(2);
    for y in y0..=y1 {
        let line = &mask[y * w..(y + 1) * w];
        let mut x = x0;
        while x <= x1 {
            if line[x] == 0 {
                x += 1;
                continue;
            }
            let s = x;
            while x < w && line[x] != 0 {
                x += 1;
            }
            // run [s, x)
            if x - s <= max_x && s > 0 && x < w {
                for c in &mut col[s - x0..x.min(x1 + 1) - x0] {
                    *c += 1;
                }
                votes[line[s] as usize] += (x - s) as u32;
            }
        }
    }
    let max_y = (bh / 8).max(2);
    let mut run_start = vec![usize::MAX; bw];
    for y in y0..=y1 + 1 {
        for x in x0..=x1 {
            let on = y <= y1 && mask[y * w + x] != 0;
            let i = x - x0;
            if on {
                if run_start[i] == usize::MAX {
                    run_start[i] = y;
                }
            } else if run_start[i] != usize::MAX {
                let s = run_start[i];
                run_start[i] = usize::MAX;
                let bounded = s > 0 && y < h && (y <= y1 || mask[y * w + x] == 0);
                if y - s <= max_y && bounded {
                    for r in &mut row[s - y0..y - y0] {
                        *r += 1;
                    }
                }
            }
        }
    }
    let colf: Vec<f32> = col.iter().map(|&c| c as f32 / bh as f32).collect();
    let rowf: Vec<f32> = row.iter().map(|&c| c as f32 / bw as f32).collect();
    let all: Vec<usize> = (MIN_CELLS..=MAX_CELLS).collect();
    let (rc, cc) = match shape {
        Some((r, c)) => (vec![r], vec![c]),
        None => (all.clone(), all),
    };
    let valid = |f: &Fit1| {
        f.gap_fill >= MIN_GAP_FILL
            && f.cell_fill <= MAX_CELL_RATIO * f.gap_fill
            && f.corr >= MIN_CORR
    };
    let fx = fit_axis(&colf, &cc)
        .filter(valid)
        .or_else(|| fit_peaks(&colf, &cc).filter(valid))?;
    let fy = fit_axis(&rowf, &rc)
        .filter(valid)
        .or_else(|| fit_peaks(&rowf, &rc).filter(valid))?;
    let aspect = fx.size as f32 / fy.size as f32;
    if !(1.0 / MAX_CELL_ASPECT..=MAX_CELL_ASPECT).contains(&aspect) {
        return None;
    }
    let variant = (1..=variants).max_by_key(|&i| votes[i]).unwrap_or(1) - 1;
    let rect = GridRect {
        x: (x0 + fx.offset) as u32,
        y: (y0 + fy.offset) as u32,
        width: (fx.count * fx.size + (fx.count - 1) * fx.gap) as u32,
        height: (fy.count * fy.size + (fy.count - 1) * fy.gap) as u32,
        rows: fy.count,
        cols: fx.count,
        cell_width: fx.size as f32,
        cell_height: fy.size as f32,
        pitch_x: (fx.size + fx.gap) as f32,
        pitch_y: (fy.size + fy.gap) as f32,
    };
    let contrast = (fx.corr + fy.corr) / 2.0;
    Some(GridFit {
        rect,
        variant,
        contrast,
    })
}

/// Candidate board colours for a read without a profile: the most common colours of the image
/// (4 bits a channel, sampled every 3 pixels), most common first, at most `n`.
pub(crate) fn candidate_colours(img: &RgbaImage, n: usize) -> Vec<Rgb> {
    let mut bins = vec![(0u32, [0u32; 3]); 4096];
    let mut total = 0u32;
    for y in (0..img.height()).step_by(3) {
        for x in (0..img.width()).step_by(3) {
            let p = img.get_pixel(x, y).0;
            let k = (usize::from(p[0] >> 4) << 8)
                | (usize::from(p[1] >> 4) << 4)
                | usize::from(p[2] >> 4);
            bins[k].0 += 1;
            for (acc, v) in bins[k].1.iter_mut().zip(p) {
                *acc += u32::from(v);
            }
            total += 1;
        }
    }
    let mut idx: Vec<usize> = (0..4096).filter(|&k| bins[k].0 * 200 >= total).collect();
    idx.sort_by_key(|&k| std::cmp::Reverse(bins[k].0));
    idx.truncate(n);
    idx.into_iter()
        .map(|k| {
            let (c, s) = bins[k];
            Rgb([(s[0] / c) as u8, (s[1] / c) as u8, (s[2] / c) as u8])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Draws a synthetic board: `n x n` cells of `cell` px with `gap` px gaps at (ox, oy).
    fn board(n: u32, cell: u32, gap: u32, ox: u32, oy: u32) -> RgbaImage {
        board_rc(n, n, cell, cell, gap, ox, oy)
    }

    #[test]
    fn finds_synthetic_grids() {
        for (n, cell, gap) in [(4u32, 80u32, 10u32), (3, 100, 12), (6, 50, 6), (9, 30, 4)] {
            let img = board(n, cell, gap, 37, 21);
            let fit = find_grid(&img, &[Rgb([187, 173, 160])], 4, None).expect("grid");
            let r = fit.rect;
            assert_eq!((r.rows, r.cols), (n as usize, n as usize));
            assert_eq!(r.x, 37 + gap);
            assert_eq!(r.y, 21 + gap);
            assert_eq!(r.cell_width as u32, cell);
            assert_eq!(r.pitch_x as u32, cell + gap);
        }
    }

    /// Draws `rows x cols` cells of `cw x ch` px with `gap` px gaps at (ox, oy).
    fn board_rc(rows: u32, cols: u32, cw: u32, ch: u32, gap: u32, ox: u32, oy: u32) -> RgbaImage {
        let mut img = RgbaImage::from_pixel(640, 680, image::Rgba([250, 248, 239, 255]));
        let (w, h) = (cols * cw + (cols + 1) * gap, rows * ch + (rows + 1) * gap);
        for y in oy..oy + h {
            for x in ox..ox + w {
                img.put_pixel(x, y, image::Rgba([187, 173, 160, 255]));
            }
        }
        for r in 0..rows {
            for c in 0..cols {
                let x = ox + gap + c * (cw + gap);
                let y = oy + gap + r * (ch + gap);
                for yy in y..y + ch {
                    for xx in x..x + cw {
                        img.put_pixel(xx, yy, image::Rgba([205, 193, 180, 255]));
                    }
                }
            }
        }
        img
    }

    #[test]
    fn finds_grids_of_non_square_cells() {
        // gnome-2048's stretched cells: 5 rows x 3 columns of 186x108, 3 x 9 of 55x186.
        for (rows, cols, cw, ch, gap) in [
            (5u32, 3u32, 186u32, 108u32, 10u32),
            (3, 5, 108, 186, 10),
            (3, 9, 55, 186, 10),
            (9, 3, 186, 55, 10),
        ] {
            let img = board_rc(rows, cols, cw, ch, gap, 11, 31);
            let fit = find_grid(&img, &[Rgb([187, 173, 160])], 4, None).expect("grid");
            let r = fit.rect;
            assert_eq!((r.rows, r.cols), (rows as usize, cols as usize));
            assert_eq!((r.x, r.y), (11 + gap, 31 + gap));
            assert_eq!((r.cell_width as u32, r.cell_height as u32), (cw, ch));
            assert_eq!((r.pitch_x as u32, r.pitch_y as u32), (cw + gap, ch + gap));
        }
    }

    #[test]
    fn no_grid_in_a_plain_image() {
        let img = RgbaImage::from_pixel(300, 300, image::Rgba([187, 173, 160, 255]));
        assert!(find_grid(&img, &[Rgb([187, 173, 160])], 4, None).is_none());
    }
}
