//! Window-manager queries over one x11rb connection: the stacking list, titles and classes,
//! geometry, the X input focus, `_NET_ACTIVE_WINDOW`, activation, and the pointer position.
//!
//! xcap opens a new X connection for every getter (and needs `_NET_CLIENT_LIST_STACKING` from an
//! EWMH window manager); these queries keep one connection for the whole game, so the per-move
//! checks (is something above the game? does the game have the keyboard focus? did the user move
//! the mouse?) cost one round trip each.
use crate::capture::{CaptureError, Rect};
use crate::platform::WindowInfo;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    AtomEnum, ClientMessageEvent, ConnectionExt, EventMask, InputFocus, MapState, Window,
};
use x11rb::rust_connection::RustConnection;

/// Where the keyboard focus is, as X and the window manager say at one moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyboardFocus {
    /// The X input focus (where XTEST keys go); `None` for PointerRoot or None. When the focused
    /// window unmaps, X reverts the focus to PointerRoot (as openbox asks when it focuses a
    /// window) or to the parent (the root window, for a top-level window), where it stays until
    /// the window manager focuses another window.
    pub input: Option<u32>,
    /// `_NET_ACTIVE_WINDOW`; `None` when unset or 0.
    pub active: Option<u32>,
}

/// An X connection plus the atoms used here.
pub struct X11 {
    conn: RustConnection,
    root: Window,
    net_client_list_stacking: u32,
    net_active_window: u32,
    net_wm_name: u32,
    utf8_string: u32,
    net_wm_state: u32,
    net_wm_state_hidden: u32,
}

impl std::fmt::Debug for X11 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("X11").field("root", &self.root).finish()
    }
}

/// An x11rb connection or reply error as [`CaptureError::Backend`], with its message.
fn backend_error<E: std::fmt::Display>(e: E) -> CaptureError {
    CaptureError::Backend(e.to_string())
}

impl X11 {
    /// Connects to `$DISPLAY` (an Xorg server, or a Wayland compositor's XWayland: the session
    /// was checked by [`crate::platform::desktop`]).
    ///
    /// # Errors
    /// [`CaptureError::NoDisplay`] when no X server answers.
    pub fn connect() -> Result<X11, CaptureError> {
        X11::connect_to(None)
    }

    /// Connects to the X display `display` (e.g. `":99"`), or to `$DISPLAY` when `None`, whatever
    /// `$DISPLAY` says (tests that drive a display of their own).
    ///
    /// # Errors
    /// [`CaptureError::NoDisplay`] when no X server answers.
    pub fn connect_to(display: Option<&str>) -> Result<X11, CaptureError> {
        let (conn, screen) =
            x11rb::connect(display).map_err(|e| CaptureError::NoDisplay(e.to_string()))?;
        let root = conn.setup().roots[screen].root;
        let atom = |name: &[u8]| -> Result<u32, CaptureError> {
            Ok(conn
                .intern_atom(false, name)
                .map_err(backend_error)?
                .reply()
                .map_err(backend_error)?
                .atom)
        };
        Ok(X11 {
            net_client_list_stacking: atom(b"_NET_CLIENT_LIST_STACKING")?,
            net_active_window: atom(b"_NET_ACTIVE_WINDOW")?,
            net_wm_name: atom(b"_NET_WM_NAME")?,
            utf8_string: atom(b"UTF8_STRING")?,
            net_wm_state: atom(b"_NET_WM_STATE")?,
            net_wm_state_hidden: atom(b"_NET_WM_STATE_HIDDEN")?,
            conn,
            root,
        })
    }

    /// The root window id.
    pub fn root(&self) -> u32 {
        self.root
    }

    fn prop32(&self, win: Window, prop: u32) -> Result<Option<Vec<u32>>, CaptureError> {
        let reply = self
            .conn
            .get_property(false, win, prop, AtomEnum::ANY, 0, 4096)
            .map_err(backend_error)?
            .reply()
            .map_err(backend_error)?;
        if reply.format == 0 && reply.type_ == 0 {
            return Ok(None);
        }
        Ok(reply.value32().map(|it| it.collect()))
    }

    fn prop_string(&self, win: Window, prop: u32, ty: u32) -> Result<Vec<u8>, CaptureError> {
        Ok(self
            .conn
            .get_property(false, win, prop, ty, 0, 1024)
            .map_err(backend_error)?
            .reply()
            .map_err(backend_error)?
            .value)
    }

    /// Client windows from bottom to top (`_NET_CLIENT_LIST_STACKING`).
    ///
    /// # Errors
    /// [`CaptureError::NoWindowManager`] without an EWMH window manager; `Backend` on X errors.
    pub fn stacking(&self) -> Result<Vec<u32>, CaptureError> {
        self.prop32(self.root, self.net_client_list_stacking)?
            .ok_or(CaptureError::NoWindowManager)
    }

    /// Title, class, rectangle and map state of one window; `Ok(None)` when it no longer exists.
    ///
    /// # Errors
    /// `Backend` on X errors other than a missing window.
    pub fn describe(&self, id: u32) -> Result<Option<WindowInfo>, CaptureError> {
        let Some(rect) = self.rect(id)? else {
            return Ok(None);
        };
        let mut title = self
            .prop_string(id, self.net_wm_name, self.utf8_string)
            .unwrap_or_default();
        if title.is_empty() {
            title = self
                .prop_string(id, AtomEnum::WM_NAME.into(), AtomEnum::ANY.into())
                .unwrap_or_default();
        }
        let class = self
            .prop_string(id, AtomEnum::WM_CLASS.into(), AtomEnum::STRING.into())
            .unwrap_or_default();
        let mut parts = class
            .split(|&b| b == 0)
            .map(|s| String::from_utf8_lossy(s).into_owned());
        let instance = parts.next().unwrap_or_default();
        let class = parts.next().unwrap_or_default();
        let viewable = match self
            .conn
            .get_window_attributes(id)
            .map_err(backend_error)?
            .reply()
        {
            Ok(a) => a.map_state == MapState::VIEWABLE,
            Err(_) => return Ok(None),
        };
        Ok(Some(WindowInfo {
            id,
            title: String::from_utf8_lossy(&title).into_owned(),
            class,
            instance,
            rect,
            viewable,
        }))
    }

    /// The window's rectangle on the root window; `Ok(None)` when the window no longer exists.
    ///
    /// # Errors
    /// `Backend` when the connection fails.
    pub fn rect(&self, id: u32) -> Result<Option<Rect>, CaptureError> {
        let geo = match self.conn.get_geometry(id).map_err(backend_error)?.reply() {
            Ok(g) => g,
            Err(x11rb::errors::ReplyError::X11Error(_)) => return Ok(None),
            Err(e) => return Err(backend_error(e)),
        };
        let tr = match self
            .conn
            .translate_coordinates(id, self.root, 0, 0)
            .map_err(backend_error)?
            .reply()
        {
            Ok(t) => t,
            Err(x11rb::errors::ReplyError::X11Error(_)) => return Ok(None),
            Err(e) => return Err(backend_error(e)),
        };
        Ok(Some(Rect {
            x: i32::from(tr.dst_x),
            y: i32::from(tr.dst_y),
            width: u32::from(geo.width),
            height: u32::from(geo.height),
        }))
    }

    /// True when the window manager marks the window hidden (minimised).
    ///
    /// # Errors
    /// `Backend` on X errors.
    pub fn is_hidden(&self, id: u32) -> Result<bool, CaptureError> {
        Ok(self
            .prop32(id, self.net_wm_state)?
            .is_some_and(|v| v.contains(&self.net_wm_state_hidden)))
    }

    /// All client windows, bottom to top, described.
    ///
    /// # Errors
    /// As [`X11::stacking`].
    pub fn clients(&self) -> Result<Vec<WindowInfo>, CaptureError> {
        let mut out = Vec::new();
        for id in self.stacking()? {
            if let Some(w) = self.describe(id)? {
                out.push(w);
            }
        }
        Ok(out)
    }

    /// Viewable client windows stacked above `id` whose rectangle meets `area` (root pixels).
    /// `Err(WindowGone)` when `id` is no longer listed.
    ///
    /// # Errors
    /// [`CaptureError::WindowGone`], or as [`X11::stacking`].
    pub fn windows_above(&self, id: u32, area: Rect) -> Result<Vec<WindowInfo>, CaptureError> {
        let stack = self.stacking()?;
        let pos = stack
            .iter()
            .position(|&w| w == id)
            .ok_or(CaptureError::WindowGone)?;
        let mut out = Vec::new();
        for &w in &stack[pos + 1..] {
            if let Some(d) = self.describe(w)? {
                if d.viewable && d.rect.intersects(&area) {
                    out.push(d);
                }
            }
        }
        Ok(out)
    }

    /// `_NET_ACTIVE_WINDOW`: the window manager's active window, if any.
    ///
    /// # Errors
    /// `Backend` on X errors.
    pub fn active_window(&self) -> Result<Option<u32>, CaptureError> {
        Ok(self
            .prop32(self.root, self.net_active_window)?
            .and_then(|v| v.first().copied())
            .filter(|&w| w != 0))
    }

    /// The X input focus (the window XTEST keys go to); `None` for PointerRoot or None.
    ///
    /// # Errors
    /// `Backend` on X errors.
    pub fn input_focus(&self) -> Result<Option<u32>, CaptureError> {
        let f = self
            .conn
            .get_input_focus()
            .map_err(backend_error)?
            .reply()
            .map_err(backend_error)?
            .focus;
        Ok((f > 1).then_some(f))
    }

    /// True when `inner` is `outer` or one of its descendants.
    ///
    /// # Errors
    /// `Backend` on X errors.
    pub fn is_inside(&self, inner: u32, outer: u32) -> Result<bool, CaptureError> {
        let mut w = inner;
        for _ in 0..64 {
            if w == outer {
                return Ok(true);
            }
            if w == self.root || w == 0 {
                return Ok(false);
            }
            match self.conn.query_tree(w).map_err(backend_error)?.reply() {
                Ok(t) => w = t.parent,
                Err(_) => return Ok(false),
            }
        }
        Ok(false)
    }

    /// The X input focus and `_NET_ACTIVE_WINDOW`, read one right after the other: what a focus
    /// check decides on, and what the message of a failed check reports.
    ///
    /// # Errors
    /// `Backend` on X errors.
    pub fn keyboard_focus(&self) -> Result<KeyboardFocus, CaptureError> {
        Ok(KeyboardFocus {
            input: self.input_focus()?,
            active: self.active_window()?,
        })
    }

    /// True when keys sent while the focus is `focus` reach `id` through XTEST: the X input
    /// focus is `id` or inside it, and (when a window manager keeps `_NET_ACTIVE_WINDOW`) the
    /// active window is `id`.
    ///
    /// # Errors
    /// `Backend` on X errors.
    pub fn focus_reaches(&self, focus: &KeyboardFocus, id: u32) -> Result<bool, CaptureError> {
        let Some(input) = focus.input else {
            return Ok(false);
        };
        if !self.is_inside(input, id)? {
            return Ok(false);
        }
        Ok(focus.active.is_none_or(|active| active == id))
    }

    /// True when keys sent now through XTEST reach `id` (see [`X11::focus_reaches`]).
    ///
    /// # Errors
    /// `Backend` on X errors.
    pub fn has_keyboard_focus(&self, id: u32) -> Result<bool, CaptureError> {
        let focus = self.keyboard_focus()?;
        self.focus_reaches(&focus, id)
    }

    /// Asks the window manager to activate (raise and focus) `id`: a `_NET_ACTIVE_WINDOW` client
    /// message with source indication 2 (pager), as `xdotool windowactivate` sends.
    ///
    /// # Errors
    /// `Backend` on X errors.
    pub fn activate(&self, id: u32) -> Result<(), CaptureError> {
        let ev = ClientMessageEvent::new(32, id, self.net_active_window, [2u32, 0, 0, 0, 0]);
        self.conn
            .send_event(
                false,
                self.root,
                EventMask::SUBSTRUCTURE_REDIRECT | EventMask::SUBSTRUCTURE_NOTIFY,
                ev,
            )
            .map_err(backend_error)?;
        self.conn.flush().map_err(backend_error)?;
        Ok(())
    }

    /// Sets the X input focus to `id` directly (revert to the parent), for a window the window
    /// manager did not focus on request; a window manager that keeps `_NET_ACTIVE_WINDOW` follows
    /// the focus change.
    ///
    /// # Errors
    /// `Backend` on X errors.
    pub fn set_input_focus(&self, id: u32) -> Result<(), CaptureError> {
        self.conn
            .set_input_focus(InputFocus::PARENT, id, x11rb::CURRENT_TIME)
            .map_err(backend_error)?;
        self.conn.flush().map_err(backend_error)?;
        Ok(())
    }

    /// The pointer position on the root window, pixels.
    ///
    /// # Errors
    /// `Backend` on X errors.
    pub fn pointer(&self) -> Result<(i32, i32), CaptureError> {
        let p = self
            .conn
            .query_pointer(self.root)
            .map_err(backend_error)?
            .reply()
            .map_err(backend_error)?;
        Ok((i32::from(p.root_x), i32::from(p.root_y)))
    }
}
