//! The loop itself: the start board, the solver built for its shape, then per move the checks
//! before the key (Ctrl-C, goal, max moves), the decision, the move ([`super::turn`]) and the win.
use super::cover::{settle_frame, GameUi};
use super::dump::RecentFrames;
use super::mirror::ReadGrid;
use super::ponder::{self, AnimationClock};
use super::record::{LogEvent, LogLine, Recorder};
use super::start::{self, Start};
use super::stop::{cover_stop, Stop, StopReason};
use super::summary::{BoardMove, Summary, Tally};
use super::turn::{self, Accepted, Planned, Reference, Turn};
use super::win::{self, OnWin, WinState};
use super::{board_moved, grid_rect, PlayConfig, SolverFor};
use crate::capture::{settle::region_hash, FrameSource, Rect, SettleOptions};
use crate::engine::{AnyBoard, Position};
use crate::input::KeySink;
use crate::solver::{Decision, PonderReport, Solver};
use crate::vision::{BoardStatus, Reader};
use std::convert::Infallible;
use std::sync::atomic::Ordering;

/// The state of one run: the knobs, the recording, the counts, the mirror and what was read.
pub(super) struct Run<'a> {
    pub cfg: &'a PlayConfig,
    pub rec: Option<Recorder>,
    pub tally: Tally,
    /// The mirror's board; `None` until the start board is read.
    pub board: Option<AnyBoard>,
    /// The last board read.
    pub last_read: Option<ReadGrid>,
    /// The latest frames read, for a desync dump.
    pub frames: RecentFrames,
    /// Where a desync dump was written.
    pub dump: Option<String>,
}

impl<'a> Run<'a> {
    /// A run with nothing done yet.
    pub fn new(cfg: &'a PlayConfig, rec: Option<Recorder>) -> Run<'a> {
        Run {
            cfg,
            rec,
            tally: Tally::new(),
            board: None,
            last_read: None,
            frames: RecentFrames::default(),
            dump: None,
        }
    }

    /// Records `img` with `line` (when recording).
    pub fn log(&mut self, img: &image::RgbaImage, line: LogLine) {
        if let Some(r) = &mut self.rec {
            r.frame(img, line);
        }
    }

    /// Logs that the win screen was passed (when recording).
    pub fn log_win_passed(&mut self) {
        let moves = self.tally.moves;
        if let Some(r) = &mut self.rec {
            let after_seq = r.last_seq();
            r.event(&LogEvent::WinPassed { moves, after_seq });
        }
    }

    /// Hands a note to [`PlayConfig::notes`], if any.
    pub fn note(&self, line: &str) {
        if let Some(sink) = &self.cfg.notes {
            sink.send(line);
        }
    }

    /// Hands the progress line to [`PlayConfig::progress`], if any.
    fn progress(&self) {
        if let Some(sink) = &self.cfg.progress {
            sink.send(&self.tally.progress_line(self.board.as_ref()));
        }
    }

    /// The summary of the run that ended with `stop`; finishes the recording (a failure to is
    /// [`Summary::recording_error`]).
    pub fn finish(mut self, stop: Stop) -> Summary {
        self.progress();
        let mut rec = self.rec.take();
        let mut capped = None;
        if let Some(r) = &mut rec {
            r.event(&LogEvent::Stop {
                moves: self.tally.moves,
                reason: stop.reason.clone(),
                message: stop.message.clone(),
            });
            capped = r.close();
        }
        let mut s = self.tally.summary(
            self.board.as_ref(),
            self.last_read.as_ref(),
            stop,
            self.dump,
        );
        s.frames_capped_from = capped;
        if let Some(r) = &mut rec {
            if let Err(e) = r.finish(&s) {
                s.recording_error = Some(e);
            }
        }
        s
    }
}

/// Plays until a stop reason; returns it (the `Ok` side cannot happen).
pub(super) fn play_on<T: FrameSource + KeySink + GameUi>(
    game: &mut T,
    reader: &mut Reader,
    solver_for: &mut SolverFor<'_>,
    run: &mut Run<'_>,
) -> Result<Infallible, Stop> {
    game.prepare()
        .map_err(|e| Stop::new(StopReason::FocusLost, e.to_string()))?;
    let start = start::read_start(game, reader, run)?;
    let mut grid = grid_rect(&start.reading);
    game.board_found(grid);
    let mut opts = SettleOptions {
        region: Some(grid),
        ..run.cfg.settle.clone()
    };
    let (mut here, mut line) = begin(run, &start, &opts);
    let mut board = start.board;
    run.board = Some(board);
    if let Some(stop) = goal_out_of_reach(run.cfg.goal, &board) {
        return Err(stop_here(run, &here, line, stop));
    }
    let mut solver = solver_for(board.shape()).map_err(|e| {
        let why = format!("no solver for the {} board: {e}", board.shape());
        stop_here(run, &here, line.clone(), Stop::new(StopReason::Error, why))
    })?;
    if start.reading.status == BoardStatus::Won && run.cfg.on_win == OnWin::Continue {
        pass_and_log_win_screen(game, reader, run, &board, grid)?;
    }
    let mut win = WinState::at_start(&board, run.cfg.win_tile);
    let mut clock = AnimationClock::default();
    loop {
        run.progress();
        if let Some(stop) = before_move(run, &board) {
            return Err(stop_here(run, &here, line, stop));
        }
        let plan = match decide(solver.as_mut(), run, board, &mut line) {
            Ok(plan) => plan,
            Err(stop) => return Err(stop_here(run, &here, line, stop)),
        };
        let t = Turn {
            here: &here,
            plan: &plan,
            opts: &opts,
            spawn_wait_ms: clock.spawn_wait_ms(),
            grid,
        };
        let ponder_ms = clock.ponder_ms(run.cfg.ponder);
        let (acc, report) = ponder::during(solver.as_mut(), &plan.after, ponder_ms, || {
            turn::play_move(game, reader, run, &t, &mut win, &mut line)
        });
        let acc = acc?;
        board = acc.board;
        let now_at = acc.grid;
        (here, line) = accept(run, &plan, acc);
        if board_moved(grid, now_at) {
            moved(game, run, (grid, now_at), &mut opts, &mut here);
            grid = now_at;
        }
        if let Some(ms) = run.tally.key_to_settled.last() {
            clock.push(*ms);
        }
        if let Some(r) = report {
            pondered(run, &r, &mut line);
        }
        if win.made_by(board.max_value()) {
            win.has_win_tile = true;
            if let Some(s) = on_first_win_tile(game, reader, run, &mut win, &board, &opts, grid)? {
                here.hash = s.hash;
                here.frame = s.frame;
            }
            if run.cfg.on_win == OnWin::Stop {
                let stop = Stop::new(
                    StopReason::Won,
                    format!("the {} tile is on the board (--on-win stop)", win.tile),
                );
                return Err(stop_here(run, &here, line, stop));
            }
        }
    }
}

/// The reference frame and log line of the start board.
fn begin(run: &mut Run<'_>, start: &Start, opts: &SettleOptions) -> (Reference, LogLine) {
    let frame = start.settled.frame.clone();
    run.frames.push("start", &frame.image);
    let here = Reference {
        hash: region_hash(&frame.image, opts.region),
        frame,
        early: false,
    };
    let read = run.last_read.as_ref().map_or_else(Vec::new, ReadGrid::rows);
    let line = LogLine::new(0, "start", read, None, start.settled.waited_ms);
    (here, line)
}

/// Logs the reference frame with its line, and hands `stop` back.
fn stop_here(run: &mut Run<'_>, here: &Reference, line: LogLine, stop: Stop) -> Stop {
    run.log(&here.frame.image, line);
    stop
}

/// The stop before any key when `--goal` cannot be made on `board`'s shape (a power of two above
/// its largest tile).
fn goal_out_of_reach(goal: Option<u64>, board: &AnyBoard) -> Option<Stop> {
    let g = goal?;
    let shape = board.shape();
    crate::engine::goal_exponent(shape, g).err().map(|e| {
        Stop::new(
            StopReason::Error,
            format!("--goal {g} cannot be reached on the {shape} board: {e}"),
        )
    })
}

/// The stop before the next key, if any: Ctrl-C, the goal tile, `--max-moves`.
fn before_move(run: &Run<'_>, board: &AnyBoard) -> Option<Stop> {
    let cfg = run.cfg;
    if cfg.stop.load(Ordering::SeqCst) {
        return Some(Stop::interrupted());
    }
    if let Some(g) = cfg.goal.filter(|&g| board.max_value() >= g) {
        return Some(Stop::new(
            StopReason::Goal,
            format!("reached the goal: the tile {g} is on the board (--goal)"),
        ));
    }
    if cfg.max_moves.is_some_and(|n| run.tally.moves >= n) {
        return Some(Stop::new(
            StopReason::MaxMoves,
            format!(
                "reached --max-moves {} ({} moves made)",
                cfg.max_moves.unwrap_or(0),
                run.tally.moves
            ),
        ));
    }
    None
}

/// Asks the solver for the move on `board`; fills `line` with the decision.
///
/// # Errors
/// The stop: the solver failed, Ctrl-C cut it short, no legal move is left, or it chose an
/// illegal move.
fn decide(
    solver: &mut dyn Solver,
    run: &mut Run<'_>,
    board: AnyBoard,
    line: &mut LogLine,
) -> Result<Planned, Stop> {
    let d: Decision = solver
        .decide(&board, &run.cfg.budget)
        .map_err(|e| Stop::new(StopReason::Error, format!("the solver failed: {e}")))?;
    if d.stopped {
        return Err(Stop::interrupted());
    }
    run.tally.solve.push(d.elapsed_ms);
    run.tally.decide_nodes.push(d.nodes as f64);
    run.tally.decide_depth.push(f64::from(d.work));
    line.chosen = d.best.map(|m| m.to_string());
    line.values = Some(d.values);
    line.nodes = Some(d.nodes);
    line.depth = Some(d.work);
    line.solve_ms = Some(d.elapsed_ms);
    let Some(key) = d.best else {
        return Err(Stop::new(StopReason::GameOver, "game over: no legal move"));
    };
    let Some((after, gained)) = board.apply(key) else {
        return Err(Stop::new(
            StopReason::Error,
            format!("the solver chose the illegal move {key}"),
        ));
    };
    Ok(Planned {
        key,
        before: board,
        after,
        gained,
    })
}

/// Counts what pondering did during the move that led to `line`'s frame, and logs it there.
fn pondered(run: &mut Run<'_>, r: &PonderReport, line: &mut LogLine) {
    let t = &mut run.tally;
    t.ponder_ms.push(r.elapsed_ms);
    t.ponder_nodes.push(r.nodes as f64);
    // a ponder that completed no depth counts, and is logged, as depth 0
    let depth = r.depth.unwrap_or(0);
    t.ponder_depth.push(f64::from(depth));
    line.ponder_ms = Some(r.elapsed_ms);
    line.ponder_nodes = Some(r.nodes);
    line.ponder_depth = Some(depth);
}

/// Counts the accepted move; returns the new reference frame and its log line.
fn accept(run: &mut Run<'_>, plan: &Planned, acc: Accepted) -> (Reference, LogLine) {
    let s = acc.settled;
    let t = &mut run.tally;
    t.key_to_settled.push(
        s.frame
            .taken_at
            .duration_since(acc.wait_began)
            .as_secs_f64()
            * 1000.0,
    );
    t.moves += 1;
    t.score += plan.gained;
    t.last_move = Some(s.frame.taken_at);
    run.board = Some(acc.board);
    let mut line = LogLine::new(
        t.moves,
        "spawned",
        acc.read.rows(),
        Some(plan.after.rows()),
        s.waited_ms,
    );
    line.retries = acc.retries;
    line.rereads = acc.rereads;
    let here = Reference {
        hash: s.hash,
        early: s.early,
        frame: s.frame,
    };
    (here, line)
}

/// The board was read at another place (`from` → `to`, image pixels) on the frame of the move
/// just accepted (issue 24): counts it, says so, logs it, and watches the new place from now on
/// (the settle region `opts`, the game's watch for covers and its click point, the reference
/// frame's hash `here`).
fn moved<T: GameUi>(
    game: &mut T,
    run: &mut Run<'_>,
    (from, to): (Rect, Rect),
    opts: &mut SettleOptions,
    here: &mut Reference,
) {
    let moves = run.tally.moves.saturating_sub(1);
    run.note(&format!(
        "the board moved in its window after move {}: from {},{} ({}x{}) to {},{} ({}x{}), image pixels; play goes on there",
        moves + 1,
        from.x,
        from.y,
        from.width,
        from.height,
        to.x,
        to.y,
        to.width,
        to.height
    ));
    if let Some(rec) = &mut run.rec {
        rec.event(&LogEvent::BoardMoved { moves, from, to });
    }
    run.tally.board_moves.push(BoardMove { moves, from, to });
    game.board_found(to);
    opts.region = Some(to);
    here.hash = region_hash(&here.frame.image, opts.region);
}

/// Passes the win screen with `--on-win continue` ([`win::pass_win_screen`]), counts it and
/// logs it.
fn pass_and_log_win_screen<T: FrameSource + KeySink + GameUi>(
    game: &mut T,
    reader: &mut Reader,
    run: &mut Run<'_>,
    board: &AnyBoard,
    grid: Rect,
) -> Result<(), Stop> {
    win::pass_win_screen(game, reader, &run.cfg.settle, &run.cfg.stop, board, grid)?;
    run.tally.wins += 1;
    run.log_win_passed();
    Ok(())
}

/// The first win tile is on the mirror's `board`: with `--on-win continue` and the win screen not
/// passed yet, passes it and returns the frame after it (the new reference); otherwise `None`.
fn on_first_win_tile<T: FrameSource + KeySink + GameUi>(
    game: &mut T,
    reader: &mut Reader,
    run: &mut Run<'_>,
    win: &mut WinState,
    board: &AnyBoard,
    opts: &SettleOptions,
    grid: Rect,
) -> Result<Option<crate::capture::Settled>, Stop> {
    if run.cfg.on_win == OnWin::Stop || win.passed {
        return Ok(None);
    }
    pass_and_log_win_screen(game, reader, run, board, grid)?;
    win.passed = true;
    let quiet = SettleOptions {
        changed_from: None,
        ..opts.clone()
    };
    settle_frame(game, &quiet, true)
        .map(Some)
        .map_err(|(e, c)| cover_stop(e, c))
}
