//! `ragpipe documents`: a page of documents with their status and, for
//! failures, the stage and reason; filtered and paged like the admin API
//! (`--limit`, and `--after` / `--before` the cursors a page prints).

use crate::cli::DocumentsArgs;
use crate::{admin, wiring};
use ragpipe_config::Config;
use ragpipe_state::Cursor;
use std::process::ExitCode;

/// Reads the state store only: listing never connects to the broker or
/// the vector store.
pub async fn run(config: Config, args: DocumentsArgs) -> anyhow::Result<ExitCode> {
    let state = wiring::open_state(&config).await?;
    let current = ragpipe_admin::current(state.as_ref(), &wiring::current(&config)?).await?;
    let cursor = match (args.after, args.before) {
        (Some(after), _) => Cursor::After(after),
        (None, Some(before)) => Cursor::Before(before),
        (None, None) => Cursor::Start,
    };
    let filter = args.filter.filter(args.stale);
    let page = ragpipe_admin::page(state.as_ref(), &filter, &current, &cursor, args.limit).await?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&page)?);
        return Ok(ExitCode::SUCCESS);
    }
    for d in &page.documents {
        let chunks = d.chunks.map_or("-".to_string(), |c| c.to_string());
        let versions = format!(
            "{} / pipeline {} / extractor {}",
            d.model.as_deref().unwrap_or("-"),
            d.pipeline_version.as_deref().unwrap_or("-"),
            d.extractor_version.as_deref().unwrap_or("-")
        );
        println!(
            "{:<10} {:<11} {:>6} chunks  {} attempt(s)  {}  {}{}",
            d.status,
            d.kind.unwrap_or("-"),
            chunks,
            d.attempts,
            d.source,
            if d.stale { "(stale) " } else { "" },
            admin::updated(d.updated_at)
        );
        println!("           id {}  {versions}", d.id);
        if let Some(reason) = &d.reason {
            println!("           [{}] {reason}", d.stage.unwrap_or("-"));
        }
        if let Some(warning) = &d.warning {
            println!("           warning: {warning}");
        }
    }
    println!("{} document(s) on this page", page.documents.len());
    if let Some(previous) = &page.previous {
        println!("previous page: --before '{previous}'");
    }
    if let Some(next) = &page.next {
        println!("next page: --after '{next}'");
    }
    Ok(ExitCode::SUCCESS)
}
