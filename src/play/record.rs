//! `--record DIR`: the frames the loop used and a JSON-lines log, written by a background thread
//! so that PNG encoding (20–50 ms a frame) does not slow the game down.
//!
//! Layout: `DIR/frames/NNNNNN.png` (6-digit sequence, one per settled frame the loop read, in
//! order: the start, then one per key whose effect was read), `DIR/log.jsonl` (one [`LogLine`]
//! per such frame), `DIR/summary.json` at the end. A `--record` directory replays with
//! [`crate::capture::ReplaySource::from_dir`].
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread::JoinHandle;

/// One line of `log.jsonl`.
#[derive(Clone, Debug, Serialize)]
pub struct LogLine {
    /// Sequence number of the frame (file `frames/{seq:06}.png`).
    pub seq: u64,
    /// Moves made before this frame was read.
    pub moves: u64,
    /// What happened: "start", "spawned", "unchanged", "desync", "reread".
    pub event: String,
    /// Board read from the frame, rows of values (`read[r][c]`, the board's own shape),
    /// `null` = unreadable.
    pub read: Vec<Vec<Option<u64>>>,
    /// Board the mirror expected (afterstate before the spawn), rows of values; `null` at the start.
    pub expected: Option<Vec<Vec<u64>>>,
    /// The move chosen on this frame's board, if any.
    pub chosen: Option<String>,
    /// Each direction's value from the solver (up, down, left, right), `null` = illegal.
    pub values: Option<[Option<f64>; 4]>,
    /// Solver nodes searched.
    pub nodes: Option<u64>,
    /// Solver depth reached.
    pub depth: Option<u32>,
    /// Time the solver took, ms (the decision, once this frame was read).
    pub solve_ms: Option<f64>,
    /// Time the solver pondered the move that led to this frame before the frame was read, ms
    /// (`null`: no pondering, e.g. at the start).
    pub ponder_ms: Option<f64>,
    /// Nodes searched while pondering that move.
    pub ponder_nodes: Option<u64>,
    /// The depth pondering made ready for every likeliest spawn of that move (0: not one full
    /// depth); `depth` is what the decision on this frame reached with it.
    pub ponder_depth: Option<u32>,
    /// Time spent waiting for this frame to settle, ms.
    pub settle_ms: f64,
    /// Time from this frame's capture to the key, ms.
    pub frame_to_key_ms: Option<f64>,
    /// Keys pressed again for the move that led to this frame (its key had no visible effect).
    pub retries: u32,
    /// Extra reads for the move that led to this frame (mid-animation or disagreeing frames).
    pub rereads: u32,
}

impl LogLine {
    /// The line of a frame read as `read` after `moves` moves: `event`, the board `expected`
    /// (rows), and `settle_ms`; the decision fields empty and no retries or re-reads.
    pub fn new(
        moves: u64,
        event: &str,
        read: Vec<Vec<Option<u64>>>,
        expected: Option<Vec<Vec<u64>>>,
        settle_ms: f64,
    ) -> LogLine {
        LogLine {
            seq: 0,
            moves,
            event: event.to_string(),
            read,
            expected,
            chosen: None,
            values: None,
            nodes: None,
            depth: None,
            solve_ms: None,
            ponder_ms: None,
            ponder_nodes: None,
            ponder_depth: None,
            settle_ms,
            frame_to_key_ms: None,
            retries: 0,
            rereads: 0,
        }
    }
}

enum Job {
    Frame(PathBuf, image::RgbaImage),
    Line(String),
}

/// Writes a recording in the background.
pub struct Recorder {
    dir: PathBuf,
    tx: Option<mpsc::Sender<Job>>,
    worker: Option<JoinHandle<Result<(), String>>>,
    seq: u64,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("dir", &self.dir)
            .field("seq", &self.seq)
            .finish()
    }
}

impl Recorder {
    /// Creates `dir/frames` and `dir/log.jsonl` (appending to neither: an existing log is replaced).
    ///
    /// # Errors
    /// The I/O error of creating them.
    pub fn create(dir: &Path) -> std::io::Result<Recorder> {
        std::fs::create_dir_all(dir.join("frames"))?;
        let mut log = std::fs::File::create(dir.join("log.jsonl"))?;
        let (tx, rx) = mpsc::channel::<Job>();
        let worker = std::thread::spawn(move || -> Result<(), String> {
            let mut first_err = None;
            for job in rx {
                let r = match job {
                    Job::Frame(path, img) => img
                        .save(&path)
                        .map_err(|e| format!("{}: {e}", path.display())),
                    Job::Line(s) => writeln!(log, "{s}").map_err(|e| format!("log.jsonl: {e}")),
                };
                if let Err(e) = r {
                    first_err.get_or_insert(e);
                }
            }
            log.flush().map_err(|e| e.to_string())?;
            first_err.map_or(Ok(()), Err)
        });
        Ok(Recorder {
            dir: dir.to_path_buf(),
            tx: Some(tx),
            worker: Some(worker),
            seq: 0,
        })
    }

    /// The recording directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Queues a frame and its log line; returns the sequence number used.
    pub fn frame(&mut self, image: &image::RgbaImage, mut line: LogLine) -> u64 {
        let seq = self.seq;
        self.seq += 1;
        line.seq = seq;
        if let Some(tx) = &self.tx {
            let path = self.dir.join("frames").join(format!("{seq:06}.png"));
            let _ = tx.send(Job::Frame(path, image.clone()));
            if let Ok(s) = serde_json::to_string(&line) {
                let _ = tx.send(Job::Line(s));
            }
        }
        seq
    }

    /// Waits for every queued write, then writes `summary.json`.
    ///
    /// # Errors
    /// The first write error, as text.
    pub fn finish<S: Serialize>(&mut self, summary: &S) -> Result<(), String> {
        self.tx = None;
        if let Some(w) = self.worker.take() {
            w.join()
                .map_err(|_| "the recording thread panicked".to_string())??;
        }
        let text = serde_json::to_string_pretty(summary).map_err(|e| e.to_string())?;
        std::fs::write(self.dir.join("summary.json"), text).map_err(|e| e.to_string())
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.tx = None;
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}
