//! `ragpipe status`: what the index holds, what failed and why, what is stale.

use crate::cli::StatusArgs;
use crate::wiring;
use ragpipe_admin::reindex::ReindexStatus;
use ragpipe_config::Config;
use ragpipe_state::SkippedEntry;
use std::process::ExitCode;

/// Reads the state store only (the same function serves `GET /api/status`,
/// which adds the broker's queue depths).
pub async fn run(config: Config, args: StatusArgs) -> anyhow::Result<ExitCode> {
    let state = wiring::open_state(&config).await?;
    let out = ragpipe_admin::status(state.as_ref(), None, &wiring::current(&config)?).await?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(ExitCode::SUCCESS);
    }
    let line: Vec<String> = out.documents.iter().map(|(s, n)| format!("{s} {n}")).collect();
    println!("documents: {}", line.join(", "));
    println!("chunks: {} ({} tokens embedded, {} on headers)", out.chunks, out.tokens, out.header_tokens);
    println!("truncated chunks: {}", out.truncated);
    println!("model: {}, pipeline version {}", out.current.model, out.current.pipeline_version);
    print_index(&out.index);
    if !out.failures.is_empty() {
        println!("failures by reason:");
        for g in &out.failures {
            println!("  {:>8}  [{}] {}", g.count, g.stage.unwrap_or("-"), g.reason.escape_debug());
        }
    }
    let failed_total = out.documents.get("failed").copied().unwrap_or_default() as usize;
    let lists = [
        ("failed", &out.failed, failed_total, "--status failed"),
        ("stale", &out.stale, out.stale_total as usize, "--stale"),
    ];
    for (title, list, total, all) in lists {
        if total > 0 {
            println!("{title} ({total}):");
            for e in list {
                println!("  {}  {}", e.document.escape_debug(), e.detail);
            }
            if total > list.len() {
                println!("  … and {} more (`ragpipe documents {all}`)", total - list.len());
            }
        }
    }
    print_skipped(out.skipped_total, &out.skipped);
    Ok(ExitCode::SUCCESS)
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
