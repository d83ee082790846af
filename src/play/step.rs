//! One move's verification as a state machine: press, wait, re-read, accept, press again, or give
//! up. Pure: [`MoveStep::on`] takes what the driver observed ([`Event`]: "the key was pressed",
//! "the settle timed out", "a settled frame read as the old board", …) and moves to the next
//! [`State`]; the driver (`play::turn`) presses, settles and reads as the state says. No
//! frames, clocks or sleeps here, so every path is unit-tested with plain values.
//!
//! The rules (as measured on the real games, see the project notes):
//! - afterstate + one new 2/4 (`Spawned`): the move counts;
//! - the old board on the very pixels of the reference frame (the frame before the key): wait for
//!   a change once more, up to [`LATE_KEY_MS`] (a key taken but drawn late must not be pressed
//!   twice); still the same: the key was dropped (gnome-2048 drops keys while animating): press
//!   again, at most `key_retries` times, then give up (`KeyNoEffect`);
//! - the old board on other pixels: a frame from inside the animation (a stalled redraw): read
//!   again, never press again (that could make two moves); but when the reference frame was
//!   accepted early (its spawned tile may still have been popping), that settled frame becomes the
//!   reference once, and the board must then hold still for [`CONFIRM_QUIET_MS`];
//! - exactly the afterstate, no new tile: read again up to `rereads` times (a slow spawn), then
//!   [`End::NoNewTile`], which the driver turns into a win, a game over or a desync;
//! - anything else (unreadable, disagreeing, timed out): read again up to `rereads` times, then
//!   give up. A disagreement on the same pixels at reads at least [`STALL_SPAN_MS`] apart counts
//!   the move as a desync, even when a later read agrees: a frame from inside an animation
//!   changes within that time. (It was "the same pixels twice", but under a Wayland compositor
//!   on a loaded machine a game stands still mid-animation for 100–470 ms while it waits for the
//!   compositor's frame callback, so two reads 130 ms apart saw the same mid-slide frame.)

/// How far apart (ms, frame capture times) two reads of the same disagreeing pixels must be for
/// the move to count as a desync. Longer than the longest stall seen inside an animation: 470 ms
/// (2048-qt as a native window under headless sway, load 12 on 2 cores; docs/wayland.md).
pub const STALL_SPAN_MS: u64 = 1000;

/// Quiet window (ms) that confirms a key had no effect when the frame before it was accepted
/// early: long enough that a redraw stalled mid-slide is not taken for a dropped key.
pub const CONFIRM_QUIET_MS: u64 = 300;

/// How long (ms) a key that seems to have had no effect is given to show one before it is
/// pressed again: a game may take a key and draw it late. The web game on a machine with a
/// load average of 16 once drew a key more than 600 ms (the settle's own wait for a change)
/// after it was pressed; pressing again made two moves of one (a desync at move 9056 of a
/// whole game). A dropped key (gnome-2048 drops keys during its animation) costs this wait once.
pub const LATE_KEY_MS: u64 = 2000;

/// How far one move's step may go before giving up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Re-reads after a timed-out, unreadable, stalled or disagreeing frame, before giving up.
    pub rereads: u32,
    /// Presses of the same key after it had no visible effect, before giving up.
    pub key_retries: u32,
}

/// Where one move's step is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// The key must be pressed: the first time, or again after it had no effect.
    Press,
    /// The key was pressed: settle a frame that first differs from the reference frame
    /// ([`MoveStep::changed_from`]).
    AwaitChange,
    /// Settle and read again, without waiting for a change.
    Reread,
    /// The read showed the afterstate plus one new tile: the move counts.
    Accepted,
    /// The step gave up.
    Ended(End),
}

/// How a step ends without the move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// The game shows game over over a board that is not complete.
    GameOver,
    /// The board did not hold still, more than `rereads` times.
    Unsettled,
    /// The board changed after the key but kept reading as before, more than `rereads` times.
    Stalled,
    /// The frames could not be read, more than `rereads` times.
    Unreadable,
    /// The reads disagreed with the mirror, more than `rereads` times.
    Desync,
    /// The key had no visible effect after `1 + key_retries` presses.
    KeyNoEffect,
    /// The board kept reading as exactly the afterstate, with no new tile, more than `rereads`
    /// times: the game ended on that move by itself (a win or a game over that shows nothing),
    /// or else a desync; the driver tells which from the afterstate.
    NoNewTile,
}

/// What the driver observed. `hash` is the settled frame's board-region hash
/// ([`crate::capture::settle::region_hash`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The key was pressed.
    Pressed,
    /// The game's win dialog opened during the wait and was closed: read again.
    DialogClosed,
    /// The board did not hold still before the settle timeout.
    TimedOut,
    /// A settled frame could not be read.
    Unreadable {
        /// Its region hash.
        hash: u64,
        /// When it was captured, ms after the step's first press.
        at_ms: u64,
    },
    /// A settled frame shows game over over a board that is not complete.
    GameOver,
    /// A settled frame read as the board before the move.
    Unchanged {
        /// Its region hash.
        hash: u64,
    },
    /// A settled frame read as the afterstate plus one new 2 or 4.
    Spawned,
    /// A settled frame read as exactly the afterstate: the move was made, but no new tile shows
    /// (yet: a slow spawn, or a game that stopped there).
    NoNewTile {
        /// Its region hash.
        hash: u64,
    },
    /// A settled frame read as anything else.
    Disagrees {
        /// Its region hash.
        hash: u64,
        /// When it was captured, ms after the step's first press.
        at_ms: u64,
    },
}

/// One move's step: the state and the counts the rules need.
#[derive(Clone, Debug)]
pub struct MoveStep {
    state: State,
    limits: Limits,
    reference: u64,
    reference_early: bool,
    confirm: bool,
    late_wait: bool,
    presses: u32,
    rereads: u32,
    extra_reads: u32,
    retries: u32,
    /// The pixels of the last disagreeing (or unreadable) read, and when they were first read
    /// so (ms after the first press).
    bad: Option<(u64, u64)>,
    desync: bool,
}

impl MoveStep {
    /// A step that starts by pressing the key; `reference` is the region hash of the frame the
    /// move was chosen on, `early` whether that frame was accepted before a full quiet window.
    pub fn new(reference: u64, early: bool, limits: Limits) -> MoveStep {
        MoveStep {
            state: State::Press,
            limits,
            reference,
            reference_early: early,
            confirm: false,
            late_wait: false,
            presses: 0,
            rereads: 0,
            extra_reads: 0,
            retries: 0,
            bad: None,
            desync: false,
        }
    }

    /// The current state.
    pub fn state(&self) -> State {
        self.state
    }

    /// The region hash the next settle must first differ from: the reference in
    /// [`State::AwaitChange`], else `None`.
    pub fn changed_from(&self) -> Option<u64> {
        (self.state == State::AwaitChange).then_some(self.reference)
    }

    /// The quiet window (ms) of the next settle: `base`, or at least [`CONFIRM_QUIET_MS`] once an
    /// early reference frame had to be confirmed.
    pub fn quiet_ms(&self, base: u64) -> u64 {
        if self.confirm {
            base.max(CONFIRM_QUIET_MS)
        } else {
            base
        }
    }

    /// How long (ms) the next settle waits for a first change: `base`, or at least
    /// [`LATE_KEY_MS`] while a key that seemed to have no effect is given time to show one.
    pub fn change_timeout_ms(&self, base: u64) -> u64 {
        if self.late_wait {
            base.max(LATE_KEY_MS)
        } else {
            base
        }
    }

    /// Keys pressed so far.
    pub fn presses(&self) -> u32 {
        self.presses
    }

    /// Re-reads counted against [`Limits::rereads`].
    pub fn rereads(&self) -> u32 {
        self.rereads
    }

    /// Settles made without a press before them (re-reads, and the read after a closed dialog).
    pub fn extra_reads(&self) -> u32 {
        self.extra_reads
    }

    /// Keys pressed again because the press before had no visible effect.
    pub fn retries(&self) -> u32 {
        self.retries
    }

    /// True when the move counts as a desync: the same pixels disagreed at reads at least
    /// [`STALL_SPAN_MS`] apart, or the step ended in [`End::Desync`].
    pub fn is_desync(&self) -> bool {
        self.desync
    }

    /// Moves on after `event`; returns the new state. An event that does not fit the state (a
    /// read while the key is to be pressed, anything after the end) changes nothing.
    pub fn on(&mut self, event: Event) -> State {
        let next = match (self.state, event) {
            (State::Press, Event::Pressed) => {
                self.presses += 1;
                State::AwaitChange
            }
            (State::AwaitChange | State::Reread, e) if e != Event::Pressed => self.after_wait(e),
            (s, _) => s,
        };
        if next == State::Reread {
            self.extra_reads += 1;
        }
        self.state = next;
        next
    }

    /// The next state after a settle (or a dialog closed during one).
    fn after_wait(&mut self, event: Event) -> State {
        match event {
            Event::Spawned => State::Accepted,
            Event::GameOver => State::Ended(End::GameOver),
            Event::DialogClosed => State::Reread,
            Event::TimedOut => self.reread_or(End::Unsettled),
            Event::Unreadable { hash, at_ms } => {
                self.disagreed(hash, at_ms);
                self.reread_or(End::Unreadable)
            }
            Event::Disagrees { hash, at_ms } => {
                self.disagreed(hash, at_ms);
                let s = self.reread_or(End::Desync);
                self.desync |= s == State::Ended(End::Desync);
                s
            }
            // not a desync by itself: the driver decides at the end
            Event::NoNewTile { .. } => self.reread_or(End::NoNewTile),
            Event::Unchanged { hash } => self.unchanged(hash),
            Event::Pressed => self.state,
        }
    }

    /// The old board read on a frame whose region hashes to `hash`.
    fn unchanged(&mut self, hash: u64) -> State {
        if hash != self.reference && self.reference_early {
            // the reference was taken while its new tile was still popping: this settled frame
            // becomes the reference, and a longer quiet window must confirm it
            self.rereads += 1;
            self.reference = hash;
            self.reference_early = false;
            self.confirm = true;
            return State::Reread;
        }
        if hash != self.reference {
            return self.reread_or(End::Stalled);
        }
        if !self.late_wait {
            // the game may have taken the key and not drawn it yet: wait longer for a change
            self.late_wait = true;
            self.extra_reads += 1;
            return State::AwaitChange;
        }
        self.late_wait = false;
        if self.presses > self.limits.key_retries {
            return State::Ended(End::KeyNoEffect);
        }
        self.retries += 1;
        State::Press
    }

    /// Counts a re-read: [`State::Reread`] within the limit, else the end `why`.
    fn reread_or(&mut self, why: End) -> State {
        self.rereads += 1;
        if self.rereads > self.limits.rereads {
            State::Ended(why)
        } else {
            State::Reread
        }
    }

    /// A read that disagrees (or is unreadable) on pixels hashing to `hash`, captured `at_ms`
    /// after the first press: when the same pixels disagreed at a read [`STALL_SPAN_MS`] or more
    /// before (with no other pixels read wrong in between), the move counts as a desync.
    fn disagreed(&mut self, hash: u64, at_ms: u64) {
        match self.bad {
            Some((h, first)) if h == hash => {
                if at_ms.saturating_sub(first) >= STALL_SPAN_MS {
                    self.desync = true;
                }
            }
            _ => self.bad = Some((hash, at_ms)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits {
        rereads: 4,
        key_retries: 3,
    };

    /// Feeds `events` in order; returns the states after each.
    fn drive(step: &mut MoveStep, events: &[Event]) -> Vec<State> {
        events.iter().map(|&e| step.on(e)).collect()
    }

    #[test]
    fn a_spawn_after_the_key_is_accepted_at_once() {
        let mut s = MoveStep::new(7, false, LIMITS);
        assert_eq!(s.state(), State::Press);
        assert_eq!(s.on(Event::Pressed), State::AwaitChange);
        assert_eq!(s.changed_from(), Some(7));
        assert_eq!(s.on(Event::Spawned), State::Accepted);
        assert_eq!(
            (s.presses(), s.retries(), s.rereads(), s.extra_reads()),
            (1, 0, 0, 0)
        );
        assert!(!s.is_desync());
    }

    #[test]
    fn a_dropped_key_is_pressed_again_at_most_key_retries_times() {
        let mut s = MoveStep::new(7, false, LIMITS);
        let unchanged = Event::Unchanged { hash: 7 };
        let dropped = [Event::Pressed, unchanged, unchanged];
        for _ in 0..3 {
            assert_eq!(
                drive(&mut s, &dropped),
                [State::AwaitChange, State::AwaitChange, State::Press]
            );
        }
        assert_eq!(s.on(Event::Pressed), State::AwaitChange);
        assert_eq!(s.on(unchanged), State::AwaitChange);
        assert_eq!(s.on(unchanged), State::Ended(End::KeyNoEffect));
        // 1 press + key_retries (3) presses again, then no more
        assert_eq!((s.presses(), s.retries()), (4, 3));
        assert_eq!(s.on(Event::Pressed), State::Ended(End::KeyNoEffect));
        assert_eq!(s.presses(), 4);

        // a retry that works: the second press moves the board
        let mut s = MoveStep::new(7, false, LIMITS);
        drive(&mut s, &dropped);
        assert_eq!(
            drive(&mut s, &[Event::Pressed, Event::Spawned]),
            [State::AwaitChange, State::Accepted]
        );
        assert_eq!((s.presses(), s.retries(), s.rereads()), (2, 1, 0));
    }

    #[test]
    fn a_key_drawn_late_is_waited_for_not_pressed_twice() {
        // the first wait for a change ends on the reference pixels; the longer one sees the
        // spawn: one press, one move
        let mut s = MoveStep::new(7, false, LIMITS);
        assert_eq!(s.on(Event::Pressed), State::AwaitChange);
        assert_eq!(s.change_timeout_ms(600), 600);
        assert_eq!(s.on(Event::Unchanged { hash: 7 }), State::AwaitChange);
        assert_eq!(s.changed_from(), Some(7));
        assert_eq!(s.change_timeout_ms(600), LATE_KEY_MS);
        assert_eq!(s.change_timeout_ms(5000), 5000, "never shorter than asked");
        assert_eq!(s.on(Event::Spawned), State::Accepted);
        assert_eq!((s.presses(), s.retries()), (1, 0));
    }

    /// A disagreeing read of pixels `hash` captured `at_ms` after the first press.
    fn bad(hash: u64, at_ms: u64) -> Event {
        Event::Disagrees { hash, at_ms }
    }

    #[test]
    fn a_disagreeing_read_is_read_again_then_a_desync() {
        let mut s = MoveStep::new(7, false, LIMITS);
        s.on(Event::Pressed);
        // a mid-animation frame, then the spawn: no desync
        assert_eq!(s.on(bad(9, 180)), State::Reread);
        assert_eq!(s.changed_from(), None, "a re-read waits for no change");
        assert_eq!(s.on(Event::Spawned), State::Accepted);
        assert_eq!((s.rereads(), s.extra_reads(), s.presses()), (1, 1, 1));
        assert!(!s.is_desync());

        // the same pixels disagreeing a full span later: a desync, and after `rereads`
        // re-reads the end
        let mut s = MoveStep::new(7, false, LIMITS);
        s.on(Event::Pressed);
        assert_eq!(s.on(bad(9, 200)), State::Reread);
        assert!(!s.is_desync());
        assert_eq!(s.on(bad(9, 200 + STALL_SPAN_MS)), State::Reread);
        assert!(s.is_desync(), "same pixels, a span apart");
        let later = bad(9, 300 + STALL_SPAN_MS);
        assert_eq!(
            drive(&mut s, &[later, later]),
            [State::Reread, State::Reread]
        );
        assert_eq!(
            s.on(later),
            State::Ended(End::Desync),
            "the 5th disagreeing read"
        );
        assert_eq!((s.rereads(), s.presses()), (5, 1), "never pressed again");

        // frames that change each time and never agree: re-read, then a desync all the same
        let mut s = MoveStep::new(7, false, LIMITS);
        s.on(Event::Pressed);
        for h in 10..14 {
            assert_eq!(s.on(bad(h, 100 * h)), State::Reread);
        }
        assert!(!s.is_desync());
        assert_eq!(s.on(bad(14, 1400)), State::Ended(End::Desync));
        assert!(s.is_desync());
    }

    #[test]
    fn a_stalled_animation_frame_read_twice_within_the_span_is_no_desync() {
        // as recorded on native 2048-qt under sway at load: a mid-slide frame (a merged tile
        // fading out) read at 157 ms and, unchanged, 131 ms later; then the game drew on
        let mut s = MoveStep::new(7, false, LIMITS);
        s.on(Event::Pressed);
        assert_eq!(s.on(bad(9, 157)), State::Reread);
        assert_eq!(s.on(bad(9, 288)), State::Reread);
        assert_eq!(s.on(bad(9, 157 + STALL_SPAN_MS - 1)), State::Reread);
        assert!(!s.is_desync(), "same pixels, but within the span");
        assert_eq!(s.on(Event::Spawned), State::Accepted);
        assert!(!s.is_desync());

        // other wrong pixels in between start the span again
        let mut s = MoveStep::new(7, false, LIMITS);
        s.on(Event::Pressed);
        s.on(bad(9, 100));
        s.on(bad(8, 700));
        s.on(bad(9, 1200));
        assert!(!s.is_desync(), "9 was read wrong again 500 ms after 8");
        s.on(bad(9, 1200 + STALL_SPAN_MS));
        assert!(s.is_desync());
    }

    #[test]
    fn a_changed_frame_that_reads_as_the_old_board_is_read_again_never_pressed_again() {
        let mut s = MoveStep::new(7, false, LIMITS);
        s.on(Event::Pressed);
        let stalled = Event::Unchanged { hash: 8 };
        assert_eq!(drive(&mut s, &[stalled; 4]), [State::Reread; 4]);
        assert_eq!(s.on(stalled), State::Ended(End::Stalled));
        assert_eq!((s.presses(), s.retries()), (1, 0));

        // the animation goes on after a stalled frame: the move counts, one press
        let mut s = MoveStep::new(7, false, LIMITS);
        s.on(Event::Pressed);
        assert_eq!(
            drive(&mut s, &[stalled, Event::Spawned]),
            [State::Reread, State::Accepted]
        );
        assert_eq!((s.presses(), s.rereads()), (1, 1));
    }

    #[test]
    fn after_an_early_reference_frame_a_dropped_key_is_confirmed_by_a_longer_quiet_window() {
        let mut s = MoveStep::new(7, true, LIMITS);
        s.on(Event::Pressed);
        assert_eq!(s.quiet_ms(100), 100);
        // the pop of the last spawn ended: other pixels, the old board
        assert_eq!(s.on(Event::Unchanged { hash: 8 }), State::Reread);
        assert_eq!(s.quiet_ms(100), CONFIRM_QUIET_MS);
        assert_eq!(s.quiet_ms(500), 500, "never shorter than asked");
        assert_eq!(s.changed_from(), None);
        // held still on those pixels for the confirm window: the key was dropped
        assert_eq!(s.on(Event::Unchanged { hash: 8 }), State::AwaitChange);
        assert_eq!(s.on(Event::Unchanged { hash: 8 }), State::Press);
        assert_eq!(s.on(Event::Pressed), State::AwaitChange);
        assert_eq!(
            s.changed_from(),
            Some(8),
            "the settled frame is the new reference"
        );
        assert_eq!(
            s.quiet_ms(100),
            CONFIRM_QUIET_MS,
            "for the rest of the move"
        );
        assert_eq!(s.on(Event::Spawned), State::Accepted);
        assert_eq!((s.presses(), s.retries(), s.rereads()), (2, 1, 1));

        // the confirm frame changes again and reads as before: stalled, not pressed again
        let mut s = MoveStep::new(7, true, LIMITS);
        s.on(Event::Pressed);
        s.on(Event::Unchanged { hash: 8 });
        assert_eq!(s.on(Event::Unchanged { hash: 9 }), State::Reread);
        assert_eq!(s.presses(), 1);
    }

    #[test]
    fn timeouts_and_unreadable_frames_are_read_again_within_the_limit() {
        let mut s = MoveStep::new(7, false, LIMITS);
        s.on(Event::Pressed);
        assert_eq!(drive(&mut s, &[Event::TimedOut; 4]), [State::Reread; 4]);
        assert_eq!(s.on(Event::TimedOut), State::Ended(End::Unsettled));
        assert!(!s.is_desync(), "a board still moving is no desync");

        let mut s = MoveStep::new(7, false, LIMITS);
        s.on(Event::Pressed);
        let blur = |at_ms| Event::Unreadable { hash: 3, at_ms };
        assert_eq!(
            drive(&mut s, &[blur(100), blur(300), blur(500)]),
            [State::Reread; 3]
        );
        assert!(
            !s.is_desync(),
            "the same unreadable pixels, within the span"
        );
        assert_eq!(s.on(blur(100 + STALL_SPAN_MS)), State::Reread);
        assert!(s.is_desync(), "the same unreadable pixels, a span apart");
        assert_eq!(s.on(blur(1300)), State::Ended(End::Unreadable));
    }

    #[test]
    fn an_afterstate_with_no_new_tile_is_read_again_then_left_to_the_driver() {
        let mut s = MoveStep::new(7, false, LIMITS);
        s.on(Event::Pressed);
        let bare = Event::NoNewTile { hash: 9 };
        // rereads (4) more reads of the same pixels, then the end
        assert_eq!(drive(&mut s, &[bare; 4]), [State::Reread; 4]);
        assert_eq!(s.on(bare), State::Ended(End::NoNewTile));
        assert!(!s.is_desync(), "the driver decides: a win is no desync");
        assert_eq!((s.presses(), s.retries()), (1, 0), "never pressed again");
        // a slow spawn: the tile shows on a later read
        let mut s = MoveStep::new(7, false, LIMITS);
        s.on(Event::Pressed);
        assert_eq!(drive(&mut s, &[bare; 2]), [State::Reread; 2]);
        assert_eq!(s.on(Event::Spawned), State::Accepted);
    }

    #[test]
    fn a_closed_dialog_is_read_again_without_counting_against_the_limit() {
        let mut s = MoveStep::new(7, false, LIMITS);
        s.on(Event::Pressed);
        assert_eq!(drive(&mut s, &[Event::DialogClosed; 6]), [State::Reread; 6]);
        assert_eq!((s.rereads(), s.extra_reads()), (0, 6));
        assert_eq!(s.on(Event::GameOver), State::Ended(End::GameOver));
    }

    #[test]
    fn events_that_do_not_fit_the_state_change_nothing() {
        let mut s = MoveStep::new(7, false, LIMITS);
        assert_eq!(s.on(Event::Spawned), State::Press, "no read before the key");
        assert_eq!(s.on(Event::Pressed), State::AwaitChange);
        assert_eq!(
            s.on(Event::Pressed),
            State::AwaitChange,
            "no second key while waiting"
        );
        assert_eq!(s.presses(), 1);
        s.on(Event::Spawned);
        assert_eq!(s.on(bad(1, 50)), State::Accepted);
    }
}
