//! [`RegionSource`]: frames of a fixed rectangle of a monitor (`--region x,y,w,h`), the fallback
//! for a game that has no window of its own (or when no window manager lists windows).
//!
//! Monitor capture sees whatever is on top, so nothing can be checked about stacking here; the
//! settle step still rejects black (covered or blank) boards.
use super::{map_xcap, CaptureError, Frame, FrameSource, Rect};
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
    /// `NoDisplay`, or `Backend` when no monitor contains the whole region.
    pub fn new(region: Rect) -> Result<RegionSource, CaptureError> {
        super::x11::X11::connect()?;
        let monitor = xcap::Monitor::from_point(region.x, region.y).map_err(map_xcap)?;
        let (mx, my) = (
            monitor.x().map_err(map_xcap)?,
            monitor.y().map_err(map_xcap)?,
        );
        let (mw, mh) = (
            monitor.width().map_err(map_xcap)?,
            monitor.height().map_err(map_xcap)?,
        );
        let local = Rect {
            x: region.x - mx,
            y: region.y - my,
            width: region.width,
            height: region.height,
        };
        if local.clip(mw, mh) != Some(local) {
            return Err(CaptureError::Backend(format!(
                "region {}x{}+{}+{} does not fit in the monitor {mw}x{mh}+{mx}+{my}",
                region.width, region.height, region.x, region.y
            )));
        }
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
