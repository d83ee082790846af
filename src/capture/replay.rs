//! [`ReplaySource`]: frames from PNG files, for tests and for replaying a `--record` directory.
//!
//! The replay is a list of steps, one image per step. [`FrameSource::next_frame`] returns the
//! current step's image again and again, with a virtual clock that advances
//! [`ReplaySource::TICK_MS`] per call (so the settle step sees a quiet board without real waiting);
//! [`FrameSource::key_sent`] moves on to the next step. After the last step, `next_frame` returns
//! [`CaptureError::EndOfReplay`].
use super::{CaptureError, Frame, FrameSource};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Recorded frames played back.
#[derive(Debug)]
pub struct ReplaySource {
    steps: Vec<PathBuf>,
    index: usize,
    cached: Option<(usize, image::RgbaImage)>,
    clock: Instant,
}

impl ReplaySource {
    /// Virtual time between two captures of a replay, ms.
    pub const TICK_MS: u64 = 20;

    /// Plays `files` in the given order.
    pub fn from_files(files: Vec<PathBuf>) -> ReplaySource {
        ReplaySource {
            steps: files,
            index: 0,
            cached: None,
            clock: Instant::now(),
        }
    }

    /// Plays every `*.png` of `dir` in name order; for a `--record` directory, the PNGs in its
    /// `frames/` folder.
    ///
    /// # Errors
    /// `Backend` when the folder cannot be listed or holds no PNG.
    pub fn from_dir(dir: &Path) -> Result<ReplaySource, CaptureError> {
        let frames = dir.join("frames");
        let dir = if frames.is_dir() {
            frames
        } else {
            dir.to_path_buf()
        };
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map_err(|e| CaptureError::Backend(format!("{}: {e}", dir.display())))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x.eq_ignore_ascii_case("png")))
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(CaptureError::Backend(format!(
                "{}: no PNG frames",
                dir.display()
            )));
        }
        Ok(ReplaySource::from_files(files))
    }

    /// Number of steps.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// True when there are no steps.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// Index of the current step (0-based).
    pub fn position(&self) -> usize {
        self.index
    }
}

impl FrameSource for ReplaySource {
    fn next_frame(&mut self) -> Result<Frame, CaptureError> {
        let path = self
            .steps
            .get(self.index)
            .ok_or(CaptureError::EndOfReplay)?;
        let image = match &self.cached {
            Some((i, img)) if *i == self.index => img.clone(),
            _ => {
                let img = image::open(path)
                    .map_err(|e| CaptureError::Backend(format!("{}: {e}", path.display())))?
                    .to_rgba8();
                self.cached = Some((self.index, img.clone()));
                img
            }
        };
        self.clock += Duration::from_millis(Self::TICK_MS);
        Ok(Frame {
            image,
            origin: (0, 0),
            taken_at: self.clock,
        })
    }

    fn key_sent(&mut self) {
        self.index += 1;
    }
}
