//! The play loop: capture → settle → read → mirror → solve → key → verify, until a stop reason.
//!
//! [`play`] runs over anything that is a [`FrameSource`] (frames), a [`KeySink`] (keys) and a
//! [`GameUi`] (the window-level extras: what covers the game, closing a win dialog, clicking
//! "Keep going"). The live game is [`live::LiveGame`]; tests use [`ReplayGame`] (recorded frames
//! and a recording key sink).
//!
//! Per move: the solver decides on the mirror's board; the key is pressed (the sink checks focus
//! and the mouse failsafe first); the board region is settled (first changed from the frame before
//! the key, then quiet for `quiet_ms`, or only `early_quiet_ms` when that frame already reads as
//! the afterstate plus one new tile); the read is checked against the mirror ([`mirror`]):
//! - afterstate + one new 2/4: the move counts, the mirror advances;
//! - unchanged: the key was dropped (gnome-2048 drops keys while animating): pressed again, at
//!   most `key_retries` times, then the loop stops (`KeyNoEffect`). Pressed again only when the
//!   board's pixels equal the frame before the key (a changed frame that reads as the old board is
//!   a stalled animation: pressing again could make two moves); when that frame was an early one,
//!   the board must first hold still for [`CONFIRM_QUIET_MS`];
//! - anything else: re-read up to `rereads` times (the frame may be mid-animation); if it persists,
//!   stop (`Desync`) and write a dump (frames, expected and read boards).
//!
//! The loop never presses a key on a board it does not understand: no key before the start board
//! is read completely, and none after a desync.
use crate::capture::{self, CaptureError, Frame, FrameSource, Rect, SettleOptions};
use crate::engine::AnyBoard;
use crate::engine::{Board, Move};
use crate::input::{InputError, KeySink, RecordingSink};
use crate::sim::stats;
use crate::solver::{Budget, Decision, Solver};
use crate::vision::{BoardStatus, Reader, Reading};
use serde::Serialize;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

pub mod advise;
pub mod calibrate;
pub mod live;
pub mod mirror;
pub mod record;

use mirror::{ReadGrid, Verdict};
use record::{LogLine, Recorder};

/// Why the loop stopped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
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
    /// The board could not be read (no board found, or cells unreadable, or not 4x4).
    Unreadable,
    /// The board never settled.
    Unsettled,
    /// A replay ran out of frames.
    EndOfReplay,
    /// Capture or input failed in another way.
    Error,
}

impl StopReason {
    /// Process exit code for the reason: 0 for the normal ends (game over, won, goal, max moves,
    /// interrupted, user moved the mouse, end of replay), 3 for a desync, 4 for the rest.
    pub fn exit_code(&self) -> u8 {
        match self {
            StopReason::GameOver
            | StopReason::Won
            | StopReason::Goal
            | StopReason::MaxMoves
            | StopReason::Interrupted
            | StopReason::UserMoved
            | StopReason::EndOfReplay => 0,
            StopReason::Desync => 3,
            _ => 4,
        }
    }
}

/// What to do at the 2048 tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OnWin {
    /// Do what the game asks to keep playing ("Keep going", close the dialog), then play on.
    Continue,
    /// Stop with reason `won`.
    Stop,
}

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

/// The window-level side of a game, beside frames and keys.
pub trait GameUi {
    /// Called once before the first frame: bring the game to the front and give it the focus if
    /// the focus mode allows.
    ///
    /// # Errors
    /// A message when the game cannot be made ready (the loop stops with `FocusLost`).
    fn prepare(&mut self) -> Result<(), String> {
        Ok(())
    }
    /// The board was found at `grid` (image pixels): watch it, and click there for focus.
    fn board_found(&mut self, _grid: Rect) {}
    /// What is above the game now.
    fn cover(&mut self, _board_has_2048: bool) -> Cover {
        Cover::Nothing
    }
    /// Closes the game's win dialog (gnome-2048: Escape, sent only to that dialog).
    ///
    /// # Errors
    /// A message when it could not be done safely.
    fn close_win_dialog(&mut self) -> Result<(), String> {
        Err("this game has no win dialog to close".into())
    }
    /// Clicks at `p` (image pixels) after the caller checked what is there ("Keep going").
    ///
    /// # Errors
    /// A message when it could not.
    fn click(&mut self, _p: (u32, u32)) -> Result<(), String> {
        Err("clicking is not available".into())
    }
    /// Tries to bring the game back on top after another window covered it; true when it did.
    fn uncover(&mut self) -> bool {
        false
    }
}

/// After a key, a frame still for this long (ms) is used at once when it reads as exactly the
/// mirror's afterstate plus one new 2 or 4 ([`SettleOptions::early_quiet_ms`]). Measured on the
/// real games, medians of key to used frame over runs of 150 moves: 2048-qt 144–146 ms at 5 ms
/// against 161–170 ms at 10 ms and 182 ms at 30 ms; gnome-2048 243–244 against 255 and 311 ms;
/// the web game 179–258 against 245–246 and 363 ms (it varies run to run). 0 desyncs and
/// 0 retries in all of them (1,200 moves at 5 ms).
pub const DEFAULT_EARLY_MS: u64 = 5;

/// Knobs of [`play`].
#[derive(Clone, Debug)]
pub struct PlayConfig {
    /// What to do at 2048.
    pub on_win: OnWin,
    /// Stop when a tile of this value appears.
    pub goal: Option<u32>,
    /// Stop after this many moves.
    pub max_moves: Option<u64>,
    /// Settle knobs (the region is set by the loop once the board is found).
    pub settle: SettleOptions,
    /// Re-reads after a read that disagrees with the mirror, before stopping.
    pub rereads: u32,
    /// Presses of the same key after it had no visible effect, before stopping.
    pub key_retries: u32,
    /// Print a progress line on stderr.
    pub progress: bool,
    /// Where to write frames and the log (`--record`).
    pub record: Option<PathBuf>,
    /// Where to write a dump on a desync when not recording (default: a new folder in the
    /// current directory).
    pub dump_dir: Option<PathBuf>,
    /// Set by Ctrl-C: stop before the next key.
    pub stop: Arc<AtomicBool>,
    /// The solver's budget for each decision.
    pub budget: Budget,
}

impl Default for PlayConfig {
    fn default() -> Self {
        PlayConfig {
            on_win: OnWin::Continue,
            goal: None,
            max_moves: None,
            settle: SettleOptions {
                early_quiet_ms: Some(DEFAULT_EARLY_MS),
                ..SettleOptions::default()
            },
            rereads: 4,
            key_retries: 3,
            progress: false,
            record: None,
            dump_dir: None,
            stop: Arc::new(AtomicBool::new(false)),
            budget: Budget::default(),
        }
    }
}

/// The end-of-game summary (`--json` prints it as one object).
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// Moves the bot made that the game took.
    pub moves: u64,
    /// Score made by the bot's merges (the game's score when it started from a fresh game).
    pub score: u64,
    /// Largest tile on the final board.
    pub max_tile: u32,
    /// Moves whose read after the key disagreed with the mirror (unreadable, or not the afterstate
    /// plus one new 2/4) on a frame that stayed the same when read again, or that ended in a
    /// desync stop. A disagreeing frame that turns out to be from inside an animation (the next
    /// capture differs) is only counted in `rereads`.
    pub desyncs: u64,
    /// Extra reads after a key: re-reads after a disagreeing, unreadable or mid-animation frame.
    pub rereads: u64,
    /// Keys pressed again because the first press had no visible effect.
    pub retries: u64,
    /// Moves per second over the whole run (from the first key to the last verified move).
    pub moves_per_sec: f64,
    /// Why the loop stopped.
    pub stop_reason: StopReason,
    /// The stop reason in words.
    pub message: String,
    /// Wall time of the run, seconds.
    pub elapsed_s: f64,
    /// Median time from a settled frame's capture to the key, ms.
    pub frame_to_key_ms: f64,
    /// Median time from the key to the settled frame after it, ms.
    pub key_to_settled_ms: f64,
    /// Median solver time, ms.
    pub solve_ms: f64,
    /// The mirror's final board, rows of values.
    pub final_board: [[u32; 4]; 4],
    /// Whether the last board read equals the mirror's final board.
    pub final_read_matches: bool,
    /// The win was passed (overlay or dialog handled) this many times.
    pub wins_continued: u32,
    /// Where a desync dump was written, if any.
    pub dump: Option<String>,
}

/// Converts a reading into a 4x4 read grid.
///
/// # Errors
/// A message when the grid is not 4x4.
pub fn read_grid(r: &Reading) -> Result<ReadGrid, String> {
    if r.grid.rows != 4 || r.grid.cols != 4 || r.cells.len() != 16 {
        return Err(format!(
            "the board is {}x{}; bot2048 plays 4x4 only",
            r.grid.rows, r.grid.cols
        ));
    }
    let mut g = [[None; 4]; 4];
    for (i, c) in r.cells.iter().enumerate() {
        g[i / 4][i % 4] = c.value;
    }
    Ok(g)
}

/// The grid rectangle of a reading, in image pixels.
pub fn grid_rect(r: &Reading) -> Rect {
    Rect {
        x: r.grid.x as i32,
        y: r.grid.y as i32,
        width: r.grid.width,
        height: r.grid.height,
    }
}

fn board_of(g: &ReadGrid) -> Option<Board> {
    let mut v = [[0u32; 4]; 4];
    for r in 0..4 {
        for c in 0..4 {
            v[r][c] = g[r][c]?;
        }
    }
    Board::from_values(v).ok()
}

fn grid_rows(g: &ReadGrid) -> Vec<Vec<Option<u32>>> {
    g.iter().map(|r| r.to_vec()).collect()
}

/// A recorded game played back: frames from files, keys recorded, no window.
pub struct ReplayGame {
    /// The frames.
    pub frames: capture::ReplaySource,
    /// The keys the loop pressed.
    pub keys: RecordingSink,
}

impl FrameSource for ReplayGame {
    fn next_frame(&mut self) -> Result<Frame, CaptureError> {
        self.frames.next_frame()
    }
    fn key_sent(&mut self) {
        self.frames.key_sent()
    }
}

impl KeySink for ReplayGame {
    fn press(&mut self, m: Move) -> Result<(), InputError> {
        self.keys.press(m)
    }
}

impl GameUi for ReplayGame {}

struct State<'a> {
    cfg: &'a PlayConfig,
    rec: Option<Recorder>,
    moves: u64,
    score: u64,
    desyncs: u64,
    rereads: u64,
    retries: u64,
    wins: u32,
    frame_to_key: Vec<f64>,
    key_to_settled: Vec<f64>,
    solve: Vec<f64>,
    first_key: Option<Instant>,
    last_move: Option<Instant>,
    started: Instant,
    dump: Option<String>,
    last_read: Option<ReadGrid>,
    last_frames: Vec<(String, image::RgbaImage)>,
}

enum Stop {
    Now(StopReason, String),
}

fn capture_stop(e: &CaptureError) -> StopReason {
    match e {
        CaptureError::WindowGone => StopReason::WindowGone,
        CaptureError::Occluded(_) | CaptureError::Minimized => StopReason::Covered,
        CaptureError::EndOfReplay => StopReason::EndOfReplay,
        _ => StopReason::Error,
    }
}

fn input_stop(e: &InputError) -> StopReason {
    match e {
        InputError::NotFocused { .. } => StopReason::FocusLost,
        InputError::UserMoved { .. } => StopReason::UserMoved,
        _ => StopReason::Error,
    }
}

impl State<'_> {
    fn remember_frame(&mut self, label: &str, img: &image::RgbaImage) {
        self.last_frames.push((label.to_string(), img.clone()));
        if self.last_frames.len() > 6 {
            self.last_frames.remove(0);
        }
    }

    fn log(&mut self, img: &image::RgbaImage, line: LogLine) {
        if let Some(r) = &mut self.rec {
            r.frame(img, line);
        }
    }

    fn progress(&self, board: Board) {
        if self.cfg.progress {
            let mps = self.moves_per_sec();
            eprint!(
                "\rmoves {:>5}  score {:>7}  max {:>6}  {:>5.2} moves/s  desyncs {}  retries {}   ",
                self.moves,
                self.score,
                board.max_value(),
                mps,
                self.desyncs,
                self.retries
            );
        }
    }

    fn moves_per_sec(&self) -> f64 {
        match (self.first_key, self.last_move) {
            (Some(a), Some(b)) if self.moves > 0 && b > a => {
                self.moves as f64 / b.duration_since(a).as_secs_f64()
            }
            _ => 0.0,
        }
    }

    /// Writes the desync dump: recent frames, expected and read boards.
    fn write_dump(
        &mut self,
        before: Board,
        expected: Board,
        read: &ReadGrid,
        why: &str,
    ) -> Option<String> {
        let dir = match (&self.rec, &self.cfg.dump_dir) {
            (Some(r), _) => r.dir().join("desync"),
            (None, Some(d)) => d.clone(),
            (None, None) => PathBuf::from(format!(
                "bot2048-desync-{}",
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_secs())
                    .unwrap_or(0)
            )),
        };
        std::fs::create_dir_all(&dir).ok()?;
        for (i, (label, img)) in self.last_frames.iter().enumerate() {
            let _ = img.save(dir.join(format!("{i:02}-{label}.png")));
        }
        let text = format!(
            "{why}\n\nboard before the move:\n{before}\nexpected (afterstate, before the spawn):\n{expected}\nread:\n{}\n",
            mirror::format_read(read)
        );
        let _ = std::fs::write(dir.join("desync.txt"), text);
        let json = serde_json::json!({
            "why": why,
            "before": before.to_values(),
            "expected": expected.to_values(),
            "read": grid_rows(read),
            "moves": self.moves,
        });
        let _ = std::fs::write(dir.join("desync.json"), json.to_string());
        Some(dir.display().to_string())
    }
}

/// Reads one settled frame; `Err(Stop)` when the loop must stop.
fn read_frame(reader: &mut Reader, frame: &Frame) -> Result<(Reading, ReadGrid), String> {
    let r = reader.read(&frame.image).map_err(|e| e.to_string())?;
    let g = read_grid(&r)?;
    Ok((r, g))
}

/// Plays until a stop reason; see the module doc.
pub fn play<T: FrameSource + KeySink + GameUi>(
    game: &mut T,
    reader: &mut Reader,
    solver: &mut dyn Solver,
    cfg: &PlayConfig,
) -> Summary {
    let rec = match &cfg.record {
        Some(dir) => match Recorder::create(dir) {
            Ok(r) => Some(r),
            Err(e) => {
                return finish(
                    State::new(cfg, None),
                    Board::EMPTY,
                    Stop::Now(
                        StopReason::Error,
                        format!("cannot create the recording in {}: {e}", dir.display()),
                    ),
                )
            }
        },
        None => None,
    };
    let mut st = State::new(cfg, rec);
    let mut board = Board::EMPTY;
    let stop = run(game, reader, solver, cfg, &mut st, &mut board);
    finish(st, board, stop)
}

impl<'a> State<'a> {
    fn new(cfg: &'a PlayConfig, rec: Option<Recorder>) -> State<'a> {
        State {
            cfg,
            rec,
            moves: 0,
            score: 0,
            desyncs: 0,
            rereads: 0,
            retries: 0,
            wins: 0,
            frame_to_key: Vec::new(),
            key_to_settled: Vec::new(),
            solve: Vec::new(),
            first_key: None,
            last_move: None,
            started: Instant::now(),
            dump: None,
            last_read: None,
            last_frames: Vec::new(),
        }
    }
}

fn finish(mut st: State<'_>, board: Board, stop: Stop) -> Summary {
    let Stop::Now(reason, message) = stop;
    if st.cfg.progress {
        st.progress(board);
        eprintln!();
    }
    let final_read_matches = st
        .last_read
        .is_some_and(|g| board != Board::EMPTY && mirror::same(board, &g));
    let s = Summary {
        moves: st.moves,
        score: st.score,
        max_tile: board.max_value(),
        desyncs: st.desyncs,
        rereads: st.rereads,
        retries: st.retries,
        moves_per_sec: st.moves_per_sec(),
        stop_reason: reason,
        message,
        elapsed_s: st.started.elapsed().as_secs_f64(),
        frame_to_key_ms: stats::median(&mut st.frame_to_key),
        key_to_settled_ms: stats::median(&mut st.key_to_settled),
        solve_ms: stats::median(&mut st.solve),
        final_board: board.to_values(),
        final_read_matches,
        wins_continued: st.wins,
        dump: st.dump.clone(),
    };
    if let Some(mut r) = st.rec.take() {
        if let Err(e) = r.finish(&s) {
            eprintln!("bot2048: warning: the recording is incomplete: {e}");
        }
    }
    s
}

/// Settles, mapping a covered game to what covers it.
fn settle_frame<T: FrameSource + KeySink + GameUi>(
    game: &mut T,
    opts: &SettleOptions,
    has_2048: bool,
) -> Result<capture::Settled, (CaptureError, Cover)> {
    settle_frame_until(game, opts, has_2048, &mut |_| false)
}

/// As [`settle_frame`], with an early-accept check (see [`capture::settle::settle_until`]).
fn settle_frame_until<T: FrameSource + KeySink + GameUi>(
    game: &mut T,
    opts: &SettleOptions,
    has_2048: bool,
    accept: &mut dyn FnMut(&Frame) -> bool,
) -> Result<capture::Settled, (CaptureError, Cover)> {
    match capture::settle::settle_until(game, opts, accept) {
        Ok(s) => Ok(s),
        Err(e @ CaptureError::Occluded(_)) => {
            let c = game.cover(has_2048);
            if matches!(c, Cover::OtherWindow(_)) && game.uncover() {
                return capture::settle::settle_until(game, opts, accept)
                    .map_err(|e| (e, Cover::Nothing));
            }
            Err((e, c))
        }
        Err(e) => Err((e, Cover::Nothing)),
    }
}

/// Quiet window (ms) that confirms a key had no effect when the frame before it was accepted
/// early: long enough that a redraw stalled mid-slide is not taken for a dropped key.
pub const CONFIRM_QUIET_MS: u64 = 300;

/// Colour of the web game's "Keep going" button (`#8f7a66`), and where it sits relative to the
/// grid (fractions of the grid's width and height from its top-left), measured on the classic web
/// game's "You win!" overlay.
const KEEP_GOING_RGB: [u8; 3] = [0x8f, 0x7a, 0x66];
const KEEP_GOING_AT: (f32, f32) = (0.369, 0.738);

/// After the 2048 tile appeared with `--on-win continue`: waits for the game's win UI (the web
/// overlay fades in 1.2–2 s after the move; gnome-2048 opens a dialog) and passes it. Returns the
/// board read afterwards.
fn pass_win<T: FrameSource + KeySink + GameUi>(
    game: &mut T,
    reader: &mut Reader,
    st: &mut State<'_>,
    board: Board,
    grid: Rect,
) -> Result<(), Stop> {
    let start = Instant::now();
    let mut handled = false;
    let quiet = SettleOptions {
        changed_from: None,
        ..st.cfg.settle.clone()
    };
    loop {
        let waited = start.elapsed().as_millis();
        if st.cfg.stop.load(Ordering::SeqCst) {
            return Err(Stop::Now(
                StopReason::Interrupted,
                "interrupted (Ctrl-C)".into(),
            ));
        }
        if waited > 6000 {
            return Err(Stop::Now(
                StopReason::GameDialog,
                "the win screen could not be passed within 6 s".into(),
            ));
        }
        match settle_frame(game, &quiet, true) {
            Err((_, Cover::WinDialog(t))) => {
                game.close_win_dialog().map_err(|e| {
                    Stop::Now(
                        StopReason::GameDialog,
                        format!("cannot close the win dialog `{t}`: {e}"),
                    )
                })?;
                handled = true;
                std::thread::sleep(std::time::Duration::from_millis(150));
            }
            Err((_, Cover::Nothing)) if waited < 3000 => {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            Err((e, c)) => return Err(cover_stop(e, c)),
            Ok(s) => {
                let read = reader.read(&s.frame.image);
                match read {
                    Ok(r) if r.status == BoardStatus::Won => {
                        let (x, y) = (
                            grid.x as f32 + KEEP_GOING_AT.0 * grid.width as f32,
                            grid.y as f32 + KEEP_GOING_AT.1 * grid.height as f32,
                        );
                        let (x, y) = (x.round() as u32, y.round() as u32);
                        let ok = x < s.frame.image.width() && y < s.frame.image.height() && {
                            let p = s.frame.image.get_pixel(x, y).0;
                            (0..3).all(|i| p[i].abs_diff(KEEP_GOING_RGB[i]) <= 24)
                        };
                        if !ok {
                            return Err(Stop::Now(
                                StopReason::GameDialog,
                                "the game shows a win screen without a \"Keep going\" button where expected".into(),
                            ));
                        }
                        game.click((x, y)).map_err(|e| {
                            Stop::Now(
                                StopReason::Error,
                                format!("cannot click \"Keep going\": {e}"),
                            )
                        })?;
                        handled = true;
                        std::thread::sleep(std::time::Duration::from_millis(200));
                    }
                    Ok(r) if r.status == BoardStatus::Ok && (handled || waited > 2600) => {
                        if let Ok(g) = read_grid(&r) {
                            if mirror::same(board, &g) {
                                st.wins += 1;
                                return Ok(());
                            }
                        }
                        std::thread::sleep(std::time::Duration::from_millis(50));
                    }
                    _ => std::thread::sleep(std::time::Duration::from_millis(50)),
                }
            }
        }
    }
}

/// Before stopping for a read or focus problem: if the window is gone (closed while a frame was
/// being read, or just before a key), say so instead.
fn gone_or<T: FrameSource>(game: &mut T, stop: Stop) -> Stop {
    match game.next_frame() {
        Err(CaptureError::WindowGone) => {
            Stop::Now(StopReason::WindowGone, CaptureError::WindowGone.to_string())
        }
        _ => stop,
    }
}

fn cover_stop(e: CaptureError, c: Cover) -> Stop {
    match c {
        Cover::GameOverDialog(t) => Stop::Now(
            StopReason::GameOver,
            format!("game over (the game opened `{t}`)"),
        ),
        Cover::WinDialog(t) => Stop::Now(
            StopReason::Won,
            format!("the game shows its win dialog `{t}`"),
        ),
        Cover::GameDialog(t) => Stop::Now(
            StopReason::GameDialog,
            format!("a dialog of the game is open (`{t}`); bot2048 does not press keys into it"),
        ),
        Cover::OtherWindow(t) => Stop::Now(
            StopReason::Covered,
            format!("another window covers the game: `{t}`"),
        ),
        Cover::Nothing => Stop::Now(capture_stop(&e), e.to_string()),
    }
}

/// A read after a key disagreed with the mirror on the frame whose board region hashes to
/// `hash`. It counts as a desync (once per move) when the same pixels disagree again: a frame from
/// inside an animation is only re-read.
fn note_disagreement(
    st: &mut State<'_>,
    bad_hash: &mut Option<u64>,
    desynced: &mut bool,
    hash: u64,
) {
    if *bad_hash == Some(hash) && !*desynced {
        st.desyncs += 1;
        *desynced = true;
    }
    *bad_hash = Some(hash);
}

fn run<T: FrameSource + KeySink + GameUi>(
    game: &mut T,
    reader: &mut Reader,
    solver: &mut dyn Solver,
    cfg: &PlayConfig,
    st: &mut State<'_>,
    board_out: &mut Board,
) -> Stop {
    match run_inner(game, reader, solver, cfg, st, board_out) {
        Ok(s) | Err(s) => s,
    }
}

fn run_inner<T: FrameSource + KeySink + GameUi>(
    game: &mut T,
    reader: &mut Reader,
    solver: &mut dyn Solver,
    cfg: &PlayConfig,
    st: &mut State<'_>,
    board_out: &mut Board,
) -> Result<Stop, Stop> {
    game.prepare()
        .map_err(|e| Stop::Now(StopReason::FocusLost, e))?;
    // ---- the start board: settled and read completely
    let mut opts = cfg.settle.clone();
    let mut start: Option<(Board, Reading, capture::Settled)> = None;
    let mut why = String::new();
    // until the board is found, black outside it (a --region reaching past the window, a window
    // larger than its board) is no cover: the black check applies to the grid once it is known
    let whole = SettleOptions {
        max_black: 1.0,
        ..opts.clone()
    };
    for _ in 0..=cfg.rereads {
        let s = settle_frame(game, &whole, false).map_err(|(e, c)| cover_stop(e, c))?;
        match read_frame(reader, &s.frame) {
            Ok((r, g)) => {
                st.last_read = Some(g);
                if let Err(e) =
                    capture::check_not_covered(&s.frame.image, Some(grid_rect(&r)), opts.max_black)
                {
                    return Err(cover_stop(e, game.cover(false)));
                }
                if r.status == BoardStatus::GameOver {
                    return Err(Stop::Now(
                        StopReason::GameOver,
                        "the game shows game over".into(),
                    ));
                }
                if let Some(b) = board_of(&g) {
                    if r.status == BoardStatus::Won && cfg.on_win == OnWin::Stop {
                        *board_out = b;
                        return Err(Stop::Now(
                            StopReason::Won,
                            "the game shows its win screen".into(),
                        ));
                    }
                    start = Some((b, r, s));
                    break;
                }
                why = format!("cells unreadable: {:?}", r.unreadable_cells());
            }
            Err(e) => {
                why = e;
                reader.forget_grid();
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let Some((mut board, reading, settled)) = start else {
        return Err(Stop::Now(
            StopReason::Unreadable,
            format!("cannot read the start board: {why}"),
        ));
    };
    *board_out = board;
    let grid = grid_rect(&reading);
    game.board_found(grid);
    opts.region = Some(grid);
    let mut frame = settled.frame;
    let mut frame_hash = capture::settle::region_hash(&frame.image, opts.region);
    // the reference frame was accepted before the board was quiet for `quiet_ms` (the game may
    // still have been animating the spawned tile when the next key went out)
    let mut frame_early = false;
    st.remember_frame("start", &frame.image);
    let mut line = LogLine {
        seq: 0,
        moves: 0,
        event: "start".into(),
        read: grid_rows(&st.last_read.unwrap_or([[None; 4]; 4])),
        expected: None,
        chosen: None,
        values: None,
        nodes: None,
        depth: None,
        solve_ms: None,
        settle_ms: settled.waited_ms,
        frame_to_key_ms: None,
        retries: 0,
        rereads: 0,
    };
    if reading.status == BoardStatus::Won && cfg.on_win == OnWin::Continue {
        pass_win(game, reader, st, board, grid)?;
    }
    let mut has_2048 = board.max_value() >= 2048;
    let mut win_passed = has_2048;

    loop {
        st.progress(board);
        if cfg.stop.load(Ordering::SeqCst) {
            st.log(&frame.image, line);
            return Ok(Stop::Now(
                StopReason::Interrupted,
                "interrupted (Ctrl-C)".into(),
            ));
        }
        if let Some(g) = cfg.goal {
            if board.max_value() >= g {
                st.log(&frame.image, line);
                return Ok(Stop::Now(
                    StopReason::Goal,
                    format!("the goal tile {g} is on the board"),
                ));
            }
        }
        if cfg.max_moves.is_some_and(|n| st.moves >= n) {
            st.log(&frame.image, line);
            return Ok(Stop::Now(
                StopReason::MaxMoves,
                format!("{} moves made (--max-moves)", st.moves),
            ));
        }
        let d: Decision = match solver.decide(&AnyBoard::Four(board), &cfg.budget) {
            Ok(d) => d,
            Err(e) => {
                st.log(&frame.image, line);
                return Err(Stop::Now(StopReason::Error, e.to_string()));
            }
        };
        if d.stopped {
            st.log(&frame.image, line);
            return Ok(Stop::Now(
                StopReason::Interrupted,
                "interrupted (Ctrl-C)".into(),
            ));
        }
        st.solve.push(d.elapsed_ms);
        line.chosen = d.best.map(|m| m.to_string());
        line.values = Some(d.values);
        line.nodes = Some(d.nodes);
        line.depth = Some(d.depth);
        line.solve_ms = Some(d.elapsed_ms);
        let Some(m) = d.best else {
            st.log(&frame.image, line);
            return Ok(Stop::Now(
                StopReason::GameOver,
                "game over: no legal move".into(),
            ));
        };
        let Some((after, gained)) = board.apply(m) else {
            st.log(&frame.image, line);
            return Err(Stop::Now(
                StopReason::Error,
                format!("the solver chose the illegal move {m}"),
            ));
        };

        // ---- press, settle, verify; retry a dropped key, re-read a disagreeing one
        let mut presses = 0u32;
        let mut rereads = 0u32;
        opts.quiet_ms = cfg.settle.quiet_ms;
        let mut desynced = false;
        let mut bad_hash: Option<u64> = None;
        let mut need_press = true;
        loop {
            if need_press {
                if cfg.stop.load(Ordering::SeqCst) {
                    st.log(&frame.image, line);
                    return Ok(Stop::Now(
                        StopReason::Interrupted,
                        "interrupted (Ctrl-C)".into(),
                    ));
                }
                let t = Instant::now();
                if let Err(e) = game.press(m) {
                    st.log(&frame.image, line);
                    // a window that vanished takes the focus with it: say which
                    return Err(gone_or(game, Stop::Now(input_stop(&e), e.to_string())));
                }
                if presses == 0 {
                    let ms = t.duration_since(frame.taken_at).as_secs_f64() * 1000.0;
                    line.frame_to_key_ms = Some(ms);
                    st.frame_to_key.push(ms);
                    st.log(&frame.image, line.clone());
                }
                st.first_key.get_or_insert(t);
                game.key_sent();
                presses += 1;
                need_press = false;
                opts.changed_from = Some(frame_hash);
            } else {
                opts.changed_from = None;
            }
            if !need_press && presses > 0 && opts.changed_from.is_none() {
                st.rereads += 1;
            }
            let key_time = Instant::now();
            let coming_2048 = has_2048 || after.max_value() >= 2048;
            let mut early = |f: &Frame| {
                reader
                    .read(&f.image)
                    .ok()
                    .and_then(|r| read_grid(&r).ok())
                    .is_some_and(|g| {
                        matches!(mirror::compare(board, after, &g), Verdict::Spawned { .. })
                    })
            };
            let s = match settle_frame_until(game, &opts, coming_2048, &mut early) {
                Ok(s) => s,
                Err((_, Cover::WinDialog(t))) if cfg.on_win == OnWin::Continue && !win_passed => {
                    // gnome-2048 opens its win dialog as soon as the 2048 tile lands
                    game.close_win_dialog().map_err(|e| {
                        Stop::Now(
                            StopReason::GameDialog,
                            format!("cannot close the win dialog `{t}`: {e}"),
                        )
                    })?;
                    st.wins += 1;
                    win_passed = true;
                    continue;
                }
                Err((_, Cover::WinDialog(t)))
                    if cfg.on_win == OnWin::Stop && !has_2048 && after.max_value() >= 2048 =>
                {
                    // the dialog proves the key made the 2048: the move counts, and its new tile
                    // (under the dialog) is the one thing the mirror does not know
                    st.moves += 1;
                    st.score += gained;
                    *board_out = after;
                    return Ok(Stop::Now(
                        StopReason::Won,
                        format!(
                            "the 2048 tile is on the board and the game shows its win dialog `{t}` (--on-win stop); the new tile under the dialog was not read"
                        ),
                    ));
                }
                Err((e, c)) => return Err(cover_stop(e, c)),
            };
            if s.timed_out {
                rereads += 1;
                if rereads > cfg.rereads {
                    return Err(gone_or(
                        game,
                        Stop::Now(
                            StopReason::Unsettled,
                            "the board never stopped changing".into(),
                        ),
                    ));
                }
                continue;
            }
            let read = read_frame(reader, &s.frame);
            st.remember_frame(
                &format!("move{}-read{}", st.moves + 1, presses + rereads),
                &s.frame.image,
            );
            let g = match read {
                Ok((r, g)) => {
                    if r.status == BoardStatus::GameOver && board_of(&g).is_none() {
                        return Ok(Stop::Now(
                            StopReason::GameOver,
                            "the game shows game over".into(),
                        ));
                    }
                    g
                }
                Err(e) => {
                    note_disagreement(st, &mut bad_hash, &mut desynced, s.hash);
                    rereads += 1;
                    reader.forget_grid();
                    if rereads > cfg.rereads {
                        return Err(gone_or(
                            game,
                            Stop::Now(
                                StopReason::Unreadable,
                                format!("cannot read the board: {e}"),
                            ),
                        ));
                    }
                    continue;
                }
            };
            st.last_read = Some(g);
            match mirror::compare(board, after, &g) {
                Verdict::Spawned { board: next, .. } => {
                    st.key_to_settled
                        .push(s.frame.taken_at.duration_since(key_time).as_secs_f64() * 1000.0);
                    board = next;
                    *board_out = board;
                    st.moves += 1;
                    st.score += gained;
                    st.last_move = Some(s.frame.taken_at);
                    frame_hash = s.hash;
                    frame_early = s.early;
                    frame = s.frame;
                    line = LogLine {
                        seq: 0,
                        moves: st.moves,
                        event: "spawned".into(),
                        read: grid_rows(&g),
                        expected: Some(after.to_values()),
                        chosen: None,
                        values: None,
                        nodes: None,
                        depth: None,
                        solve_ms: None,
                        settle_ms: s.waited_ms,
                        frame_to_key_ms: None,
                        retries: presses - 1,
                        rereads,
                    };
                    break;
                }
                Verdict::Unchanged if s.hash != frame_hash && frame_early => {
                    // the frame before the key was taken while the spawned tile was still
                    // popping, so a board that ended its animation differs from it even when
                    // the key was dropped. This settled frame becomes the reference; if the
                    // board then stays exactly so for a longer quiet window and still reads as
                    // before, the key had no effect (the branch below presses again).
                    rereads += 1;
                    frame_hash = s.hash;
                    frame_early = false;
                    opts.quiet_ms = opts.quiet_ms.max(CONFIRM_QUIET_MS);
                }
                Verdict::Unchanged if s.hash != frame_hash => {
                    // the board region differs from the frame before the key, yet reads as the
                    // old board: a frame from inside the animation (a stalled redraw). Read
                    // again; pressing again here could make two moves.
                    rereads += 1;
                    if rereads > cfg.rereads {
                        return Err(gone_or(
                            game,
                            Stop::Now(
                                StopReason::Unsettled,
                                format!(
                                "after the key {m} the board changed but kept reading as before"
                            ),
                            ),
                        ));
                    }
                }
                Verdict::Unchanged => {
                    if presses > cfg.key_retries {
                        return Err(Stop::Now(
                            StopReason::KeyNoEffect,
                            format!("the key {m} had no effect after {presses} presses"),
                        ));
                    }
                    st.retries += 1;
                    frame_hash = s.hash;
                    need_press = true;
                }
                Verdict::Desync(diff) => {
                    note_disagreement(st, &mut bad_hash, &mut desynced, s.hash);
                    rereads += 1;
                    // the remembered grid may have been taken from a mid-animation frame
                    reader.forget_grid();
                    if rereads > cfg.rereads {
                        let why = format!(
                            "desync after {} moves, key {m}: the board read is not the expected board plus one new 2 or 4; cells (row, col, expected, read): {diff:?}",
                            st.moves
                        );
                        st.dump = st.write_dump(board, after, &g, &why);
                        let msg = match &st.dump {
                            Some(d) => format!("{why}; dump in {d}"),
                            None => why,
                        };
                        if !desynced {
                            st.desyncs += 1;
                        }
                        return Err(gone_or(game, Stop::Now(StopReason::Desync, msg)));
                    }
                    std::thread::sleep(std::time::Duration::from_millis(30));
                }
            }
        }
        if !has_2048 && board.max_value() >= 2048 {
            has_2048 = true;
            match cfg.on_win {
                OnWin::Stop => {
                    st.log(&frame.image, line);
                    return Ok(Stop::Now(
                        StopReason::Won,
                        "the 2048 tile is on the board (--on-win stop)".into(),
                    ));
                }
                OnWin::Continue if win_passed => {}
                OnWin::Continue => {
                    pass_win(game, reader, st, board, grid)?;
                    win_passed = true;
                    // the frame after passing the win screen is the new reference
                    let s = settle_frame(
                        game,
                        &SettleOptions {
                            changed_from: None,
                            ..opts.clone()
                        },
                        true,
                    )
                    .map_err(|(e, c)| cover_stop(e, c))?;
                    frame_hash = s.hash;
                    frame = s.frame;
                }
            }
        }
    }
}
