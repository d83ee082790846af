//! `bot2048 train`: trains an n-tuple network by TD(0) ([`crate::solver::ntuple::td`]) with a
//! progress bar, checkpoints and a clean Ctrl-C, then optionally measures it by greedy play.
//!
//! On a terminal the bar shows games/s, TD updates/s per thread and, over the last `--window`
//! games, the average score and the reach rates of 2048 … 32768. Without a terminal (a `nohup`
//! run writing a log) the same line is printed every `--log-secs` seconds instead.
use super::exit::UsageError;
use crate::cli::play::interrupt_flag;
use crate::solver::ntuple::td::{
    self, CheckpointPlan, GameOutcome, Progress, TrainConfig, REACH_TILES,
};
use crate::solver::ntuple::{LoadError, Network, Spec, WeightsFormat};
use anyhow::{bail, Context};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// Real uses of `train`, at the end of its `--help`.
pub const EXAMPLES: &[super::Example] = &[
    (
        "bot2048 train --network 4x6 --tc --alpha 1.0 --games 4000000 --out my.bin",
        "train a network like the shipped one (hours; Ctrl-C writes my.bin, the same command carries on)",
    ),
    (
        "bot2048 train --resume my.bin --games 0 --eval-games 1000",
        "measure a network: 1000 greedy games, nothing written",
    ),
    (
        "bot2048 train --resume my.bin --games 0 --out /tmp/x.bin --ship my-ship.bin",
        "make the compact copy (i16, deflated) that --eval ntuple:my-ship.bin loads",
    ),
];

fn after_help() -> String {
    super::long_help_end(
        super::exit::help_text(&[
            super::exit::OK,
            super::exit::ERROR,
            super::exit::USAGE,
            super::exit::INTERRUPTED,
        ]),
        EXAMPLES,
    )
}

/// Arguments of `bot2048 train`.
#[derive(Debug, Args)]
#[command(after_long_help = after_help())]
pub struct TrainArgs {
    /// Network shape: `4x6` (four 6-cell tuples), or tuples of hex cells, with `@TILE` stages.
    ///
    /// Network shape: `4x6` (four 6-cell tuples, the standard) or tuples of hex cells separated
    /// by commas, cells numbered 0-f in reading order (e.g. `012345,456789,012456,45689a`),
    /// then `@TILE` per stage boundary: `4x6@16384` has its own tables for the boards whose
    /// largest tile is 16384 or more (multi-stage TD). With --resume the file's own shape is used and a
    /// different --network is an error, except one: a one-stage file and the same tuples with
    /// stages, which promotes it (every stage starts as a copy of the file's weights).
    #[arg(long, value_name = "SPEC")]
    pub network: Option<Spec>,
    /// Train until the network has learnt from this many games in all.
    ///
    /// Train until the network has learnt from this many games in all (a resumed network's
    /// earlier games count, so re-running the same command after a stop carries on).
    #[arg(long, value_name = "N")]
    pub games: u64,
    /// Seed of the run: game g is played from a seed made of this and g.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Checkpoint file (exact f32 weights); needed to train.
    ///
    /// Checkpoint file (exact f32 weights), written atomically every --checkpoint-minutes and at
    /// the end. Needed to train (there is no default file); with --games 0 and no --resume, the
    /// new untrained network is written there.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Continue from this checkpoint (or any network file) instead of a new network.
    #[arg(long, value_name = "FILE")]
    pub resume: Option<PathBuf>,
    /// Learning rate α of the whole value (shared by its 8 × tuples weights).
    #[arg(long, default_value_t = 0.1)]
    pub alpha: f32,
    /// Let α decay geometrically to this value at game --games.
    #[arg(long, value_name = "ALPHA")]
    pub alpha_end: Option<f32>,
    /// Learn by temporal coherence instead of plain TD (--alpha 1.0 from scratch).
    ///
    /// Learn by temporal coherence (per-weight rates |E|/A that anneal themselves) instead of
    /// plain TD; α then scales the coherent step (1.0 from scratch, e.g. 0.1 to fine-tune a
    /// trained network). Needs 2 more tables as large as the network, saved in its checkpoints
    /// (768 MiB in all for 4x6) and taken up again by --resume.
    #[arg(long)]
    pub tc: bool,
    /// Initial value of every board in points for a new network (0: plain TD).
    ///
    /// Initial value of every board in points for a new network: 0 is plain TD; a large value
    /// (e.g. 320000) is optimistic initialisation, which makes greedy play explore.
    #[arg(long, default_value_t = 0.0, value_name = "POINTS")]
    pub init: f32,
    /// Training threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Minutes between checkpoints.
    #[arg(long, default_value_t = 10.0, value_name = "MIN")]
    pub checkpoint_minutes: f64,
    /// Also keep every checkpoint as OUT.GAMES (hard links; 256 MiB each for 4x6).
    #[arg(long)]
    pub keep_checkpoints: bool,
    /// Games in the moving window of the progress statistics.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    pub window: usize,
    /// Seconds between progress lines when stderr is not a terminal.
    #[arg(long, default_value_t = 60, value_name = "S")]
    pub log_secs: u64,
    /// After training, play this many greedy games with the network and print how it did.
    ///
    /// After training, play this many greedy games with the network (seeds apart from the
    /// training's) and print score and reach rates. With --games 0 and --resume: measure only.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub eval_games: u64,
    /// At the end, also write the network in the compact shipping format (i16, deflated) here.
    #[arg(long, value_name = "FILE")]
    pub ship: Option<PathBuf>,
}

/// The text of a progress report: one line.
pub fn progress_line(p: &Progress) -> String {
    let w = &p.window;
    let reach: Vec<String> = REACH_TILES
        .iter()
        .zip(w.reach)
        .map(|(t, r)| format!("{}k {:.1}%", t / 1024, 100.0 * r))
        .collect();
    format!(
        "{} games ({:.0}/s, {:.2} M updates/s/thread, α {:.4}) | last {}: avg {:.0}, {} moves, {}, TD rms {:.0}",
        p.games,
        p.games_per_sec(),
        p.updates_per_sec_per_thread() / 1e6,
        p.alpha,
        w.games,
        w.avg_score,
        w.avg_moves.round(),
        reach.join(" "),
        w.td_rms,
    )
}

/// Prints a summary of greedy games.
fn print_eval(games: &[GameOutcome], seconds: f64) {
    let n = games.len().max(1) as f64;
    let avg = games.iter().map(|g| g.score as f64).sum::<f64>() / n;
    let moves: u64 = games.iter().map(|g| g.moves as u64).sum();
    let reach: Vec<String> = std::iter::once(1024)
        .chain(REACH_TILES)
        .map(|t| {
            let r = games.iter().filter(|g| g.max_tile >= t).count() as f64 / n;
            format!("{t} {:.1}%", 100.0 * r)
        })
        .collect();
    let mut scores: Vec<u64> = games.iter().map(|g| g.score).collect();
    scores.sort_unstable();
    let median = scores.get(scores.len() / 2).copied().unwrap_or(0);
    eprintln!(
        "greedy 1-ply, {} games: avg score {avg:.0}, median {median}, max {}; reached {}; {:.0} moves/s",
        games.len(),
        scores.last().copied().unwrap_or(0),
        reach.join(", "),
        moves as f64 / seconds.max(1e-9)
    );
}

/// Loads the --resume checkpoint; with a --network of the same tuples in stages and a one-stage
/// file, promotes the network (and its TC tables) to that spec.
fn resume(
    path: &std::path::Path,
    spec: Option<&Spec>,
) -> anyhow::Result<(Network, Option<td::Coherence>)> {
    let promote = spec.filter(|s| s.stage_count() > 1);
    let expected = promote.map_or(spec.cloned(), |s| Some(s.single_stage()));
    let loaded = td::load_checkpoint(path, expected.as_ref());
    let (net, tc) = match (loaded, promote) {
        (Err(LoadError::SpecMismatch { .. }), Some(s)) => {
            // maybe the file already has these stages: then it is a plain resume
            return Ok(td::load_checkpoint(path, Some(s))?);
        }
        (loaded, _) => loaded?,
    };
    let Some(to) = promote else {
        return Ok((net, tc));
    };
    eprintln!(
        "promoting {} ({} games) to {to}: every stage starts as a copy of its weights",
        net.spec(),
        net.games()
    );
    let tc = tc.map(|tc| tc.promoted(&net, to)).transpose()?;
    Ok((net.promoted(to)?, tc))
}

/// Runs `bot2048 train`: checks the settings, starts from a new or resumed network, trains it
/// (or writes it untrained), writes the shipping copy and measures it.
///
/// # Errors
/// A --resume file that cannot be loaded (or holds another --network), bad settings, or a
/// checkpoint that cannot be written.
pub fn run(args: TrainArgs) -> anyhow::Result<ExitCode> {
    let threads = check_settings(&args)?;
    let (net, tc) = starting_network(&args)?;
    let stop = interrupt_flag();
    let cfg = train_config(&args, &net, threads);
    if args.games > net.games() && args.out.is_none() {
        return Err(UsageError(format!(
            "training on to {} games needs --out FILE: the checkpoint it writes",
            args.games
        ))
        .into());
    }
    if let (true, Some(out)) = (args.games > net.games(), &args.out) {
        let stopped = train_with_progress(&args, &net, tc, &cfg, &stop, out)?;
        if stopped {
            return Ok(ExitCode::SUCCESS);
        }
    } else if let (None, Some(out)) = (&args.resume, &args.out) {
        net.save_as(out, WeightsFormat::CHECKPOINT, &cfg.note)
            .context("writing the new network")?;
        eprintln!(
            "wrote the new untrained network {} to {}",
            net.spec(),
            out.display()
        );
    }
    if let Some(ship) = &args.ship {
        write_ship(&net, ship, &cfg.note)?;
    }
    if args.eval_games > 0 && !stop.load(Ordering::Relaxed) {
        let started = Instant::now();
        // Seeds far from the training games' (which use --seed).
        let seed = args.seed ^ 0x5EED_0FE7_A100;
        let games = td::evaluate(&net, args.eval_games, seed, threads, &stop);
        print_eval(&games, started.elapsed().as_secs_f64());
    }
    Ok(ExitCode::SUCCESS)
}

/// Checks the settings that need no file; returns the thread count.
///
/// # Errors
/// No thread, a checkpoint interval that is not positive, or nothing to write or measure (exit 2).
fn check_settings(args: &TrainArgs) -> anyhow::Result<usize> {
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if threads == 0 {
        bail!("--threads must be at least 1");
    }
    if args.checkpoint_minutes.is_nan() || args.checkpoint_minutes <= 0.0 {
        bail!("--checkpoint-minutes must be positive");
    }
    if args.out.is_none() && args.resume.is_none() {
        if args.games > 0 {
            return Err(UsageError(
                "training needs --out FILE: the checkpoint it writes (256 MiB for 4x6)".into(),
            )
            .into());
        }
        if args.ship.is_none() && args.eval_games == 0 {
            return Err(UsageError(
                "--games 0 without --resume trains nothing: give --out FILE to write a new \
                 untrained network, or --resume FILE with --eval-games N to measure one"
                    .into(),
            )
            .into());
        }
    }
    Ok(threads)
}

/// The network to train: the --resume checkpoint (with its TC tables), or a new --network.
fn starting_network(args: &TrainArgs) -> anyhow::Result<(Network, Option<td::Coherence>)> {
    let Some(path) = &args.resume else {
        let spec = args.network.clone().unwrap_or_else(Spec::standard);
        eprintln!(
            "new network {spec}: {} weights ({:.1} MiB), every board worth {} points",
            spec.weight_count(),
            (spec.weight_count() * 4) as f64 / f64::from(1 << 20),
            args.init
        );
        return Ok((Network::new(spec, args.init), None));
    };
    let (net, tc) = resume(path, args.network.as_ref())?;
    eprintln!(
        "resumed {} ({} games{}) from {}",
        net.spec(),
        net.games(),
        match (&tc, args.tc) {
            (Some(_), true) => ", with its TC tables",
            (Some(_), false) => "; its TC tables are not used",
            (None, true) => "; TC starts fresh",
            (None, false) => "",
        },
        path.display()
    );
    Ok((net, tc))
}

/// The trainer's settings from the arguments; the note adds the command line to the network's.
fn train_config(args: &TrainArgs, net: &Network, threads: usize) -> TrainConfig {
    let command: Vec<String> = std::env::args().collect();
    TrainConfig {
        games: args.games,
        alpha: args.alpha,
        alpha_end: args.alpha_end,
        coherence: args.tc,
        threads,
        seed: args.seed,
        window: args.window,
        report_every: Duration::from_millis(250),
        checkpoint: args.out.clone().map(|path| CheckpointPlan {
            path,
            every: Duration::from_secs_f64(args.checkpoint_minutes * 60.0),
            keep: args.keep_checkpoints,
        }),
        note: format!(
            "{}{}trained by: {}",
            net.note(),
            if net.note().is_empty() { "" } else { "\n" },
            command.join(" ")
        ),
    }
}

/// Trains to `args.games` with the progress bar (or log lines without a terminal), checkpointing
/// to `out`; returns whether Ctrl-C stopped it.
fn train_with_progress(
    args: &TrainArgs,
    net: &Network,
    tc: Option<td::Coherence>,
    cfg: &TrainConfig,
    stop: &std::sync::atomic::AtomicBool,
    out: &std::path::Path,
) -> anyhow::Result<bool> {
    let bar = ProgressBar::new(args.games);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}")
            .context("progress bar template")?,
    );
    bar.set_position(net.games());
    let mut last_log = Instant::now();
    let log_every = Duration::from_secs(args.log_secs.max(1));
    let threads = cfg.threads;
    eprintln!(
        "training to {} games on {threads} thread{} by {}, α {}{}, checkpoints to {} every {} min",
        args.games,
        if threads == 1 { "" } else { "s" },
        if args.tc { "TC" } else { "TD(0)" },
        args.alpha,
        args.alpha_end
            .map(|e| format!(" decaying to {e}"))
            .unwrap_or_default(),
        out.display(),
        args.checkpoint_minutes
    );
    let summary = td::train(net, tc, cfg, stop, &mut |p| {
        bar.set_position(p.games);
        let line = progress_line(p);
        if bar.is_hidden() {
            if last_log.elapsed() >= log_every {
                last_log = Instant::now();
                eprintln!("{line}");
            }
        } else {
            bar.set_message(line);
        }
    })
    .with_context(|| format!("training into {}", out.display()))?;
    bar.finish_and_clear();
    eprintln!("{}", progress_line(&summary.progress));
    eprintln!(
        "{} after {} games; checkpoint {}",
        if summary.stopped {
            "stopped (Ctrl-C)"
        } else {
            "done"
        },
        summary.progress.games,
        out.display()
    );
    Ok(summary.stopped)
}

/// Writes the shipping copy (i16, deflated) and says how big it is.
fn write_ship(net: &Network, ship: &std::path::Path, note: &str) -> anyhow::Result<()> {
    net.save_as(ship, WeightsFormat::SHIP, note)?;
    let size = std::fs::metadata(ship).map(|m| m.len()).unwrap_or(0);
    eprintln!(
        "shipping copy (i16, deflated): {} ({:.1} MiB)",
        ship.display(),
        size as f64 / (1 << 20) as f64
    );
    Ok(())
}
