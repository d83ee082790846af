//! The end-of-game [`Summary`] and the running counts it is made from ([`Tally`]).
use super::mirror::{self, ReadGrid};
use super::stop::{Stop, StopReason};
use crate::capture::Rect;
use crate::engine::{AnyBoard, Position, Shape};
use crate::stats;
use crate::vision::TileLesson;
use serde::Serialize;
use std::time::Instant;

/// The end-of-game summary (`--json` prints it as one object).
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// Moves the bot made that the game took.
    pub moves: u64,
    /// Score made by the bot's merges (the game's score when it started from a fresh game).
    pub score: u64,
    /// Largest tile on the final board (0 when no board was read).
    pub max_tile: u64,
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
    /// Median solver time, ms (the decision after the frame was read).
    pub solve_ms: f64,
    /// Median time pondered per move before the frame was read, ms (0 without pondering).
    pub ponder_ms: f64,
    /// Median nodes searched while pondering, per move.
    pub ponder_nodes: f64,
    /// Median depth pondering made ready for every likeliest spawn, per move.
    pub ponder_depth: f64,
    /// Median nodes the decision searched after the frame was read.
    pub decide_nodes: f64,
    /// Median depth of the decisions (moves beyond the root move), pondered depths included.
    pub decide_depth: f64,
    /// The mirror's final board, rows of values (`final_board[r][c]`, 0 = empty); empty when no
    /// board was read.
    pub final_board: Vec<Vec<u64>>,
    /// Whether the last board read equals the mirror's final board.
    pub final_read_matches: bool,
    /// The win was passed (overlay or dialog handled) this many times.
    pub wins_continued: u32,
    /// Where a desync dump was written, if any.
    pub dump: Option<String>,
    /// With `--record-max-mb`: the first frame not saved because the cap was reached (`null`:
    /// every frame was saved, or no recording).
    pub frames_capped_from: Option<u64>,
    /// With `--record`: why the recording is incomplete, when a write failed (absent from the
    /// JSON when it did not).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recording_error: Option<String>,
    /// The board's shape (`"4x4"`, `"5x5"`, `"3x5"` = rows x columns); `null` when no board was
    /// read.
    pub shape: Option<Shape>,
    /// The tile looks learned while playing (issue 24), in order: cells the reader could not
    /// read whose value the engine knew (row, col, value, background, text).
    pub learned: Vec<TileLesson>,
    /// Where the profile learned while playing was saved (set by `bot2048 play`); `null` when
    /// nothing was learned or it was not saved.
    pub learned_profile: Option<String>,
    /// The evaluation the solver played with, as `--eval` names it, `auto` resolved (set by
    /// `bot2048 play`: `"corner-middle"` when the middle-game values are saved, `"heuristic"`
    /// when no tables are built); `null` for a solver that uses none.
    pub evaluation: Option<String>,
    /// The times the board was found at another place in the frame and play went on there
    /// (issue 24: an infobar above the page, a resized window), in order; not desyncs.
    pub board_moves: Vec<BoardMove>,
}

/// The board found at another place in the frame during a run ([`Summary::board_moves`]; the
/// `board_moved` event of `--record`'s log).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct BoardMove {
    /// Moves made before the frame that showed the board at its new place (that frame is the
    /// one after move `moves + 1`).
    pub moves: u64,
    /// Where the grid of cells was, image pixels (the top-left of the first cell to the
    /// bottom-right of the last).
    pub from: Rect,
    /// Where it is now, image pixels.
    pub to: Rect,
}

/// The running counts and timings of a run.
#[derive(Debug)]
pub(super) struct Tally {
    pub moves: u64,
    pub score: u64,
    pub desyncs: u64,
    pub rereads: u64,
    pub retries: u64,
    pub wins: u32,
    /// Frame capture to key, ms, one per move.
    pub frame_to_key: Vec<f64>,
    /// Key to settled frame, ms, one per move.
    pub key_to_settled: Vec<f64>,
    /// Solver time, ms, one per decision.
    pub solve: Vec<f64>,
    /// Pondering per move: ms, nodes, depth.
    pub ponder_ms: Vec<f64>,
    pub ponder_nodes: Vec<f64>,
    pub ponder_depth: Vec<f64>,
    /// Per decision: nodes, depth.
    pub decide_nodes: Vec<f64>,
    pub decide_depth: Vec<f64>,
    pub first_key: Option<Instant>,
    pub last_move: Option<Instant>,
    pub started: Instant,
    /// Tile looks learned while playing.
    pub learned: Vec<TileLesson>,
    /// The board found at another place.
    pub board_moves: Vec<BoardMove>,
}

impl Tally {
    /// Nothing counted yet; the run's clock starts now.
    pub fn new() -> Tally {
        Tally {
            moves: 0,
            score: 0,
            desyncs: 0,
            rereads: 0,
            retries: 0,
            wins: 0,
            frame_to_key: Vec::new(),
            key_to_settled: Vec::new(),
            solve: Vec::new(),
            ponder_ms: Vec::new(),
            ponder_nodes: Vec::new(),
            ponder_depth: Vec::new(),
            decide_nodes: Vec::new(),
            decide_depth: Vec::new(),
            first_key: None,
            last_move: None,
            started: Instant::now(),
            learned: Vec::new(),
            board_moves: Vec::new(),
        }
    }

    /// Moves per second from the first key to the last verified move (0 before two instants).
    pub fn moves_per_sec(&self) -> f64 {
        match (self.first_key, self.last_move) {
            (Some(a), Some(b)) if self.moves > 0 && b > a => {
                self.moves as f64 / b.duration_since(a).as_secs_f64()
            }
            _ => 0.0,
        }
    }

    /// The progress line (no newline), e.g.
    /// `moves    12  score      36  max      8   1.20 moves/s  desyncs 0  retries 0`.
    pub fn progress_line(&self, board: Option<&AnyBoard>) -> String {
        format!(
            "\rmoves {:>5}  score {:>7}  max {:>6}  {:>5.2} moves/s  desyncs {}  retries {}   ",
            self.moves,
            self.score,
            board.map_or(0, |b| b.max_value()),
            self.moves_per_sec(),
            self.desyncs,
            self.retries
        )
    }

    /// The summary of a run that ended with `stop` on the mirror's `board` (`None` when no board
    /// was read), the last read `last_read` and the desync dump `dump`.
    pub fn summary(
        mut self,
        board: Option<&AnyBoard>,
        last_read: Option<&ReadGrid>,
        stop: Stop,
        dump: Option<String>,
    ) -> Summary {
        let final_read_matches = match (board, last_read) {
            (Some(b), Some(g)) => mirror::same(b, g),
            _ => false,
        };
        Summary {
            moves: self.moves,
            score: self.score,
            max_tile: board.map_or(0, |b| b.max_value()),
            desyncs: self.desyncs,
            rereads: self.rereads,
            retries: self.retries,
            moves_per_sec: self.moves_per_sec(),
            stop_reason: stop.reason,
            message: stop.message,
            elapsed_s: self.started.elapsed().as_secs_f64(),
            frame_to_key_ms: stats::median(&mut self.frame_to_key),
            key_to_settled_ms: stats::median(&mut self.key_to_settled),
            solve_ms: stats::median(&mut self.solve),
            ponder_ms: stats::median(&mut self.ponder_ms),
            ponder_nodes: stats::median(&mut self.ponder_nodes),
            ponder_depth: stats::median(&mut self.ponder_depth),
            decide_nodes: stats::median(&mut self.decide_nodes),
            decide_depth: stats::median(&mut self.decide_depth),
            final_board: board.map_or_else(Vec::new, AnyBoard::rows),
            final_read_matches,
            wins_continued: self.wins,
            dump,
            frames_capped_from: None,
            recording_error: None,
            shape: board.map(|b| b.shape()),
            learned: self.learned,
            learned_profile: None,
            evaluation: None,
            board_moves: self.board_moves,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_carries_the_boards_shape_and_rows() {
        let b = AnyBoard::from_rows(&[vec![2, 0, 0], vec![0, 4, 0], vec![0, 0, 1024]]).unwrap();
        let mut t = Tally::new();
        t.moves = 3;
        t.solve = vec![3.0, 1.0, 2.0];
        let read = ReadGrid::of_board(&b);
        let s = t.summary(
            Some(&b),
            Some(&read),
            Stop::new(StopReason::MaxMoves, "3 moves"),
            None,
        );
        let j = serde_json::to_value(&s).unwrap();
        assert_eq!(j["shape"], "3x3");
        assert_eq!(
            j["final_board"],
            serde_json::json!([[2, 0, 0], [0, 4, 0], [0, 0, 1024]])
        );
        assert_eq!(j["max_tile"], 1024);
        assert_eq!(j["solve_ms"], 2.0, "the median of 1, 2, 3");
        assert_eq!(j["final_read_matches"], true);
        assert_eq!(j["stop_reason"], "max_moves");

        let s = Tally::new().summary(None, None, Stop::interrupted(), None);
        let j = serde_json::to_value(&s).unwrap();
        assert_eq!(j["shape"], serde_json::Value::Null);
        assert_eq!(j["final_board"], serde_json::json!([]));
        assert_eq!(j["final_read_matches"], false);
    }
}
