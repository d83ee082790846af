//! The platform seam: the desktop the games run on, seen as a list of windows and, for one game
//! window, a frame source, a key sink and the window checks `play` needs (is the game focused?
//! covered? gone?).
//!
//! - [`Session`] ([`session`]): what kind of desktop session this is, from `XDG_SESSION_TYPE`,
//!   `WAYLAND_DISPLAY`, `DISPLAY` and `XDG_CURRENT_DESKTOP`, and what to tell a user whose game
//!   runs where the bot cannot see it.
//! - [`Desktop`]: lists windows and opens a game window ([`GameWindow`]) or a screen region.
//! - [`desktop`]: picks the implementation for the session: [`x11`] (X11 `GetImage` through xcap,
//!   XTEST keys through enigo, window-manager queries over x11rb) for an X11 session or the X11
//!   windows of a Wayland session's XWayland; `wlroots` (Linux only: foreign-toplevel list and
//!   focus, screencopy frames, virtual-keyboard keys over one wayland-client connection) on a
//!   Wayland compositor that offers the wlroots protocols, with its XWayland windows through
//!   [`x11`] when XWayland lets the bot in. A platform of its own is a folder
//!   beside them and one arm in [`desktop`].
//!
//! `cli` and `play` see only this module's types; errors are [`PlatformError`] (opening) and the
//! capture and input stages' [`CaptureError`] and [`InputError`] (per frame and per key).
use crate::capture::{CaptureError, Frame, FrameSource, Rect};
use crate::input::{FocusMode, InputError, KeySink};

pub mod session;
#[cfg(target_os = "linux")]
pub mod wlroots;
pub mod x11;

pub use session::{DesktopKind, Session, SessionKind};

/// One top-level window as the desktop lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowInfo {
    /// The desktop's id of the window (X11: the X window id).
    pub id: u32,
    /// The window title, possibly empty.
    pub title: String,
    /// The app name (X11: the class part of `WM_CLASS`), possibly empty.
    pub class: String,
    /// The app instance (X11: the instance part of `WM_CLASS`), possibly empty.
    pub instance: String,
    /// Outer rectangle of the window on the screen (X11: the root window), pixels.
    pub rect: Rect,
    /// Mapped and viewable.
    pub viewable: bool,
}

/// One window as [`Desktop::windows`] saw it.
#[derive(Debug)]
pub struct ListedWindow {
    /// Title, app name, rectangle on the screen, viewable.
    pub info: WindowInfo,
    /// The desktop marks it hidden (minimised).
    pub minimised: bool,
    /// Titles of the viewable windows stacked above it that overlap it.
    pub covered_by: Vec<String>,
    /// A capture of the window (covered parts may come back black), or why there is none.
    pub frame: Result<Frame, CaptureError>,
}

/// A key for a dialog window of the game (not an arrow key of the game itself).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DialogKey {
    /// Escape: closes gnome-2048's dialogs.
    Escape,
    /// Return: the default button (never pressed on a game-over dialog: 2048-qt's quits).
    Return,
    /// A letter, e.g. `y` for the Yes button of 2048-qt's "You Win" box (its mnemonic).
    Letter(char),
}

/// Why the desktop, a window or the keyboard could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum PlatformError {
    /// No desktop the bot can drive in this session (e.g. a Wayland session without XWayland);
    /// the message says what to do.
    #[error("{0}")]
    NoDesktop(String),
    /// A capture-side failure: no display, no window manager, no such window, a region off screen.
    #[error(transparent)]
    Capture(#[from] CaptureError),
    /// The keyboard could not be opened for the game.
    #[error(transparent)]
    Keys(#[from] InputError),
    /// The game window was not found in a Wayland session, where only X11 (XWayland) windows are
    /// visible to the bot; `advice` tells how to start each game under XWayland.
    #[error("{missing}\n{advice}")]
    NotUnderXWayland {
        /// The [`CaptureError::WindowNotFound`] (in the message, not a source of its own, so that
        /// an error chain does not print it twice).
        missing: CaptureError,
        /// What to do, one line per game.
        advice: String,
    },
    /// The session cannot do this (e.g. `--region` under XWayland: the compositor does not let
    /// an X11 client read the screen).
    #[error("{what} does not work in {session}: {why}")]
    Unsupported {
        /// What was asked, e.g. "--region".
        what: String,
        /// The session, e.g. "a Wayland session (XWayland)".
        session: String,
        /// Why not, and what to do instead.
        why: String,
    },
}

/// One game window: frames, keys, and the window checks of the play loop.
///
/// Frames ([`FrameSource::next_frame`]) are refused while the window is gone
/// ([`CaptureError::WindowGone`]), minimised, or has another window over the watched area
/// ([`CaptureError::Occluded`]). Keys ([`KeySink::press`]) go out only while the game has the
/// keyboard focus (given according to the [`FocusMode`] it was opened with), and only while the
/// user has not moved the mouse; a window opened without keys ([`Desktop::find`]) refuses every
/// key with [`InputError::Disabled`].
pub trait GameWindow: FrameSource + KeySink {
    /// The window as found (id, title, app, rectangle at that time).
    fn info(&self) -> &WindowInfo;

    /// The window's current rectangle on the screen, pixels.
    ///
    /// # Errors
    /// [`CaptureError::WindowGone`] when it no longer exists.
    fn rect(&self) -> Result<Rect, CaptureError>;

    /// Sets the area, in window pixels, that must not be covered (the board); `None` = the whole
    /// window.
    fn set_watch(&mut self, area: Option<Rect>);

    /// Viewable windows stacked above the game that overlap it anywhere (its dialogs, other
    /// apps), bottom to top.
    ///
    /// # Errors
    /// `WindowGone`, `NoWindowManager`, `Backend`.
    fn windows_above(&self) -> Result<Vec<WindowInfo>, CaptureError>;

    /// One capture of the window taken even when something covers it (covered parts may come
    /// back black), with the windows above it at that moment: what `read` shows a user.
    ///
    /// # Errors
    /// `WindowGone`, `Minimized`, `NoWindowManager`, `Backend`.
    fn snapshot(&mut self) -> Result<(Frame, Vec<WindowInfo>), CaptureError>;

    /// Asks the desktop to raise and focus the game window (returns at once; it may or may not
    /// follow).
    ///
    /// # Errors
    /// `Backend` when the request cannot be sent.
    fn activate(&self) -> Result<(), CaptureError>;

    /// Makes sure the game has the keyboard focus, giving it as its [`FocusMode`] allows.
    ///
    /// # Errors
    /// [`InputError::NotFocused`] when it does not have it afterwards; `Disabled` without keys.
    fn ensure_focus(&mut self) -> Result<(), InputError>;

    /// Presses `key` in the game's dialog window `dialog` (an id from
    /// [`GameWindow::windows_above`]), only once that dialog has the keyboard focus.
    ///
    /// # Errors
    /// `NotFocused` when the dialog does not get the focus; `Disabled` without keys; `Backend`.
    fn key_to_dialog(&mut self, dialog: u32, key: DialogKey) -> Result<(), InputError>;

    /// Clicks the left mouse button at `p` (screen pixels); the mouse failsafe follows.
    ///
    /// # Errors
    /// `Disabled` without keys; `Backend`.
    fn click(&mut self, p: (i32, i32)) -> Result<(), InputError>;

    /// Where `--focus click` clicks (screen pixels; the middle of the board).
    fn set_click_point(&mut self, p: Option<(i32, i32)>);

    /// Turns the mouse failsafe on or off (`--no-failsafe`).
    fn set_failsafe(&mut self, on: bool);
}

/// The desktop the games run on.
pub trait Desktop {
    /// The session and route in words, e.g. "an X11 session" or "a Wayland session (GNOME),
    /// X11 windows through XWayland".
    fn describe(&self) -> String;

    /// Every top-level window the desktop lists, bottom to top, each captured once when it is
    /// viewable and not minimised.
    ///
    /// # Errors
    /// No display or window manager; a window that cannot be captured has its error in
    /// [`ListedWindow::frame`].
    fn windows(&self) -> Result<Vec<ListedWindow>, PlatformError>;

    /// Finds the window whose title (exactly, then case-insensitively, then as a substring) or
    /// app name matches `wanted`, for frames only (`read`, `advise`): it presses no key.
    ///
    /// # Errors
    /// No display or window manager; [`CaptureError::WindowNotFound`] (or
    /// [`PlatformError::NotUnderXWayland`] in a Wayland session).
    fn find(&self, wanted: &str) -> Result<Box<dyn GameWindow>, PlatformError>;

    /// As [`Desktop::find`], with the keyboard opened for the game (`play`, `calibrate`).
    ///
    /// # Errors
    /// As [`Desktop::find`]; [`PlatformError::Keys`] when the keyboard cannot be opened.
    fn open(&self, wanted: &str, focus: FocusMode) -> Result<Box<dyn GameWindow>, PlatformError>;

    /// Frames of a fixed rectangle of the screen (`--region`, screen pixels).
    ///
    /// # Errors
    /// `RegionOffScreen` (naming every monitor); [`PlatformError::Unsupported`] where the
    /// session does not let the bot read the screen.
    fn region(&self, area: Rect) -> Result<Box<dyn FrameSource>, PlatformError>;

    /// What to tell a user who finds no game among [`Desktop::windows`] (in a Wayland session:
    /// how to start each game under XWayland); `None` when there is nothing to add.
    fn hint(&self) -> Option<String>;
}

/// The desktop of this process's session ([`Session::detect`]): in a Wayland session whose
/// compositor offers the wlroots protocols (not GNOME or KDE; probed with one connection),
/// [`wlroots::WlrDesktop`]: native windows through those protocols, and the X11 windows of
/// XWayland through the X11 route when `DISPLAY` is set and XWayland lets the bot in (else
/// through the wlroots protocols too); else X11 when there is an X display (an X11 session, or
/// XWayland in a Wayland session); else an error that tells the user what to do.
///
/// # Errors
/// [`PlatformError::NoDesktop`] in a Wayland session without XWayland (`DISPLAY` unset) whose
/// compositor does not offer the wlroots protocols.
pub fn desktop() -> Result<Box<dyn Desktop>, PlatformError> {
    desktop_for(Session::detect())
}

/// The desktop for `session` (see [`desktop`]).
///
/// # Errors
/// As [`desktop`].
pub fn desktop_for(session: Session) -> Result<Box<dyn Desktop>, PlatformError> {
    #[cfg(target_os = "linux")]
    let why_not_wlroots = if session.may_be_wlroots() {
        match wlroots::WlrDesktop::probe(session.clone()) {
            Ok(d) => return Ok(Box::new(d)),
            Err(e) => {
                tracing::debug!(error = %e, "no wlroots desktop");
                Some(e.to_string())
            }
        }
    } else {
        None
    };
    #[cfg(not(target_os = "linux"))]
    let why_not_wlroots: Option<String> = None;
    match session.kind {
        SessionKind::Wayland if session.display.is_none() => {
            let mut m = session.no_xwayland_message();
            if let Some(why) = why_not_wlroots {
                m.push_str(&format!(" (Native Wayland windows: {why}.)"));
            }
            Err(PlatformError::NoDesktop(m))
        }
        // an X11 session, XWayland, or no session at all (the X connection then says why)
        _ => Ok(Box::new(x11::X11Desktop::new(session))),
    }
}
