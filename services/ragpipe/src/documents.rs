//! `ragpipe documents`: every document with its status and, for failures,
//! the stage and reason; filtered like the admin API filters.

use crate::cli::DocumentsArgs;
use crate::{admin, wiring};
use ragpipe_admin::DocumentView;
use ragpipe_config::Config;
use std::process::ExitCode;

/// Reads the state store only: listing never connects to the broker or
/// the vector store.
pub async fn run(config: Config, args: DocumentsArgs) -> anyhow::Result<ExitCode> {
    let state = wiring::open_state(&config).await?;
    let current = ragpipe_admin::current(state.as_ref(), &wiring::current(&config)).await?;
    let selected = ragpipe_admin::select(state.as_ref(), &args.filter.filter(args.stale), &current).await?;
    let docs: Vec<DocumentView> = selected.iter().map(|d| DocumentView::new(d, &current)).collect();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&docs)?);
        return Ok(ExitCode::SUCCESS);
    }
    for d in &docs {
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
    }
    println!("{} document(s)", docs.len());
    Ok(ExitCode::SUCCESS)
}
