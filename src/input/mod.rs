//! Input stage: arrow keys to the game, and nothing anywhere else.
//!
//! - [`KeySink`]: the seam the play loop presses through.
//! - [`EnigoSink`] (in [`enigo`]): XTEST keys with enigo, each one only after checking over x11rb
//!   that the game window holds the X input focus (and is the window manager's active window);
//!   it can give the game focus (`_NET_ACTIVE_WINDOW`, or a click on the board), and it stops when
//!   the user moves the mouse (the failsafe).
//! - [`RecordingSink`]: records the keys, for tests. [`NoKeys`]: refuses every key (`advise`).
//!
//! XTEST has no target window: the key goes to whatever has the focus, so the focus check right
//! before each key is what keeps keys inside the game. Keys are sent as press+release
//! (`Direction::Click`), so none is held between calls; enigo also releases held keys on drop.
use crate::engine::Move;

pub mod enigo;

pub use self::enigo::{EnigoSink, FocusMode};

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
    /// No X display / XTEST connection.
    #[error("cannot open the keyboard: {0}")]
    Connect(String),
    /// enigo or X failed while sending.
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
