//! [`WindowSource`]: frames of one top-level game window, captured with xcap.
//!
//! The window is found once (by title, then app name), and remembered by its X id; every frame
//! first checks, over one x11rb connection, that the window still exists, is not minimised and has
//! no other window stacked above it over the watched area (the board once known, else the whole
//! window): covered pixels would capture black, and the games' dialogs are windows of their own.
use super::{map_xcap, X11};
use crate::capture::{CaptureError, Frame, FrameSource, Rect};
use crate::platform::{ListedWindow, WindowInfo};
use std::time::Instant;

/// Frames of one game window.
pub struct WindowSource {
    x11: X11,
    window: xcap::Window,
    info: WindowInfo,
    watch: Option<Rect>,
}

impl std::fmt::Debug for WindowSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WindowSource")
            .field("info", &self.info)
            .field("watch", &self.watch)
            .finish()
    }
}

/// How well a window matches the user's `--window` text; higher is better, 0 = no match.
fn match_rank(w: &WindowInfo, wanted: &str) -> u8 {
    let lw = wanted.to_lowercase();
    if w.title == wanted {
        4
    } else if w.title.to_lowercase() == lw || w.class.to_lowercase() == lw {
        3
    } else if w.title.to_lowercase().contains(&lw) {
        2
    } else if w.class.to_lowercase().contains(&lw) || w.instance.to_lowercase().contains(&lw) {
        1
    } else {
        0
    }
}

/// Picks the window for `wanted` among `clients` (bottom to top): the best rank; among equals,
/// a viewable one, then the topmost.
pub fn pick_window<'a>(clients: &'a [WindowInfo], wanted: &str) -> Option<&'a WindowInfo> {
    pick_index(clients, wanted).map(|i| &clients[i])
}

/// The index in `clients` of the window [`pick_window`] picks; `None` when none matches.
pub fn pick_index(clients: &[WindowInfo], wanted: &str) -> Option<usize> {
    clients
        .iter()
        .enumerate()
        .filter(|(_, w)| match_rank(w, wanted) > 0)
        .max_by_key(|(i, w)| (match_rank(w, wanted), w.viewable, *i))
        .map(|(i, _)| i)
}

impl WindowSource {
    /// Finds the window whose title (exactly, then case-insensitively, then as a substring) or app
    /// name (`WM_CLASS`) matches `wanted`.
    ///
    /// # Errors
    /// `NoDisplay`, `NoWindowManager`, `WindowNotFound` (with the titles seen), `Backend`.
    pub fn find(wanted: &str) -> Result<WindowSource, CaptureError> {
        let x11 = X11::connect()?;
        let clients = x11.clients()?;
        let info =
            pick_window(&clients, wanted)
                .cloned()
                .ok_or_else(|| CaptureError::WindowNotFound {
                    wanted: wanted.to_string(),
                    seen: clients.iter().map(|w| w.title.clone()).collect(),
                })?;
        WindowSource::with(x11, info)
    }

    /// Frames of the window `info` (as [`X11::clients`] listed it, on `$DISPLAY`), found by its
    /// X id.
    ///
    /// # Errors
    /// `NoDisplay`, `NoWindowManager`, `WindowGone` (no longer listed), `Backend`.
    pub fn open(info: WindowInfo) -> Result<WindowSource, CaptureError> {
        WindowSource::with(X11::connect()?, info)
    }

    fn with(x11: X11, info: WindowInfo) -> Result<WindowSource, CaptureError> {
        let window = xcap::Window::all()
            .map_err(map_xcap)?
            .into_iter()
            .find(|w| w.id().ok() == Some(info.id))
            .ok_or(CaptureError::WindowGone)?;
        Ok(WindowSource {
            x11,
            window,
            info,
            watch: None,
        })
    }

    /// The game window as found (id, title, class, rectangle at that time).
    pub fn info(&self) -> &WindowInfo {
        &self.info
    }

    /// The X connection used for the checks (shared with the key sink's focus checks).
    pub fn x11(&self) -> &X11 {
        &self.x11
    }

    /// Sets the area, in window pixels, that must not be covered (the board); `None` = whole window.
    pub fn set_watch(&mut self, area: Option<Rect>) {
        self.watch = area;
    }

    /// The window's current rectangle on the root window.
    ///
    /// # Errors
    /// `WindowGone` when it no longer exists.
    pub fn rect(&self) -> Result<Rect, CaptureError> {
        self.x11.rect(self.info.id)?.ok_or(CaptureError::WindowGone)
    }

    /// Viewable windows stacked above the game that overlap it anywhere (dialogs, other apps).
    ///
    /// # Errors
    /// `WindowGone`, `NoWindowManager`, `Backend`.
    pub fn windows_above(&self) -> Result<Vec<WindowInfo>, CaptureError> {
        let r = self.rect()?;
        self.x11.windows_above(self.info.id, r)
    }

    /// Asks the window manager to raise and focus the game window.
    ///
    /// # Errors
    /// `Backend` on X errors.
    pub fn activate(&self) -> Result<(), CaptureError> {
        self.x11.activate(self.info.id)
    }

    /// One capture of the window taken even when something covers it (covered parts come back
    /// black), with the viewable windows stacked above it at that moment (for a warning): what
    /// `read --window` shows a user. The play loop uses [`FrameSource::next_frame`], which refuses
    /// covered frames instead.
    ///
    /// # Errors
    /// `WindowGone`, `Minimized`, `NoWindowManager`, `Backend`.
    pub fn snapshot(&mut self) -> Result<(Frame, Vec<WindowInfo>), CaptureError> {
        let rect = self.rect()?;
        if self.x11.is_hidden(self.info.id)? {
            return Err(CaptureError::Minimized);
        }
        let above = self.x11.windows_above(self.info.id, rect)?;
        let image = capture(&self.window, &self.x11, self.info.id)?;
        Ok((
            Frame {
                image,
                origin: (rect.x, rect.y),
                taken_at: Instant::now(),
            },
            above,
        ))
    }
}

/// Every top-level window the window manager lists, bottom to top, each captured once when it is
/// viewable and not minimised.
///
/// # Errors
/// `NoDisplay`, `NoWindowManager`, `Backend` (the list itself); a window that cannot be captured
/// has its error in [`ListedWindow::frame`].
pub fn list_windows() -> Result<Vec<ListedWindow>, CaptureError> {
    let x11 = X11::connect()?;
    let clients = x11.clients()?;
    let xcap_windows = xcap::Window::all().map_err(map_xcap)?;
    let mut out = Vec::new();
    for info in clients {
        let minimised = x11.is_hidden(info.id)?;
        let covered_by = x11
            .windows_above(info.id, info.rect)
            .unwrap_or_default()
            .into_iter()
            .map(|w| w.title)
            .collect();
        let frame = if !info.viewable || minimised {
            Err(CaptureError::Minimized)
        } else {
            match xcap_windows.iter().find(|w| w.id().ok() == Some(info.id)) {
                None => Err(CaptureError::WindowGone),
                Some(w) => capture(w, &x11, info.id).map(|image| Frame {
                    image,
                    origin: (info.rect.x, info.rect.y),
                    taken_at: Instant::now(),
                }),
            }
        };
        out.push(ListedWindow {
            info,
            minimised,
            covered_by,
            frame,
        });
    }
    Ok(out)
}

/// How long (ms) a window whose capture failed is watched for its disappearance, and how often.
/// A window closed during the capture can fail it (X11 `BadWindow`) while the server still
/// answers for the window a moment longer (seen once in the closed-window drill, 2026-12-03).
const GONE_WATCH_MS: (u64, u64) = (200, 40);

/// Captures `window` (X id `id`); a failure on a window that no longer exists, or that is gone
/// within [`GONE_WATCH_MS`], is `WindowGone`. While the window is still there, the capture is
/// tried again at each look: a window resized during a capture fails it (xcap asks for the
/// window's size, then for its pixels at that size: an `xcb protocol error` when the window
/// shrank in between, seen when 2048 in Chromium was resized from 800x900 to 560x900 mid-game,
/// 2026-12-03), and the next capture, at the new size, succeeds. The error stands when every
/// try fails.
fn capture(window: &xcap::Window, x11: &X11, id: u32) -> Result<image::RgbaImage, CaptureError> {
    let mut e = match window.capture_image() {
        Ok(img) => return Ok(img),
        Err(e) => e,
    };
    let (watch, step) = GONE_WATCH_MS;
    for _ in 0..=watch / step {
        if x11.rect(id)?.is_none() {
            return Err(CaptureError::WindowGone);
        }
        std::thread::sleep(std::time::Duration::from_millis(step));
        match window.capture_image() {
            Ok(img) => {
                tracing::debug!("a capture failed ({e}); the next one did not");
                return Ok(img);
            }
            Err(next) => e = next,
        }
    }
    if x11.rect(id)?.is_none() {
        return Err(CaptureError::WindowGone);
    }
    Err(map_xcap(e))
}

impl FrameSource for WindowSource {
    fn next_frame(&mut self) -> Result<Frame, CaptureError> {
        let rect = self.rect()?;
        if self.x11.is_hidden(self.info.id)? {
            return Err(CaptureError::Minimized);
        }
        let area = match self.watch {
            Some(w) => Rect {
                x: rect.x + w.x,
                y: rect.y + w.y,
                width: w.width,
                height: w.height,
            },
            None => rect,
        };
        let above = self.x11.windows_above(self.info.id, area)?;
        if let Some(top) = above.last() {
            return Err(CaptureError::Occluded(format!(
                "window `{}` ({}) is above the game",
                top.title, top.class
            )));
        }
        let image = capture(&self.window, &self.x11, self.info.id)?;
        Ok(Frame {
            image,
            origin: (rect.x, rect.y),
            taken_at: Instant::now(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(id: u32, title: &str, class: &str, viewable: bool) -> WindowInfo {
        WindowInfo {
            id,
            title: title.into(),
            class: class.into(),
            instance: String::new(),
            rect: Rect {
                x: 0,
                y: 0,
                width: 10,
                height: 10,
            },
            viewable,
        }
    }

    #[test]
    fn exact_title_beats_substring_and_class() {
        let list = [
            w(1, "2048 Game", "2048-qt", true),
            w(2, "2048", "Chromium", true),
            w(3, "GNOME 2048", "Gnome-2048", true),
        ];
        assert_eq!(pick_window(&list, "2048").map(|w| w.id), Some(2));
        assert_eq!(pick_window(&list, "2048 Game").map(|w| w.id), Some(1));
        assert_eq!(pick_window(&list, "gnome-2048").map(|w| w.id), Some(3));
        assert_eq!(pick_window(&list, "chromium").map(|w| w.id), Some(2));
        assert_eq!(pick_window(&list, "tetris"), None);
    }

    #[test]
    fn viewable_then_topmost_among_equals() {
        let list = [
            w(1, "2048", "a", true),
            w(2, "2048", "b", false),
            w(3, "2048", "c", true),
        ];
        assert_eq!(pick_window(&list, "2048").map(|w| w.id), Some(3));
    }
}
