//! Retrying failed documents: the one function behind `ragpipe retry`, the
//! HTTP API and the web page's retry buttons. Documents are requeued in
//! batches (one statement per [`REQUEUE_BATCH`]), so retrying every failure
//! of a reason over a million-document index takes seconds, not an hour.

use crate::{AdminError, Current, Filter};
use ragpipe_core::{DocStatus, DocumentId, Stage};
use ragpipe_queue::{Queue, Topic};
use ragpipe_state::{Cursor, REQUEUE_BATCH, Retried, StateStore};
use serde::Serialize;

/// A document queued again.
#[derive(Debug, Clone, Serialize)]
pub struct Queued {
    pub id: String,
    pub source: String,
    pub generation: i64,
}

/// What a retry did.
#[derive(Debug, Clone, Serialize)]
pub struct RetryReport {
    pub queued: Vec<Queued>,
    /// Extract jobs were published (distributed mode); otherwise the next
    /// embedded `ragpipe ingest` processes the queued documents.
    pub published: bool,
}

/// Queues each failed document of `ids` as a new generation with its
/// attempts reset, and publishes its extract job when there is a queue.
/// Documents that are not failed are skipped, so retrying twice queues once.
pub async fn retry(
    state: &dyn StateStore,
    queue: Option<&dyn Queue>,
    ids: &[DocumentId],
) -> Result<RetryReport, AdminError> {
    let mut report = RetryReport { queued: Vec::new(), published: queue.is_some() };
    for batch in ids.chunks(REQUEUE_BATCH) {
        let requeued = state.requeue_many(batch, DocStatus::Failed).await?;
        publish(state, queue, requeued, &mut report).await?;
    }
    Ok(report)
}

/// [`retry`] for every failed document `filter` selects (its status is
/// taken as failed whatever it says), page by page.
pub async fn retry_matching(
    state: &dyn StateStore,
    queue: Option<&dyn Queue>,
    filter: &Filter,
    current: &Current,
) -> Result<RetryReport, AdminError> {
    let query = Filter { status: Some(DocStatus::Failed), ..filter.clone() }.query(current);
    let mut report = RetryReport { queued: Vec::new(), published: queue.is_some() };
    let mut cursor = Cursor::Start;
    loop {
        let page = state.page(&query, &cursor, REQUEUE_BATCH).await?;
        let Some(last) = page.documents.last() else { break };
        cursor = Cursor::After(last.uri.clone());
        let ids: Vec<DocumentId> = page.documents.iter().map(|d| d.id.clone()).collect();
        let requeued = state.requeue_many(&ids, DocStatus::Failed).await?;
        publish(state, queue, requeued, &mut report).await?;
        if !page.more {
            break;
        }
    }
    Ok(report)
}

/// Publishes the extract jobs of requeued documents (distributed mode), a
/// batch at a time (with RabbitMQ: sent together, then confirmed together).
/// A batch that cannot be published leaves its documents `failed` again
/// with the broker's error as reason, never `queued` with no job to move
/// them; a job of theirs that did go out finds its generation failed and is
/// dropped, and the next retry queues them again.
async fn publish(
    state: &dyn StateStore,
    queue: Option<&dyn Queue>,
    requeued: Vec<Retried>,
    report: &mut RetryReport,
) -> Result<(), AdminError> {
    if let Some(queue) = queue {
        let jobs = requeued.iter().map(|r| (r.job().to_bytes(), tracing::info_span!("retry", document.id = %r.id)));
        if let Err(e) = queue.publish_many(Topic::Extract, jobs.collect()).await {
            let reason = format!("retry could not be queued: {e}");
            for r in &requeued {
                state.fail(&r.id, r.generation, Stage::Fetch, &reason).await?;
            }
            return Err(AdminError::Queue(e));
        }
    }
    report.queued.extend(requeued.into_iter().map(|r| Queued {
        id: r.id.to_string(),
        source: r.uri,
        generation: r.generation,
    }));
    Ok(())
}
