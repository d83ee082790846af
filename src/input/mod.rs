//! Input stage: arrow keys to the game, and nothing anywhere else.
//!
//! - [`KeySink`]: the seam the play loop presses through.
//! - [`FocusMode`]: what a live sink may do when the game does not have the keyboard focus.
//! - [`RecordingSink`]: records the keys, for tests. [`NoKeys`]: refuses every key (`advise`).
//!
//! The live sinks belong to the platform ([`crate::platform`]; on X11, XTEST keys through enigo,
//! [`crate::platform::x11::EnigoSink`]). XTEST has no target window: the key goes to whatever
//! has the focus, so the focus check right before each key is what keeps keys inside the game.
//! Keys are sent as press+release, so none is held between calls.
use crate::engine::Move;

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

/// Why a key was not pressed.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The window the key was for (the game, or a dialog of it) does not have the keyboard focus
    /// and did not get it; no key was sent.
    #[error("{window} does not have the keyboard focus (focus is on {focus}); no key sent")]
    NotFocused {
        /// The window the key was for: "the game window", or "the game's dialog window `You Win`
        /// (0x60001c)".
        window: String,
        /// Where the focus was at the last check (window title or id, and the active window when
        /// that is another one).
        focus: String,
    },
    /// The user moved the mouse since the bot started (the failsafe): no key was sent.
    #[error("the mouse moved from {from:?} to {to:?}: stopped by the user (failsafe)")]
    UserMoved {
        /// Pointer position at the previous check, root pixels.
        from: (i32, i32),
        /// Pointer position now.
        to: (i32, i32),
    },
    /// This sink presses nothing (advise mode).
    #[error("this key sink presses no keys")]
    Disabled,
    /// The keyboard could not be opened (X11: no X display or XTEST connection).
    #[error("cannot open the keyboard: {0}")]
    Connect(String),
    /// The game window is gone (closed, or the game quit); no key was sent. (wlroots: the
    /// toplevel handle got `closed`.)
    #[error("the game window is gone (closed or the game quit); no key sent")]
    WindowGone,
    /// The platform cannot do this (e.g. a mouse click on wlroots, which offers the bot no
    /// pointer); nothing was sent.
    #[error("{0}")]
    Unsupported(String),
    /// The platform failed while sending (X11: enigo or the X connection).
    #[error("sending the key failed: {0}")]
    Backend(String),
}

/// Something that presses arrow keys in the game.
pub trait KeySink {
    /// Presses and releases the arrow key of `m` in the game window.
    ///
    /// # Errors
    /// [`InputError`]; when it returns an error, no key reached any window.
    fn press(&mut self, m: Move) -> Result<(), InputError>;
}

impl<T: KeySink + ?Sized> KeySink for Box<T> {
    fn press(&mut self, m: Move) -> Result<(), InputError> {
        (**self).press(m)
    }
}

/// Records every key instead of pressing it (tests).
#[derive(Clone, Debug, Default)]
pub struct RecordingSink {
    /// The keys pressed, in order.
    pub keys: Vec<Move>,
    /// When set, `press` fails with `NotFocused` from this key index on (drills).
    pub fail_from: Option<usize>,
}

impl KeySink for RecordingSink {
    fn press(&mut self, m: Move) -> Result<(), InputError> {
        if self.fail_from.is_some_and(|n| self.keys.len() >= n) {
            return Err(InputError::NotFocused {
                window: "the game window".into(),
                focus: "test: focus taken away".into(),
            });
        }
        self.keys.push(m);
        Ok(())
    }
}

/// Presses nothing; every call is [`InputError::Disabled`] (`advise`).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoKeys;

impl KeySink for NoKeys {
    fn press(&mut self, _m: Move) -> Result<(), InputError> {
        Err(InputError::Disabled)
    }
}
