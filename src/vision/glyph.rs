//! Digit glyphs: splitting a tile's text into glyphs, normalising each to a
//! [`GLYPH_SIZE`]-pixel bitmap, and matching against templates.
//!
//! Text pixels come as a coverage map (0..=1, how far each pixel is from the tile background
//! towards the text colour). The text line is the band of rows holding text nearest the tile's
//! centre; glyphs are the runs of columns holding text in that band. A glyph is scaled to
//! `GLYPH_SIZE` pixels high (aspect kept, centred) and compared with templates by weighted
//! Jaccard similarity, sum(min) / sum(max), 1 = identical.
use super::profile::{GlyphTemplate, GLYPH_SIZE};

/// A normalised glyph: coverage levels 0..=255, `GLYPH_SIZE * GLYPH_SIZE`, row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct Glyph {
    /// Coverage levels.
    pub levels: Vec<u8>,
    /// Width / height of the glyph as seen.
    pub aspect: f32,
    /// Bounding box in the coverage map: (x0, y0, x1, y1), exclusive ends.
    pub bbox: (usize, usize, usize, usize),
}

/// A run of text wider than this times the line height holds touching digits and is split.
const MAX_DIGIT_ASPECT: f32 = 1.05;
/// Coverage above which a pixel counts as text when segmenting.
const TEXT_LEVEL: f32 = 0.45;

/// Splits the text of a coverage map (`w x h`, row-major, values 0..=1) into glyphs, left to
/// right. Only the line of text that holds the row `centre_row` (or is nearest to it) is used;
/// runs of text touching the map's edges are not glyphs.
pub fn segment(cov: &[f32], w: usize, h: usize, centre_row: usize) -> Vec<Glyph> {
    if w == 0 || h == 0 || cov.len() != w * h {
        return Vec::new();
    }
    let on = |x: usize, y: usize| cov[y * w + x] > TEXT_LEVEL;
    let rows: Vec<usize> = (0..h)
        .map(|y| (0..w).filter(|&x| on(x, y)).count())
        .collect();
    // Bands of consecutive text rows.
    let mut bands = Vec::new();
    let mut y = 0;
    while y < h {
        if rows[y] > 0 {
            let s = y;
            while y < h && rows[y] > 0 {
                y += 1;
            }
            bands.push((s, y));
        } else {
            y += 1;
        }
    }
    let Some(&(b0, b1)) = bands.iter().min_by_key(|(s, e)| {
        if centre_row >= *s && centre_row < *e {
            0
        } else {
            s.abs_diff(centre_row).min((e - 1).abs_diff(centre_row))
        }
    }) else {
        return Vec::new();
    };
    // Columns with text in the band.
    let cols: Vec<bool> = (0..w).map(|x| (b0..b1).any(|y| on(x, y))).collect();
    // Runs of text columns; a run too wide for one digit (touching digits) is split at its
    // weakest column in the middle, until every part is narrow enough.
    let band = (b1 - b0) as f32;
    let weight: Vec<f32> = (0..w)
        .map(|x| (b0..b1).map(|y| cov[y * w + x]).sum())
        .collect();
    let mut runs = Vec::new();
    let mut x = 0;
    while x < w {
        if cols[x] {
            let s = x;
            while x < w && cols[x] {
                x += 1;
            }
            let mut todo = vec![(s, x)];
            while let Some((a, b)) = todo.pop() {
                if ((b - a) as f32) <= MAX_DIGIT_ASPECT * band || b - a < 6 {
                    runs.push((a, b));
                    continue;
                }
                let lo = a + (b - a) * 3 / 10;
                let hi = (a + (b - a) * 7 / 10).max(lo + 1);
                let cut = (lo..hi)
                    .min_by(|&i, &j| weight[i].total_cmp(&weight[j]))
                    .unwrap_or(lo);
                todo.push((cut, b));
                todo.push((a, cut));
            }
        } else {
            x += 1;
        }
    }
    runs.sort_unstable();
    let mut glyphs = Vec::new();
    for (s, x) in runs {
        {
            let gy0 = (b0..b1).find(|&y| (s..x).any(|xx| on(xx, y))).unwrap_or(b0);
            let gy1 = (b0..b1)
                .rev()
                .find(|&y| (s..x).any(|xx| on(xx, y)))
                .map_or(b1, |y| y + 1);
            // Digits never touch the text box's edges; what does is something else (a dialog,
            // an overlay caption) and is left out.
            if s > 0 && x < w && gy0 > 0 && gy1 < h {
                glyphs.push(normalise(cov, w, (s, gy0, x, gy1)));
            }
        }
    }
    glyphs
}

/// Scales the box of a coverage map to a `GLYPH_SIZE`-high bitmap, aspect kept, centred.
fn normalise(cov: &[f32], w: usize, (x0, y0, x1, y1): (usize, usize, usize, usize)) -> Glyph {
    let gw = (x1 - x0) as f32;
    let gh = (y1 - y0) as f32;
    let s = GLYPH_SIZE as f32;
    let scale = (s / gh).min(s / gw.max(1.0));
    let tw = gw * scale;
    let th = gh * scale;
    let ox = (s - tw) / 2.0;
    let oy = (s - th) / 2.0;
    let mut levels = vec![0u8; GLYPH_SIZE * GLYPH_SIZE];
    const SUB: usize = 4;
    for ty in 0..GLYPH_SIZE {
        for tx in 0..GLYPH_SIZE {
            let mut acc = 0.0;
            for sy in 0..SUB {
                for sx in 0..SUB {
                    let px = tx as f32 + (sx as f32 + 0.5) / SUB as f32;
                    let py = ty as f32 + (sy as f32 + 0.5) / SUB as f32;
                    let u = (px - ox) / scale;
                    let v = (py - oy) / scale;
                    if u >= 0.0 && v >= 0.0 && u < gw && v < gh {
                        let xi = x0 + u as usize;
                        let yi = y0 + v as usize;
                        acc += cov[yi * w + xi].clamp(0.0, 1.0);
                    }
                }
            }
            levels[ty * GLYPH_SIZE + tx] = (acc / (SUB * SUB) as f32 * 255.0).round() as u8;
        }
    }
    Glyph {
        levels,
        aspect: gw / gh.max(1.0),
        bbox: (x0, y0, x1, y1),
    }
}

/// Weighted Jaccard similarity of two bitmaps, 0..=1 (1 = identical).
pub fn similarity(a: &[u8], b: &[u8]) -> f32 {
    let mut mn = 0u32;
    let mut mx = 0u32;
    for (&p, &q) in a.iter().zip(b) {
        mn += u32::from(p.min(q));
        mx += u32::from(p.max(q));
    }
    if mx == 0 {
        0.0
    } else {
        mn as f32 / mx as f32
    }
}

/// Decoded templates, grouped by digit.
#[derive(Clone, Debug, Default)]
pub struct TemplateSet {
    /// `by_digit[d]`: bitmaps of digit `d`.
    pub by_digit: [Vec<Vec<u8>>; 10],
}

impl TemplateSet {
    /// Builds a set from profile templates (malformed ones are skipped; profiles are validated
    /// on load).
    pub fn from_templates<'a>(ts: impl IntoIterator<Item = &'a GlyphTemplate>) -> TemplateSet {
        let mut set = TemplateSet::default();
        for t in ts {
            if let (Ok(l), true) = (t.levels(), t.digit <= 9) {
                set.by_digit[usize::from(t.digit)].push(l);
            }
        }
        set
    }

    /// Whether digit `d` has a template.
    pub fn has(&self, d: usize) -> bool {
        !self.by_digit[d].is_empty()
    }

    /// Adds templates of the digits this set lacks from `other`.
    pub fn fill_from(&mut self, other: &TemplateSet) {
        for d in 0..10 {
            if self.by_digit[d].is_empty() {
                self.by_digit[d] = other.by_digit[d].clone();
            }
        }
    }

    /// Best similarity of a glyph to digit `d`'s templates (0 when none).
    pub fn score(&self, g: &Glyph, d: usize) -> f32 {
        self.by_digit[d]
            .iter()
            .map(|t| similarity(&g.levels, t))
            .fold(0.0, f32::max)
    }

    /// Best similarity of a glyph to every digit (0 for digits without a template).
    pub fn digit_scores(&self, g: &Glyph) -> [f32; 10] {
        let mut out = [0.0; 10];
        for (d, o) in out.iter_mut().enumerate() {
            *o = self.score(g, d);
        }
        out
    }

    /// Score of reading glyphs with per-glyph digit scores `scores` (see
    /// [`TemplateSet::digit_scores`]) as `value`: the worst glyph's similarity, or `None` when the
    /// glyph count differs from the value's digit count or a digit has no template.
    pub fn value_score_from(&self, scores: &[[f32; 10]], value: u32) -> Option<f32> {
        let digits = value.to_string();
        if digits.len() != scores.len() {
            return None;
        }
        let mut worst = 1.0f32;
        for (s, b) in scores.iter().zip(digits.bytes()) {
            let d = usize::from(b - b'0');
            if !self.has(d) {
                return None;
            }
            worst = worst.min(s[d]);
        }
        Some(worst)
    }

    /// Every power of two from 2 to 2^17 that the glyphs can spell, with its score (see
    /// [`TemplateSet::value_score_from`]), best first; equal scores keep the smaller value first.
    pub fn rank_powers_of_two(&self, scores: &[[f32; 10]]) -> Vec<(u32, f32)> {
        let mut ranked: Vec<(u32, f32)> = (1..=17u32)
            .map(|e| 1u32 << e)
            .filter_map(|v| self.value_score_from(scores, v).map(|s| (v, s)))
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        ranked
    }

    /// Per-glyph digit scores of every glyph (see [`TemplateSet::digit_scores`]).
    pub fn glyph_scores(&self, glyphs: &[Glyph]) -> Vec<[f32; 10]> {
        glyphs.iter().map(|g| self.digit_scores(g)).collect()
    }

    /// Score of reading `glyphs` as `value`: the worst glyph's similarity, or `None` when the
    /// glyph count differs from the value's digit count or a digit has no template.
    pub fn value_score(&self, glyphs: &[Glyph], value: u32) -> Option<f32> {
        let digits: Vec<usize> = value
            .to_string()
            .bytes()
            .map(|b| usize::from(b - b'0'))
            .collect();
        if digits.len() != glyphs.len() || digits.iter().any(|&d| !self.has(d)) {
            return None;
        }
        Some(
            glyphs
                .iter()
                .zip(&digits)
                .map(|(g, &d)| self.score(g, d))
                .fold(1.0, f32::min),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_two_blocks() {
        // 20x10 map with two 4x6 blocks.
        let (w, h) = (20, 10);
        let mut cov = vec![0.0; w * h];
        for y in 2..8 {
            for x in (3..7).chain(10..14) {
                cov[y * w + x] = 1.0;
            }
        }
        let g = segment(&cov, w, h, 5);
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].bbox, (3, 2, 7, 8));
        assert_eq!(g[1].bbox, (10, 2, 14, 8));
        assert!((similarity(&g[0].levels, &g[1].levels) - 1.0).abs() < 1e-6);
    }

    #[test]
    fn splits_touching_digits() {
        // Two 6x10 blocks joined by a thin bridge: one run 13 wide on a 10-high line.
        let (w, h) = (24, 14);
        let mut cov = vec![0.0; w * h];
        for y in 2..12 {
            for x in (4..10).chain(11..17) {
                cov[y * w + x] = 1.0;
            }
        }
        cov[6 * w + 10] = 1.0;
        let g = segment(&cov, w, h, 7);
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].bbox.0, 4);
        assert_eq!(g[1].bbox.2, 17);
    }

    #[test]
    fn similarity_bounds() {
        assert_eq!(similarity(&[0, 0], &[0, 0]), 0.0);
        assert_eq!(similarity(&[255, 0], &[255, 0]), 1.0);
        assert_eq!(similarity(&[255, 0], &[0, 255]), 0.0);
    }
}
