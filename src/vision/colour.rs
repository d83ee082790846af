//! Colours: 8-bit sRGB triples, parsing `#rrggbb`, distances and blends.
//!
//! Distances are the largest per-channel difference (0..=255), which is what a screenshot taken
//! without scaling reproduces exactly and what a tolerance in a calibration profile means.
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// How far outside 0..=1 a channel's coverage may lie in [`Rgb::subpixel_coverage`]: 0.06.
pub const SUBPIXEL_SLACK: f32 = 0.06;

/// The least difference between the red and the blue coverage of a subpixel anti-aliased pixel
/// ([`Rgb::subpixel_coverage`]): 0.3 (two of 2048-qt's fringes, measured: 0.61 and 0.56).
pub const SUBPIXEL_MIN_SPREAD: f32 = 0.3;

/// An 8-bit sRGB colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Rgb(pub [u8; 3]);

impl Rgb {
    /// Black, `#000000`.
    pub const BLACK: Rgb = Rgb([0, 0, 0]);

    /// The colour of an RGBA pixel (alpha ignored).
    #[inline]
    pub fn from_rgba(p: [u8; 4]) -> Rgb {
        Rgb([p[0], p[1], p[2]])
    }

    /// Largest per-channel difference, 0..=255.
    #[inline]
    pub fn dist(self, other: Rgb) -> u8 {
        let a = self.0;
        let b = other.0;
        a[0].abs_diff(b[0])
            .max(a[1].abs_diff(b[1]))
            .max(a[2].abs_diff(b[2]))
    }

    /// `alpha * top + (1 - alpha) * self`, per channel, rounded; `alpha` in 0..=1.
    pub fn blend(self, top: Rgb, alpha: f32) -> Rgb {
        let mut out = [0u8; 3];
        for (i, o) in out.iter_mut().enumerate() {
            let v = alpha * f32::from(top.0[i]) + (1.0 - alpha) * f32::from(self.0[i]);
            *o = v.round().clamp(0.0, 255.0) as u8;
        }
        Rgb(out)
    }

    /// Where `self` lies on the segment `from -> to`: `(t, d)` with `t` in 0..=1 the position
    /// (0 = `from`, 1 = `to`) and `d` the largest per-channel distance, in 8-bit levels, from
    /// `self` to the point at `t`. Anti-aliased text pixels lie on the segment background -> text.
    pub fn on_segment(self, from: Rgb, to: Rgb) -> (f32, f32) {
        let mut num = 0.0f32;
        let mut den = 0.0f32;
        for i in 0..3 {
            let d = f32::from(to.0[i]) - f32::from(from.0[i]);
            num += (f32::from(self.0[i]) - f32::from(from.0[i])) * d;
            den += d * d;
        }
        let t = if den > 0.0 {
            (num / den).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let mut dmax = 0.0f32;
        for i in 0..3 {
            let p = f32::from(from.0[i]) + t * (f32::from(to.0[i]) - f32::from(from.0[i]));
            dmax = dmax.max((f32::from(self.0[i]) - p).abs());
        }
        (t, dmax)
    }

    /// Where `self` lies between `from` and `to` as a pixel of text drawn with subpixel
    /// anti-aliasing (Qt and FreeType's LCD filtering, as 2048-qt draws its digits under X): each
    /// channel its own coverage `t_k = (self_k − from_k) / (to_k − from_k)`, all within 0..=1
    /// (±[`SUBPIXEL_SLACK`]), in order across red, green and blue (rising or falling: the three
    /// stripes of one pixel), and spread by at least [`SUBPIXEL_MIN_SPREAD`] (a colour fringe,
    /// not a grey or a dialog's tint). Returns the mean coverage; `None` for any other colour, or
    /// when a channel of `from` and `to` differs by less than 32 levels (its coverage is noise).
    ///
    /// Measured on a 2048-qt 16384 (background #3c3a32, text #f9f6f2): fringes such as #d59958
    /// (coverages 0.81, 0.51, 0.20) and #4c75ae (0.09, 0.31, 0.65) made 4 % of its text box, off
    /// the segment by more than 30 levels, where more than 2 % of such pixels marks a covered cell.
    pub fn subpixel_coverage(self, from: Rgb, to: Rgb) -> Option<f32> {
        let mut t = [0.0f32; 3];
        for (i, tk) in t.iter_mut().enumerate() {
            let span = f32::from(to.0[i]) - f32::from(from.0[i]);
            if span.abs() < 32.0 {
                return None;
            }
            *tk = (f32::from(self.0[i]) - f32::from(from.0[i])) / span;
            if !(-SUBPIXEL_SLACK..=1.0 + SUBPIXEL_SLACK).contains(tk) {
                return None;
            }
        }
        let ordered = (t[0] >= t[1] && t[1] >= t[2]) || (t[0] <= t[1] && t[1] <= t[2]);
        let spread = (t[0] - t[2]).abs();
        (ordered && spread >= SUBPIXEL_MIN_SPREAD)
            .then(|| ((t[0] + t[1] + t[2]) / 3.0).clamp(0.0, 1.0))
    }

    /// Perceived brightness 0..=255 (Rec. 601 weights).
    pub fn luma(self) -> f32 {
        0.299 * f32::from(self.0[0]) + 0.587 * f32::from(self.0[1]) + 0.114 * f32::from(self.0[2])
    }
}

/// Error of [`Rgb::from_str`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid colour {0:?}: expected \"#rrggbb\" (six hexadecimal digits)")]
pub struct ColourParseError(pub String);

impl FromStr for Rgb {
    type Err = ColourParseError;
    fn from_str(s: &str) -> Result<Rgb, ColourParseError> {
        let err = || ColourParseError(s.to_string());
        let hex = s.strip_prefix('#').ok_or_else(err)?;
        if hex.len() != 6 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(err());
        }
        let v = u32::from_str_radix(hex, 16).map_err(|_| err())?;
        Ok(Rgb([(v >> 16) as u8, (v >> 8) as u8, v as u8]))
    }
}

impl fmt::Display for Rgb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{:02x}{:02x}{:02x}", self.0[0], self.0[1], self.0[2])
    }
}

impl Serialize for Rgb {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for Rgb {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Rgb, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Per-channel median of a set of colours (`None` when empty).
pub fn median(colours: &[Rgb]) -> Option<Rgb> {
    if colours.is_empty() {
        return None;
    }
    let mut out = [0u8; 3];
    for (i, o) in out.iter_mut().enumerate() {
        let mut ch: Vec<u8> = colours.iter().map(|c| c.0[i]).collect();
        ch.sort_unstable();
        *o = ch[ch.len() / 2];
    }
    Some(Rgb(out))
}

/// The most frequent colour after quantising to `bits` bits per channel, returned as the mean of
/// the pixels in that bin, with the bin's share of all colours (0..=1). `None` when empty.
pub fn dominant(colours: &[Rgb], bits: u32) -> Option<(Rgb, f32)> {
    if colours.is_empty() {
        return None;
    }
    let shift = 8 - bits;
    let key = |c: Rgb| {
        ((usize::from(c.0[0]) >> shift) << (2 * bits))
            | ((usize::from(c.0[1]) >> shift) << bits)
            | (usize::from(c.0[2]) >> shift)
    };
    let mut counts = std::collections::HashMap::<usize, (u32, [u32; 3])>::new();
    for &c in colours {
        let e = counts.entry(key(c)).or_insert((0, [0; 3]));
        e.0 += 1;
        for i in 0..3 {
            e.1[i] += u32::from(c.0[i]);
        }
    }
    let (_, (n, sum)) = counts
        .into_iter()
        .max_by_key(|(k, (n, _))| (*n, usize::MAX - *k))?;
    let mean = Rgb([(sum[0] / n) as u8, (sum[1] / n) as u8, (sum[2] / n) as u8]);
    Some((mean, n as f32 / colours.len() as f32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subpixel_fringes_are_text_and_greys_or_other_colours_are_not() {
        // 2048-qt's dark tile and its digits' colour
        let (bg, text) = (Rgb([0x3c, 0x3a, 0x32]), Rgb([0xf9, 0xf6, 0xf2]));
        // #d59958: red (213 − 60) / 189 = 0.810, green (153 − 58) / 188 = 0.505, blue
        // (88 − 50) / 192 = 0.198: falling, spread 0.61, mean 0.504; off the segment
        let fringe = Rgb([0xd5, 0x99, 0x58]);
        assert!(fringe.on_segment(bg, text).1 > 30.0);
        let t = fringe.subpixel_coverage(bg, text).unwrap();
        assert!((t - 0.504).abs() < 0.002, "{t}");
        // #4c75ae: 0.085, 0.314, 0.646, rising
        let t = Rgb([0x4c, 0x75, 0xae]).subpixel_coverage(bg, text).unwrap();
        assert!((t - 0.348).abs() < 0.002, "{t}");
        // a grey: 0.360, 0.372, 0.406 (spread 0.05)
        assert_eq!(Rgb([0x80, 0x80, 0x80]).subpixel_coverage(bg, text), None);
        // a magenta: green below the background's (−0.31)
        assert_eq!(Rgb([0xc8, 0x00, 0xc8]).subpixel_coverage(bg, text), None);
        // not in order across the stripes: 0.74, 0.51, 0.78
        assert_eq!(Rgb([0xc8, 0x99, 0xc8]).subpixel_coverage(bg, text), None);
        // a channel that barely changes between background and text says nothing
        let flat = (Rgb([0x80, 0x10, 0x10]), Rgb([0x90, 0xf0, 0xf0]));
        assert_eq!(
            Rgb([0x88, 0x40, 0xc0]).subpixel_coverage(flat.0, flat.1),
            None
        );
    }

    #[test]
    fn parses_and_prints() {
        let c: Rgb = "#bbada0".parse().unwrap();
        assert_eq!(c, Rgb([0xbb, 0xad, 0xa0]));
        assert_eq!(c.to_string(), "#bbada0");
        assert!("bbada0".parse::<Rgb>().is_err());
        assert!("#bbada".parse::<Rgb>().is_err());
        assert!("#gbada0".parse::<Rgb>().is_err());
    }

    #[test]
    fn blend_matches_web_overlay() {
        // NOTES.md: rgba(238,228,218,.5) over board #bbada0 gives #d4c8bd (rounding either way).
        let b: Rgb = "#bbada0".parse().unwrap();
        let o = b.blend(Rgb([238, 228, 218]), 0.5);
        assert!(o.dist("#d4c8bd".parse().unwrap()) <= 1);
    }

    #[test]
    fn segment_position() {
        let (t, d) = Rgb([128, 128, 128]).on_segment(Rgb([0, 0, 0]), Rgb([255, 255, 255]));
        assert!((t - 0.502).abs() < 0.01 && d < 1.0);
        let (_, d) = Rgb([255, 0, 0]).on_segment(Rgb([0, 0, 0]), Rgb([255, 255, 255]));
        assert!(d > 100.0);
    }
}
