use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    // diagnostics (focus requests, rereads) on stderr: BOT2048_LOG=debug; quiet below warn
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("BOT2048_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let cli = bot2048::cli::Cli::parse();
    match bot2048::cli::run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("bot2048: error: {err:#}");
            ExitCode::from(1)
        }
    }
}
