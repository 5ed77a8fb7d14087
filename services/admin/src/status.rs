//! What the index holds, what failed and why, what is stale, how a reindex
//! and the last syncs went: one [`Status`], gathered by one function for
//! `ragpipe status` and `GET /api/status`.

use crate::reindex::{self, ReindexStatus};
use crate::{AdminError, Current, MAX_GROUPS, ReasonGroup};
use ragpipe_core::{DocState, DocStatus};
use ragpipe_queue::{Queue, Topic};
use ragpipe_state::{Cursor, DocQuery, SkippedEntry, StateStore, SyncRun};
use serde::Serialize;
use std::collections::BTreeMap;

/// Failed and stale documents listed in a status, each; the totals count
/// them all (`ragpipe documents` and `GET /api/documents` page through
/// every one).
pub const MAX_LISTED: usize = 1000;

/// Sync runs a status shows, newest first.
const RECENT_SYNCS: i64 = 10;

#[derive(Debug, Serialize)]
pub struct Status {
    /// Documents per status, every status named (zeros too).
    pub documents: BTreeMap<&'static str, i64>,
    /// Totals over the indexed documents.
    pub chunks: i64,
    pub tokens: i64,
    pub header_tokens: i64,
    pub truncated: i64,
    /// The first [`MAX_LISTED`] failed documents with stage and reason.
    pub failed: Vec<Entry>,
    /// Every failed document counted by reason and stage, the largest
    /// [`MAX_GROUPS`] groups.
    pub failures: Vec<ReasonGroup>,
    /// The first [`MAX_LISTED`] indexed documents whose seal differs from
    /// `current`, and how many there are.
    pub stale: Vec<Entry>,
    pub stale_total: i64,
    /// What documents are compared with to be stale.
    pub current: Current,
    /// The live index, a reindex in progress, kept old indexes.
    pub index: ReindexStatus,
    /// Queue depths, when there is a broker.
    pub queues: BTreeMap<&'static str, u64>,
    /// The latest sync runs, newest first.
    pub syncs: Vec<SyncRun>,
    /// Entries the last finished sync listed but could not read as
    /// documents (symlinks out of the folder, FIFOs, dangling links…).
    pub skipped: Vec<SkippedEntry>,
    pub skipped_total: u64,
}

/// One listed document.
#[derive(Debug, Serialize)]
pub struct Entry {
    pub document: String,
    pub id: String,
    pub detail: String,
}

/// Gathers the status from the state store (and the broker's queue depths
/// when there is one). `configured` is the seal a new index would get.
pub async fn status(
    state: &dyn StateStore,
    queue: Option<&dyn Queue>,
    configured: &Current,
) -> Result<Status, AdminError> {
    let current = crate::current(state, configured).await?;
    let counts = state.counts().await?;
    let indexed = counts.get(DocStatus::Indexed);
    let failed = DocQuery { status: Some(DocStatus::Failed), ..DocQuery::default() };
    let failures = state.failure_groups(&failed, MAX_GROUPS).await?.into_iter().map(ReasonGroup::from).collect();
    let failed = state.page(&failed, &Cursor::Start, MAX_LISTED).await?.documents;
    let stale = DocQuery { stale_against: Some(current.seal()), ..DocQuery::default() };
    let stale_total = state.count(&stale).await?;
    let stale = state.page(&stale, &Cursor::Start, MAX_LISTED).await?.documents;
    let mut queues = BTreeMap::new();
    if let Some(queue) = queue {
        for topic in Topic::ALL {
            queues.insert(topic.short_name(), queue.depth(topic).await?);
        }
    }
    let syncs = state.sync_runs(RECENT_SYNCS).await?;
    let last = syncs.iter().filter(|r| r.finished_at.is_some()).find_map(SyncRun::parsed_report).unwrap_or_default();
    Ok(Status {
        documents: counts.by_status().into_iter().map(|(s, n)| (s.as_str(), n)).collect(),
        chunks: indexed.chunks,
        tokens: indexed.tokens,
        header_tokens: indexed.header_tokens,
        truncated: indexed.truncated,
        failed: failed.iter().map(failure).collect(),
        failures,
        stale_total,
        stale: stale.iter().map(staleness).collect(),
        current,
        index: reindex::status_with(state, &counts).await?,
        queues,
        syncs,
        skipped: last.skipped_entries,
        skipped_total: last.skipped,
    })
}

fn failure(d: &DocState) -> Entry {
    let stage = d.failure_stage.map_or("-", |s| s.as_str());
    Entry {
        document: d.uri.clone(),
        id: d.id.to_string(),
        detail: format!("[{stage}] {}", d.failure_reason.as_deref().unwrap_or_default()),
    }
}

fn staleness(d: &DocState) -> Entry {
    let model = d.model.as_deref().unwrap_or("?");
    let pipeline = d.pipeline_version.as_deref().unwrap_or("?");
    Entry {
        document: d.uri.clone(),
        id: d.id.to_string(),
        detail: format!("indexed with {model} / pipeline {pipeline}"),
    }
}
