use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = bot2048::cli::Cli::parse();
    match bot2048::cli::run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("bot2048: error: {err:#}");
            ExitCode::from(1)
        }
    }
}
