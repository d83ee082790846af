//! `bot2048 play` (being built).
use clap::Args;
use std::process::ExitCode;

/// Arguments of `bot2048 play`.
#[derive(Debug, Args)]
pub struct PlayArgs {}

/// Runs `bot2048 play`.
///
/// # Errors
/// Always, until this subcommand is built.
pub fn run(_args: PlayArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`bot2048 play` is not built yet")
}
