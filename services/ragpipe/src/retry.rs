//! `ragpipe retry`: queue failed documents again, each as a new generation
//! with its attempts reset. In the distributed mode (`distributed.amqp_url`)
//! their extract jobs are published at once; in the embedded mode the next
//! `ragpipe ingest` of their folder processes them. Idempotent: a document
//! already queued is not queued twice.

use crate::cli::RetryArgs;
use crate::{chunks, embedded, serve};
use anyhow::bail;
use ragpipe_config::Config;
use ragpipe_core::{DocStatus, ExtractJob, Job, SCHEMA_VERSION};
use ragpipe_queue::Topic;
use ragpipe_state::StateStore;
use std::process::ExitCode;

pub async fn run(config: Config, args: RetryArgs) -> anyhow::Result<ExitCode> {
    if args.documents.is_empty() && !args.all_failed && args.reason.is_none() {
        bail!("name documents to retry, or pass --all-failed or --reason TEXT");
    }
    let state = embedded::open_state(&config).await?;
    let mut targets = Vec::new();
    if args.all_failed || args.reason.is_some() {
        for doc in state.list(Some(DocStatus::Failed)).await? {
            let reason = doc.failure_reason.as_deref().unwrap_or_default();
            if args.reason.as_deref().is_none_or(|r| reason.contains(r)) {
                targets.push(doc.id);
            }
        }
    }
    for doc in &args.documents {
        targets.push(chunks::resolve(state.as_ref(), doc).await?);
    }
    let queue = match config.distributed.amqp_url {
        Some(_) => Some(serve::open_queue(&config).await?),
        None => None,
    };
    let mut queued = Vec::new();
    for id in targets {
        let Some(r) = state.retry(&id).await? else { continue };
        if let Some(queue) = &queue {
            let job = ExtractJob {
                schema_version: SCHEMA_VERSION,
                document_id: r.id.clone(),
                uri: r.uri.clone(),
                key: r.key.clone(),
                generation: r.generation,
            };
            queue.publish(Topic::Extract, Job::Extract(job).to_bytes()).await?;
        }
        queued.push(serde_json::json!({"id": r.id.to_string(), "document": r.uri, "generation": r.generation}));
    }
    if args.json {
        println!("{}", serde_json::json!({ "queued": queued, "published": queue.is_some() }));
    } else {
        for q in &queued {
            println!("queued {} (generation {})", q["document"].as_str().unwrap_or_default(), q["generation"]);
        }
        let how =
            if queue.is_some() { "extract jobs published" } else { "run `ragpipe ingest <folder>` to process them" };
        println!("{} document(s) queued; {how}", queued.len());
    }
    Ok(ExitCode::SUCCESS)
}
