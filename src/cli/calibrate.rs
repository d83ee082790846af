//! `bot2048 calibrate` (being built).
use clap::Args;
use std::process::ExitCode;

/// Arguments of `bot2048 calibrate`.
#[derive(Debug, Args)]
pub struct CalibrateArgs {}

/// Runs `bot2048 calibrate`.
///
/// # Errors
/// Always, until this subcommand is built.
pub fn run(_args: CalibrateArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`bot2048 calibrate` is not built yet")
}
