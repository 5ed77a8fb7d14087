//! `ragpipe status`: what the index holds, what failed and why, what is stale.

use crate::cli::StatusArgs;
use crate::{admin, embedded};
use ragpipe_admin::reindex::ReindexStatus;
use ragpipe_config::Config;
use ragpipe_coordinator::{SkippedEntry, SyncReport};
use ragpipe_core::DocStatus;
use ragpipe_state::StateStore;
use serde::Serialize;
use std::collections::BTreeMap;
use std::process::ExitCode;

#[derive(Debug, Serialize)]
struct Output {
    documents: BTreeMap<&'static str, i64>,
    chunks: i64,
    tokens: i64,
    header_tokens: i64,
    truncated: i64,
    failed: Vec<Entry>,
    stale: Vec<Entry>,
    model: String,
    pipeline_version: String,
    /// The live index, a reindex in progress, kept old indexes.
    index: ReindexStatus,
    /// Entries the last finished sync listed but could not read as
    /// documents (symlinks out of the folder, FIFOs, dangling links…).
    skipped: Vec<SkippedEntry>,
    skipped_total: u64,
}

#[derive(Debug, Serialize)]
struct Entry {
    document: String,
    id: String,
    detail: String,
}

pub async fn run(config: Config, args: StatusArgs) -> anyhow::Result<ExitCode> {
    let state = embedded::open_state(&config).await?;
    let current = ragpipe_admin::current(state.as_ref(), &admin::current(&config)).await?;
    let index = ragpipe_admin::reindex::status(state.as_ref()).await?;
    let counts = state.counts().await?;
    let mut documents: BTreeMap<&'static str, i64> = DocStatus::ALL.iter().map(|s| (s.as_str(), 0)).collect();
    for (s, c) in &counts {
        documents.insert(s.as_str(), c.documents);
    }
    let indexed = counts.iter().find(|(s, _)| *s == DocStatus::Indexed).map(|(_, c)| *c).unwrap_or_default();
    let failed = state
        .list(Some(DocStatus::Failed))
        .await?
        .into_iter()
        .map(|d| Entry {
            detail: format!(
                "[{}] {}",
                d.failure_stage.map_or("-", |s| s.as_str()),
                d.failure_reason.unwrap_or_default()
            ),
            document: d.uri,
            id: d.id.to_string(),
        })
        .collect();
    let stale = state
        .list(Some(DocStatus::Indexed))
        .await?
        .into_iter()
        .filter(|d| current.is_stale(d))
        .map(|d| Entry {
            detail: format!(
                "indexed with {} / pipeline {}",
                d.model.as_deref().unwrap_or("?"),
                d.pipeline_version.as_deref().unwrap_or("?")
            ),
            document: d.uri,
            id: d.id.to_string(),
        })
        .collect();
    let last_sync = last_sync_report(state.as_ref()).await?;
    let out = Output {
        documents,
        chunks: indexed.chunks,
        tokens: indexed.tokens,
        header_tokens: indexed.header_tokens,
        truncated: indexed.truncated,
        failed,
        stale,
        model: current.model,
        pipeline_version: current.pipeline_version,
        index,
        skipped_total: last_sync.skipped,
        skipped: last_sync.skipped_entries,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(ExitCode::SUCCESS);
    }
    let line: Vec<String> = out.documents.iter().map(|(s, n)| format!("{s} {n}")).collect();
    println!("documents: {}", line.join(", "));
    println!("chunks: {} ({} tokens embedded, {} on headers)", out.chunks, out.tokens, out.header_tokens);
    println!("truncated chunks: {}", out.truncated);
    println!("model: {}, pipeline version {}", out.model, out.pipeline_version);
    print_index(&out.index);
    for (title, list) in [("failed", &out.failed), ("stale", &out.stale)] {
        if !list.is_empty() {
            println!("{title} ({}):", list.len());
            for e in list {
                println!("  {}  {}", e.document.escape_debug(), e.detail);
            }
        }
    }
    print_skipped(out.skipped_total, &out.skipped);
    Ok(ExitCode::SUCCESS)
}

/// The report of the newest sync run that finished (empty before any).
async fn last_sync_report(state: &dyn StateStore) -> anyhow::Result<SyncReport> {
    let runs = state.sync_runs(10).await?;
    let report = runs.iter().filter(|r| r.finished_at.is_some()).find_map(|r| r.report.as_deref());
    Ok(report.and_then(|json| serde_json::from_str(json).ok()).unwrap_or_default())
}

/// Lists the entries a sync skipped, with their reasons; names are printed
/// escaped (`\n`, `\u{1b}`), so a hostile file name cannot rewrite the
/// terminal.
pub(crate) fn print_skipped(total: u64, entries: &[SkippedEntry]) {
    if total == 0 {
        return;
    }
    println!("skipped ({total}), not documents:");
    for e in entries {
        println!("  {}  {}", e.key.escape_debug(), e.reason);
    }
    let more = total.saturating_sub(entries.len() as u64);
    if more > 0 {
        println!("  … and {more} more");
    }
}

fn print_index(index: &ReindexStatus) {
    if let Some(live) = &index.live {
        println!("live index: {} ({} / pipeline {})", live.name, live.model, live.pipeline_version);
    }
    if let Some(b) = &index.building {
        let (done, total) = index.progress();
        println!(
            "reindex in progress: {} ({} / pipeline {}): {done} of {total} documents done \
             ({} indexed, {} failed); searches read the live index until the swap",
            b.name, b.model, b.pipeline_version, index.indexed, index.failed
        );
    }
    for r in &index.retired {
        println!("kept old index: {} ({} / pipeline {})", r.name, r.model, r.pipeline_version);
    }
}
