//! `bot2048 sim` (being built).
use clap::Args;
use std::process::ExitCode;

/// Arguments of `bot2048 sim`.
#[derive(Debug, Args)]
pub struct SimArgs {}

/// Runs `bot2048 sim`.
///
/// # Errors
/// Always, until this subcommand is built.
pub fn run(_args: SimArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`bot2048 sim` is not built yet")
}
