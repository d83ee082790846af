//! [`Client`]: the one wayland-client connection of the wlroots platform, its globals, and what
//! the compositor told it about outputs and toplevels.
//!
//! Globals bound (the version range in parentheses): `wl_shm` (v1), `wl_seat` (v1..=7), every
//! `wl_output` (v1..=4), `zwlr_foreign_toplevel_manager_v1` (v1..=3) (required),
//! `zwlr_screencopy_manager_v1` (v1..=3) and `zwp_virtual_keyboard_manager_v1` (v1) (optional here:
//! their absence is an error only when a frame or a key is asked for).
//!
//! Toplevel state follows the protocol's `done` event: `title`, `app_id`, `state`,
//! `output_enter`/`output_leave` and `parent` are pending until `done`, and only then become the
//! toplevel's latest state ([`Toplevel`]). `closed` applies at once.
use std::collections::HashMap;
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};
use wayland_client::globals::{registry_queue_init, GlobalListContents};
use wayland_client::protocol::{wl_buffer, wl_output, wl_registry, wl_seat, wl_shm, wl_shm_pool};
use wayland_client::{
    event_created_child, Connection, Dispatch, EventQueue, Proxy, QueueHandle, WEnum,
};
use wayland_protocols_misc::zwp_virtual_keyboard_v1::client::{
    zwp_virtual_keyboard_manager_v1::ZwpVirtualKeyboardManagerV1,
    zwp_virtual_keyboard_v1::ZwpVirtualKeyboardV1,
};
use wayland_protocols_wlr::foreign_toplevel::v1::client::{
    zwlr_foreign_toplevel_handle_v1::{self as handle, ZwlrForeignToplevelHandleV1},
    zwlr_foreign_toplevel_manager_v1::{self as manager, ZwlrForeignToplevelManagerV1},
};
use wayland_protocols_wlr::screencopy::v1::client::{
    zwlr_screencopy_frame_v1::{self as frame, ZwlrScreencopyFrameV1},
    zwlr_screencopy_manager_v1::ZwlrScreencopyManagerV1,
};

/// Why the wlroots platform failed at the protocol level.
#[derive(Debug, thiserror::Error)]
pub enum WlError {
    /// No Wayland compositor could be reached (`WAYLAND_DISPLAY` unset or wrong).
    #[error("cannot connect to the Wayland compositor: {0}")]
    Connect(String),
    /// The compositor does not offer a protocol the bot needs (e.g. GNOME and KDE offer none of
    /// the wlroots ones).
    #[error("the compositor does not offer {0}")]
    MissingGlobal(&'static str),
    /// The connection failed while in use (compositor gone, protocol error).
    #[error("Wayland connection: {0}")]
    Protocol(String),
    /// The compositor did not answer in time.
    #[error("the compositor did not answer within {0:?}")]
    Timeout(Duration),
}

fn proto<E: std::fmt::Display>(e: E) -> WlError {
    WlError::Protocol(e.to_string())
}

/// One output (monitor), in the compositor's layout.
#[derive(Clone, Debug)]
pub struct Output {
    /// The bound `wl_output`.
    pub proxy: wl_output::WlOutput,
    /// Its name (`wl_output` v4 `name`, e.g. `HEADLESS-1`), or `output N` before v4.
    pub name: String,
    /// Position of its top-left corner in the layout (`geometry` x, y), pixels.
    pub x: i32,
    /// See `x`.
    pub y: i32,
    /// Size of its current mode (`mode` with the `current` flag), pixels.
    pub width: i32,
    /// See `width`.
    pub height: i32,
}

/// A toplevel's fields as of its latest `done` event.
#[derive(Clone, Debug, Default)]
pub struct Toplevel {
    /// Title (`title`), possibly empty.
    pub title: String,
    /// App id (`app_id`), possibly empty.
    pub app_id: String,
    /// `activated` is in its state: it has the seat's keyboard focus.
    pub activated: bool,
    /// `minimized` is in its state.
    pub minimized: bool,
    /// The outputs it is on (protocol ids of our `wl_output`s).
    pub outputs: Vec<u32>,
    /// Its parent toplevel's protocol id (a dialog's game window), `parent` event (v3).
    pub parent: Option<u32>,
    /// The compositor sent `done` at least once (the fields above are valid).
    pub ready: bool,
    /// `closed` arrived: the window is gone.
    pub closed: bool,
}

/// A toplevel handle with its pending and latest fields.
#[derive(Debug)]
struct Entry {
    proxy: ZwlrForeignToplevelHandleV1,
    pending: Toplevel,
    latest: Toplevel,
}

/// What one screencopy frame told us.
#[derive(Clone, Debug, Default)]
pub struct CopyState {
    /// `buffer` (shm): format, width, height, stride.
    pub shm: Option<(WEnum<wl_shm::Format>, u32, u32, u32)>,
    /// `buffer_done` (v3), or the `buffer` event on older versions.
    pub described: bool,
    /// `flags`: `y_invert`.
    pub y_invert: bool,
    /// `ready` arrived: the buffer holds the frame.
    pub ready: bool,
    /// `failed` arrived.
    pub failed: bool,
}

/// The dispatch state: globals' events land here.
#[derive(Debug, Default)]
pub struct State {
    outputs: Vec<Output>,
    toplevels: Vec<Entry>,
    /// Screencopy frames in flight, by protocol id.
    copies: HashMap<u32, CopyState>,
    /// `wl_shm` formats offered.
    pub shm_formats: Vec<u32>,
    /// The foreign-toplevel manager sent `finished`.
    finished: bool,
}

/// The connection, its queue, the globals and the state.
pub struct Client {
    conn: Connection,
    queue: EventQueue<State>,
    /// Handle for creating objects on the queue.
    pub qh: QueueHandle<State>,
    state: State,
    /// `wl_shm`.
    pub shm: wl_shm::WlShm,
    /// The first `wl_seat` (activation and the virtual keyboard).
    pub seat: wl_seat::WlSeat,
    /// `zwlr_screencopy_manager_v1`, when offered.
    pub screencopy: Option<ZwlrScreencopyManagerV1>,
    /// `zwp_virtual_keyboard_manager_v1`, when offered.
    pub keyboards: Option<ZwpVirtualKeyboardManagerV1>,
    _manager: ZwlrForeignToplevelManagerV1,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("outputs", &self.state.outputs.len())
            .field("toplevels", &self.state.toplevels.len())
            .finish()
    }
}

/// How long a wait for the compositor may take before [`WlError::Timeout`].
pub const ANSWER_WAIT: Duration = Duration::from_secs(5);

impl Client {
    /// Connects to `$WAYLAND_DISPLAY` (relative to `$XDG_RUNTIME_DIR`, or an absolute path), binds
    /// the globals and waits until every toplevel and output has been described (two roundtrips).
    ///
    /// # Errors
    /// [`WlError::Connect`]; [`WlError::MissingGlobal`] without `wl_shm`, a `wl_seat` or
    /// `zwlr_foreign_toplevel_manager_v1`; [`WlError::Protocol`].
    pub fn connect() -> Result<Client, WlError> {
        let conn = Connection::connect_to_env().map_err(|e| WlError::Connect(e.to_string()))?;
        let (globals, mut queue) = registry_queue_init::<State>(&conn).map_err(proto)?;
        let qh = queue.handle();
        let manager: ZwlrForeignToplevelManagerV1 = globals
            .bind(&qh, 1..=3, ())
            .map_err(|_| WlError::MissingGlobal("zwlr_foreign_toplevel_manager_v1"))?;
        let shm: wl_shm::WlShm = globals
            .bind(&qh, 1..=1, ())
            .map_err(|_| WlError::MissingGlobal("wl_shm"))?;
        let seat: wl_seat::WlSeat = globals
            .bind(&qh, 1..=7, ())
            .map_err(|_| WlError::MissingGlobal("wl_seat"))?;
        let screencopy = globals.bind(&qh, 1..=3, ()).ok();
        let keyboards = globals.bind(&qh, 1..=1, ()).ok();
        let registry = globals.registry().clone();
        let outputs: Vec<(u32, u32)> = globals.contents().with_list(|list| {
            list.iter()
                .filter(|g| g.interface == wl_output::WlOutput::interface().name)
                .map(|g| (g.name, g.version))
                .collect()
        });
        let mut state = State::default();
        for (n, (name, version)) in outputs.into_iter().enumerate() {
            let proxy: wl_output::WlOutput = registry.bind(name, version.min(4), &qh, ());
            state.outputs.push(Output {
                proxy,
                name: format!("output {}", n + 1),
                x: 0,
                y: 0,
                width: 0,
                height: 0,
            });
        }
        queue.roundtrip(&mut state).map_err(proto)?;
        queue.roundtrip(&mut state).map_err(proto)?;
        Ok(Client {
            conn,
            queue,
            qh,
            state,
            shm,
            seat,
            screencopy,
            keyboards,
            _manager: manager,
        })
    }

    /// Sends what is queued and handles every event the compositor has sent so far (one
    /// roundtrip: afterwards the state is at least as new as the compositor's at this call).
    ///
    /// # Errors
    /// [`WlError::Protocol`].
    pub fn sync(&mut self) -> Result<(), WlError> {
        self.queue.roundtrip(&mut self.state).map_err(proto)?;
        Ok(())
    }

    /// Sends what is queued.
    ///
    /// # Errors
    /// [`WlError::Protocol`].
    pub fn flush(&self) -> Result<(), WlError> {
        self.conn.flush().map_err(proto)
    }

    /// Dispatches events until `done(state)` is true, for up to `within`.
    ///
    /// # Errors
    /// [`WlError::Timeout`]; [`WlError::Protocol`].
    pub fn wait_until(
        &mut self,
        within: Duration,
        mut done: impl FnMut(&State) -> bool,
    ) -> Result<(), WlError> {
        let end = Instant::now() + within;
        loop {
            self.conn.flush().map_err(proto)?;
            self.queue
                .dispatch_pending(&mut self.state)
                .map_err(proto)?;
            if done(&self.state) {
                return Ok(());
            }
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(WlError::Timeout(within));
            }
            if let Some(guard) = self.queue.prepare_read() {
                let mut fds = libc::pollfd {
                    fd: guard.connection_fd().as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                };
                let ms = left.as_millis().clamp(1, i32::MAX as u128) as i32;
                // SAFETY: one valid pollfd, on the connection's open socket, for this call only
                let n = unsafe { libc::poll(&mut fds, 1, ms) };
                if n > 0 {
                    guard.read().map_err(proto)?;
                }
            }
        }
    }

    /// The outputs, in the order the registry listed them.
    pub fn outputs(&self) -> &[Output] {
        &self.state.outputs
    }

    /// The output with protocol id `id`.
    pub fn output(&self, id: u32) -> Option<&Output> {
        self.state
            .outputs
            .iter()
            .find(|o| o.proxy.id().protocol_id() == id)
    }

    /// Every toplevel described so far (closed ones included), as (protocol id, latest fields),
    /// in the order the compositor announced them.
    pub fn toplevels(&self) -> Vec<(u32, Toplevel)> {
        self.state
            .toplevels
            .iter()
            .filter(|e| e.latest.ready || e.latest.closed)
            .map(|e| (e.proxy.id().protocol_id(), e.latest.clone()))
            .collect()
    }

    /// The latest fields of toplevel `id`; `None` when it is unknown.
    pub fn toplevel(&self, id: u32) -> Option<&Toplevel> {
        self.state
            .toplevels
            .iter()
            .find(|e| e.proxy.id().protocol_id() == id)
            .map(|e| &e.latest)
    }

    /// The handle of toplevel `id`.
    pub fn handle(&self, id: u32) -> Option<&ZwlrForeignToplevelHandleV1> {
        self.state
            .toplevels
            .iter()
            .find(|e| e.proxy.id().protocol_id() == id)
            .map(|e| &e.proxy)
    }

    /// The foreign-toplevel manager stopped (the compositor will send no more toplevels).
    pub fn finished(&self) -> bool {
        self.state.finished
    }

    /// Starts tracking screencopy frame `f`.
    pub fn track_copy(&mut self, f: &ZwlrScreencopyFrameV1) {
        self.state
            .copies
            .insert(f.id().protocol_id(), CopyState::default());
    }

    /// What screencopy frame `f` has told so far.
    pub fn copy_state(&self, f: &ZwlrScreencopyFrameV1) -> CopyState {
        Self::copy_of(&self.state, f)
    }

    /// What screencopy frame `f` has told so far, from `state` (inside [`Client::wait_until`]).
    pub fn copy_of(state: &State, f: &ZwlrScreencopyFrameV1) -> CopyState {
        state
            .copies
            .get(&f.id().protocol_id())
            .cloned()
            .unwrap_or_default()
    }

    /// Stops tracking screencopy frame `f` and destroys it.
    pub fn forget_copy(&mut self, f: ZwlrScreencopyFrameV1) {
        self.state.copies.remove(&f.id().protocol_id());
        f.destroy();
    }

    /// Creates a virtual keyboard on the seat.
    ///
    /// # Errors
    /// [`WlError::MissingGlobal`] without `zwp_virtual_keyboard_manager_v1`.
    pub fn virtual_keyboard(&self) -> Result<ZwpVirtualKeyboardV1, WlError> {
        let m = self
            .keyboards
            .as_ref()
            .ok_or(WlError::MissingGlobal("zwp_virtual_keyboard_manager_v1"))?;
        Ok(m.create_virtual_keyboard(&self.seat, &self.qh, ()))
    }
}

impl Dispatch<wl_registry::WlRegistry, GlobalListContents> for State {
    fn event(
        _: &mut Self,
        _: &wl_registry::WlRegistry,
        _: wl_registry::Event,
        _: &GlobalListContents,
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        // outputs plugged in later are not followed: a game window is found on the outputs
        // present at connection time
    }
}

impl Dispatch<wl_output::WlOutput, ()> for State {
    fn event(
        state: &mut Self,
        proxy: &wl_output::WlOutput,
        event: wl_output::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        let Some(o) = state.outputs.iter_mut().find(|o| o.proxy == *proxy) else {
            return;
        };
        match event {
            wl_output::Event::Geometry { x, y, .. } => {
                o.x = x;
                o.y = y;
            }
            wl_output::Event::Mode {
                flags,
                width,
                height,
                ..
            } => {
                let current = match flags {
                    WEnum::Value(f) => f.contains(wl_output::Mode::Current),
                    WEnum::Unknown(bits) => bits & 1 != 0,
                };
                if current {
                    o.width = width;
                    o.height = height;
                }
            }
            wl_output::Event::Name { name } => o.name = name,
            _ => {}
        }
    }
}

impl Dispatch<ZwlrForeignToplevelManagerV1, ()> for State {
    fn event(
        state: &mut Self,
        _: &ZwlrForeignToplevelManagerV1,
        event: manager::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        match event {
            manager::Event::Toplevel { toplevel } => state.toplevels.push(Entry {
                proxy: toplevel,
                pending: Toplevel::default(),
                latest: Toplevel::default(),
            }),
            manager::Event::Finished => state.finished = true,
            _ => {}
        }
    }

    event_created_child!(State, ZwlrForeignToplevelManagerV1, [
        manager::EVT_TOPLEVEL_OPCODE => (ZwlrForeignToplevelHandleV1, ()),
    ]);
}

impl Dispatch<ZwlrForeignToplevelHandleV1, ()> for State {
    fn event(
        state: &mut Self,
        proxy: &ZwlrForeignToplevelHandleV1,
        event: handle::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        let Some(e) = state.toplevels.iter_mut().find(|e| e.proxy == *proxy) else {
            return;
        };
        let p = &mut e.pending;
        match event {
            handle::Event::Title { title } => p.title = title,
            handle::Event::AppId { app_id } => p.app_id = app_id,
            handle::Event::OutputEnter { output } => {
                let id = output.id().protocol_id();
                if !p.outputs.contains(&id) {
                    p.outputs.push(id);
                }
            }
            handle::Event::OutputLeave { output } => {
                let id = output.id().protocol_id();
                p.outputs.retain(|o| *o != id);
            }
            handle::Event::State { state: bytes } => {
                // an array of u32 in the host's byte order, each a `state` enum value
                let values: Vec<u32> = bytes
                    .chunks_exact(4)
                    .map(|c| u32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
                    .collect();
                p.activated = values.contains(&(handle::State::Activated as u32));
                p.minimized = values.contains(&(handle::State::Minimized as u32));
            }
            handle::Event::Parent { parent } => {
                p.parent = parent.map(|h| h.id().protocol_id());
            }
            handle::Event::Done => {
                p.ready = true;
                e.latest = p.clone();
            }
            handle::Event::Closed => {
                p.closed = true;
                e.latest.closed = true;
            }
            _ => {}
        }
    }
}

impl Dispatch<ZwlrScreencopyFrameV1, ()> for State {
    fn event(
        state: &mut Self,
        proxy: &ZwlrScreencopyFrameV1,
        event: frame::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        let version = proxy.version();
        let Some(c) = state.copies.get_mut(&proxy.id().protocol_id()) else {
            return;
        };
        match event {
            frame::Event::Buffer {
                format,
                width,
                height,
                stride,
            } => {
                c.shm = Some((format, width, height, stride));
                if version < 3 {
                    c.described = true;
                }
            }
            frame::Event::BufferDone => c.described = true,
            frame::Event::Flags { flags } => {
                c.y_invert = match flags {
                    WEnum::Value(f) => f.contains(frame::Flags::YInvert),
                    WEnum::Unknown(bits) => bits & 1 != 0,
                };
            }
            frame::Event::Ready { .. } => c.ready = true,
            frame::Event::Failed => c.failed = true,
            _ => {}
        }
    }
}

impl Dispatch<wl_shm::WlShm, ()> for State {
    fn event(
        state: &mut Self,
        _: &wl_shm::WlShm,
        event: wl_shm::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        if let wl_shm::Event::Format { format } = event {
            state.shm_formats.push(format.into());
        }
    }
}

/// Objects without events the bot needs.
macro_rules! ignore_events {
    ($($t:ty),*) => {$(
        impl Dispatch<$t, ()> for State {
            fn event(
                _: &mut Self,
                _: &$t,
                _: <$t as Proxy>::Event,
                _: &(),
                _: &Connection,
                _: &QueueHandle<Self>,
            ) {
            }
        }
    )*};
}

ignore_events!(
    wl_seat::WlSeat,
    wl_shm_pool::WlShmPool,
    wl_buffer::WlBuffer,
    ZwlrScreencopyManagerV1,
    ZwpVirtualKeyboardManagerV1,
    ZwpVirtualKeyboardV1
);
