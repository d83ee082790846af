//! [`ReplayGame`]: a `--record` directory (or any folder of frames) played back through the play
//! loop: frames from files, keys recorded, no window.
use crate::capture::{CaptureError, Frame, FrameSource, ReplaySource};
use crate::engine::Move;
use crate::input::{InputError, KeySink, RecordingSink};
use crate::play::GameUi;

/// A recorded game played back: frames from files, keys recorded, no window.
pub struct ReplayGame {
    /// The frames.
    pub frames: ReplaySource,
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
