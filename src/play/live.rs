//! [`LiveGame`]: a real game window: frames, keys and window checks from the platform's
//! [`GameWindow`] (opened through a [`Desktop`]), and the window-level handling of covers and
//! dialogs ([`GameUi`]).
//!
//! Dialogs are told apart by window class (a dialog of the game shares the game's `WM_CLASS`) and
//! title, as measured on the real games: gnome-2048 opens an untitled dialog at 2048 (its win
//! dialog) and `Congratulations!` / `High Scores` at game over; 2048-qt opens `You Win` at 2048
//! (closed with its Yes button's letter `y`) and `Game Over` (whose default button, Abort, quits
//! the game: the bot never presses Return or Escape there).
use super::{Cover, GameUi, GameUiError};
use crate::capture::{CaptureError, Frame, FrameSource, Rect};
use crate::engine::Move;
use crate::input::{FocusMode, InputError, KeySink};
use crate::platform::{Desktop, DialogKey, GameWindow, PlatformError, WindowInfo};
use std::time::{Duration, Instant};

/// Window titles of the games' game-over and score dialogs.
pub const GAME_OVER_TITLES: &[&str] = &["Game Over", "Congratulations!", "High Scores"];

/// Title of 2048-qt's win dialog, a Qt message box "You win! Continue playing?" with the buttons
/// Yes (keep playing) and No (start a new game). Its Escape button is No, so the bot presses `y`
/// (the Yes button's mnemonic, which a Qt message box takes without Alt) and never Escape.
pub const QT_WIN_TITLE: &str = "You Win";

/// A live game window.
pub struct LiveGame {
    /// Frames, keys and checks of the window.
    window: Box<dyn GameWindow>,
    /// Frames from this screen region instead of the window (`--region`), and the region.
    region: Option<(Box<dyn FrameSource>, Rect)>,
    mode: FocusMode,
}

impl std::fmt::Debug for LiveGame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveGame")
            .field("window", self.window.info())
            .field("region", &self.region.as_ref().map(|r| r.1))
            .field("mode", &self.mode)
            .finish()
    }
}

impl LiveGame {
    /// Finds the window on `desktop` (see [`Desktop::open`]) and opens the keyboard for it.
    ///
    /// # Errors
    /// No display or window manager, no such window, no keyboard ([`PlatformError`]).
    pub fn open(
        desktop: &dyn Desktop,
        window: &str,
        mode: FocusMode,
    ) -> Result<LiveGame, PlatformError> {
        Ok(LiveGame {
            window: desktop.open(window, mode)?,
            region: None,
            mode,
        })
    }

    /// Takes frames from `area` of the screen (`--region`, screen pixels) instead of the window;
    /// the window checks (gone, minimised, covered) and the keys stay the window's.
    ///
    /// # Errors
    /// As [`Desktop::region`].
    pub fn set_region(&mut self, desktop: &dyn Desktop, area: Rect) -> Result<(), PlatformError> {
        self.region = Some((desktop.region(area)?, area));
        Ok(())
    }

    /// The game window as found (id, title, app, rectangle at that time).
    pub fn info(&self) -> &WindowInfo {
        self.window.info()
    }

    /// Turns the mouse failsafe on or off (`--no-failsafe`).
    pub fn set_failsafe(&mut self, on: bool) {
        self.window.set_failsafe(on);
    }

    fn classify(&self, w: &WindowInfo, has_win_tile: bool) -> Cover {
        let game = self.window.info();
        let same_app = w.class == game.class && !w.class.is_empty();
        if same_app {
            if GAME_OVER_TITLES.contains(&w.title.as_str()) {
                Cover::GameOverDialog(w.title.clone())
            } else if (w.title.is_empty() || w.title == QT_WIN_TITLE) && has_win_tile {
                Cover::WinDialog(w.title.clone())
            } else {
                Cover::GameDialog(w.title.clone())
            }
        } else {
            Cover::OtherWindow(format!("{} ({})", w.title, w.class))
        }
    }
}

impl FrameSource for LiveGame {
    fn next_frame(&mut self) -> Result<Frame, CaptureError> {
        match &mut self.region {
            Some((r, _)) => {
                // the window checks still apply: gone, minimised, covered by another window
                self.window.rect()?;
                r.next_frame()
            }
            None => self.window.next_frame(),
        }
    }
}

impl KeySink for LiveGame {
    fn press(&mut self, m: Move) -> Result<(), InputError> {
        self.window.press(m)
    }
}

impl GameUi for LiveGame {
    fn prepare(&mut self) -> Result<(), GameUiError> {
        if self.mode == FocusMode::Never {
            return Ok(());
        }
        self.window.ensure_focus()?;
        let end = Instant::now() + Duration::from_millis(1000);
        while Instant::now() < end {
            if self.window.windows_above()?.is_empty() {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    }

    fn board_found(&mut self, grid: Rect) {
        let Ok(win) = self.window.rect() else { return };
        // the grid is in frame pixels: the window's, or the --region's
        let (ox, oy) = match &self.region {
            Some((_, r)) => (r.x, r.y),
            None => (win.x, win.y),
        };
        let on_root = Rect {
            x: ox + grid.x,
            y: oy + grid.y,
            ..grid
        };
        self.window.set_watch(Some(Rect {
            x: on_root.x - win.x,
            y: on_root.y - win.y,
            ..grid
        }));
        let centre = (
            on_root.x + grid.width as i32 / 2,
            on_root.y + grid.height as i32 / 2,
        );
        self.window.set_click_point(Some(centre));
    }

    fn cover(&mut self, has_win_tile: bool) -> Cover {
        match self.window.windows_above() {
            Ok(above) => match above.last() {
                // a game dialog anywhere above wins over other windows
                Some(_) => {
                    let mut best = Cover::Nothing;
                    for w in above.iter().rev() {
                        let c = self.classify(w, has_win_tile);
                        if !matches!(c, Cover::OtherWindow(_)) {
                            return c;
                        }
                        if best == Cover::Nothing {
                            best = c;
                        }
                    }
                    best
                }
                None => Cover::Nothing,
            },
            Err(_) => Cover::Nothing,
        }
    }

    fn close_win_dialog(&mut self) -> Result<(), GameUiError> {
        let above = self.window.windows_above()?;
        let dialog = above
            .iter()
            .rev()
            .find(|w| matches!(self.classify(w, true), Cover::WinDialog(_)))
            .ok_or(GameUiError::NoWinDialog)?;
        if dialog.title == QT_WIN_TITLE {
            self.window
                .key_to_dialog(dialog.id, DialogKey::Letter('y'))?;
        } else {
            self.window.key_to_dialog(dialog.id, DialogKey::Escape)?;
        }
        // wait until it is gone, and give the game the focus back
        let end = Instant::now() + Duration::from_millis(1500);
        while Instant::now() < end {
            let still = self
                .window
                .windows_above()?
                .iter()
                .any(|w| w.id == dialog.id);
            if !still {
                return Ok(self.window.ensure_focus()?);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Err(GameUiError::DialogStayedOpen)
    }

    fn click(&mut self, p: (u32, u32)) -> Result<(), GameUiError> {
        let r = match &self.region {
            Some((_, r)) => *r,
            None => self.window.rect()?,
        };
        self.window.ensure_focus()?;
        Ok(self.window.click((r.x + p.0 as i32, r.y + p.1 as i32))?)
    }

    fn uncover(&mut self) -> bool {
        if self.mode != FocusMode::Activate {
            return false;
        }
        if self.window.activate().is_err() {
            return false;
        }
        let end = Instant::now() + Duration::from_millis(500);
        while Instant::now() < end {
            if self.window.windows_above().is_ok_and(|a| a.is_empty()) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }
}
