use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    // diagnostics on stderr: BOT2048_LOG=bot2048=debug (focus requests); by default our warnings only
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("BOT2048_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("bot2048=warn")),
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
