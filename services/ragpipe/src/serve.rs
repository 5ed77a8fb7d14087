//! The distributed mode's commands: `ragpipe sync` (the coordinator) and
//! `ragpipe serve extractor|embedder` (long-running workers). Each service
//! crate runs itself (`ragpipe_coordinator::run`, `ragpipe_extractor::run`,
//! `ragpipe_embedder::run`); this file hands it its adapters from `wiring`
//! and prints what it reports.
//!
//! Vectors: a Qdrant server when `distributed.qdrant_url` is set, so any
//! number of embedder processes share it; without one, the embedder writes
//! the qdrant-edge store in its data directory, which one process owns, so
//! such a deployment runs ONE embedder process (`workers.embedders` tasks).

use crate::cli::{ServeRole, SyncArgs};
use crate::wiring;
use anyhow::bail;
use ragpipe_config::Config;
use ragpipe_coordinator::RunEnd;
use ragpipe_embedder::Targets;
use ragpipe_worker::{Stop, patiently};
use std::process::ExitCode;
use std::sync::Arc;

/// Sync runs; each prints its new/changed/deleted/unchanged counts as one
/// JSON line, or `{"skipped": …, "held_by": …}` when another run holds the
/// lock. With `--every`, runs follow one another until SIGTERM.
pub async fn sync(config: Config, args: SyncArgs) -> anyhow::Result<ExitCode> {
    wiring::require_state(&config)?;
    let ports = ragpipe_coordinator::Ports {
        source: wiring::open_source(args.source.as_deref().or(config.distributed.source.as_deref()), &config)?,
        state: wiring::open_state(&config).await?,
        queue: wiring::open_queue(&config).await?,
    };
    let print = |end: RunEnd| match end {
        RunEnd::Synced(report) => println!("{}", serde_json::to_string(&report).unwrap_or_default()),
        RunEnd::Skipped(held) => {
            println!("{}", serde_json::json!({ "skipped": "another sync is running", "held_by": held }))
        }
    };
    ragpipe_coordinator::run(&config, ports, args.every, Stop::on_signals(), print).await?;
    Ok(ExitCode::SUCCESS)
}

/// Runs a worker role until SIGTERM or Ctrl-C. A worker started while
/// PostgreSQL (or the index registry in it) is not up yet waits for it.
pub async fn serve(config: Config, role: ServeRole) -> anyhow::Result<ExitCode> {
    wiring::require_state(&config)?;
    let stop = Stop::on_signals();
    let Some(state) = patiently("the state store", &stop, || wiring::open_state(&config)).await else {
        return Ok(ExitCode::SUCCESS);
    };
    let connect = || wiring::open_queue(&config);
    match role {
        ServeRole::Extractor => {
            let ports = ragpipe_extractor::Ports {
                source: wiring::open_source(config.distributed.source.as_deref(), &config)?,
                state,
                counter: wiring::load_tokenizer(&config)?,
            };
            ragpipe_extractor::run(&config, ports, connect, stop).await?;
        }
        ServeRole::Embedder => {
            // The model of the index being written; the target is looked up
            // again for every job, so a reindex that starts or swaps is followed.
            let first = wiring::first_index(&config)?;
            let write_index = || ragpipe_state::write_index(state.as_ref(), &first);
            let Some(index) = patiently("the index registry", &stop, write_index).await else {
                return Ok(ExitCode::SUCCESS);
            };
            let ports = ragpipe_embedder::Ports {
                embedder: wiring::load_embedder_for(&config, state.as_ref(), &index).await?,
                targets: Arc::new(Targets::registry(state.clone(), wiring::collections(&config)?, first)),
                state,
            };
            ragpipe_embedder::run(&config, ports, connect, stop).await?;
        }
        ServeRole::Admin | ServeRole::Search => {
            bail!("the admin and search roles serve HTTP, they have no queue workers")
        }
    }
    Ok(ExitCode::SUCCESS)
}
