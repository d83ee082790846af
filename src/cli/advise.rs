//! `bot2048 advise` (being built).
use clap::Args;
use std::process::ExitCode;

/// Arguments of `bot2048 advise`.
#[derive(Debug, Args)]
pub struct AdviseArgs {}

/// Runs `bot2048 advise`.
///
/// # Errors
/// Always, until this subcommand is built.
pub fn run(_args: AdviseArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`bot2048 advise` is not built yet")
}
