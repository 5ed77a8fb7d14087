//! Retrying failed documents: the one function behind `ragpipe retry`, the
//! HTTP API and the web page's retry buttons.

use crate::AdminError;
use ragpipe_core::{DocumentId, Stage};
use ragpipe_queue::{Queue, Topic};
use ragpipe_state::StateStore;
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
///
/// A job that cannot be published leaves its document `failed` again with
/// the broker's error as reason, never `queued` with no job to move it.
pub async fn retry(
    state: &dyn StateStore,
    queue: Option<&dyn Queue>,
    ids: &[DocumentId],
) -> Result<RetryReport, AdminError> {
    let mut queued = Vec::new();
    for id in ids {
        let Some(r) = state.retry(id).await? else { continue };
        if let Some(queue) = queue
            && let Err(e) = queue.publish(Topic::Extract, r.job().to_bytes()).await
        {
            let reason = format!("retry could not be queued: {e}");
            state.fail(&r.id, r.generation, Stage::Fetch, &reason).await?;
            return Err(AdminError::Queue(e));
        }
        queued.push(Queued { id: r.id.to_string(), source: r.uri, generation: r.generation });
    }
    Ok(RetryReport { queued, published: queue.is_some() })
}
