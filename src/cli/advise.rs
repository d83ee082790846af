//! `bot2048 advise`: watches a 2048 game while the user plays it and prints, after each change of
//! the board, the suggested move and each direction's value. It presses nothing.
//!
//! Exit codes: 0 = stopped (Ctrl-C, `--once`, `--max-boards`, the window closed); 1 = setup errors
//! (no display, window not found, unknown solver or profile); 4 = the board could not be read
//! with `--once`.
use crate::capture::{settle, CaptureError, FrameSource, RegionSource, WindowSource};
use crate::engine::{Board, Move};
use crate::play::{grid_rect, read_grid};
use anyhow::Context;
use clap::Args;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Arguments of `bot2048 advise`.
#[derive(Debug, Args)]
pub struct AdviseArgs {
    /// Which game and how to read and solve it (`--window` or `--region`).
    #[command(flatten)]
    pub target: super::play::TargetArgs,
    /// Print one line of JSON per board (`board`, `best`, `values` by up/down/left/right).
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
/// Setup errors (display, window, solver, profile).
pub fn run(args: AdviseArgs) -> anyhow::Result<ExitCode> {
    let t = &args.target;
    let mut reader = t.reader()?;
    let mut solver = t.solver()?;
    let mut src: Box<dyn FrameSource> = match (&t.region, &t.window) {
        (Some(r), _) => Box::new(RegionSource::new(*r).context("capturing --region")?),
        (None, Some(w)) => {
            let ws = WindowSource::find(w).with_context(|| format!("finding the window `{w}`"))?;
            Box::new(ws)
        }
        (None, None) => anyhow::bail!("`advise` needs --window TITLE or --region X,Y,W,H"),
    };
    let stop = super::play::interrupt_flag();
    let mut opts = t.settle();
    let mut last: Option<Board> = None;
    let mut count = 0u64;
    while !stop.load(Ordering::SeqCst) {
        let s = match settle(src.as_mut(), &opts) {
            Ok(s) => s,
            Err(CaptureError::WindowGone) => {
                eprintln!("bot2048: the game window is gone");
                return Ok(ExitCode::SUCCESS);
            }
            Err(e @ (CaptureError::Occluded(_) | CaptureError::Minimized)) => {
                if args.once {
                    eprintln!("bot2048: {e}");
                    return Ok(ExitCode::from(4));
                }
                std::thread::sleep(Duration::from_millis(200));
                continue;
            }
            Err(e) => return Err(e).context("capturing the game"),
        };
        if s.timed_out {
            continue;
        }
        let reading = match reader.read(&s.frame.image) {
            Ok(r) => r,
            Err(e) => {
                if args.once {
                    eprintln!("bot2048: {e}");
                    return Ok(ExitCode::from(4));
                }
                reader.forget_grid();
                std::thread::sleep(Duration::from_millis(200));
                continue;
            }
        };
        opts.region = Some(grid_rect(&reading));
        let board = read_grid(&reading).ok().and_then(|g| {
            let mut v = [[0u32; 4]; 4];
            for r in 0..4 {
                for c in 0..4 {
                    v[r][c] = g[r][c]?;
                }
            }
            Board::from_values(v).ok()
        });
        let Some(board) = board else {
            if args.once {
                eprintln!("bot2048: the board could not be read completely");
                return Ok(ExitCode::from(4));
            }
            std::thread::sleep(Duration::from_millis(100));
            continue;
        };
        if last != Some(board) {
            last = Some(board);
            let d = solver.decide(board);
            if args.json {
                let j = serde_json::json!({
                    "board": board.to_values(),
                    "best": d.best.map(|m| m.to_string()),
                    "values": { "up": d.values[0], "down": d.values[1], "left": d.values[2], "right": d.values[3] },
                    "depth": d.depth, "nodes": d.nodes, "elapsed_ms": d.elapsed_ms,
                });
                println!("{j}");
            } else {
                let vals: Vec<String> = Move::ALL
                    .iter()
                    .map(|m| format!("{m} {}", fmt_value(d.values[m.index()])))
                    .collect();
                println!(
                    "{board}suggested: {}   ({})",
                    d.best
                        .map_or("none (game over)".to_string(), |m| m.to_string()),
                    vals.join(", ")
                );
            }
            count += 1;
            if args.once || args.max_boards.is_some_and(|n| count >= n) {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(30));
    }
    Ok(ExitCode::SUCCESS)
}
