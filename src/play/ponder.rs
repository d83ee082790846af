//! Thinking during the animation: after the key, the solver searches the chance node of the
//! afterstate ([`Solver::ponder`]) on a scoped thread while the loop's own thread waits for the
//! settled frame and reads it; when the frame is read, the ponder is told to stop and joined, and
//! the decision on the real board (the afterstate plus the tile read) finds its subtree searched.
//!
//! The ponder thread runs at a lower priority ([`PONDER_NICE`]) and the solver ponders on it
//! alone (expectimax uses no other thread for it), leaving the other core to the game's
//! animation and the loop's captures.
//!
//! The solver is never used from two threads at once: the ponder thread holds `&mut` to it for
//! the whole wait, and the waiting thread only captures and reads frames.
//!
//! How long to ponder ([`Ponder`]): [`PONDER_SHARE`] of the game's animation time, measured as
//! the bot plays (the running median of key → settled frame over the last [`ANIMATION_WINDOW`]
//! moves, [`AnimationClock`]), or a fixed time (`--animation-ms`). The stop flag ends the ponder
//! as soon as the frame is read, so a fixed time is only a cap for a frame that comes late.
//!
//! Measured on the three real games under Xvfb on a loaded 2-core machine (300 moves each, the
//! same binary without pondering just before): the decision after the frame falls from 1–7 ms to
//! under 0.01 ms at depth 4–5 (pondered), for 0.7–4 million nodes pondered a move.
use crate::engine::AnyBoard;
use crate::solver::{Budget, PonderReport, Solver};
use crate::stats;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Moves over which the animation time is a running median.
pub const ANIMATION_WINDOW: usize = 31;

/// The ponder time of the first move, before any animation was measured, ms (about 2048-qt's
/// animation, the shortest of the three real games: 140 ms).
pub const DEFAULT_ANIMATION_MS: u64 = 140;

/// The share of the measured animation time that [`Ponder::Measured`] ponders: it ends a little
/// before the frame is due, so that the game's last animation frames and the loop's captures have
/// the CPU to themselves and the frame never waits for the ponder thread to stop.
pub const PONDER_SHARE: f64 = 0.8;

/// How the play loop ponders during the game's animation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ponder {
    /// Not at all: the solver works only once the frame is read (the loop before pondering).
    Off,
    /// For at most [`PONDER_SHARE`] of the game's animation time as measured by
    /// [`AnimationClock`] ([`DEFAULT_ANIMATION_MS`] before the first move is measured).
    Measured,
    /// For at most this many ms a move.
    Fixed(u64),
}

impl Ponder {
    /// The setting of `--animation-ms`: `None` = measured, `Some(0)` = off, `Some(ms)` = fixed.
    pub fn from_ms(ms: Option<u64>) -> Ponder {
        match ms {
            None => Ponder::Measured,
            Some(0) => Ponder::Off,
            Some(ms) => Ponder::Fixed(ms),
        }
    }
}

/// The running median of the game's animation time (key → settled frame, ms) over the last
/// [`ANIMATION_WINDOW`] moves.
#[derive(Clone, Debug, Default)]
pub struct AnimationClock {
    recent: VecDeque<f64>,
}

impl AnimationClock {
    /// Adds one move's key → settled time, ms.
    pub fn push(&mut self, ms: f64) {
        if self.recent.len() == ANIMATION_WINDOW {
            self.recent.pop_front();
        }
        self.recent.push_back(ms);
    }

    /// The median of the last [`ANIMATION_WINDOW`] moves, ms; `None` before the first.
    pub fn median_ms(&self) -> Option<f64> {
        if self.recent.is_empty() {
            return None;
        }
        let mut v: Vec<f64> = self.recent.iter().copied().collect();
        Some(stats::median(&mut v))
    }

    /// The game's time from key to new tile, ms: the median, or [`DEFAULT_ANIMATION_MS`]
    /// before the first move.
    pub fn spawn_wait_ms(&self) -> f64 {
        self.median_ms().unwrap_or(DEFAULT_ANIMATION_MS as f64)
    }

    /// How long to ponder under `ponder`, ms; `None` = not at all.
    pub fn ponder_ms(&self, ponder: Ponder) -> Option<f64> {
        match ponder {
            Ponder::Off => None,
            Ponder::Fixed(ms) => Some(ms as f64),
            Ponder::Measured => Some(PONDER_SHARE * self.spawn_wait_ms()),
        }
    }
}

/// The nice value (Linux, per thread) of the ponder thread: below the game's rendering (software
/// GL under Xvfb) and the loop's own captures, which decide how soon the frame comes.
pub const PONDER_NICE: i32 = 19;

/// Lowers the calling thread's priority to [`PONDER_NICE`] (best effort: a failure leaves it);
/// returns its thread id (0 where there is none).
fn lower_this_threads_priority() -> u64 {
    #[cfg(target_os = "linux")]
    // SAFETY: plain syscalls on the calling thread's own id; no memory is passed.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, tid, PONDER_NICE);
        u64::from(tid)
    }
    #[cfg(not(target_os = "linux"))]
    0
}

/// Gives thread `tid` back the normal priority (nice 0), so that a ponder starved on a busy
/// machine notices its stop flag at once instead of keeping the key waiting. Best effort: it
/// needs the right to raise a priority (`CAP_SYS_NICE` or `RLIMIT_NICE`), and without it the
/// thread stays at [`PONDER_NICE`].
fn restore_priority(tid: u64) {
    #[cfg(target_os = "linux")]
    if tid != 0 {
        // SAFETY: a plain syscall on a thread id of this process; no memory is passed.
        unsafe {
            libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, 0);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = tid;
}

/// Runs `wait` on this thread while `solver` ponders `after` on another for at most `ms`
/// milliseconds (`None`: `wait` alone); when `wait` returns, stops the ponder and joins it.
/// Returns what `wait` returned and the ponder's report (`None` when there was no ponder, or it
/// failed or panicked: the decision then searches from scratch, as without pondering).
pub fn during<R>(
    solver: &mut dyn Solver,
    after: &AnyBoard,
    ms: Option<f64>,
    wait: impl FnOnce() -> R,
) -> (R, Option<PonderReport>) {
    let Some(ms) = ms else {
        return (wait(), None);
    };
    let flag = Arc::new(AtomicBool::new(false));
    let budget = Budget {
        time: Some(Duration::from_secs_f64(ms.max(0.0) / 1000.0)),
        work: None,
        stop: Some(flag.clone()),
    };
    let tid = AtomicU64::new(0);
    std::thread::scope(|s| {
        let pondering = s.spawn(|| {
            tid.store(lower_this_threads_priority(), Ordering::SeqCst);
            solver.ponder(after, &budget)
        });
        let r = wait();
        flag.store(true, Ordering::SeqCst);
        if !pondering.is_finished() {
            restore_priority(tid.load(Ordering::SeqCst));
        }
        let report = pondering.join().ok().and_then(Result::ok);
        (r, report)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_animation_time_is_the_median_of_the_last_moves() {
        let mut c = AnimationClock::default();
        assert_eq!(c.median_ms(), None);
        assert_eq!(c.spawn_wait_ms(), DEFAULT_ANIMATION_MS as f64);
        assert_eq!(
            c.ponder_ms(Ponder::Measured),
            Some(PONDER_SHARE * DEFAULT_ANIMATION_MS as f64)
        );
        for ms in [300.0, 100.0, 200.0] {
            c.push(ms);
        }
        assert_eq!(c.median_ms(), Some(200.0));
        // 31 moves of 150 ms push the three above out of the window
        for _ in 0..ANIMATION_WINDOW {
            c.push(150.0);
        }
        assert_eq!(c.median_ms(), Some(150.0));
        assert_eq!(c.ponder_ms(Ponder::Measured), Some(PONDER_SHARE * 150.0));
        assert_eq!(c.ponder_ms(Ponder::Fixed(90)), Some(90.0));
        assert_eq!(c.ponder_ms(Ponder::Off), None);
    }

    #[test]
    fn animation_ms_zero_is_off() {
        assert_eq!(Ponder::from_ms(None), Ponder::Measured);
        assert_eq!(Ponder::from_ms(Some(0)), Ponder::Off);
        assert_eq!(Ponder::from_ms(Some(150)), Ponder::Fixed(150));
    }
}
