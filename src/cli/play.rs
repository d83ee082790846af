//! `bot2048 play`: plays a real 2048 window until game over (or another stop reason).
//!
//! Exit codes ([`super::exit`], listed by `--help`): 0 = a normal end (game over, won with
//! `--on-win stop`, goal, max moves, Ctrl-C or SIGTERM, the mouse failsafe); 2 = bad arguments
//! (checked before the window is looked for); 3 = desync (a dump was written); 4 = any other
//! stop (window gone, covered, focus lost, key without effect, unreadable board); 7 = no display;
//! 8 = no such window; 1 = other setup errors; 130 = a second Ctrl-C.
use super::exit::{self, UsageError};
use crate::capture::{Rect, SettleOptions};
use crate::engine::{goal_exponent, Shape, SpawnRule};
use crate::input::FocusMode;
use crate::platform;
use crate::play::live::LiveGame;
use crate::play::{self, learn, record, OnWin, PlayConfig, Summary, WIN_TILE};
use crate::solver::{self, SolverConfig};
use crate::vision::{profile, ProfileChoice, Reader};
use anyhow::Context;
use clap::Args;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Where the game is, and how to read it (shared by `play` and `advise`).
#[derive(Debug, Args, Clone)]
pub struct TargetArgs {
    /// The game window's title or app name (`bot2048 windows` lists them).
    ///
    /// Its title (exact, then case-insensitive, then a substring) or app name (WM_CLASS), e.g.
    /// "GNOME 2048", "2048 Game", "2048".
    #[arg(long, short = 'w', value_name = "TITLE")]
    pub window: Option<String>,
    /// Capture this screen rectangle instead of the window.
    ///
    /// X,Y,W,H in screen pixels. Keys still go only to --window (after checking its focus).
    #[arg(long, value_name = "X,Y,W,H", value_parser = Rect::parse)]
    pub region: Option<Rect>,
    /// Calibration profile: a name, a TOML file, or `auto`.
    ///
    /// A built-in name (gnome-2048, 2048-qt, web-2048), the name of a user profile (made by
    /// `bot2048 calibrate`), a TOML file path, or `auto` (every built-in and user profile; the
    /// best fit wins). Whatever the profile, a tile the reader cannot read where the engine
    /// knows its value is learned while playing (stderr says so), and the profile learned is
    /// saved to the user profile folder at the end, under a new name (learned-TITLE,
    /// NAME-learned, NAME.2, ...), for the next run to read from the first frame (unless
    /// --no-learn).
    #[arg(long, default_value = "auto", value_name = "NAME|PATH|auto")]
    pub profile: String,
    /// Learn no tile's look while playing, and save no profile.
    ///
    /// A tile the reader cannot read stays unreadable, even where the engine knows its value:
    /// the frame is read again, and a board still unread is a desync while playing and is
    /// skipped while advising. Nothing is written to the user profile folder.
    #[arg(long)]
    pub no_learn: bool,
    /// Which solver, its options and its budget.
    #[command(flatten)]
    pub solver: super::solver_args::SolverArgs,
    /// The spawn rule the solver assumes: `classic` or `twos-only`.
    ///
    /// `classic` (90 % 2, 10 % 4: the web game, 2048-qt) or `twos-only` (gnome-2048 spawns only
    /// 2s). Default: `twos-only` for a gnome-2048 window, else `classic`.
    #[arg(long, value_name = "RULE")]
    pub spawn: Option<SpawnRule>,
    /// The board must stay unchanged this long before a frame is used, ms.
    #[arg(long, default_value_t = 100, value_name = "MS")]
    pub quiet_ms: u64,
    /// Give up waiting for a still board after this long, ms.
    ///
    /// Counted from the board's first change (after a key: the first change after it, or the end
    /// of the wait for one).
    #[arg(long, default_value_t = 1500, value_name = "MS")]
    pub settle_timeout_ms: u64,
}

impl TargetArgs {
    /// The reader for `--profile`, found as `read` finds it ([`profile::resolve`]); its
    /// warnings (a user profile shadowing a built-in name, a user profile that does not load)
    /// are printed on stderr.
    ///
    /// # Errors
    /// The profile is not found (exit 2) or cannot be loaded.
    pub fn reader(&self) -> anyhow::Result<Reader> {
        let p = &self.profile;
        let resolved = profile::resolve(p).with_context(|| format!("--profile {p}"))?;
        for w in &resolved.warnings {
            eprintln!("bot2048: warning: {w}");
        }
        let mut choice = resolved.choice;
        read_slide_settings(&mut choice);
        Ok(Reader::new(choice))
    }

    /// The spawn rule for `--spawn`, or the one of the game whose window has this title and
    /// class (`WM_CLASS`), as the profiles `reader` knows describe it ([`Reader::game_of_window`]:
    /// gnome-2048's profile says it spawns only 2s); classic for any other window.
    pub fn spawn_rule(&self, reader: &Reader, window: Option<(&str, &str)>) -> SpawnRule {
        self.spawn.unwrap_or_else(|| {
            let game = window.and_then(|(title, class)| reader.game_of_window(title, class));
            game.map_or(SpawnRule::Classic, |g| g.spawn)
        })
    }

    /// The maker of the solver for `--solver`, `--opt`, `--eval`, assuming the spawn rule
    /// `spawn`, for the board shape found in the game. The options are checked now, by building
    /// the 4×4 solver (kept for a 4×4 game). `goal` is the game's goal tile (a value), for the
    /// solvers that search toward one (bfs).
    ///
    /// # Errors
    /// Unknown solver or evaluation, or a bad option.
    pub fn solver_maker(&self, spawn: SpawnRule, goal: Option<u64>) -> anyhow::Result<SolverMaker> {
        self.solver.validate()?;
        let mut template = self.solver.config(Shape::FOUR, spawn, 1, true)?;
        template.goal = goal;
        let name = self.solver.solver.clone();
        let four = solver::registry::build(&name, &template)
            .with_context(|| format!("solver `{name}`"))?;
        Ok(SolverMaker {
            name,
            template,
            four: Some(four),
        })
    }

    /// Settle options from the knobs; `early_ms` is `play --early-ms` (0: no early frames, as
    /// `advise`, which presses no key, always waits for a quiet board).
    pub fn settle(&self, early_ms: u64) -> SettleOptions {
        SettleOptions {
            quiet_ms: self.quiet_ms,
            timeout_ms: self.settle_timeout_ms,
            early_quiet_ms: (early_ms > 0).then_some(early_ms),
            ..SettleOptions::default()
        }
    }
}

/// Builds the solver named on the command line for a board shape, once the game's shape is
/// known (see [`TargetArgs::solver_maker`]).
pub struct SolverMaker {
    name: String,
    template: SolverConfig,
    four: Option<Box<dyn solver::Solver>>,
}

impl std::fmt::Debug for SolverMaker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SolverMaker")
            .field("name", &self.name)
            .field("template", &self.template)
            .finish()
    }
}

impl SolverMaker {
    /// The solver's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The solver for `shape` (the 4×4 one built up front, the first time it is asked for).
    ///
    /// # Errors
    /// What [`solver::registry::build`] refuses for this shape.
    pub fn build(&mut self, shape: Shape) -> Result<Box<dyn solver::Solver>, solver::SolverError> {
        if let Some(s) = self.four.take_if(|_| shape.is_four()) {
            return Ok(s);
        }
        let config = SolverConfig {
            shape,
            ..self.template.clone()
        };
        solver::registry::build(&self.name, &config)
    }
}

/// Real uses of `play`, at the end of its `--help`.
pub const EXAMPLES: &[super::Example] = &[
    (
        "bot2048 play --window \"GNOME 2048\"",
        "play GNOME 2048 to game over (move the mouse to stop it)",
    ),
    (
        "bot2048 play --window \"2048 Game\" --goal 4096 --record game1",
        "play 2048-qt until a 4096 tile, saving the frames and a log in game1 (then: bot2048 replay game1)",
    ),
    (
        "bot2048 play --window 2048 --max-moves 300 --time-ms 50",
        "the web game (window \"2048\"), 300 moves, 50 ms a decision",
    ),
];

fn after_help() -> String {
    let mut s = exit::help_text(&[
        exit::OK,
        exit::ERROR,
        exit::USAGE,
        exit::DESYNC,
        exit::STOPPED,
        exit::NO_DISPLAY,
        exit::NO_WINDOW,
        exit::INTERRUPTED,
    ]);
    s.push_str(
        "A normal end is 0: game over, the goal, --max-moves, --on-win stop, Ctrl-C or SIGTERM, \
         the mouse moved.",
    );
    super::long_help_end(s, EXAMPLES)
}

/// `--win-tile`: a power of two from 4 (gnome-2048's `target-value` is at least 4).
fn parse_win_tile(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(v) if v >= 4 && v.is_power_of_two() => Ok(v),
        _ => Err(format!(
            "`{s}` is not a power of two from 4 (e.g. 64, 2048)"
        )),
    }
}

/// Arguments of `bot2048 play`.
#[derive(Debug, Args)]
#[command(after_long_help = after_help(), mut_arg("window", |a| a.required(true)))]
pub struct PlayArgs {
    /// Which game and how to read and solve it.
    #[command(flatten)]
    pub target: TargetArgs,
    /// At the win tile: `continue` past the game's win screen, or `stop`.
    ///
    /// At the win tile (`--win-tile`, 2048 by default): `continue` passes the game's win screen
    /// ("Keep going", closing gnome's dialog) and plays on; `stop` stops with reason `won`.
    #[arg(long, value_enum, default_value = "continue")]
    pub on_win: OnWin,
    /// Stop when a tile of this value appears: a power of two from 4, e.g. 4096.
    ///
    /// Stop (exit 0, reason `goal`) as soon as a tile of TILE is on the board. TILE is a tile
    /// value: a power of two from 4 (4, 8, 16, ..., 2048, 4096, ...). `sim --goal` takes the same
    /// values, and both refuse any other before anything else, in the same words (exit 2). A goal
    /// larger than the game's board can hold (131072 on 4x4) stops play before its first key.
    /// Unlike --win-tile, it does not depend on the game's win screen.
    #[arg(long, value_name = "TILE")]
    pub goal: Option<u64>,
    /// The tile at which the game shows its win screen.
    ///
    /// The win screen `--on-win` handles: 2048 in the web game and 2048-qt; gnome-2048's
    /// `target-value` setting (2048 unless changed), e.g. 64. A power of two from 4.
    #[arg(long, value_name = "TILE", default_value_t = WIN_TILE, value_parser = parse_win_tile)]
    pub win_tile: u64,
    /// Stop after this many moves.
    #[arg(long, value_name = "N")]
    pub max_moves: Option<u64>,
    /// How the game gets the keyboard focus: start, activate, click or never.
    ///
    /// `start` activates it once and stops if it is taken away; `activate` re-activates it
    /// whenever needed; `click` clicks the board; `never` only presses while it already has the
    /// focus.
    #[arg(long, value_enum, default_value = "start")]
    pub focus: FocusMode,
    /// Save every frame used and a JSON-lines log in DIR.
    ///
    /// Replayable test data: `bot2048 replay DIR` checks and prints it. A directory that already
    /// holds a recording is refused without --force. A desync dump goes to DIR/desync.
    #[arg(long, value_name = "DIR")]
    pub record: Option<PathBuf>,
    /// With --record: replace the recording already in DIR.
    ///
    /// Its frames, log, summary and desync dump are removed first.
    #[arg(long, requires = "record")]
    pub force: bool,
    /// With --record: stop saving frames past this many megabytes.
    ///
    /// Megabytes of 10^6 bytes. The log goes on, and a `frames_capped` event and the summary say
    /// from which frame.
    #[arg(long, value_name = "MB", requires = "record")]
    pub record_max_mb: Option<u64>,
    /// Where a desync dump goes when not recording.
    ///
    /// Default: a new folder under $XDG_STATE_HOME/bot2048/dumps, else
    /// ~/.local/state/bot2048/dumps. Its path is printed.
    #[arg(long, value_name = "DIR")]
    pub dump_dir: Option<PathBuf>,
    /// Print the summary as one JSON object on stdout.
    ///
    /// Its keys: moves, score, max_tile, desyncs, stop_reason, medians of the times,
    /// final_board, evaluation (the one the solver played with, `auto` resolved; null for a
    /// solver that uses none), and more.
    #[arg(long)]
    pub json: bool,
    /// No progress line on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Think during the game's animation for at most this long, ms (0 = not).
    ///
    /// Ponder (search the move's possible spawns) during the game's animation for at most this
    /// long after each key, ms; the decision on the settled frame then reuses that search.
    /// 0 = no pondering; default: 80 % of the game's animation time, measured as the bot plays
    /// (the median key → settled frame of the last 31 moves; 140 ms before the first).
    #[arg(long, value_name = "MS")]
    pub animation_ms: Option<u64>,
    /// Do not stop when the mouse moves.
    ///
    /// By default moving the mouse stops the bot: the failsafe.
    #[arg(long)]
    pub no_failsafe: bool,
    /// After a key, use a frame once the board has been still this long, ms, if it reads right.
    ///
    /// A frame is used early when it already reads as exactly the expected board plus one new
    /// tile (the mirror); 0 = always wait --quiet-ms.
    #[arg(long, default_value_t = play::DEFAULT_EARLY_MS, value_name = "MS")]
    pub early_ms: u64,
}

/// A second Ctrl-C this long (ms) after the first ends the process at once (exit 130) instead of
/// waiting for the clean stop. A closer one is taken as the same Ctrl-C: a terminal sends SIGINT
/// to the whole process group, and wrappers such as `timeout` pass it on, so one Ctrl-C can
/// arrive twice within microseconds (a recorded whole game lost its summary that way).
pub const SECOND_INTERRUPT_AFTER_MS: u64 = 500;

/// Sets the handler of Ctrl-C (SIGINT), SIGTERM and SIGHUP once (the `ctrlc` crate with its
/// `termination` feature); returns the flag it raises. The first signal raises the flag (the
/// loop stops cleanly before its next key, prints its summary and writes `summary.json`); a
/// second one at least [`SECOND_INTERRUPT_AFTER_MS`] later exits at once with code 130 (no key
/// is held between presses, so none is left down).
pub fn interrupt_flag() -> Arc<AtomicBool> {
    static FLAG: std::sync::OnceLock<Arc<AtomicBool>> = std::sync::OnceLock::new();
    FLAG.get_or_init(|| {
        let f = Arc::new(AtomicBool::new(false));
        let g = f.clone();
        let mut first: Option<std::time::Instant> = None;
        let _ = ctrlc::set_handler(move || {
            g.store(true, Ordering::SeqCst);
            match first {
                None => first = Some(std::time::Instant::now()),
                Some(t) if t.elapsed().as_millis() >= u128::from(SECOND_INTERRUPT_AFTER_MS) => {
                    std::process::exit(130);
                }
                Some(_) => {}
            }
        });
        f
    })
    .clone()
}

/// The summary in words, as printed on stderr, e.g. `stopped: reached --max-moves 300` then the
/// counts and timings.
pub fn summary_text(s: &Summary) -> String {
    let mut t = format!(
        "stopped: {}\nmoves {}  score {}  max tile {}  desyncs {}  retries {}  {:.2} moves/s  \
         (frame->key {:.1} ms, key->settled {:.1} ms, solver {:.1} ms; medians)",
        s.message,
        s.moves,
        s.score,
        s.max_tile,
        s.desyncs,
        s.retries,
        s.moves_per_sec,
        s.frame_to_key_ms,
        s.key_to_settled_ms,
        s.solve_ms
    );
    if let Some(d) = &s.dump {
        t.push_str(&format!("\ndesync dump: {d}"));
    }
    for m in &s.board_moves {
        t.push_str(&format!(
            "\nthe board moved in its window after move {}: from {},{} ({}x{}) to {},{} ({}x{}); play went on there",
            m.moves + 1,
            m.from.x,
            m.from.y,
            m.from.width,
            m.from.height,
            m.to.x,
            m.to.y,
            m.to.width,
            m.to.height
        ));
    }
    if let Some(seq) = s.frames_capped_from {
        t.push_str(&format!(
            "\nrecording: frames from frame {seq} on were not saved (--record-max-mb reached; the log is complete)"
        ));
    }
    t
}

/// Prints the summary (human text on stderr, or JSON on stdout).
pub fn print_summary(s: &Summary, json: bool) {
    if json {
        println!("{}", serde_json::to_string(s).unwrap_or_default());
    } else {
        eprintln!("{}", summary_text(s));
    }
}

/// Checks `--goal` before any work: a power of two from 4 to the largest tile of the largest
/// board (the board's own limit is known only once it is read).
///
/// # Errors
/// A [`UsageError`] naming the goal, worded as [`check_goal_on`]'s.
pub fn check_goal(goal: Option<u64>) -> Result<(), UsageError> {
    check_goal_on(goal, None)
}

/// Checks `--goal` against `shape` (`sim`'s board), or against the largest board the reader
/// takes (9x9) when the board is not known yet (`play`): a power of two from 4 up to the
/// shape's largest tile. `play` and `sim` refuse a goal in these same words.
///
/// # Errors
/// A [`UsageError`] naming the goal (and the board's largest tile, when the goal is too large).
pub fn check_goal_on(goal: Option<u64>, shape: Option<Shape>) -> Result<(), UsageError> {
    let Some(g) = goal else { return Ok(()) };
    let shape = match shape {
        Some(s) => s,
        None => {
            Shape::new(Shape::MAX_SIDE, Shape::MAX_SIDE).map_err(|e| UsageError(e.to_string()))?
        }
    };
    goal_exponent(shape, g).map(|_| ()).map_err(|_| {
        let limit = if g.is_power_of_two() && g >= 4 {
            format!(
                " (a {shape} board holds at most {})",
                1u64 << shape.max_exponent()
            )
        } else {
            String::new()
        };
        UsageError(format!(
            "--goal {g}: the goal must be a tile value, a power of two from 4 up, e.g. 2048{limit}"
        ))
    })
}

/// Runs `bot2048 play`.
///
/// # Errors
/// Setup errors (display, window, solver, profile, recording directory).
pub fn run(args: PlayArgs) -> anyhow::Result<ExitCode> {
    let t = &args.target;
    let Some(window) = &t.window else {
        return Err(UsageError("`play` needs --window TITLE (keys are pressed only into that window, after checking its focus)".into()).into());
    };
    // every argument checked before the window is looked for
    t.solver.validate()?;
    check_goal(args.goal)?;
    if let Some(dir) = &args.record {
        record::check_dir(dir, args.force).map_err(|e| UsageError(e.to_string()))?;
    }
    let mut reader = t.reader()?;
    let desktop = platform::desktop()?;
    let mut game = LiveGame::open(&*desktop, window, args.focus)
        .with_context(|| format!("opening the game window `{window}`"))?;
    game.add_dialogs(&reader.games());
    let info = game.info();
    let spawn = t.spawn_rule(&reader, Some((&info.title, &info.class)));
    let title = info.title.clone();
    let mut solvers = t.solver_maker(spawn, args.goal)?;
    if let Some(r) = t.region {
        game.set_region(&*desktop, r)
            .context("capturing --region")?;
    }
    game.set_failsafe(!args.no_failsafe);
    let stop = interrupt_flag();
    let cfg = PlayConfig {
        budget: t.solver.budget(Some(stop.clone())),
        on_win: args.on_win,
        win_tile: args.win_tile,
        goal: args.goal,
        max_moves: args.max_moves,
        settle: t.settle(args.early_ms),
        progress: (!args.quiet && !args.json && std::io::stderr().is_terminal())
            .then(|| play::ProgressSink::new(|line| eprint!("{line}"))),
        notes: (!args.quiet)
            .then(|| play::ProgressSink::new(|line| eprintln!("\rbot2048: {line}"))),
        record: args.record.clone(),
        record_force: args.force,
        record_max_bytes: args.record_max_mb.map(|mb| mb.saturating_mul(1_000_000)),
        dump_dir: args.dump_dir.clone(),
        stop,
        ponder: play::Ponder::from_ms(args.animation_ms),
        no_learn: t.no_learn,
        ..PlayConfig::default()
    };
    if !args.quiet && !args.json {
        let i = game.info();
        eprintln!(
            "bot2048: playing `{}` ({}, window {:#x}) with {} (spawns: {spawn}); move the mouse or press Ctrl-C to stop",
            i.title,
            i.class,
            i.id,
            solvers.name()
        );
        if let Some(note) = args.target.solver.evaluation_note()? {
            eprintln!("bot2048: {note}");
        }
    }
    let mut summary = play::play(
        &mut game,
        &mut reader,
        &mut |shape| solvers.build(shape),
        &cfg,
    );
    if cfg.progress.is_some() {
        eprintln!();
    }
    summary.learned_profile = save_learned(&reader, &title, args.quiet);
    summary.evaluation = args.target.solver.evaluation_name()?.map(str::to_string);
    if let Some(e) = &summary.recording_error {
        eprintln!("bot2048: warning: the recording is incomplete: {e}");
    }
    print_summary(&summary, args.json);
    Ok(ExitCode::from(exit::for_stop(&summary.stop_reason)))
}

/// Saves what `reader` learned while playing the window titled `title` (if anything) to the
/// user profile folder ([`learn::save_learned`]); says so on stderr (unless `quiet`: then only a
/// failure). Returns the path written.
pub(crate) fn save_learned(reader: &Reader, title: &str, quiet: bool) -> Option<String> {
    match learn::save_learned(reader, title) {
        Ok(None) => None,
        Ok(Some(saved)) => {
            if !quiet {
                let values: Vec<String> = saved.values.iter().map(u32::to_string).collect();
                eprintln!(
                    "bot2048: learned the look of {} tile(s) the reader could not read ({}); saved profile {} ({}): the next run reads them from the first frame (--profile auto, or --profile {})",
                    values.len(),
                    values.join(", "),
                    saved.name,
                    saved.path.display(),
                    saved.name
                );
            }
            Some(saved.path.display().to_string())
        }
        Err(e) => {
            eprintln!("bot2048: warning: the profile learned while playing is not saved: {e}");
            None
        }
    }
}

/// Takes each profile's slide time from the game's own setting where the profile names one
/// ([`crate::vision::AnimationLook::slide_ms_setting`], gnome-2048's `animations-speed`), read
/// once with `gsettings get`. A setting that cannot be read leaves the profile's `slide_ms` (a
/// warning for `--profile NAME`; silent for `auto`, where most users have no gnome-2048).
fn read_slide_settings(choice: &mut ProfileChoice) {
    let (profiles, warn): (&mut [profile::Profile], bool) = match choice {
        ProfileChoice::Given(p) => (std::slice::from_mut(p), true),
        ProfileChoice::Among(v) => (v.as_mut_slice(), false),
        ProfileChoice::Auto => return,
    };
    for p in profiles {
        let Some(look) = p.animation.as_mut() else {
            continue;
        };
        let Some(setting) = look.slide_ms_setting.clone() else {
            continue;
        };
        match gsettings_get(&setting).and_then(|out| look.with_setting(&out)) {
            Ok(read) => *look = read,
            Err(e) if warn => eprintln!(
                "bot2048: warning: profile {}: cannot take the slide time from the setting \
                 {setting}: {e}; slide_ms stays {}",
                p.name,
                look.slide_ms.map_or(
                    "unset (such new tiles wait for the quiet window)".into(),
                    |ms| { format!("{ms} ms") }
                )
            ),
            Err(_) => {}
        }
    }
}

/// `gsettings get SCHEMA KEY` for `setting` = "SCHEMA KEY": what it printed.
///
/// # Errors
/// No such program, a setting that is not two words (a loaded profile's always is), or a failed
/// run (no such schema or key).
fn gsettings_get(setting: &str) -> Result<String, String> {
    let Some((schema, key)) = profile::setting_schema_and_key(setting) else {
        return Err(format!("{setting:?} is not \"SCHEMA KEY\""));
    };
    let out = std::process::Command::new("gsettings")
        .args(["get", schema, key])
        .stderr(std::process::Stdio::piped())
        .output()
        .map_err(|e| format!("cannot run gsettings: {e}"))?;
    if !out.status.success() {
        let why = String::from_utf8_lossy(&out.stderr);
        return Err(format!("gsettings get failed: {}", why.trim()));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use super::{check_goal, check_goal_on, parse_win_tile};
    use crate::engine::Shape;

    #[test]
    fn play_and_sim_refuse_a_goal_in_the_same_words() {
        let words = "--goal 3: the goal must be a tile value, a power of two from 4 up, e.g. 2048";
        assert_eq!(check_goal(Some(3)).unwrap_err().0, words);
        let three = Shape::new(3, 3).unwrap();
        assert_eq!(check_goal_on(Some(3), Some(three)).unwrap_err().0, words);
        // 3x3: 9 cells, at most 2^(9+1) = 1024
        assert!(check_goal_on(Some(1024), Some(three)).is_ok());
        assert_eq!(
            check_goal_on(Some(2048), Some(three)).unwrap_err().0,
            "--goal 2048: the goal must be a tile value, a power of two from 4 up, e.g. 2048 \
             (a 3x3 board holds at most 1024)"
        );
        assert!(check_goal(None).is_ok() && check_goal(Some(4)).is_ok());
        assert!(check_goal(Some(1 << 40)).is_ok());
    }

    #[test]
    fn win_tile_is_a_power_of_two_from_4() {
        assert_eq!(parse_win_tile("64"), Ok(64));
        assert_eq!(parse_win_tile("4"), Ok(4));
        for bad in ["2", "0", "96", "-64", "x"] {
            assert!(parse_win_tile(bad).is_err(), "{bad}");
        }
    }
}
