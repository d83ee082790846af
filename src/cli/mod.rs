//! Command-line interface: [`Cli`], [`Command`], one file per subcommand.
//!
//! Each subcommand file holds its clap `Args` struct and a `run(args) -> anyhow::Result<ExitCode>`.
//! [`exit`] holds the exit codes of every subcommand in one table; [`output`] writes files without
//! losing any the user had.
use clap::{Parser, Subcommand};
use std::process::ExitCode;

pub mod advise;
pub mod calibrate;
pub mod exit;
pub mod output;
pub mod play;
pub mod read;
pub mod replay;
pub mod sim;
pub mod solver_args;
pub mod tables;
pub mod train;
pub mod windows;

/// bot2048: plays a real 2048 game by looking at the screen and pressing arrow keys.
#[derive(Debug, Parser)]
#[command(name = "bot2048", version, about, long_about = None, after_help = top_help())]
pub struct Cli {
    /// The subcommand to run.
    #[command(subcommand)]
    pub command: Command,
}

fn top_help() -> String {
    let mut s = exit::help_text(&[
        exit::OK,
        exit::ERROR,
        exit::USAGE,
        exit::DESYNC,
        exit::STOPPED,
        exit::NO_BOARD,
        exit::UNREADABLE,
        exit::NO_DISPLAY,
        exit::NO_WINDOW,
        exit::INTERRUPTED,
    ]);
    s.push_str("Each subcommand's --help lists the codes it uses. X11 windows only: an X11 session, or XWayland in a Wayland session.");
    s
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Play a real 2048 window: capture, read, solve, press keys, verify.
    Play(play::PlayArgs),
    /// Watch a 2048 window while you play and print the suggested move after each change.
    Advise(advise::AdviseArgs),
    /// Read the board from screenshots, or from a game window's live frame.
    Read(read::ReadArgs),
    /// Check a `play --record` directory against the engine and print the game move by move.
    Replay(replay::ReplayArgs),
    /// List the windows on the screen and whether a 2048 board is found in each.
    Windows(windows::WindowsArgs),
    /// Make a calibration profile for a 2048 game.
    Calibrate(calibrate::CalibrateArgs),
    /// Play many games on the built-in engine and measure a solver.
    Sim(sim::SimArgs),
    /// Train an n-tuple network by TD(0) self-play (the learned evaluation).
    Train(train::TrainArgs),
    /// Build the endgame tables once (exact values of some late boards, for `--eval tables`), or list what is built.
    Tables(tables::TablesArgs),
    /// List the solvers (`--solver`) with their options, and the evaluations (`--eval`).
    Solvers(solver_args::SolversArgs),
}

/// Runs the parsed command line; returns the process exit code.
///
/// # Errors
/// Any error of the subcommand, with context for the user.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Play(args) => play::run(args),
        Command::Advise(args) => advise::run(args),
        Command::Read(args) => read::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Windows(args) => windows::run(args),
        Command::Calibrate(args) => calibrate::run(args),
        Command::Sim(args) => sim::run(args),
        Command::Train(args) => train::run(args),
        Command::Tables(args) => tables::run(args),
        Command::Solvers(args) => solver_args::run_solvers(args),
    }
}
