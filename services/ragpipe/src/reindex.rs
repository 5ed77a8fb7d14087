//! `ragpipe reindex`: rebuild the index into a new collection for a new
//! model or pipeline version while searches keep reading the old one, then
//! swap atomically (see `ragpipe_admin::reindex`). The embedded mode runs
//! the build here, as an ingest of the folder the last sync read; the
//! distributed mode publishes the build's extract jobs to the workers and
//! follows their progress. Either way an interrupted reindex is resumed by
//! running `ragpipe reindex` again.

use crate::cli::{IngestArgs, ReindexArgs};
use crate::{ingest, wiring};
use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use ragpipe_admin::reindex::{self, ReindexRequest, Started};
use ragpipe_config::Config;
use ragpipe_state::StateStore;
use std::process::ExitCode;
use std::time::Duration;

pub async fn run(config: Config, args: ReindexArgs) -> anyhow::Result<ExitCode> {
    let state = wiring::open_state(&config).await?;
    let collections = wiring::collections(&config)?;
    let req = ReindexRequest {
        model: match args.model {
            Some(variant) => Some(variant.recorded_name(&wiring::configured_files(&config)?.spec.name)),
            None => None,
        },
        pipeline_version: args
            .pipeline_version
            .as_deref()
            .map(|label| ragpipe_vectors::bm25::labelled(label, &config.lexical.language)),
        keep_old: args.keep_old,
        stale_only: args.stale_only,
        extractor_version: wiring::extractor_version(&config),
    };
    let distributed = config.distributed.amqp_url.is_some();
    let folder = match (&args.folder, distributed) {
        (Some(f), _) => Some(f.clone()),
        (None, false) => Some(last_source(state.as_ref()).await?),
        (None, true) => None,
    };
    let started = reindex::start(state.as_ref(), collections.as_ref(), &wiring::first_index(&config)?, &req).await?;
    let only = match &started {
        Started::Build { index } | Started::Resumed { index } => {
            let verb = if matches!(started, Started::Build { .. }) { "building" } else { "resuming" };
            eprintln!(
                "{verb} index {} ({} / pipeline {}); searches read the live index until the swap",
                index.name, index.model, index.pipeline_version
            );
            None
        }
        Started::InPlace { requeued } => {
            eprintln!("{} stale document(s) queued again in the live index", requeued.len());
            Some(requeued.clone())
        }
    };
    match folder {
        Some(folder) if !distributed => {
            let ingest_args = IngestArgs { source: folder, json: args.json, quiet: args.quiet, every: None };
            ingest::ingest_once(&config, &ingest_args).await
        }
        _ => {
            distributed_build(&config, state.as_ref(), collections.as_ref(), &started, only.as_deref(), args.json).await
        }
    }
}

/// The folder the last sync listed: the embedded mode's source.
/// The folder or S3 prefix the last ingest read.
async fn last_source(state: &dyn StateStore) -> anyhow::Result<String> {
    let runs = state.sync_runs(1).await?;
    let source = runs.first().map(|r| r.source.clone()).context("nothing was ever ingested: pass --folder")?;
    Ok(match source.strip_prefix("file://") {
        Some(path) => path.to_string(),
        None => source,
    })
}

/// Publishes the extract jobs of the documents the reindex queued (once per
/// build: a resumed build whose jobs all went out publishes none), then
/// shows progress until nothing is pending and swaps.
async fn distributed_build(
    config: &Config,
    state: &dyn StateStore,
    collections: &dyn ragpipe_vectors::Collections,
    started: &Started,
    only: Option<&[String]>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let queue = wiring::open_queue(config).await?;
    let published = reindex::publish(state, queue.as_ref(), started, only).await?;
    if published > 0 {
        eprintln!("published {published} extract job(s)");
    }
    let bar = if json { ProgressBar::hidden() } else { ProgressBar::new(0) };
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} documents  {msg}")
            .expect("static template"),
    );
    loop {
        let status = reindex::status(state).await?;
        let (done, total) = status.progress();
        bar.set_length(total as u64);
        bar.set_position(done as u64);
        bar.set_message(format!("{} failed", status.failed));
        if status.pending == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    bar.finish_and_clear();
    let swapped = reindex::finish(state, collections).await?;
    let status = reindex::status(state).await?;
    if json {
        println!("{}", serde_json::json!({ "swapped": swapped, "index": status }));
    } else if let Some(sw) = &swapped {
        let dropped = if sw.dropped { "dropped" } else { "kept" };
        println!("reindex complete: searches now read {}; the old index was {dropped}", sw.to);
    } else {
        println!("{} documents indexed, {} failed", status.indexed, status.failed);
    }
    Ok(if status.failed > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
