//! [`RegionSource`]: frames of a fixed rectangle of a monitor (`--region x,y,w,h`), the fallback
//! for a game that has no window of its own (or when no window manager lists windows).
//!
//! Monitor capture sees whatever is on top, so nothing can be checked about stacking here; the
//! settle step still rejects black (covered or blank) boards.
use super::{map_xcap, X11};
use crate::capture::{CaptureError, Frame, FrameSource, Rect};
use std::time::Instant;

/// Frames of one rectangle of the screen.
pub struct RegionSource {
    monitor: xcap::Monitor,
    /// Region relative to the monitor's top-left, pixels.
    local: Rect,
    /// Region on the root window, pixels.
    global: Rect,
}

impl std::fmt::Debug for RegionSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegionSource")
            .field("region", &self.global)
            .finish()
    }
}

impl RegionSource {
    /// Uses `region` (root-window pixels); it must lie inside one monitor.
    ///
    /// # Errors
    /// `NoDisplay`, or [`CaptureError::RegionOffScreen`] (naming every monitor) when no monitor
    /// contains the whole region.
    pub fn new(region: Rect) -> Result<RegionSource, CaptureError> {
        X11::connect()?;
        let mut rects = Vec::new();
        for m in xcap::Monitor::all().map_err(map_xcap)? {
            let r = Rect {
                x: m.x().map_err(map_xcap)?,
                y: m.y().map_err(map_xcap)?,
                width: m.width().map_err(map_xcap)?,
                height: m.height().map_err(map_xcap)?,
            };
            rects.push((m, r));
        }
        let Some((monitor, m)) = rects.iter().find(|(_, m)| m.contains(&region)).cloned() else {
            return Err(off_screen(region, rects.iter().map(|(_, r)| *r)));
        };
        let local = Rect {
            x: region.x - m.x,
            y: region.y - m.y,
            width: region.width,
            height: region.height,
        };
        Ok(RegionSource {
            monitor,
            local,
            global: region,
        })
    }

    /// The region on the root window.
    pub fn region(&self) -> Rect {
        self.global
    }
}

/// The error for a region that no monitor holds whole.
fn off_screen(region: Rect, monitors: impl Iterator<Item = Rect>) -> CaptureError {
    let list: Vec<String> = monitors.map(|m| m.to_string()).collect();
    CaptureError::RegionOffScreen {
        region: region.to_string(),
        monitors: if list.is_empty() {
            "none".into()
        } else {
            list.join(", ")
        },
    }
}

impl FrameSource for RegionSource {
    fn next_frame(&mut self) -> Result<Frame, CaptureError> {
        let image = self
            .monitor
            .capture_region(
                self.local.x as u32,
                self.local.y as u32,
                self.local.width,
                self.local.height,
            )
            .map_err(map_xcap)?;
        Ok(Frame {
            image,
            origin: (self.global.x, self.global.y),
            taken_at: Instant::now(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_screen_names_the_region_and_every_monitor() {
        let screen = Rect {
            x: 0,
            y: 0,
            width: 1280,
            height: 1024,
        };
        let region = Rect {
            x: 1200,
            y: 10,
            width: 100,
            height: 100,
        };
        // 1200 + 100 > 1280: not inside
        assert!(!screen.contains(&region));
        assert!(screen.contains(&Rect { x: 1180, ..region }));
        let e = off_screen(region, [screen].into_iter()).to_string();
        assert!(e.contains("100x100+1200+10"), "{e}");
        assert!(e.contains("1280x1024+0+0"), "{e}");
        assert!(!e.contains("Not found monitor"), "{e}");
    }
}
