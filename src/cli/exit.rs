//! The exit codes of every subcommand, in one table, so that a script can tell the outcomes apart.
//!
//! | code | constant | meaning | subcommands |
//! |---|---|---|---|
//! | 0 | [`OK`] | done: every image read, profile written, game ended normally | all |
//! | 1 | [`ERROR`] | runtime error: a file that cannot be read or written, a malformed profile, an X error | all |
//! | 2 | [`USAGE`] | bad command line: clap's usage errors, an unknown solver or profile name, an output that would overwrite a file | all |
//! | 3 | [`DESYNC`] | the game did not do what the engine predicted (a dump is written); `replay`: a recorded move does not fit the engine | play, replay |
//! | 4 | [`STOPPED`] | another stop: window gone, covered, focus lost, key without effect | play, advise |
//! | 5 | [`NO_BOARD`] | no 2048 board found in the image or window | read, advise |
//! | 6 | [`UNREADABLE`] | a board was found but some cells could not be read | read, advise |
//! | 7 | [`NO_DISPLAY`] | no usable X11 display: DISPLAY unset, a Wayland session without XWayland, no EWMH window manager, `--region` under XWayland | play, advise, read --window, calibrate --window, windows |
//! | 8 | [`NO_WINDOW`] | no window matches `--window` (in a Wayland session: with how to start each game under XWayland), or the region lies outside every monitor | play, advise, read --window, calibrate --window |
//! | 130 | [`INTERRUPTED`] | a second Ctrl-C ended the process at once | play, advise, calibrate --window |
//!
//! A closed standard output (`bot2048 read ... | head -1`) ends the process quietly with [`OK`]
//! (as ripgrep does): the reader went away, nothing is left to tell it; see [`is_broken_pipe`] and
//! [`is_broken_pipe_panic`].
//!
//! [`for_error`] picks the code of an error that reached `main` from the typed errors in its
//! chain (a [`PlatformError`], a [`CaptureError`], a [`SolverError`], a [`ProfileError`], a [`UsageError`]); anything
//! else is [`ERROR`].
use crate::capture::CaptureError;
use crate::input::InputError;
use crate::platform::PlatformError;
use crate::play::StopReason;
use crate::sim::compare::CompareError;
use crate::solver::SolverError;
use crate::vision::ProfileError;

/// Done: every image read, the profile written, the game ended normally.
pub const OK: u8 = 0;
/// A runtime error: a file that cannot be read or written, a malformed profile, an X error.
pub const ERROR: u8 = 1;
/// A bad command line: clap's own usage errors, an unknown solver or profile name, an output
/// path that would overwrite a file or an input.
pub const USAGE: u8 = 2;
/// `play`: the game did not do what the engine predicted (desync; a dump is written).
pub const DESYNC: u8 = 3;
/// `play`: any other stop (window gone, covered, focus lost, key without effect, unreadable board).
pub const STOPPED: u8 = 4;
/// No 2048 board was found in the image or window.
pub const NO_BOARD: u8 = 5;
/// A board was found but at least one cell could not be read.
pub const UNREADABLE: u8 = 6;
/// No usable X11 display (DISPLAY unset or dead, a Wayland session without XWayland, no EWMH
/// window manager, `--region` where the screen cannot be read).
pub const NO_DISPLAY: u8 = 7;
/// No window matches `--window`, or `--region` lies outside every monitor.
pub const NO_WINDOW: u8 = 8;
/// A second Ctrl-C ended the process at once.
pub const INTERRUPTED: u8 = 130;

/// The exit code of a `play` run that stopped for `reason`: [`OK`] for the normal ends (game
/// over, won, goal, max moves, interrupted, user moved the mouse, end of replay), [`DESYNC`] for
/// a desync, [`STOPPED`] for the rest.
pub fn for_stop(reason: &StopReason) -> u8 {
    match reason {
        StopReason::GameOver
        | StopReason::Won
        | StopReason::Goal
        | StopReason::MaxMoves
        | StopReason::Interrupted
        | StopReason::UserMoved
        | StopReason::EndOfReplay => OK,
        StopReason::Desync => DESYNC,
        _ => STOPPED,
    }
}

/// The lines of the table above that concern the codes in `codes`, for a subcommand's
/// `after_help` (e.g. `help_text(&[OK, ERROR, USAGE, NO_BOARD])`).
pub fn help_text(codes: &[u8]) -> String {
    let mut s = String::from("Exit status:\n");
    for &c in codes {
        s.push_str(&format!("  {c:>3}  {}\n", meaning(c)));
    }
    s
}

/// One line saying what exit code `code` means (empty for a code not in the table).
pub fn meaning(code: u8) -> &'static str {
    match code {
        OK => "done",
        ERROR => "runtime error (a file cannot be read or written, a malformed profile, an X error)",
        USAGE => "bad command line (unknown option, solver or profile; an output that would overwrite a file)",
        DESYNC => "desync: the game did not do what the engine predicted (a dump is written)",
        STOPPED => "stopped for another reason (window gone, covered, focus lost, key without effect)",
        NO_BOARD => "no 2048 board found",
        UNREADABLE => "a board was found but some cells could not be read",
        NO_DISPLAY => "no usable X11 display (DISPLAY unset, Wayland without XWayland, no window manager)",
        NO_WINDOW => "no window matches --window, or --region is outside every monitor",
        INTERRUPTED => "a second Ctrl-C ended the process at once",
        _ => "",
    }
}

/// A command-line mistake found after clap's parsing (exit [`USAGE`]): an output that would
/// overwrite something, options that do not fit together.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// The exit code for an error that reached `main`: the first typed error in its chain decides.
pub fn for_error(err: &anyhow::Error) -> u8 {
    for cause in err.chain() {
        if cause.downcast_ref::<UsageError>().is_some() {
            return USAGE;
        }
        if let Some(e) = cause.downcast_ref::<PlatformError>() {
            return match e {
                PlatformError::NoDesktop(_) | PlatformError::Unsupported { .. } => NO_DISPLAY,
                PlatformError::Capture(e) => capture_code(e),
                PlatformError::NotUnderXWayland { .. } => NO_WINDOW,
                PlatformError::Keys(InputError::Connect(_)) => NO_DISPLAY,
                PlatformError::Keys(_) => ERROR,
            };
        }
        if let Some(e) = cause.downcast_ref::<CaptureError>() {
            return capture_code(e);
        }
        let solver_error = cause.downcast_ref::<SolverError>().or_else(|| {
            match cause.downcast_ref::<CompareError>() {
                Some(CompareError::Solver(e)) => Some(e),
                _ => None,
            }
        });
        if let Some(e) = solver_error {
            return match e {
                // the user named something that does not exist or cannot be combined
                SolverError::UnknownSolver { .. }
                | SolverError::UnknownEvaluation { .. }
                | SolverError::BadOption { .. }
                | SolverError::NoSuchOption { .. }
                | SolverError::Unsupported { .. } => USAGE,
                SolverError::WrongShape { .. }
                | SolverError::BadNetwork { .. }
                | SolverError::Tables { .. } => ERROR,
            };
        }
        if let Some(ProfileError::NotFound { .. }) = cause.downcast_ref::<ProfileError>() {
            return USAGE;
        }
    }
    ERROR
}

/// The exit code of a capture error: no display or window manager 7, no such window or region 8.
fn capture_code(e: &CaptureError) -> u8 {
    match e {
        CaptureError::NoDisplay(_) | CaptureError::NoWindowManager => NO_DISPLAY,
        CaptureError::WindowNotFound { .. } | CaptureError::RegionOffScreen { .. } => NO_WINDOW,
        _ => ERROR,
    }
}

/// True when `err` is a write to a closed pipe (the reader of our output went away).
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// True when a panic message is the standard library's "failed printing to stdout/stderr" on a
/// closed pipe (`println!` panics there); `main`'s panic hook then exits quietly.
pub fn is_broken_pipe_panic(message: &str) -> bool {
    message.contains("failed printing to std") && message.contains("Broken pipe")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_reasons_follow_the_table() {
        assert_eq!(for_stop(&StopReason::MaxMoves), 0);
        assert_eq!(for_stop(&StopReason::EndOfReplay), 0);
        assert_eq!(for_stop(&StopReason::Desync), 3);
        assert_eq!(for_stop(&StopReason::KeyNoEffect), 4);
        assert_eq!(for_stop(&StopReason::Error), 4);
    }
    use anyhow::Context;

    #[test]
    fn every_code_has_its_own_meaning() {
        let codes = [
            OK,
            ERROR,
            USAGE,
            DESYNC,
            STOPPED,
            NO_BOARD,
            UNREADABLE,
            NO_DISPLAY,
            NO_WINDOW,
            INTERRUPTED,
        ];
        for (i, a) in codes.iter().enumerate() {
            assert!(!meaning(*a).is_empty(), "{a}");
            for b in &codes[i + 1..] {
                assert_ne!(a, b);
                assert_ne!(meaning(*a), meaning(*b));
            }
        }
        // the values play used before the table, kept
        assert_eq!((DESYNC, STOPPED), (3, 4));
    }

    #[test]
    fn typed_errors_pick_their_code_through_context() {
        let e = anyhow::Error::from(CaptureError::WindowNotFound {
            wanted: "x".into(),
            seen: vec![],
        })
        .context("opening the game window `x`");
        assert_eq!(for_error(&e), NO_WINDOW);
        let e = anyhow::Error::from(CaptureError::NoWindowManager).context("listing");
        assert_eq!(for_error(&e), NO_DISPLAY);
        let e = anyhow::Error::from(CaptureError::WindowGone);
        assert_eq!(for_error(&e), ERROR);
        let e = anyhow::Error::from(PlatformError::from(CaptureError::NoWindowManager))
            .context("opening");
        assert_eq!(for_error(&e), NO_DISPLAY);
        let e = anyhow::Error::from(PlatformError::NotUnderXWayland {
            missing: CaptureError::WindowNotFound {
                wanted: "x".into(),
                seen: vec![],
            },
            advice: "start it under XWayland".into(),
        })
        .context("finding the window `x`");
        assert_eq!(for_error(&e), NO_WINDOW);
        let text = format!("{e:#}");
        assert_eq!(text.matches("no window matches").count(), 1, "{text}");
        assert!(text.ends_with("start it under XWayland"), "{text}");
        let e = anyhow::Error::from(PlatformError::NoDesktop("Wayland".into()));
        assert_eq!(for_error(&e), NO_DISPLAY);
        let e = Err::<(), _>(SolverError::UnknownSolver {
            name: "nope".into(),
            known: vec![],
        })
        .context("solver")
        .unwrap_err();
        assert_eq!(for_error(&e), USAGE);
        let e = anyhow::Error::from(UsageError("x".into()));
        assert_eq!(for_error(&e), USAGE);
        assert_eq!(for_error(&anyhow::anyhow!("plain")), ERROR);
    }

    #[test]
    fn broken_pipe_is_seen_through_context() {
        let io = std::io::Error::new(std::io::ErrorKind::BrokenPipe, "pipe");
        let e = anyhow::Error::from(io).context("writing stdout");
        assert!(is_broken_pipe(&e));
        assert!(!is_broken_pipe(&anyhow::anyhow!("other")));
    }
}
