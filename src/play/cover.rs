//! What may cover the game: [`Cover`], the window-level side of a game ([`GameUi`]), and settling
//! a frame with a covered game mapped to what covers it.
use crate::capture::{self, CaptureError, Frame, FrameSource, Rect, SettleOptions};
use crate::input::{InputError, KeySink};

/// What covers the game, as far as the UI can tell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cover {
    /// Nothing is above the game.
    Nothing,
    /// The game's own win dialog (gnome-2048: an untitled dialog of the game; 2048-qt: `You Win`).
    WinDialog(String),
    /// The game's own game-over or scores dialog.
    GameOverDialog(String),
    /// Another dialog of the game (e.g. 2048-qt's): the bot does not touch it.
    GameDialog(String),
    /// A window of another program.
    OtherWindow(String),
}

/// Why a window-level step of [`GameUi`] failed.
#[derive(Debug, thiserror::Error)]
pub enum GameUiError {
    /// The window could not be queried (gone, no window manager, the X server's error).
    #[error(transparent)]
    Capture(#[from] CaptureError),
    /// A key or click could not be sent (no focus, no keyboard, the backend's error).
    #[error(transparent)]
    Input(#[from] InputError),
    /// No win dialog of the game is open to close.
    #[error("no win dialog is open")]
    NoWinDialog,
    /// The win dialog was sent its key but is still open after the wait.
    #[error("the win dialog did not close")]
    DialogStayedOpen,
    /// This game (e.g. a replayed one) has no win dialog to close.
    #[error("this game has no win dialog to close")]
    NoDialogs,
    /// This game (e.g. a replayed one) cannot be clicked.
    #[error("clicking is not available")]
    NoClicks,
}

/// The window-level side of a game, beside frames and keys.
pub trait GameUi {
    /// Called once before the first frame: bring the game to the front and give it the focus if
    /// the focus mode allows.
    ///
    /// # Errors
    /// [`GameUiError`] when the game cannot be made ready (the loop stops with `FocusLost`).
    fn prepare(&mut self) -> Result<(), GameUiError> {
        Ok(())
    }
    /// The board was found at `grid` (image pixels): watch it, and click there for focus.
    fn board_found(&mut self, _grid: Rect) {}
    /// What is above the game now.
    fn cover(&mut self, _board_has_win_tile: bool) -> Cover {
        Cover::Nothing
    }
    /// Closes the game's win dialog (gnome-2048: Escape, sent only to that dialog).
    ///
    /// # Errors
    /// [`GameUiError`] when it could not be done safely.
    fn close_win_dialog(&mut self) -> Result<(), GameUiError> {
        Err(GameUiError::NoDialogs)
    }
    /// Clicks at `p` (image pixels) after the caller checked what is there ("Keep going").
    ///
    /// # Errors
    /// [`GameUiError`] when it could not.
    fn click(&mut self, _p: (u32, u32)) -> Result<(), GameUiError> {
        Err(GameUiError::NoClicks)
    }
    /// Tries to bring the game back on top after another window covered it; true when it did.
    fn uncover(&mut self) -> bool {
        false
    }
}

/// Settles, mapping a covered game to what covers it (`has_win_tile`: the board holds the win
/// tile or is about to, which tells a win dialog apart).
pub(super) fn settle_frame<T: FrameSource + KeySink + GameUi>(
    game: &mut T,
    opts: &SettleOptions,
    has_win_tile: bool,
) -> Result<capture::Settled, (CaptureError, Cover)> {
    settle_frame_until(game, opts, has_win_tile, &mut |_, _| false)
}

/// As [`settle_frame`], with an early-accept check (see [`capture::settle::settle_until`]). A
/// game covered by another program's window is brought back once when the focus mode allows.
pub(super) fn settle_frame_until<T: FrameSource + KeySink + GameUi>(
    game: &mut T,
    opts: &SettleOptions,
    has_win_tile: bool,
    accept: &mut dyn FnMut(&Frame, std::time::Duration) -> bool,
) -> Result<capture::Settled, (CaptureError, Cover)> {
    match capture::settle::settle_until(game, opts, accept) {
        Ok(s) => Ok(s),
        Err(e @ CaptureError::Occluded(_)) => {
            let c = game.cover(has_win_tile);
            if matches!(c, Cover::OtherWindow(_)) && game.uncover() {
                return capture::settle::settle_until(game, opts, accept)
                    .map_err(|e| (e, Cover::Nothing));
            }
            Err((e, c))
        }
        Err(e) => Err((e, Cover::Nothing)),
    }
}
