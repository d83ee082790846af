//! Capture stage: frames of a 2048 game, from a real window, a monitor region, or recorded files.
//!
//! - [`Frame`]: one RGBA image, where its top-left pixel sits on the root window, when it was taken.
//! - [`FrameSource`]: the seam the play loop reads from. Implementations: the platform's game
//!   windows and screen regions ([`crate::platform`]; on X11 an xcap capture of one top-level
//!   window, or a rectangle of a monitor), [`ReplaySource`] (PNG files or a `--record` directory,
//!   for tests without a display).
//! - [`mod@settle`]: waits until the board region stops changing for a quiet window (default 100 ms),
//!   never a fixed sleep alone; also rejects covered (black) frames.
//!
//! Errors are [`CaptureError`], which every platform maps its own errors into.
use std::time::Instant;

pub mod replay;
pub mod settle;

pub use replay::ReplaySource;
pub use settle::{settle, SettleOptions, Settled};

/// One captured image of a game.
#[derive(Clone, Debug)]
pub struct Frame {
    /// The pixels, RGBA, 1 image pixel = 1 screen pixel (scale 1 under Xvfb).
    pub image: image::RgbaImage,
    /// Position of the image's top-left pixel on the root window (screen pixels); (0, 0) for replays.
    pub origin: (i32, i32),
    /// When the capture finished.
    pub taken_at: Instant,
}

/// A rectangle in pixels: `x`, `y` of the top-left corner, `width`, `height`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Rect {
    /// Left edge, pixels.
    pub x: i32,
    /// Top edge, pixels.
    pub y: i32,
    /// Width, pixels.
    pub width: u32,
    /// Height, pixels.
    pub height: u32,
}

impl Rect {
    /// Parses `x,y,w,h` (pixels, integers, w and h > 0).
    ///
    /// # Errors
    /// A message naming what is wrong.
    pub fn parse(s: &str) -> Result<Rect, String> {
        let parts: Vec<&str> = s.split(',').map(str::trim).collect();
        if parts.len() != 4 {
            return Err(format!("region `{s}`: expected x,y,w,h (4 integers)"));
        }
        let num = |i: usize| {
            parts[i]
                .parse::<i64>()
                .map_err(|_| format!("region `{s}`: `{}` is not an integer", parts[i]))
        };
        let (x, y, w, h) = (num(0)?, num(1)?, num(2)?, num(3)?);
        if w <= 0 || h <= 0 || w > 65535 || h > 65535 {
            return Err(format!("region `{s}`: width and height must be 1..=65535"));
        }
        let (x, y) = (
            i32::try_from(x).map_err(|_| format!("region `{s}`: x out of range"))?,
            i32::try_from(y).map_err(|_| format!("region `{s}`: y out of range"))?,
        );
        Ok(Rect {
            x,
            y,
            width: w as u32,
            height: h as u32,
        })
    }

    /// True when every pixel of `inner` is inside this rectangle.
    pub fn contains(&self, inner: &Rect) -> bool {
        inner.x >= self.x
            && inner.y >= self.y
            && i64::from(inner.x) + i64::from(inner.width)
                <= i64::from(self.x) + i64::from(self.width)
            && i64::from(inner.y) + i64::from(inner.height)
                <= i64::from(self.y) + i64::from(self.height)
    }

    /// True when the two rectangles share at least one pixel.
    pub fn intersects(&self, other: &Rect) -> bool {
        let (ax2, ay2) = (self.x + self.width as i32, self.y + self.height as i32);
        let (bx2, by2) = (other.x + other.width as i32, other.y + other.height as i32);
        self.x < bx2 && other.x < ax2 && self.y < by2 && other.y < ay2
    }

    /// This rectangle clipped to an image of `width` x `height` pixels; `None` if nothing is left.
    pub fn clip(&self, width: u32, height: u32) -> Option<Rect> {
        let x0 = self.x.max(0);
        let y0 = self.y.max(0);
        let x1 = (self.x + self.width as i32).min(width as i32);
        let y1 = (self.y + self.height as i32).min(height as i32);
        (x1 > x0 && y1 > y0).then(|| Rect {
            x: x0,
            y: y0,
            width: (x1 - x0) as u32,
            height: (y1 - y0) as u32,
        })
    }

    /// `region` clipped to `image`, or the whole image when `region` is `None` or lies outside it.
    pub fn within(image: &image::RgbaImage, region: Option<Rect>) -> Rect {
        region
            .and_then(|r| r.clip(image.width(), image.height()))
            .unwrap_or(Rect {
                x: 0,
                y: 0,
                width: image.width(),
                height: image.height(),
            })
    }
}

impl std::fmt::Display for Rect {
    /// `WxH+X+Y`, as X11 geometry strings are written.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}+{}+{}", self.width, self.height, self.x, self.y)
    }
}

/// Why a frame could not be had, or must not be trusted.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    /// No X display could be opened (DISPLAY unset or wrong, or Xvfb not running).
    #[error("no X display: {0} (is DISPLAY set and the X server running?)")]
    NoDisplay(String),
    /// The display has no EWMH window manager (`_NET_CLIENT_LIST_STACKING` missing), so windows
    /// cannot be listed; run one (e.g. openbox), or use `--region`.
    #[error("no EWMH window manager on the display (windows cannot be listed); start one, e.g. openbox, or use --region")]
    NoWindowManager,
    /// No top-level window matched the title or app name; the list holds the titles seen.
    #[error("no window matches `{wanted}`; windows seen: {seen:?}")]
    WindowNotFound {
        /// What the user asked for.
        wanted: String,
        /// Titles of the windows on the display.
        seen: Vec<String>,
    },
    /// The game window was there and is gone (closed, or the game quit).
    #[error("the game window is gone (closed or the game quit)")]
    WindowGone,
    /// Another window is stacked above the game and overlaps it, or the board captured as black
    /// (covered: there is no compositor, covered pixels come back #000000).
    #[error("the game is covered: {0}")]
    Occluded(String),
    /// `--region` is not inside one monitor (off screen, or across two monitors).
    #[error("region {region} is not inside one monitor; monitors: {monitors} (give x,y,w,h inside one of them)")]
    RegionOffScreen {
        /// The region asked for, `WxH+X+Y`.
        region: String,
        /// Every monitor, `WxH+X+Y`, comma-separated.
        monitors: String,
    },
    /// The window is minimised (iconic) and shows nothing.
    #[error("the game window is minimised")]
    Minimized,
    /// A replay ran out of frames.
    #[error("no more recorded frames")]
    EndOfReplay,
    /// Any other failure of the capture backend (xcap, X protocol, image files).
    #[error("capture failed: {0}")]
    Backend(String),
}

/// A source of frames of one game.
pub trait FrameSource {
    /// Captures (or loads) the next frame.
    ///
    /// # Errors
    /// [`CaptureError`]: the window is gone, covered, the display is unusable, a replay has ended.
    fn next_frame(&mut self) -> Result<Frame, CaptureError>;

    /// Called by the play loop right after it pressed a key (or decided to press none), so that a
    /// replay can move on to the frames recorded after that key. Live sources ignore it.
    fn key_sent(&mut self) {}
}

impl<T: FrameSource + ?Sized> FrameSource for Box<T> {
    fn next_frame(&mut self) -> Result<Frame, CaptureError> {
        (**self).next_frame()
    }
    fn key_sent(&mut self) {
        (**self).key_sent()
    }
}

/// Side (pixels) of the pure black square a pixel must start for [`black_fraction`] to count
/// it: a covering window is black in whole blocks, a game's black digits in strokes a few pixels
/// wide (rxvt-unicode draws the text-mode game's 256 and 512 in black, strokes of 2 pixels at
/// 14 pt).
pub const SOLID_BLACK_PX: u32 = 12;

/// Fraction (0.0..=1.0) of `region` of `image` (the whole image when `None`) that is solid pure
/// black (#000000): the sampled pixels (every 2nd in both directions) that start a pure black
/// square of [`SOLID_BLACK_PX`] (clipped to the region, sampled the same way). Covered parts of a
/// window capture as pure black under X without a compositor; black text does not count.
pub fn black_fraction(image: &image::RgbaImage, region: Option<Rect>) -> f64 {
    let r = Rect::within(image, region);
    let (x_end, y_end) = (r.x as u32 + r.width, r.y as u32 + r.height);
    let black = |x: u32, y: u32| image.get_pixel(x, y).0[..3] == [0, 0, 0];
    let solid = |x: u32, y: u32| {
        (y..(y + SOLID_BLACK_PX).min(y_end)).step_by(2).all(|yy| {
            (x..(x + SOLID_BLACK_PX).min(x_end))
                .step_by(2)
                .all(|xx| black(xx, yy))
        })
    };
    let (mut covered, mut total) = (0u64, 0u64);
    for y in (r.y as u32..y_end).step_by(2) {
        for x in (r.x as u32..x_end).step_by(2) {
            total += 1;
            if solid(x, y) {
                covered += 1;
            }
        }
    }
    if total == 0 {
        0.0
    } else {
        covered as f64 / total as f64
    }
}

/// `Err(Occluded)` when more than `max_black` of `region` of `image` is pure black (see
/// [`black_fraction`]): the region is covered by another window.
///
/// # Errors
/// [`CaptureError::Occluded`] with the black share in the message.
pub fn check_not_covered(
    image: &image::RgbaImage,
    region: Option<Rect>,
    max_black: f64,
) -> Result<(), CaptureError> {
    let black = black_fraction(image, region);
    if black > max_black {
        return Err(CaptureError::Occluded(format!(
            "{:.1} % of the board captured black (covered by another window?)",
            black * 100.0
        )));
    }
    Ok(())
}

/// Largest solid black fraction ([`black_fraction`]) of a board region that is still trusted
/// (0.2 %): a covering window gives whole black blocks.
pub const MAX_BLACK_FRACTION: f64 = 0.002;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rect_parse_and_clip() {
        assert_eq!(
            Rect::parse("10, 20,30,40"),
            Ok(Rect {
                x: 10,
                y: 20,
                width: 30,
                height: 40
            })
        );
        assert!(Rect::parse("1,2,3").is_err());
        assert!(Rect::parse("1,2,0,4").is_err());
        assert!(Rect::parse("a,2,3,4").is_err());
        let r = Rect {
            x: -5,
            y: 90,
            width: 20,
            height: 20,
        };
        assert_eq!(
            r.clip(100, 100),
            Some(Rect {
                x: 0,
                y: 90,
                width: 15,
                height: 10
            })
        );
        assert_eq!(
            Rect {
                x: 100,
                y: 0,
                width: 5,
                height: 5
            }
            .clip(100, 100),
            None
        );
        assert!(r.intersects(&Rect {
            x: 14,
            y: 109,
            width: 1,
            height: 1
        }));
        assert!(!r.intersects(&Rect {
            x: 15,
            y: 109,
            width: 1,
            height: 1
        }));
    }

    #[test]
    fn black_fraction_counts_solid_pure_black_only() {
        let mut img = image::RgbaImage::from_pixel(40, 40, image::Rgba([1, 0, 0, 255]));
        assert_eq!(black_fraction(&img, None), 0.0);
        for y in 0..40 {
            for x in 0..16 {
                img.put_pixel(x, y, image::Rgba([0, 0, 0, 255]));
            }
        }
        // sampled columns 0, 2, .., 38: the 12 px squares from columns 0, 2 and 4 stay in the
        // black band (their samples end at 10, 12, 14), the one from 6 reaches red at 16;
        // every row counts (squares near the bottom are clipped): 3 of 20 columns
        assert!(
            (black_fraction(&img, None) - 3.0 / 20.0).abs() < 1e-9,
            "{}",
            black_fraction(&img, None)
        );
        let right = Rect {
            x: 16,
            y: 0,
            width: 24,
            height: 40,
        };
        assert_eq!(black_fraction(&img, Some(right)), 0.0);
    }

    /// rxvt-unicode's text-mode 2048 draws its 256 and 512 in black
    /// (tests/data/text-2048/urxvt-black-digits.png): pure black pixels are more than
    /// [`MAX_BLACK_FRACTION`] of it, and none of them is solid, so the board is not covered.
    #[test]
    fn a_terminals_black_digits_are_not_a_covering_window() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/text-2048/urxvt-black-digits.png"
        );
        let img = image::open(path).unwrap().to_rgba8();
        let pure = img.pixels().filter(|p| p.0[..3] == [0, 0, 0]).count();
        assert!(pure as f64 > MAX_BLACK_FRACTION * f64::from(img.width() * img.height()));
        assert_eq!(black_fraction(&img, None), 0.0);
        assert!(check_not_covered(&img, None, MAX_BLACK_FRACTION).is_ok());
    }

    /// Black strokes two pixels wide (a terminal's black digits) are not a covering window.
    #[test]
    fn black_text_is_not_counted_as_covered() {
        let mut img = image::RgbaImage::from_pixel(60, 60, image::Rgba([255, 0, 0, 255]));
        for i in 10..50 {
            for w in 0..2 {
                img.put_pixel(20 + w, i, image::Rgba([0, 0, 0, 255]));
                img.put_pixel(i, 30 + w, image::Rgba([0, 0, 0, 255]));
            }
        }
        assert_eq!(black_fraction(&img, None), 0.0);
    }
}
