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

/// A real use of a subcommand, shown at the end of its `--help`: the command line, then what it
/// does. Every one is checked to parse (the tests of this module).
pub type Example = (&'static str, &'static str);

/// The end of a subcommand's `--help` (clap's `after_long_help`; `-h` shows neither): `codes`,
/// its exit codes as [`exit::help_text`] writes them, then its `examples`.
pub fn long_help_end(codes: String, examples: &[Example]) -> String {
    let mut s = codes;
    if !s.ends_with('\n') {
        s.push('\n');
    }
    s.push_str("\nExamples:\n");
    for (command, what) in examples {
        s.push_str(&format!("  {command}\n      {what}\n"));
    }
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
    /// Build the middle-game or endgame tables once (exact values of boards with a block of large tiles, for `--eval auto`), or list what is built.
    Tables(tables::TablesArgs),
    /// List the solvers (`--solver`) with their options, and the evaluations (`--eval`).
    ///
    /// Prints every solver `--solver` takes (`play`, `advise`, `sim`): what it does, its measure
    /// of work (what `--depth` counts) and default budget, and its options with their defaults
    /// (`--opt KEY=VALUE`); then the evaluations (`--eval`) of the solvers that score boards.
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Splits a command line as a shell would (words, and "double-quoted" words).
    fn words(line: &str) -> Vec<String> {
        let (mut out, mut word, mut quoted, mut any) = (Vec::new(), String::new(), false, false);
        for c in line.chars() {
            match c {
                '"' => (quoted, any) = (!quoted, true),
                ' ' if !quoted => {
                    if any {
                        out.push(std::mem::take(&mut word));
                    }
                    any = false;
                }
                c => {
                    word.push(c);
                    any = true;
                }
            }
        }
        if any {
            out.push(word);
        }
        out
    }

    #[test]
    fn every_example_in_the_help_parses() {
        let all: &[&[Example]] = &[
            play::EXAMPLES,
            advise::EXAMPLES,
            read::EXAMPLES,
            replay::EXAMPLES,
            windows::EXAMPLES,
            calibrate::EXAMPLES,
            sim::EXAMPLES,
            train::EXAMPLES,
            tables::EXAMPLES,
            tables::BUILD_EXAMPLES,
            tables::STATUS_EXAMPLES,
            solver_args::EXAMPLES,
        ];
        for examples in all {
            assert!(examples.len() >= 2, "{examples:?}");
            for (line, what) in examples.iter() {
                // clap wraps the help at 100 columns: a command must fit on its line whole
                assert!(line.len() <= 96, "too long to print unwrapped: {line}");
                let w = words(line);
                assert_eq!(w[0], "bot2048", "{line}");
                if let Err(e) = Cli::try_parse_from(&w) {
                    panic!("{line} ({what}): {e}");
                }
            }
        }
        assert_eq!(
            words(r#"bot2048 read --window "GNOME 2048" x"#),
            ["bot2048", "read", "--window", "GNOME 2048", "x"]
        );
    }

    #[test]
    fn long_help_ends_with_the_examples() {
        let end = long_help_end("Exit status:\n    0  done".into(), read::EXAMPLES);
        assert!(end.starts_with("Exit status:\n    0  done\n\nExamples:\n  bot2048 read "));
        assert!(end.ends_with(&format!("      {}\n", read::EXAMPLES[2].1)));
    }
}
