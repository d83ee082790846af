//! Why the loop stops: [`StopReason`] (its exit code is the binary's:
//! [`crate::cli::exit::for_stop`]), and the mapping of capture, input and cover problems onto
//! reasons with a message.
use super::cover::Cover;
use crate::capture::{CaptureError, FrameSource};
use crate::input::InputError;
use serde::Serialize;

/// Why the loop stopped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// No legal move is left (the mirror's board), or the game shows its game-over state.
    GameOver,
    /// The 2048 tile appeared and `--on-win stop` was given.
    Won,
    /// The `--goal` tile appeared.
    Goal,
    /// `--max-moves` moves were made.
    MaxMoves,
    /// Ctrl-C.
    Interrupted,
    /// The user moved the mouse (failsafe).
    UserMoved,
    /// The game window lost the keyboard focus and the focus mode does not take it back.
    FocusLost,
    /// The game window was closed.
    WindowGone,
    /// Another window covers the game.
    Covered,
    /// A dialog of the game that the bot does not handle is open.
    GameDialog,
    /// A read disagreed with the mirror and re-reading did not help.
    Desync,
    /// A key had no effect after the retries.
    KeyNoEffect,
    /// The board could not be read (no board found, cells unreadable, or a shape outside
    /// 2..=9 rows and columns).
    Unreadable,
    /// The board never settled.
    Unsettled,
    /// A replay ran out of frames.
    EndOfReplay,
    /// Capture, input or the solver failed in another way (e.g. no solver for the board's shape).
    Error,
}

/// A stop: the reason and the message that explains it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Stop {
    pub reason: StopReason,
    pub message: String,
}

impl Stop {
    /// A stop for `reason` with `message`.
    pub fn new(reason: StopReason, message: impl Into<String>) -> Stop {
        Stop {
            reason,
            message: message.into(),
        }
    }

    /// The stop for Ctrl-C.
    pub fn interrupted() -> Stop {
        Stop::new(StopReason::Interrupted, "interrupted (Ctrl-C or SIGTERM)")
    }
}

/// The reason for a capture error seen with nothing above the game.
fn capture_reason(e: &CaptureError) -> StopReason {
    match e {
        CaptureError::WindowGone => StopReason::WindowGone,
        CaptureError::Occluded(_) | CaptureError::Minimized => StopReason::Covered,
        CaptureError::EndOfReplay => StopReason::EndOfReplay,
        _ => StopReason::Error,
    }
}

/// The stop for a key that could not be pressed.
pub(super) fn input_stop(e: &InputError) -> Stop {
    let reason = match e {
        InputError::NotFocused { .. } => StopReason::FocusLost,
        InputError::UserMoved { .. } => StopReason::UserMoved,
        InputError::WindowGone => StopReason::WindowGone,
        _ => StopReason::Error,
    };
    Stop::new(reason, e.to_string())
}

/// The stop for a capture error `e`, given what covers the game.
pub(super) fn cover_stop(e: CaptureError, c: Cover) -> Stop {
    match c {
        Cover::GameOverDialog(t) => Stop::new(
            StopReason::GameOver,
            format!("game over (the game opened `{t}`)"),
        ),
        Cover::WinDialog(t) => Stop::new(
            StopReason::Won,
            format!("the game shows its win dialog `{t}`"),
        ),
        Cover::GameDialog(t) => Stop::new(
            StopReason::GameDialog,
            format!("a dialog of the game is open (`{t}`); bot2048 does not press keys into it"),
        ),
        Cover::OtherWindow(t) => Stop::new(
            StopReason::Covered,
            format!("another window covers the game: `{t}`"),
        ),
        Cover::Nothing => Stop::new(capture_reason(&e), e.to_string()),
    }
}

/// Before stopping for a read or focus problem: if the window is gone (closed while a frame was
/// being read, or just before a key), say so instead.
pub(super) fn gone_or<T: FrameSource>(game: &mut T, stop: Stop) -> Stop {
    match game.next_frame() {
        Err(CaptureError::WindowGone) => {
            Stop::new(StopReason::WindowGone, CaptureError::WindowGone.to_string())
        }
        _ => stop,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cover_names_the_reason_and_nothing_above_falls_back_to_the_capture_error() {
        let occ = || CaptureError::Occluded("black".into());
        let over = cover_stop(occ(), Cover::GameOverDialog("Game Over".into()));
        assert_eq!(over.reason, StopReason::GameOver);
        assert!(over.message.contains("Game Over"));
        assert_eq!(
            cover_stop(occ(), Cover::OtherWindow("xterm".into())).reason,
            StopReason::Covered
        );
        assert_eq!(
            cover_stop(CaptureError::WindowGone, Cover::Nothing).reason,
            StopReason::WindowGone
        );
        assert_eq!(
            cover_stop(CaptureError::EndOfReplay, Cover::Nothing).reason,
            StopReason::EndOfReplay
        );
    }
}
