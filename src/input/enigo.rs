//! [`EnigoSink`]: arrow keys through enigo (XTEST), guarded by a focus check and the failsafe.
//!
//! Before every key:
//! 1. failsafe: the pointer must be where it was at the previous check (the bot never moves it,
//!    except for its own `--focus click`, which it accounts for). A user who moves the mouse stops
//!    the bot before its next key ([`InputError::UserMoved`]).
//! 2. focus: the X input focus must be the game window or inside it, and `_NET_ACTIVE_WINDOW` (when
//!    a window manager keeps it) must be the game. If not, [`FocusMode`] says what to do: refuse
//!    (`never`, and `start` after the start), ask the window manager to activate the game
//!    (`activate`: the request is sent again every 200 ms), or click the board (`click`); then
//!    check again, up to 500 ms. Still not focused: [`InputError::NotFocused`], and no key is sent.
//!
//! A key for a dialog of the game ([`EnigoSink::key_to`]) goes out only once that dialog has the
//! focus; the bot asks for it for up to 2 s.
use super::{InputError, KeySink};
use crate::capture::x11::X11;
use crate::engine::Move;
use enigo::{Button, Coordinate, Direction, Enigo, Key, Keyboard, Mouse, Settings};
use std::time::{Duration, Instant};

/// What the sink may do when the game does not have the keyboard focus.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FocusMode {
    /// Give the game focus once at the start (window-manager activation); afterwards, a lost focus
    /// stops the bot (the user took it away).
    Start,
    /// Re-activate the game through the window manager whenever it lost focus.
    Activate,
    /// Click on the middle of the board whenever it lost focus.
    Click,
    /// Never give focus; press only while the game has it.
    Never,
}

/// How long to wait for the focus to arrive after asking for it.
const FOCUS_WAIT: Duration = Duration::from_millis(500);

/// How long to keep asking for a game dialog's focus before giving up.
const DIALOG_FOCUS_WAIT: Duration = Duration::from_millis(2000);

/// How often the activation request (for the game or a dialog of it) is sent again while the
/// window is not focused.
const REACTIVATE_EVERY: Duration = Duration::from_millis(200);

/// Keys to one game window through XTEST.
pub struct EnigoSink {
    enigo: Enigo,
    x11: X11,
    window: u32,
    mode: FocusMode,
    click_point: Option<(i32, i32)>,
    pointer: (i32, i32),
    failsafe: bool,
    started: bool,
}

impl std::fmt::Debug for EnigoSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EnigoSink")
            .field("window", &self.window)
            .field("mode", &self.mode)
            .finish()
    }
}

fn be<E: std::fmt::Display>(e: E) -> InputError {
    InputError::Backend(e.to_string())
}

impl EnigoSink {
    /// Keys for X window `window` (the game's top-level window id).
    ///
    /// # Errors
    /// [`InputError::Connect`] when the display or XTEST cannot be opened.
    pub fn new(window: u32, mode: FocusMode) -> Result<EnigoSink, InputError> {
        let x11 = X11::connect().map_err(|e| InputError::Connect(e.to_string()))?;
        let settings = Settings {
            linux_delay: 0,
            ..Settings::default()
        };
        let enigo = Enigo::new(&settings).map_err(|e| InputError::Connect(e.to_string()))?;
        let pointer = x11.pointer().map_err(be)?;
        Ok(EnigoSink {
            enigo,
            x11,
            window,
            mode,
            click_point: None,
            pointer,
            failsafe: true,
            started: false,
        })
    }

    /// Where `--focus click` clicks (root pixels; the middle of the board).
    pub fn set_click_point(&mut self, p: Option<(i32, i32)>) {
        self.click_point = p;
    }

    /// Turns the mouse failsafe off (tests that move the pointer themselves).
    pub fn set_failsafe(&mut self, on: bool) {
        self.failsafe = on;
    }

    /// Checks the failsafe: the pointer has not moved since the last check.
    ///
    /// # Errors
    /// [`InputError::UserMoved`].
    pub fn check_failsafe(&mut self) -> Result<(), InputError> {
        let now = self.x11.pointer().map_err(be)?;
        if self.failsafe && now != self.pointer {
            return Err(InputError::UserMoved {
                from: self.pointer,
                to: now,
            });
        }
        self.pointer = now;
        Ok(())
    }

    /// True when keys sent now reach the game window.
    ///
    /// # Errors
    /// `Backend` on X errors.
    pub fn game_has_focus(&self) -> Result<bool, InputError> {
        self.x11.has_keyboard_focus(self.window).map_err(be)
    }

    fn describe_focus(&self) -> String {
        match self.x11.input_focus() {
            Ok(Some(id)) => match self.x11.describe(id) {
                Ok(Some(w)) if !w.title.is_empty() => format!("window `{}` ({:#x})", w.title, id),
                _ => format!("window {id:#x}"),
            },
            Ok(None) => "no window".into(),
            Err(e) => format!("unknown ({e})"),
        }
    }

    fn wait_focus(&self, within: Duration) -> Result<bool, InputError> {
        let end = Instant::now() + within;
        loop {
            if self.game_has_focus()? {
                return Ok(true);
            }
            if Instant::now() >= end {
                return Ok(false);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Makes sure the game has the keyboard focus, giving it according to the mode.
    ///
    /// # Errors
    /// [`InputError::NotFocused`] when it does not have it afterwards.
    pub fn ensure_focus(&mut self) -> Result<(), InputError> {
        if self.game_has_focus()? {
            self.started = true;
            return Ok(());
        }
        let may_activate = match self.mode {
            FocusMode::Activate => true,
            FocusMode::Start => !self.started,
            FocusMode::Click | FocusMode::Never => false,
        };
        if may_activate && self.activate_until(self.window, FOCUS_WAIT)? {
            self.started = true;
            return Ok(());
        }
        if self.mode == FocusMode::Click {
            if let Some(p) = self.click_point {
                self.click(p)?;
                if self.wait_focus(FOCUS_WAIT)? {
                    self.started = true;
                    return Ok(());
                }
            }
        }
        Err(InputError::NotFocused {
            focus: self.describe_focus(),
        })
    }

    /// Moves the pointer to `p` (root pixels) and clicks the left button there; the failsafe
    /// position follows. Used for `--focus click` and for the games' own buttons ("Keep going").
    ///
    /// # Errors
    /// `Backend` when enigo fails.
    pub fn click(&mut self, p: (i32, i32)) -> Result<(), InputError> {
        self.enigo
            .move_mouse(p.0, p.1, Coordinate::Abs)
            .map_err(be)?;
        self.enigo
            .button(Button::Left, Direction::Click)
            .map_err(be)?;
        self.pointer = self.x11.pointer().map_err(be)?;
        Ok(())
    }

    /// Presses Escape, only if the window with the keyboard focus is `dialog` (a dialog of the game
    /// that the caller identified by title and stacking); used to close gnome-2048's win dialog.
    ///
    /// # Errors
    /// `NotFocused` when `dialog` does not have the focus; `Backend` when enigo fails.
    pub fn escape_to(&mut self, dialog: u32) -> Result<(), InputError> {
        self.key_to(dialog, Key::Escape)
    }

    /// Presses `key` (press and release), only if the window with the keyboard focus is `dialog`
    /// (activating it first and waiting up to the focus wait); e.g. `y` for the "Yes" button of
    /// 2048-qt's "You Win" message box, whose buttons take their mnemonic letter without Alt.
    ///
    /// # Errors
    /// `NotFocused` when `dialog` does not get the focus; `Backend` when enigo fails.
    pub fn key_to(&mut self, dialog: u32, key: Key) -> Result<(), InputError> {
        if !self.activate_until(dialog, DIALOG_FOCUS_WAIT)? {
            return Err(InputError::NotFocused {
                focus: self.describe_focus(),
            });
        }
        self.enigo.key(key, Direction::Click).map_err(be)
    }

    /// Asks the window manager to activate `window` (the game, or a dialog of it) until it has the
    /// keyboard focus, up to `within`; no request at all when it already has it. The request is
    /// sent again every [`REACTIVATE_EVERY`]: a dialog that has just been mapped may not be
    /// focusable yet when the first one arrives (a CI run saw 2048-qt's "You Win" stay unfocused
    /// after a single request). Past half the wait the X input focus is also set directly (the
    /// window manager follows it). True when the focus arrived.
    fn activate_until(&mut self, window: u32, within: Duration) -> Result<bool, InputError> {
        let start = Instant::now();
        let mut last_request: Option<Instant> = None;
        let mut requests = 0u32;
        loop {
            if self.x11.has_keyboard_focus(window).map_err(be)? {
                tracing::debug!(
                    window = format_args!("{window:#x}"),
                    requests,
                    ms = start.elapsed().as_millis() as u64,
                    "focus arrived"
                );
                return Ok(true);
            }
            let waited = start.elapsed();
            if waited >= within {
                tracing::debug!(
                    window = format_args!("{window:#x}"),
                    requests,
                    focus = self.describe_focus(),
                    "focus did not arrive"
                );
                return Ok(false);
            }
            if last_request.is_none_or(|t| t.elapsed() >= REACTIVATE_EVERY) {
                self.x11.activate(window).map_err(be)?;
                if waited >= within / 2 {
                    self.x11.set_input_focus(window).map_err(be)?;
                }
                last_request = Some(Instant::now());
                requests += 1;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// The enigo key of a move.
pub fn key_of(m: Move) -> Key {
    match m {
        Move::Up => Key::UpArrow,
        Move::Down => Key::DownArrow,
        Move::Left => Key::LeftArrow,
        Move::Right => Key::RightArrow,
    }
}

impl KeySink for EnigoSink {
    fn press(&mut self, m: Move) -> Result<(), InputError> {
        self.check_failsafe()?;
        self.ensure_focus()?;
        self.enigo.key(key_of(m), Direction::Click).map_err(be)
    }
}
