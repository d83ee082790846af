//! `bot2048 advise`: watches a 2048 game while the user plays it and prints, after each change of
//! the board, the suggested move and each direction's value. It presses nothing.
//!
//! Exit codes ([`super::exit`], listed by `--help`): 0 = stopped (Ctrl-C, `--once`,
//! `--max-boards`, the window closed); 2 = bad arguments (an unknown solver or profile); with
//! `--once`, 5 = no board found and 6 = a board with unreadable cells, as `read`; 4 = the board is
//! covered with `--once`, or the solver cannot play the board's shape; 7 = no display; 8 = no such
//! window; 1 = other errors.
use super::exit::{self, UsageError};
use crate::capture::FrameSource;
use crate::engine::{Move, Position};
use crate::platform;
use crate::play::advise::{advise, Advice, AdviseConfig, AdviseEnd};
use anyhow::Context;
use clap::Args;
use std::process::ExitCode;

/// Real uses of `advise`, at the end of its `--help`.
pub const EXAMPLES: &[super::Example] = &[
    (
        "bot2048 advise --window \"GNOME 2048\"",
        "while you play GNOME 2048: the suggested move and each direction's value after each change",
    ),
    (
        "bot2048 advise --window 2048 --once --json",
        "the advice on the web game's board now, as one line of JSON",
    ),
    (
        "bot2048 advise --region 100,100,600,700 --depth 4",
        "watch a screen rectangle (a game that is no window of its own), searching 4 moves deep",
    ),
];

fn after_help() -> String {
    super::long_help_end(
        exit::help_text(&[
            exit::OK,
            exit::ERROR,
            exit::USAGE,
            exit::STOPPED,
            exit::NO_BOARD,
            exit::UNREADABLE,
            exit::NO_DISPLAY,
            exit::NO_WINDOW,
            exit::INTERRUPTED,
        ]),
        EXAMPLES,
    )
}

/// The exit code of an advise run that ended with `end`: 5 and 6 as `read` for a board not
/// found or not read with `--once`, 4 for a covered board or a solver that cannot play it, else 0.
pub fn exit_code(end: &AdviseEnd) -> u8 {
    match end {
        AdviseEnd::NoBoard(_) => exit::NO_BOARD,
        AdviseEnd::Unreadable(_) => exit::UNREADABLE,
        AdviseEnd::Covered(_) | AdviseEnd::Solver(_) => exit::STOPPED,
        AdviseEnd::WindowGone | AdviseEnd::Stopped | AdviseEnd::Limit | AdviseEnd::EndOfReplay => {
            exit::OK
        }
    }
}

/// Arguments of `bot2048 advise`.
#[derive(Debug, Args)]
#[command(
    after_long_help = after_help(),
    group(clap::ArgGroup::new("where").args(["window", "region"]).required(true).multiple(true)),
    mut_arg("region", |a| a
        .help("Watch this screen rectangle instead of a window")
        .long_help("Watch this screen rectangle instead of a window: X,Y,W,H in screen pixels (advise presses no key, so no --window is needed)")),
)]
pub struct AdviseArgs {
    /// Which game and how to read and solve it (`--window` or `--region`).
    #[command(flatten)]
    pub target: super::play::TargetArgs,
    /// Print one line of JSON per board (`board` as rows, `shape`, `best`, `values` by
    /// up/down/left/right).
    #[arg(long)]
    pub json: bool,
    /// Advise on the current board once, then exit.
    #[arg(long)]
    pub once: bool,
    /// Exit after advising on this many boards.
    #[arg(long, value_name = "N")]
    pub max_boards: Option<u64>,
}

fn fmt_value(v: Option<f64>) -> String {
    v.map_or("illegal".to_string(), |v| format!("{v:.1}"))
}

/// Runs `bot2048 advise`.
///
/// # Errors
/// Setup errors (display, window, solver, profile) and capture failures.
pub fn run(args: AdviseArgs) -> anyhow::Result<ExitCode> {
    let t = &args.target;
    t.solver.validate()?;
    let mut reader = t.reader()?;
    let desktop = platform::desktop()?;
    let title = t.window.clone().unwrap_or_else(|| "region".into());
    let (mut src, spawn): (Box<dyn FrameSource>, _) = match (&t.region, &t.window) {
        (Some(r), _) => (
            desktop.region(*r).context("capturing --region")?,
            t.spawn_rule(&reader, None),
        ),
        (None, Some(w)) => {
            let ws = desktop
                .find(w)
                .with_context(|| format!("finding the window `{w}`"))?;
            let spawn = t.spawn_rule(&reader, Some((&ws.info().title, &ws.info().class)));
            (ws, spawn)
        }
        (None, None) => {
            return Err(
                UsageError("`advise` needs --window TITLE or --region X,Y,W,H".into()).into(),
            )
        }
    };
    let mut solvers = t.solver_maker(spawn, None)?;
    if let Some(note) = t.solver.evaluation_note()? {
        eprintln!("bot2048: {note}");
    }
    let stop = super::play::interrupt_flag();
    let cfg = AdviseConfig {
        settle: t.settle(0),
        once: args.once,
        max_boards: args.max_boards,
        budget: t.solver.budget(Some(stop.clone())),
        stop,
        poll_ms: 30,
        no_learn: t.no_learn,
        notes: Some(crate::play::ProgressSink::new(|line| {
            eprintln!("bot2048: {line}")
        })),
    };
    let json = args.json;
    let mut print = |a: &Advice| {
        let (board, d) = (a.board, &a.decision);
        if json {
            let j = serde_json::json!({
                "board": board.rows(),
                "best": d.best.map(|m| m.to_string()),
                "values": { "up": d.values[0], "down": d.values[1], "left": d.values[2], "right": d.values[3] },
                "depth": d.work, "nodes": d.nodes, "elapsed_ms": d.elapsed_ms,
                "shape": board.shape(),
            });
            println!("{j}");
        } else {
            let vals: Vec<String> = Move::ALL
                .iter()
                .map(|m| format!("{m} {}", fmt_value(d.values[m.index()])))
                .collect();
            println!(
                "{board}\nsuggested: {}   ({})\n",
                d.best
                    .map_or("none (game over)".to_string(), |m| m.to_string()),
                vals.join(", ")
            );
        }
    };
    let mut solver_for = |shape| solvers.build(shape);
    let end = advise(src.as_mut(), &mut reader, &mut solver_for, &cfg, &mut print)
        .context("capturing the game")?;
    super::play::save_learned(&reader, &title, false);
    match &end {
        AdviseEnd::NoBoard(why)
        | AdviseEnd::Unreadable(why)
        | AdviseEnd::Covered(why)
        | AdviseEnd::Solver(why) => eprintln!("bot2048: {why}"),
        AdviseEnd::WindowGone => eprintln!("bot2048: the game window is gone"),
        AdviseEnd::Stopped | AdviseEnd::Limit | AdviseEnd::EndOfReplay => {}
    }
    Ok(ExitCode::from(exit_code(&end)))
}
