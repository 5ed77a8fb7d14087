//! `ragpipe serve --folder F|s3://bucket/prefix [--every 15m]`: the embedded mode as one
//! long-running process. The embedded vector store admits one owner, so the
//! process that indexes is the one that answers: it ingests the folder or S3 prefix
//! (sync, extraction and embedding, as `ragpipe ingest`), again `every`
//! after each run ends, serves the search API (`search.listen`) and the
//! admin API and page (`admin.listen`), all over one handle on the index,
//! until SIGTERM or Ctrl-C. A small team gets a live, searchable index from
//! one command; retries queued from the admin page run with the next ingest.

use crate::cli::IngestArgs;
use crate::{ingest, search, wiring};
use anyhow::Context;
use ragpipe_config::Config;
use ragpipe_worker::Stop;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

pub async fn serve(config: Config, source: String, every: Duration) -> anyhow::Result<ExitCode> {
    // A folder that is not there, or S3 without credentials, is refused at
    // start rather than at every run.
    wiring::open_source(Some(&source), &config).with_context(|| format!("--folder {source}"))?;
    let stop = Stop::on_signals();

    let searcher = Arc::new(wiring::searcher(&config, search::options(&config, false, false)).await?);
    searcher.ready().await.context("opening the index for searches")?;
    let token = config.search.token.clone();
    let listener = ragpipe_worker::auth::bind(&config.search.listen, token.as_deref(), "search.token")
        .await
        .map_err(|e| anyhow::anyhow!("search.listen: {e}"))?;
    println!("search listening on http://{}", listener.local_addr()?);
    let searches = tokio::spawn({
        let stopped = stop.clone().stopped_owned();
        async move { ragpipe_search::serve(searcher, token.as_deref(), listener, stopped).await }
    });

    let admin = wiring::admin(&config).await?;
    let listener = ragpipe_admin::bind(&config.admin.listen, admin.token.as_deref()).await?;
    println!("admin listening on http://{}", listener.local_addr()?);
    let admins = tokio::spawn(ragpipe_admin::serve(admin, listener, stop.clone().stopped_owned()));

    let args = IngestArgs { source, json: false, quiet: true, every: None };
    loop {
        if let Err(e) = ingest::ingest_once(&config, &args).await {
            tracing::error!(error = %format!("{e:#}"), "ingest run failed; the next run retries");
        }
        if stop.sleep(every).await {
            break;
        }
    }
    searches.await??;
    admins.await??;
    Ok(ExitCode::SUCCESS)
}
