//! `ragpipe`: the one command users install. This file only parses
//! arguments, sets up logging and dispatches; the work lives in the stage
//! libraries and service crates, wired to adapters in `wiring.rs`.

mod admin;
mod bench;
mod chunks;
mod cli;
mod documents;
mod embedded;
mod eval;
mod ingest;
mod reindex;
mod retry;
mod search;
mod serve;
mod status;
mod text;
mod wiring;

use clap::Parser;
use cli::{BenchCommand, Cli, Command, ServeRole};

/// The service name spans and metrics are exported under.
fn service_name(command: &Command) -> &'static str {
    match command {
        Command::Serve { role: Some(ServeRole::Extractor), .. } => "ragpipe-extractor",
        Command::Serve { role: Some(ServeRole::Embedder), .. } => "ragpipe-embedder",
        Command::Serve { role: Some(ServeRole::Admin), .. } => "ragpipe-admin",
        Command::Serve { role: Some(ServeRole::Search), .. } => "ragpipe-search",
        Command::Sync(_) => "ragpipe-coordinator",
        _ => "ragpipe",
    }
}

fn main() -> std::process::ExitCode {
    // Behave like a Unix tool when piped into `head`: exit quietly on a
    // closed stdout instead of panicking in `println!`.
    // SAFETY: called first thing in main, before any other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    if let Command::Extract = cli.command {
        // The extraction child: main thread, no runtime, no threads, so the
        // parser gets the whole stack and address space its limits allow.
        return std::process::ExitCode::from(ragpipe_extractor::child_main() as u8);
    }
    match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime.block_on(run(cli)),
        Err(e) => {
            eprintln!("error: starting the async runtime: {e}");
            std::process::ExitCode::from(2)
        }
    }
}

async fn run(cli: Cli) -> std::process::ExitCode {
    let config = match cli.config() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e:#}");
            return std::process::ExitCode::from(2);
        }
    };
    // Logs to stderr; spans and metrics over OTLP when an endpoint is set.
    let _telemetry = ragpipe_telemetry::init(service_name(&cli.command), config.telemetry.otlp_endpoint.as_deref());
    let result = async {
        match cli.command {
            Command::Ingest(args) => ingest::run(config, args).await,
            Command::Search(args) => search::run(config, args).await,
            Command::Status(args) => status::run(config, args).await,
            Command::Chunks(args) => chunks::run(config, args).await,
            Command::Text(args) => text::run(config, args),
            Command::Sync(args) => serve::sync(config, args).await,
            Command::Documents(args) => documents::run(config, args).await,
            Command::Retry(args) => retry::run(config, args).await,
            Command::Reindex(args) => reindex::run(config, args).await,
            Command::Serve { role: Some(ServeRole::Admin), listen, .. } => admin::serve(config, listen).await,
            Command::Serve { role: Some(ServeRole::Search), listen, .. } => search::serve(config, listen).await,
            Command::Serve { role: Some(role), .. } => serve::serve(config, role).await,
            Command::Serve { role: None, folder, every, .. } => {
                let folder = folder.ok_or_else(|| anyhow::anyhow!("name a role, or --folder F"))?;
                embedded::serve(config, folder, every).await
            }
            Command::Eval(args) => eval::run(config, args).await,
            Command::Bench(BenchCommand::Embed(args)) => bench::embed(config, args).await,
            Command::Bench(BenchCommand::Ingest(args)) => bench::ingest(config, args).await,
            Command::Bench(BenchCommand::Extract(args)) => bench::extract(config, args),
            Command::Bench(BenchCommand::Asr(args)) => bench::asr(config, args),
            Command::Bench(BenchCommand::Ocr(args)) => bench::ocr(config, args),
            Command::Bench(BenchCommand::Admin(args)) => bench::admin(args).await,
            Command::Bench(BenchCommand::Search(args)) => bench::search(config, args).await,
            Command::Bench(BenchCommand::Sync(args)) => bench::sync(args).await,
            Command::Extract => unreachable!("served before the runtime starts"),
        }
    }
    .await;
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::from(2)
        }
    }
}
