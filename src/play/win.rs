//! The win tile (2048, or gnome-2048's `target-value`, given as `--win-tile`): [`OnWin`], what
//! has been seen of the win ([`WinState`]), and passing each
//! game's win screen with `--on-win continue`: the web game's "You win!" overlay (click "Keep
//! going" after checking its colour where it should be), gnome-2048's untitled dialog and
//! 2048-qt's "You Win" box (closed through [`GameUi::close_win_dialog`], only to that dialog).
use super::cover::{settle_frame, Cover, GameUi};
use super::stop::{cover_stop, Stop, StopReason};
use super::{mirror, read_grid};
use crate::capture::{FrameSource, Rect, SettleOptions};
use crate::engine::{AnyBoard, Position};
use crate::input::KeySink;
use crate::vision::{BoardStatus, ButtonLook, Reader, Rgb};
use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The tile that wins by default (2048), on every board shape: the web game's and 2048-qt's,
/// and gnome-2048's unless its `target-value` setting says otherwise (`--win-tile`).
pub const WIN_TILE: u64 = 2048;

/// What to do at the win tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OnWin {
    /// Do what the game asks to keep playing ("Keep going", close the dialog), then play on.
    Continue,
    /// Stop with reason `won`.
    Stop,
}

/// What the loop knows of the win.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct WinState {
    /// The tile value at which the game shows its win screen (a power of two, [`WIN_TILE`]
    /// unless `--win-tile` says otherwise).
    pub tile: u64,
    /// The mirror's board holds a tile of [`WinState::tile`] (or more).
    pub has_win_tile: bool,
    /// The game's win screen was passed (or the game started past it).
    pub passed: bool,
}

impl WinState {
    /// The state at the start board `board` for the win tile `tile` (a value): a game that
    /// already holds it is past its win.
    pub fn at_start(board: &AnyBoard, tile: u64) -> WinState {
        let has = board.max_value() >= tile;
        WinState {
            tile,
            has_win_tile: has,
            passed: has,
        }
    }

    /// True when a board whose largest tile is `max` (a value) makes the win tile for the first
    /// time.
    pub fn made_by(&self, max: u64) -> bool {
        !self.has_win_tile && max >= self.tile
    }
}

/// What to do when the game's win dialog covers the board while a move's frame is awaited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum WinDialog {
    /// Close it and read again (`--on-win continue`, not passed yet: gnome-2048 opens its
    /// dialog as soon as the win tile lands, before the frame is read).
    Close,
    /// Stop with `won`, the move counted (`--on-win stop`, and this move makes the win tile).
    StopWon,
    /// Anything else: the dialog is a cover like any other.
    Cover,
}

/// The rule for a win dialog during a move whose afterstate's largest tile is `after_max`.
pub(super) fn on_win_dialog(on_win: OnWin, win: WinState, after_max: u64) -> WinDialog {
    match on_win {
        OnWin::Continue if !win.passed => WinDialog::Close,
        OnWin::Stop if win.made_by(after_max) => WinDialog::StopWon,
        _ => WinDialog::Cover,
    }
}

/// The "Keep going" button of a profile that names none ([`crate::vision::GameLook::keep_going`]): the classic
/// web game's (`#8f7a66`, at these fractions of the grid's width and height from its top-left),
/// as the built-in web profile also says, so that a profile calibrated from that game without
/// the key still passes its win screen.
fn default_keep_going() -> ButtonLook {
    ButtonLook {
        colour: Rgb([0x8f, 0x7a, 0x66]),
        at: [0.369, 0.738],
    }
}

/// How far (each channel, 8-bit levels) a pixel may be off the button's colour.
const BUTTON_TOLERANCE: u8 = 24;

/// Gives up passing the win screen after this long, ms.
const PASS_WIN_TIMEOUT_MS: u128 = 6000;

/// Where the button `button` ("Keep going") is on `image` for the grid `grid` (image pixels), if
/// that pixel has the button's colour (each channel within [`BUTTON_TOLERANCE`]).
fn keep_going_at(image: &image::RgbaImage, grid: Rect, button: &ButtonLook) -> Option<(u32, u32)> {
    let x = grid.x as f32 + button.at[0] * grid.width as f32;
    let y = grid.y as f32 + button.at[1] * grid.height as f32;
    let (x, y) = (x.round() as u32, y.round() as u32);
    let p = image.get_pixel_checked(x, y)?.0;
    (0..3)
        .all(|i| p[i].abs_diff(button.colour.0[i]) <= BUTTON_TOLERANCE)
        .then_some((x, y))
}

/// Closes the win dialog titled `title`.
pub(super) fn close_dialog<T: GameUi>(game: &mut T, title: &str) -> Result<(), Stop> {
    game.close_win_dialog().map_err(|e| {
        Stop::new(
            StopReason::GameDialog,
            format!("cannot close the win dialog `{title}`: {e}"),
        )
    })
}

/// After the win tile appeared with `--on-win continue`: waits for the game's win UI (the web
/// overlay fades in 1.2–2 s after the move; gnome-2048 opens a dialog) and passes it, until the
/// board read equals `board` (the mirror). `Ok` once passed.
///
/// # Errors
/// The stop: Ctrl-C, a win screen not passed within 6 s, a cover, or a failed click.
pub(super) fn pass_win_screen<T: FrameSource + KeySink + GameUi>(
    game: &mut T,
    reader: &mut Reader,
    settle: &SettleOptions,
    stop: &AtomicBool,
    board: &AnyBoard,
    grid: Rect,
) -> Result<(), Stop> {
    let start = Instant::now();
    let mut handled = false;
    let quiet = SettleOptions {
        changed_from: None,
        ..settle.clone()
    };
    loop {
        let waited = start.elapsed().as_millis();
        if stop.load(Ordering::SeqCst) {
            return Err(Stop::interrupted());
        }
        if waited > PASS_WIN_TIMEOUT_MS {
            return Err(Stop::new(
                StopReason::GameDialog,
                "the win screen could not be passed within 6 s",
            ));
        }
        let pause = match settle_frame(game, &quiet, true) {
            Err((_, Cover::WinDialog(t))) => {
                close_dialog(game, &t)?;
                handled = true;
                150
            }
            Err((_, Cover::Nothing)) if waited < 3000 => 50,
            Err((e, c)) => return Err(cover_stop(e, c)),
            Ok(s) => match reader.read(&s.frame.image) {
                Ok(r) if r.status == BoardStatus::Won => {
                    let button = reader
                        .keep_going()
                        .cloned()
                        .unwrap_or_else(default_keep_going);
                    click_keep_going(game, &s.frame.image, grid, &button)?;
                    handled = true;
                    200
                }
                Ok(r) if r.status == BoardStatus::Ok && (handled || waited > 2600) => {
                    if read_grid(&r).is_ok_and(|g| mirror::same(board, &g)) {
                        return Ok(());
                    }
                    50
                }
                _ => 50,
            },
        };
        std::thread::sleep(Duration::from_millis(pause));
    }
}

/// Clicks "Keep going" on the web game's overlay, after checking it is where expected.
fn click_keep_going<T: GameUi>(
    game: &mut T,
    image: &image::RgbaImage,
    grid: Rect,
    button: &ButtonLook,
) -> Result<(), Stop> {
    let Some(p) = keep_going_at(image, grid, button) else {
        return Err(Stop::new(
            StopReason::GameDialog,
            "the game shows a win screen without a \"Keep going\" button where expected",
        ));
    };
    game.click(p).map_err(|e| {
        Stop::new(
            StopReason::Error,
            format!("cannot click \"Keep going\": {e}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_win_dialog_during_a_move_is_closed_once_or_stops_the_move_that_makes_2048() {
        let fresh = WinState {
            tile: 2048,
            has_win_tile: false,
            passed: false,
        };
        assert_eq!(
            on_win_dialog(OnWin::Continue, fresh, 2048),
            WinDialog::Close
        );
        let passed = WinState {
            tile: 2048,
            has_win_tile: true,
            passed: true,
        };
        assert_eq!(
            on_win_dialog(OnWin::Continue, passed, 4096),
            WinDialog::Cover
        );
        assert_eq!(on_win_dialog(OnWin::Stop, fresh, 2048), WinDialog::StopWon);
        assert_eq!(
            on_win_dialog(OnWin::Stop, fresh, 1024),
            WinDialog::Cover,
            "no 2048 yet"
        );
        assert_eq!(on_win_dialog(OnWin::Stop, passed, 2048), WinDialog::Cover);
    }

    #[test]
    fn a_game_that_starts_past_2048_has_passed_its_win() {
        let b = AnyBoard::from_rows(&[vec![2048, 2, 0, 0, 0], vec![0; 5], vec![0; 5]]).unwrap();
        assert_eq!(
            WinState::at_start(&b, 2048),
            WinState {
                tile: 2048,
                has_win_tile: true,
                passed: true
            }
        );
        let b = AnyBoard::from_rows(&[vec![1024, 2, 0], vec![0; 3], vec![0; 3]]).unwrap();
        assert!(!WinState::at_start(&b, 2048).passed);
    }

    #[test]
    fn a_low_win_tile_wins_at_its_own_value() {
        // gnome-2048 with target-value 64 on 3x3: its dialog comes at the first 64
        let b = AnyBoard::from_rows(&[vec![32, 2, 0], vec![0; 3], vec![0; 3]]).unwrap();
        let w = WinState::at_start(&b, 64);
        assert!(!w.passed && !w.has_win_tile);
        assert!(!w.made_by(32));
        assert!(w.made_by(64));
        assert_eq!(on_win_dialog(OnWin::Stop, w, 64), WinDialog::StopWon);
        assert_eq!(on_win_dialog(OnWin::Stop, w, 32), WinDialog::Cover);
        assert_eq!(on_win_dialog(OnWin::Continue, w, 64), WinDialog::Close);
        let b = AnyBoard::from_rows(&[vec![128, 2, 0], vec![0; 3], vec![0; 3]]).unwrap();
        assert!(WinState::at_start(&b, 64).passed, "started past its 64");
    }

    #[test]
    fn keep_going_is_clicked_only_on_its_colour() {
        let grid = Rect {
            x: 10,
            y: 20,
            width: 100,
            height: 100,
        };
        let web = crate::vision::Profile::builtins()
            .unwrap()
            .into_iter()
            .find(|p| p.name == "web-2048")
            .unwrap();
        let button = web.game.and_then(|g| g.keep_going).unwrap();
        assert_eq!(
            button,
            default_keep_going(),
            "the web profile's is the default"
        );
        let mut img = image::RgbaImage::from_pixel(200, 200, image::Rgba([250, 248, 239, 255]));
        assert_eq!(keep_going_at(&img, grid, &button), None);
        // 10 + 0.369 * 100 = 46.9 -> 47; 20 + 0.738 * 100 = 93.8 -> 94
        img.put_pixel(47, 94, image::Rgba([0x8f, 0x7a, 0x66, 255]));
        assert_eq!(keep_going_at(&img, grid, &button), Some((47, 94)));
        let small = image::RgbaImage::new(20, 20);
        assert_eq!(
            keep_going_at(&small, grid, &button),
            None,
            "outside the image"
        );
    }
}
