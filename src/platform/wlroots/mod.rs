//! The wlroots platform: native Wayland windows on wlroots compositors (sway, Hyprland, river,
//! labwc, Wayfire), over one wayland-client connection; and their XWayland windows through the
//! X11 route when `DISPLAY` is set and XWayland lets the bot in (else through these protocols
//! too, as the compositor lists them alike).
//!
//! - [`xwayland`]: which toplevel is an XWayland window that the X11 route also lists (same
//!   title, app id = `WM_CLASS` class): `windows` lists it once, through X11 (its own pixels and
//!   size, XTEST keys after the X focus check), and `play` opens it through X11. The focus check
//!   is then the X11 one: while a native window has the compositor's focus, XWayland's input
//!   focus is on no X11 window (sway 1.7: PointerRoot, `_NET_ACTIVE_WINDOW` 0), so no key goes
//!   out and the bot stops. Giving the focus at the start goes through the toplevel
//!   (`activate`), since sway only marks an X11 window urgent on its `_NET_ACTIVE_WINDOW`
//!   request.
//! - [`client`]: the connection, its globals, outputs and toplevels
//!   (`zwlr_foreign_toplevel_manager_v1`: title, app id, `activated`, `minimized`, `closed`, the
//!   outputs a window is on).
//! - [`screencopy`]: frames through `zwlr_screencopy_manager_v1`: **the whole output** the game
//!   is on (wlroots 0.15 has no per-window capture, and the toplevel protocol gives no window
//!   rectangle); the vision stage finds the board anywhere in the frame. So a frame shows what
//!   is on top: another window over the board is in the frame. Once the board is known
//!   ([`GameWindow::set_watch`]), a frame copies only the board and a margin
//!   (`capture_output_region`) and lays it over the last whole-output capture, taken again every
//!   2 s (`FULL_EVERY`).
//! - [`keyboard`]: keys through `zwp_virtual_keyboard_v1`, with a fixed XKB keymap.
//!
//! [`WlrDesktop`] is the [`Desktop`]; [`WlrGame`] the [`GameWindow`]. The promise is the X11
//! one, kept through the toplevel's state: a key goes out only while the game's toplevel is
//! `activated` in its latest state (checked after a roundtrip, right before the key); while a
//! window opened for play is not activated, its frames are refused as covered (what is on the
//! output then may be another window); a `closed` handle is the window-gone error, for frames
//! and keys. What the protocols do not give: a window rectangle (a window's rectangle here is its
//! output's), the stacking order (a window "above" the game is another toplevel that has the
//! focus on the same output), the pointer (no mouse failsafe and no `--focus click`: stop the
//! bot by giving another window the focus, or with Ctrl-C), and `--region`.
use super::{Desktop, DialogKey, GameWindow, ListedWindow, PlatformError, Session, WindowInfo};
use crate::capture::{CaptureError, Frame, FrameSource, Rect};
use crate::engine::Move;
use crate::input::{FocusMode, InputError, KeySink};
use std::cell::RefCell;
use std::time::{Duration, Instant};

pub mod client;
pub mod keyboard;
pub mod screencopy;
pub mod xwayland;

pub use client::{Client, Toplevel, WlError};
use keyboard::{Evdev, VirtualKeyboard};
use screencopy::Screencopy;

/// How long to wait for the game's toplevel to become activated after asking for it.
const FOCUS_WAIT: Duration = Duration::from_millis(500);

/// How long a focus check that may not give the focus waits for it to come back by itself (a
/// dialog of the game that just closed), as on X11.
const FOCUS_SETTLE: Duration = Duration::from_millis(1000);

/// How long to keep asking for a game dialog's focus.
const DIALOG_FOCUS_WAIT: Duration = Duration::from_millis(2000);

/// How often the activation request is sent again while the window is not activated.
const REACTIVATE_EVERY: Duration = Duration::from_millis(200);

/// How often the toplevel state is read while waiting for the focus.
const POLL: Duration = Duration::from_millis(10);

fn capture_err(e: WlError) -> CaptureError {
    CaptureError::Backend(e.to_string())
}

fn input_err(e: WlError) -> InputError {
    InputError::Backend(e.to_string())
}

/// The rectangle of output `o` in the compositor's layout.
fn output_rect(o: &client::Output) -> Rect {
    Rect {
        x: o.x,
        y: o.y,
        width: o.width.max(0) as u32,
        height: o.height.max(0) as u32,
    }
}

/// The [`WindowInfo`] of toplevel `id`: its output's rectangle (the first output it is on), `id`
/// the handle's protocol id (valid on this connection only), app id as the class.
fn info_of(c: &Client, id: u32, t: &Toplevel) -> WindowInfo {
    let output = t.outputs.first().and_then(|o| c.output(*o));
    WindowInfo {
        id,
        title: t.title.clone(),
        class: t.app_id.clone(),
        instance: String::new(),
        rect: output.map(output_rect).unwrap_or(Rect {
            x: 0,
            y: 0,
            width: 0,
            height: 0,
        }),
        viewable: output.is_some() && !t.minimized && !t.closed,
    }
}

/// Other toplevels of `c` that have the focus on an output `game` is on: what may be over it.
fn focused_others(c: &Client, id: u32, game: &Toplevel) -> Vec<WindowInfo> {
    c.toplevels()
        .into_iter()
        .filter(|(oid, t)| {
            *oid != id
                && t.activated
                && !t.closed
                && t.outputs.iter().any(|o| game.outputs.contains(o))
        })
        .map(|(oid, t)| info_of(c, oid, &t))
        .collect()
}

/// The first output toplevel `t` is on.
fn output_of(c: &Client, t: &Toplevel) -> Result<client::Output, CaptureError> {
    t.outputs
        .first()
        .and_then(|o| c.output(*o))
        .cloned()
        .ok_or_else(|| CaptureError::Occluded("the game window is on no output".into()))
}

/// Captures the first output toplevel `t` is on.
fn capture_of(c: &mut Client, copy: &mut Screencopy, t: &Toplevel) -> Result<Frame, CaptureError> {
    let output = output_of(c, t)?;
    let image = copy.capture(c, &output.proxy, None).map_err(capture_err)?;
    Ok(Frame {
        image,
        origin: (output.x, output.y),
        taken_at: Instant::now(),
    })
}

/// Pixels around the watched area that are captured with it, so that a board found a few pixels
/// off still lies inside.
const WATCH_MARGIN: i32 = 24;

/// How long a whole-output capture is reused around a fresh capture of the watched area.
const FULL_EVERY: Duration = Duration::from_millis(2000);

/// `area` grown by [`WATCH_MARGIN`] and clipped to a `width` x `height` output; `None` when
/// nothing is left.
fn grown_within(area: Rect, width: u32, height: u32) -> Option<Rect> {
    let x0 = (area.x - WATCH_MARGIN).max(0);
    let y0 = (area.y - WATCH_MARGIN).max(0);
    let x1 = (area.x + area.width as i32 + WATCH_MARGIN).min(width as i32);
    let y1 = (area.y + area.height as i32 + WATCH_MARGIN).min(height as i32);
    (x1 > x0 && y1 > y0).then(|| Rect {
        x: x0,
        y: y0,
        width: (x1 - x0) as u32,
        height: (y1 - y0) as u32,
    })
}

/// The desktop of a wlroots compositor, with its XWayland when the bot may use it.
#[derive(Debug)]
pub struct WlrDesktop {
    session: Session,
    /// XWayland, when `DISPLAY` is set and its X server let the bot in: its X11 windows are then
    /// listed and played through the X11 route ([`xwayland`]).
    xwayland: XWayland,
}

/// Whether the X11 windows of a wlroots session go through the X11 route.
#[derive(Clone, Debug, PartialEq, Eq)]
enum XWayland {
    /// `DISPLAY` is not set: every window goes through the wlroots protocols.
    Unset,
    /// The X server on this display answered: X11 windows go through the X11 route.
    Reached(String),
    /// `DISPLAY` is set but the X server did not let the bot in (XWayland lets only the
    /// compositor's user in, unless granted, e.g. `xhost +si:localuser:root`): X11 windows go
    /// through the wlroots protocols. The display, and the error.
    Refused(String, String),
}

impl WlrDesktop {
    /// The desktop of `session`, once a connection to its compositor has found the
    /// foreign-toplevel manager, `wl_shm` and a seat.
    ///
    /// With `DISPLAY` set, one X connection also tells whether XWayland lets the bot in.
    ///
    /// # Errors
    /// [`WlError`] when the compositor cannot be reached or lacks them.
    pub fn probe(session: Session) -> Result<WlrDesktop, WlError> {
        Client::connect()?;
        let xwayland = match &session.display {
            None => XWayland::Unset,
            Some(d) => match super::x11::X11::connect() {
                Ok(_) => XWayland::Reached(d.clone()),
                Err(e) => {
                    tracing::debug!(display = %d, error = %e, "XWayland did not let the bot in");
                    XWayland::Refused(d.clone(), e.to_string())
                }
            },
        };
        Ok(WlrDesktop { session, xwayland })
    }

    /// The X11 windows of XWayland, bottom to top ([`super::x11::X11::clients`]); empty when
    /// XWayland is not [`XWayland::Reached`].
    fn x11_clients(&self) -> Vec<WindowInfo> {
        self.x11_or_none(|| super::x11::X11::connect()?.clients())
    }

    /// As [`WlrDesktop::x11_clients`], each captured ([`super::x11::window::list_windows`]).
    fn x11_listed(&self) -> Vec<ListedWindow> {
        self.x11_or_none(super::x11::window::list_windows)
    }

    /// `list()` when XWayland is [`XWayland::Reached`], else nothing. A failure is logged and
    /// taken as no X11 window (the wlroots list then holds them).
    fn x11_or_none<T>(&self, list: impl FnOnce() -> Result<Vec<T>, CaptureError>) -> Vec<T> {
        if !matches!(self.xwayland, XWayland::Reached(_)) {
            return Vec::new();
        }
        match list() {
            Ok(l) => l,
            // sway's X window manager sets _NET_CLIENT_LIST_STACKING with its first X11 window
            Err(CaptureError::NoWindowManager) => Vec::new(),
            Err(e) => {
                tracing::debug!(error = %e, "no X11 windows from XWayland");
                Vec::new()
            }
        }
    }

    fn connect() -> Result<Client, PlatformError> {
        Client::connect().map_err(|e| PlatformError::NoDesktop(e.to_string()))
    }

    /// Finds `wanted` among the native toplevels of a new connection and the X11 windows of
    /// XWayland (each window once, see [`xwayland`]); an X11 window is opened through the X11
    /// route. With keys and a focus mode that may give the focus (`start`, `activate`), an X11
    /// game that does not have it is first activated through its toplevel: sway does not focus
    /// an X11 window on its own `_NET_ACTIVE_WINDOW` request (`focus_on_window_activation`
    /// defaults to `urgent`).
    fn find_in(
        &self,
        wanted: &str,
        keys: Option<FocusMode>,
    ) -> Result<Box<dyn GameWindow>, PlatformError> {
        let mut c = Self::connect()?;
        let toplevels: Vec<WindowInfo> = c
            .toplevels()
            .into_iter()
            .filter(|(_, t)| !t.closed)
            .map(|(id, t)| info_of(&c, id, &t))
            .collect();
        let x11 = self.x11_clients();
        let twins = xwayland::xwayland_twins(&toplevels, &x11);
        // natives first, then the X11 windows: among equal matches the X11 one wins
        let mut listed: Vec<WindowInfo> = toplevels
            .iter()
            .zip(&twins)
            .filter(|(_, t)| t.is_none())
            .map(|(w, _)| w.clone())
            .collect();
        let natives = listed.len();
        listed.extend(x11.iter().cloned());
        let i = super::x11::window::pick_index(&listed, wanted).ok_or_else(|| {
            CaptureError::WindowNotFound {
                wanted: wanted.to_string(),
                seen: listed.iter().map(|w| w.title.clone()).collect(),
            }
        })?;
        if i >= natives {
            let xi = i - natives;
            if matches!(keys, Some(FocusMode::Start | FocusMode::Activate)) {
                if let Some(t) = twins.iter().position(|t| *t == Some(xi)) {
                    let id = toplevels[t].id;
                    let g = WlrGame::new(c, toplevels[t].clone(), None);
                    // best effort: the X11 focus check decides before every key
                    match g.wait_activated(id, FOCUS_WAIT, true) {
                        Ok(Wait::Arrived) => {}
                        Ok(_) => tracing::debug!("the X11 game's toplevel was not activated"),
                        Err(e) => tracing::debug!(error = %e, "activating the X11 game"),
                    }
                }
            }
            return Ok(Box::new(super::x11::X11Desktop::open_info(
                x11[xi].clone(),
                keys,
            )?));
        }
        let info = listed.swap_remove(i);
        let keyboard = match keys {
            Some(_) => Some(
                VirtualKeyboard::new(&mut c)
                    .map_err(|e| PlatformError::Keys(InputError::Connect(e.to_string())))?,
            ),
            None => None,
        };
        let mut g = WlrGame::new(c, info, keys);
        g.keyboard = keyboard;
        Ok(Box::new(g))
    }
}

impl Desktop for WlrDesktop {
    fn describe(&self) -> String {
        let native = format!(
            "a Wayland session ({}), native windows through the wlroots protocols on {}",
            self.session.desktop,
            self.session.wayland_display.as_deref().unwrap_or("?")
        );
        match &self.xwayland {
            XWayland::Unset => native,
            XWayland::Reached(d) => format!("{native}, X11 windows through XWayland on {d}"),
            XWayland::Refused(d, why) => {
                format!("{native} (X11 windows too: XWayland on {d} did not let the bot in: {why})")
            }
        }
    }

    fn windows(&self) -> Result<Vec<ListedWindow>, PlatformError> {
        let mut c = Self::connect()?;
        let mut copy = Screencopy::default();
        let mut frames: Vec<(u32, Result<Frame, String>)> = Vec::new();
        let mut out = Vec::new();
        let x11_listed = self.x11_listed();
        let x11: Vec<WindowInfo> = x11_listed.iter().map(|w| w.info.clone()).collect();
        let toplevels: Vec<(u32, Toplevel)> = c
            .toplevels()
            .into_iter()
            .filter(|(_, t)| !t.closed)
            .collect();
        let infos: Vec<WindowInfo> = toplevels
            .iter()
            .map(|(id, t)| info_of(&c, *id, t))
            .collect();
        let twins = xwayland::xwayland_twins(&infos, &x11);
        for (((_, t), info), twin) in toplevels.into_iter().zip(infos).zip(twins) {
            if twin.is_some() {
                // listed by the X11 route below
                continue;
            }
            // the stacking order is not known here (see the module doc)
            let covered_by = Vec::new();
            let frame = match (info.viewable, t.outputs.first()) {
                (true, Some(&o)) => {
                    // one capture per output, shared by the windows on it
                    if !frames.iter().any(|(k, _)| *k == o) {
                        let f = capture_of(&mut c, &mut copy, &t).map_err(|e| e.to_string());
                        frames.push((o, f));
                    }
                    match frames.iter().find(|(k, _)| *k == o).map(|(_, f)| f) {
                        Some(Ok(f)) => Ok(Frame {
                            image: f.image.clone(),
                            origin: f.origin,
                            taken_at: f.taken_at,
                        }),
                        Some(Err(e)) => Err(CaptureError::Backend(e.clone())),
                        None => Err(CaptureError::WindowGone),
                    }
                }
                _ => Err(CaptureError::Minimized),
            };
            out.push(ListedWindow {
                info,
                minimised: t.minimized,
                covered_by,
                frame,
            });
        }
        out.extend(x11_listed);
        Ok(out)
    }

    fn find(&self, wanted: &str) -> Result<Box<dyn GameWindow>, PlatformError> {
        self.find_in(wanted, None)
    }

    fn open(&self, wanted: &str, focus: FocusMode) -> Result<Box<dyn GameWindow>, PlatformError> {
        self.find_in(wanted, Some(focus))
    }

    fn region(&self, _area: Rect) -> Result<Box<dyn FrameSource>, PlatformError> {
        Err(PlatformError::Unsupported {
            what: "--region".into(),
            session: self.describe(),
            why: "not built for wlroots compositors; pass the game's window with --window (its \
                  frames are the whole output it is on)"
                .into(),
        })
    }

    fn hint(&self) -> Option<String> {
        None
    }
}

/// The connection and the capture buffer, behind a `RefCell`: reading the latest toplevel state
/// dispatches events, which the `&self` checks of [`GameWindow`] need too.
#[derive(Debug)]
struct Inner {
    client: Client,
    copy: Screencopy,
    /// The last whole-output capture and when it was taken: the frame around the watched area.
    base: Option<(image::RgbaImage, Instant)>,
}

/// One game window on a wlroots compositor (see the module doc).
#[derive(Debug)]
pub struct WlrGame {
    inner: RefCell<Inner>,
    /// The virtual keyboard, for a window opened with keys.
    keyboard: Option<VirtualKeyboard>,
    /// The focus mode, for a window opened with keys.
    mode: Option<FocusMode>,
    /// The game had the focus once (`--focus start` activates only before that).
    started: bool,
    info: WindowInfo,
    /// The board, in output pixels ([`GameWindow::set_watch`]): frames then copy only this
    /// area (and a margin) and lay it over the last whole-output capture, taken again every
    /// [`FULL_EVERY`].
    watch: Option<Rect>,
}

/// What waiting for a toplevel's focus came to.
enum Wait {
    Arrived,
    Gone,
    /// Not activated in time; who has the focus instead.
    Missed(String),
}

impl WlrGame {
    /// Toplevel `info` on connection `c`, without a keyboard; `mode` is the focus mode of a
    /// window opened for play (its keyboard is set by the caller), `None` for frames only.
    fn new(c: Client, info: WindowInfo, mode: Option<FocusMode>) -> WlrGame {
        WlrGame {
            inner: RefCell::new(Inner {
                client: c,
                copy: Screencopy::default(),
                base: None,
            }),
            watch: None,
            keyboard: None,
            mode,
            started: false,
            info,
        }
    }

    /// The game's latest state, after a roundtrip.
    fn fresh(&self) -> Result<Toplevel, WlError> {
        let mut inner = self.inner.borrow_mut();
        inner.client.sync()?;
        Ok(inner
            .client
            .toplevel(self.info.id)
            .cloned()
            .unwrap_or(Toplevel {
                closed: true,
                ..Toplevel::default()
            }))
    }

    /// Who has the focus instead of toplevel `id`, in words.
    fn focus_elsewhere(&self, id: u32) -> String {
        let inner = self.inner.borrow();
        let c = &inner.client;
        let others: Vec<String> = c
            .toplevels()
            .into_iter()
            .filter(|(oid, t)| *oid != id && t.activated && !t.closed)
            .map(|(_, t)| format!("window `{}` ({})", t.title, t.app_id))
            .collect();
        if others.is_empty() {
            "no window".into()
        } else {
            others.join(", ")
        }
    }

    /// Waits for toplevel `id` to be activated, for up to `within` (one check when zero),
    /// sending the activation request every [`REACTIVATE_EVERY`] when `ask`.
    fn wait_activated(&self, id: u32, within: Duration, ask: bool) -> Result<Wait, InputError> {
        let end = Instant::now() + within;
        let mut last_request: Option<Instant> = None;
        loop {
            let t = {
                let mut inner = self.inner.borrow_mut();
                inner.client.sync().map_err(input_err)?;
                inner.client.toplevel(id).cloned()
            };
            match t {
                None => return Ok(Wait::Gone),
                Some(t) if t.closed => return Ok(Wait::Gone),
                Some(t) if t.activated => return Ok(Wait::Arrived),
                Some(_) => {}
            }
            if Instant::now() >= end {
                return Ok(Wait::Missed(self.focus_elsewhere(id)));
            }
            if ask && last_request.is_none_or(|t| t.elapsed() >= REACTIVATE_EVERY) {
                self.activate_id(id).map_err(input_err)?;
                last_request = Some(Instant::now());
            }
            std::thread::sleep(POLL);
        }
    }

    /// Sends `activate(seat)` for toplevel `id`.
    fn activate_id(&self, id: u32) -> Result<(), WlError> {
        let inner = self.inner.borrow();
        let c = &inner.client;
        if let Some(h) = c.handle(id) {
            h.activate(&c.seat);
        }
        c.flush()
    }

    /// Presses `key` with the virtual keyboard.
    fn tap(&mut self, key: Evdev) -> Result<(), InputError> {
        let kb = self.keyboard.as_mut().ok_or(InputError::Disabled)?;
        let mut inner = self.inner.borrow_mut();
        kb.tap(&mut inner.client, key).map_err(input_err)
    }
}

impl FrameSource for WlrGame {
    fn next_frame(&mut self) -> Result<Frame, CaptureError> {
        let t = self.fresh().map_err(capture_err)?;
        if t.closed {
            return Err(CaptureError::WindowGone);
        }
        if t.minimized {
            return Err(CaptureError::Minimized);
        }
        if self.mode.is_some() && !t.activated {
            return Err(CaptureError::Occluded(format!(
                "the game does not have the focus ({} has it); the frame would show the output, \
                 not the game",
                self.focus_elsewhere(self.info.id)
            )));
        }
        let mut inner = self.inner.borrow_mut();
        let Inner { client, copy, base } = &mut *inner;
        let output = output_of(client, &t)?;
        let region = self.watch.and_then(|w| {
            let (img, at) = base.as_ref()?;
            let fits = img.width() == output.width as u32 && img.height() == output.height as u32;
            (fits && at.elapsed() < FULL_EVERY)
                .then(|| grown_within(w, img.width(), img.height()))
                .flatten()
        });
        if let (Some(r), Some((img, _))) = (region, base.as_ref()) {
            let part = copy
                .capture(client, &output.proxy, Some(r))
                .map_err(capture_err)?;
            // a scaled output gives the region at another size: use whole frames there
            if part.width() == r.width && part.height() == r.height {
                let mut image = img.clone();
                image::imageops::replace(&mut image, &part, r.x as i64, r.y as i64);
                return Ok(Frame {
                    image,
                    origin: (output.x, output.y),
                    taken_at: Instant::now(),
                });
            }
        }
        let frame = capture_of(client, copy, &t)?;
        *base = Some((frame.image.clone(), frame.taken_at));
        Ok(frame)
    }
}

impl KeySink for WlrGame {
    fn press(&mut self, m: Move) -> Result<(), InputError> {
        if self.keyboard.is_none() {
            return Err(InputError::Disabled);
        }
        self.ensure_focus()?;
        self.tap(Evdev::arrow(m))
    }
}

impl GameWindow for WlrGame {
    fn info(&self) -> &WindowInfo {
        &self.info
    }

    fn rect(&self) -> Result<Rect, CaptureError> {
        let t = self.fresh().map_err(capture_err)?;
        if t.closed {
            return Err(CaptureError::WindowGone);
        }
        let inner = self.inner.borrow();
        Ok(info_of(&inner.client, self.info.id, &t).rect)
    }

    fn set_watch(&mut self, area: Option<Rect>) {
        // covers are told by the focus (see the module doc); the area only makes frames cheaper
        self.watch = area;
    }

    fn windows_above(&self) -> Result<Vec<WindowInfo>, CaptureError> {
        let t = self.fresh().map_err(capture_err)?;
        if t.closed {
            return Err(CaptureError::WindowGone);
        }
        if t.activated {
            return Ok(Vec::new());
        }
        let inner = self.inner.borrow();
        Ok(focused_others(&inner.client, self.info.id, &t))
    }

    fn snapshot(&mut self) -> Result<(Frame, Vec<WindowInfo>), CaptureError> {
        let t = self.fresh().map_err(capture_err)?;
        if t.closed {
            return Err(CaptureError::WindowGone);
        }
        if t.minimized {
            return Err(CaptureError::Minimized);
        }
        // no stacking order: nothing is reported above (a window over the board is in the
        // frame, since the frame is the output)
        let mut inner = self.inner.borrow_mut();
        let Inner { client, copy, .. } = &mut *inner;
        Ok((capture_of(client, copy, &t)?, Vec::new()))
    }

    fn activate(&self) -> Result<(), CaptureError> {
        self.activate_id(self.info.id).map_err(capture_err)
    }

    fn ensure_focus(&mut self) -> Result<(), InputError> {
        let mode = self.mode.ok_or(InputError::Disabled)?;
        let wait = match mode {
            FocusMode::Activate => self.wait_activated(self.info.id, FOCUS_WAIT, true)?,
            FocusMode::Start if !self.started => {
                self.wait_activated(self.info.id, FOCUS_WAIT, true)?
            }
            // no pointer on this platform: --focus click gives no focus
            FocusMode::Click => self.wait_activated(self.info.id, Duration::ZERO, false)?,
            FocusMode::Start | FocusMode::Never => {
                self.wait_activated(self.info.id, FOCUS_SETTLE, false)?
            }
        };
        match wait {
            Wait::Arrived => {
                self.started = true;
                Ok(())
            }
            Wait::Gone => Err(InputError::WindowGone),
            Wait::Missed(focus) => Err(InputError::NotFocused {
                window: "the game window".into(),
                focus,
            }),
        }
    }

    fn key_to_dialog(&mut self, dialog: u32, key: DialogKey) -> Result<(), InputError> {
        if self.keyboard.is_none() {
            return Err(InputError::Disabled);
        }
        let key = match key {
            DialogKey::Escape => Evdev::ESCAPE,
            DialogKey::Return => Evdev::RETURN,
            DialogKey::Letter(c) => Evdev::letter(c).ok_or_else(|| {
                InputError::Unsupported(format!("no key for `{c}` in the bot's keymap"))
            })?,
        };
        match self.wait_activated(dialog, DIALOG_FOCUS_WAIT, true)? {
            Wait::Arrived => self.tap(key),
            Wait::Gone => Err(InputError::NotFocused {
                window: format!("the game's dialog {dialog}"),
                focus: "nothing: the dialog closed".into(),
            }),
            Wait::Missed(focus) => Err(InputError::NotFocused {
                window: format!("the game's dialog {dialog}"),
                focus,
            }),
        }
    }

    fn click(&mut self, _p: (i32, i32)) -> Result<(), InputError> {
        Err(InputError::Unsupported(
            "clicks are not built for wlroots compositors (the bot has no pointer there)".into(),
        ))
    }

    fn set_click_point(&mut self, _p: Option<(i32, i32)>) {}

    fn set_failsafe(&mut self, _on: bool) {
        // the wlroots protocols give a client no pointer position: there is no mouse failsafe
        // here (the focus check stops the bot when the user focuses another window)
    }
}
