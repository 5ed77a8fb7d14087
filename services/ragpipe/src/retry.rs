//! `ragpipe retry`: queue failed documents again, each as a new generation
//! with its attempts reset. In the distributed mode (`distributed.amqp_url`)
//! their extract jobs are published at once; in the embedded mode the next
//! `ragpipe ingest` of their folder processes them. Idempotent: a document
//! already queued is not queued twice. The same function serves the admin API.

use crate::cli::RetryArgs;
use crate::{chunks, wiring};
use anyhow::bail;
use ragpipe_config::Config;
use ragpipe_core::DocStatus;
use std::process::ExitCode;

pub async fn run(config: Config, args: RetryArgs) -> anyhow::Result<ExitCode> {
    let f = &args.filter;
    let by_filter = args.all_failed || f.status.is_some() || f.reason.is_some() || f.kind.is_some();
    if args.documents.is_empty() && !by_filter {
        bail!("name documents to retry, or select them: --all-failed, --status failed, --reason TEXT, --kind K");
    }
    if f.status.is_some_and(|s| s != DocStatus::Failed) {
        bail!("only failed documents can be retried (--status failed)");
    }
    let admin = wiring::admin(&config).await?;
    let mut targets = Vec::new();
    for doc in &args.documents {
        targets.push(chunks::resolve(admin.state.as_ref(), doc).await?);
    }
    let mut report = admin.retry(&targets).await?;
    if by_filter {
        report.queued.extend(admin.retry_matching(&f.filter(false)).await?.queued);
    }
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        for q in &report.queued {
            println!("queued {} (generation {})", q.source, q.generation);
        }
        let how =
            if report.published { "extract jobs published" } else { "run `ragpipe ingest <folder>` to process them" };
        println!("{} document(s) queued; {how}", report.queued.len());
    }
    Ok(ExitCode::SUCCESS)
}
