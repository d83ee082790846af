use bot2048::cli::exit;
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
    quiet_on_broken_pipe();
    let cli = bot2048::cli::Cli::parse();
    match bot2048::cli::run(cli) {
        Ok(code) => code,
        Err(err) if exit::is_broken_pipe(&err) => ExitCode::from(exit::OK),
        Err(err) => {
            eprintln!("bot2048: error: {err:#}");
            ExitCode::from(exit::for_error(&err))
        }
    }
}

/// `println!` panics when stdout is a closed pipe (`bot2048 read ... | head -1`): exit quietly
/// instead (see `cli::exit`); every other panic goes to the default hook.
fn quiet_on_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let msg = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if exit::is_broken_pipe_panic(msg) {
            std::process::exit(i32::from(exit::OK));
        }
        default(info);
    }));
}
