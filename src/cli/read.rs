//! `bot2048 read` (being built).
use clap::Args;
use std::process::ExitCode;

/// Arguments of `bot2048 read`.
#[derive(Debug, Args)]
pub struct ReadArgs {}

/// Runs `bot2048 read`.
///
/// # Errors
/// Always, until this subcommand is built.
pub fn run(_args: ReadArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`bot2048 read` is not built yet")
}
