//! [`LiveGame`]: a real game window: frames, keys and window checks from the platform's
//! [`GameWindow`] (opened through a [`Desktop`]), and the window-level handling of covers and
//! dialogs ([`GameUi`]).
//!
//! Dialogs are told apart by window class (a dialog of the game shares the game's `WM_CLASS`) and
//! title, as the profiles describe them ([`GameLook::game_over_dialogs`],
//! [`GameLook::win_dialogs`]), measured on the real games: gnome-2048 opens an untitled dialog at
//! 2048 (its win dialog, closed with Escape) and `Congratulations!` / `High Scores` at game over;
//! 2048-qt opens `You Win` at 2048 (closed with its Yes button's letter `y`) and `Game Over`
//! (whose default button, Abort, quits the game: the bot never presses Return or Escape there).
//! A window's dialogs are those of every profile the reader knows, built-in ones included
//! ([`crate::vision::Reader::games`]), since the game is not known before its board is read.
use super::{Cover, GameUi, GameUiError};
use crate::capture::{CaptureError, Frame, FrameSource, Rect};
use crate::engine::Move;
use crate::input::{FocusMode, InputError, KeySink};
use crate::platform::{Desktop, DialogKey, GameWindow, PlatformError, WindowInfo};
use crate::vision::{DialogKeyLook, GameLook, Profile};
use std::time::{Duration, Instant};

/// The dialogs of the games, by window title: game-over and score dialogs, and win dialogs with
/// the key that closes each to keep playing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dialogs {
    /// Titles of game-over and score dialogs.
    pub game_over: Vec<String>,
    /// Titles of win dialogs (`""`: untitled), each with its key.
    pub win: Vec<(String, DialogKey)>,
}

impl Dialogs {
    /// Adds the dialogs `game` describes (a title already known keeps its first key).
    pub fn add(&mut self, game: &GameLook) {
        for t in &game.game_over_dialogs {
            if !self.game_over.contains(t) {
                self.game_over.push(t.clone());
            }
        }
        for d in &game.win_dialogs {
            let key = match d.dialog_key() {
                Some(DialogKeyLook::Escape) => DialogKey::Escape,
                Some(DialogKeyLook::Letter(c)) => DialogKey::Letter(c),
                // a loaded profile's key is always valid (Profile::validate)
                None => continue,
            };
            if !self.win.iter().any(|(t, _)| *t == d.title) {
                self.win.push((d.title.clone(), key));
            }
        }
    }

    /// The dialogs of the built-in profiles.
    pub fn builtin() -> Dialogs {
        let mut d = Dialogs::default();
        for p in Profile::builtins().unwrap_or_default() {
            if let Some(g) = &p.game {
                d.add(g);
            }
        }
        d
    }

    /// The key that closes the win dialog titled `title`, if it is one.
    fn win_key(&self, title: &str) -> Option<DialogKey> {
        self.win.iter().find(|(t, _)| t == title).map(|(_, k)| *k)
    }
}

/// A live game window.
pub struct LiveGame {
    /// Frames, keys and checks of the window.
    window: Box<dyn GameWindow>,
    /// Frames from this screen region instead of the window (`--region`), and the region.
    region: Option<(Box<dyn FrameSource>, Rect)>,
    mode: FocusMode,
    /// The games' dialogs, by title.
    dialogs: Dialogs,
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
            dialogs: Dialogs::builtin(),
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

    /// Adds the dialogs of `games` (e.g. [`crate::vision::Reader::games`]) to those the window
    /// checks know (the built-in profiles' from the start).
    pub fn add_dialogs(&mut self, games: &[GameLook]) {
        for g in games {
            self.dialogs.add(g);
        }
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
            if self.dialogs.game_over.contains(&w.title) {
                Cover::GameOverDialog(w.title.clone())
            } else if self.dialogs.win_key(&w.title).is_some() && has_win_tile {
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
        let key = self
            .dialogs
            .win_key(&dialog.title)
            .ok_or(GameUiError::NoWinDialog)?;
        self.window.key_to_dialog(dialog.id, key)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_dialogs_are_the_titles_the_code_had() {
        // GAME_OVER_TITLES and QT_WIN_TITLE before they moved into the profiles; an untitled
        // win dialog (gnome-2048's) closes with Escape
        let d = Dialogs::builtin();
        let mut over = d.game_over.clone();
        over.sort();
        assert_eq!(over, ["Congratulations!", "Game Over", "High Scores"]);
        assert_eq!(d.win_key("You Win"), Some(DialogKey::Letter('y')));
        assert_eq!(d.win_key(""), Some(DialogKey::Escape));
        assert_eq!(d.win.len(), 2);
    }
}
