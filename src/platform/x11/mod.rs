//! The X11 platform: an X11 session, or the X11 windows of a Wayland session's XWayland.
//!
//! - [`connection`]: the window-manager queries (stacking order, focus, activation, pointer) over
//!   one x11rb connection, shared by frames and keys.
//! - [`window`]: [`WindowSource`], frames of one top-level window (xcap, X `GetImage`), refused
//!   while the window is gone, minimised or covered; [`window::list_windows`].
//! - [`region`]: [`RegionSource`], frames of a monitor rectangle (X11 sessions only: under
//!   XWayland, reading the root window fails and xcap's monitor capture goes to the portal).
//! - [`keys`]: [`EnigoSink`], XTEST keys through enigo, each one after a focus check.
//!
//! [`X11Desktop`] is the [`Desktop`]; [`X11Game`] the [`GameWindow`]. Under XWayland the same
//! code runs unchanged: the compositor's X window manager keeps `_NET_CLIENT_LIST_STACKING` and
//! `_NET_ACTIVE_WINDOW`, and when a native Wayland window has the focus, the X input focus is on
//! no X11 window, so the focus check refuses the key (XTEST keys would not reach the game then).
use super::{Desktop, DialogKey, GameWindow, ListedWindow, PlatformError, Session, WindowInfo};
use crate::capture::{CaptureError, Frame, FrameSource, Rect};
use crate::engine::Move;
use crate::input::{FocusMode, InputError, KeySink};

pub mod connection;
pub mod keys;
pub mod region;
pub mod window;

pub use connection::{KeyboardFocus, X11};
pub use keys::EnigoSink;
pub use region::RegionSource;
pub use window::WindowSource;

/// xcap's one big error enum, mapped into [`CaptureError`]: a failed connection is
/// [`CaptureError::NoDisplay`], a window manager without `_NET_CLIENT_LIST_STACKING` is
/// [`CaptureError::NoWindowManager`], anything else [`CaptureError::Backend`].
pub(crate) fn map_xcap(e: xcap::XCapError) -> CaptureError {
    match e {
        xcap::XCapError::XcbConnError(_) => CaptureError::NoDisplay(e.to_string()),
        // xcap has no variant for a missing EWMH atom: its `get_atom` returns the free-text
        // `XCapError::Error("{name} not supported")`, so only the message names the atom
        xcap::XCapError::Error(ref msg) if msg.contains("_NET_CLIENT_LIST_STACKING") => {
            CaptureError::NoWindowManager
        }
        _ => CaptureError::Backend(e.to_string()),
    }
}

/// The X11 desktop of a session (X11, or XWayland in a Wayland session).
#[derive(Debug)]
pub struct X11Desktop {
    session: Session,
}

impl X11Desktop {
    /// The X11 desktop on `$DISPLAY` of `session`; connects only when asked for something.
    pub fn new(session: Session) -> X11Desktop {
        X11Desktop { session }
    }

    /// The game window `info` (an X11 window listed by [`X11::clients`] on `$DISPLAY`), with the
    /// keyboard opened for it when `keys` is given: how a wlroots session plays its XWayland
    /// windows through this route.
    ///
    /// # Errors
    /// [`PlatformError::Capture`] (`NoDisplay`, `WindowGone`, …); [`PlatformError::Keys`] when
    /// the keyboard cannot be opened.
    pub fn open_info(info: WindowInfo, keys: Option<FocusMode>) -> Result<X11Game, PlatformError> {
        let src = WindowSource::open(info)?;
        let keys = match keys {
            Some(focus) => Some(EnigoSink::new(src.info().id, focus)?),
            None => None,
        };
        Ok(X11Game { src, keys })
    }

    /// A `WindowNotFound` in a Wayland session becomes [`PlatformError::NotUnderXWayland`],
    /// with the commands that start each game under XWayland.
    fn not_found(&self, e: CaptureError) -> PlatformError {
        match (&e, self.session.not_found_hint()) {
            (CaptureError::WindowNotFound { .. }, Some(advice)) => {
                PlatformError::NotUnderXWayland { missing: e, advice }
            }
            _ => PlatformError::Capture(e),
        }
    }
}

impl Desktop for X11Desktop {
    fn describe(&self) -> String {
        self.session.describe()
    }

    fn windows(&self) -> Result<Vec<ListedWindow>, PlatformError> {
        Ok(window::list_windows()?)
    }

    fn find(&self, wanted: &str) -> Result<Box<dyn GameWindow>, PlatformError> {
        let src = WindowSource::find(wanted).map_err(|e| self.not_found(e))?;
        Ok(Box::new(X11Game { src, keys: None }))
    }

    fn open(&self, wanted: &str, focus: FocusMode) -> Result<Box<dyn GameWindow>, PlatformError> {
        let src = WindowSource::find(wanted).map_err(|e| self.not_found(e))?;
        let keys = EnigoSink::new(src.info().id, focus)?;
        Ok(Box::new(X11Game {
            src,
            keys: Some(keys),
        }))
    }

    fn region(&self, area: Rect) -> Result<Box<dyn FrameSource>, PlatformError> {
        if self.session.is_wayland() {
            return Err(PlatformError::Unsupported {
                what: "--region".into(),
                session: self.session.describe(),
                why: "an X11 client cannot read the screen there (GetImage on the root window \
                      fails); pass the game's window with --window"
                    .into(),
            });
        }
        Ok(Box::new(RegionSource::new(area)?))
    }

    fn hint(&self) -> Option<String> {
        self.session.not_found_hint()
    }
}

/// One X11 game window: frames from [`WindowSource`], keys (when opened with them) from
/// [`EnigoSink`].
#[derive(Debug)]
pub struct X11Game {
    src: WindowSource,
    keys: Option<EnigoSink>,
}

impl X11Game {
    /// The key sink, or [`InputError::Disabled`] for a window found without keys.
    fn keys(&mut self) -> Result<&mut EnigoSink, InputError> {
        self.keys.as_mut().ok_or(InputError::Disabled)
    }
}

impl FrameSource for X11Game {
    fn next_frame(&mut self) -> Result<Frame, CaptureError> {
        self.src.next_frame()
    }
}

impl KeySink for X11Game {
    fn press(&mut self, m: Move) -> Result<(), InputError> {
        self.keys()?.press(m)
    }
}

impl GameWindow for X11Game {
    fn info(&self) -> &WindowInfo {
        self.src.info()
    }

    fn rect(&self) -> Result<Rect, CaptureError> {
        self.src.rect()
    }

    fn set_watch(&mut self, area: Option<Rect>) {
        self.src.set_watch(area);
    }

    fn windows_above(&self) -> Result<Vec<WindowInfo>, CaptureError> {
        self.src.windows_above()
    }

    fn snapshot(&mut self) -> Result<(Frame, Vec<WindowInfo>), CaptureError> {
        self.src.snapshot()
    }

    fn activate(&self) -> Result<(), CaptureError> {
        self.src.activate()
    }

    fn ensure_focus(&mut self) -> Result<(), InputError> {
        self.keys()?.ensure_focus()
    }

    fn key_to_dialog(&mut self, dialog: u32, key: DialogKey) -> Result<(), InputError> {
        let key = match key {
            DialogKey::Escape => enigo::Key::Escape,
            DialogKey::Return => enigo::Key::Return,
            DialogKey::Letter(c) => enigo::Key::Unicode(c),
        };
        self.keys()?.key_to(dialog, key)
    }

    fn click(&mut self, p: (i32, i32)) -> Result<(), InputError> {
        self.keys()?.click(p)
    }

    fn set_click_point(&mut self, p: Option<(i32, i32)>) {
        if let Some(k) = self.keys.as_mut() {
            k.set_click_point(p);
        }
    }

    fn set_failsafe(&mut self, on: bool) {
        if let Some(k) = self.keys.as_mut() {
            k.set_failsafe(on);
        }
    }
}
