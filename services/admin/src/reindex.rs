//! Reindexing: the functions behind `ragpipe reindex`, the admin API's
//! reindex status and the web page's progress bar.
//!
//! A reindex builds a new collection for the target (model, dims, pipeline
//! version) while searches keep reading the live one. Starting it records
//! the build and queues every document still in the source as a new
//! generation, in one transaction; the workers write new generations to the
//! registry's write target, which is now the building collection. When no
//! document is pending (each is `indexed` or `failed` in the new collection)
//! [`finish`] swaps the two in one transaction, moves the read alias, and
//! drops the old collection unless the build keeps it. A crash at any point
//! leaves a build that the next `ragpipe reindex` (or `ingest`) resumes:
//! documents finished in the new collection stay finished.

use crate::AdminError;
use ragpipe_core::{DocStatus, DocumentId};
use ragpipe_queue::{Queue, Topic};
use ragpipe_state::{
    Cursor, DocQuery, IndexRecord, IndexState, NewIndex, REQUEUE_BATCH, Retried, Seal, StateStore, StatusCounts,
    live_index,
};
use ragpipe_vectors::{CollectionSpec, Collections};
use serde::Serialize;

/// Where a reindex stands.
#[derive(Debug, Clone, Serialize)]
pub struct ReindexStatus {
    /// What searches read.
    pub live: Option<IndexRecord>,
    /// The collection a reindex is filling, if one is in progress.
    pub building: Option<IndexRecord>,
    /// Old collections kept after their swap.
    pub retired: Vec<IndexRecord>,
    /// Documents of the build finished in the new collection, and still to do.
    pub indexed: i64,
    pub failed: i64,
    pub pending: i64,
    /// Documents done (indexed or failed) out of all in the build.
    pub done: i64,
    pub total: i64,
}

impl ReindexStatus {
    /// Documents done (indexed or failed) out of all in the build.
    pub fn progress(&self) -> (i64, i64) {
        (self.done, self.total)
    }
}

pub async fn status(state: &dyn StateStore) -> Result<ReindexStatus, AdminError> {
    status_with(state, &state.counts().await?).await
}

/// [`status`] over counts the caller already read (one count query per
/// `GET /api/status`, not two).
pub(crate) async fn status_with(state: &dyn StateStore, counts: &StatusCounts) -> Result<ReindexStatus, AdminError> {
    let indexes = state.indexes().await?;
    let one = |st: IndexState| indexes.iter().find(|i| i.state == st).cloned();
    Ok(ReindexStatus {
        live: one(IndexState::Live),
        building: one(IndexState::Building),
        retired: indexes.iter().filter(|i| i.state == IndexState::Retired).cloned().collect(),
        indexed: counts.documents(DocStatus::Indexed),
        failed: counts.documents(DocStatus::Failed),
        pending: counts.pending(),
        done: counts.done(),
        total: counts.done() + counts.pending(),
    })
}

/// What a reindex asks for.
#[derive(Debug, Clone)]
pub struct ReindexRequest {
    /// Target model and pipeline version; `None` takes the configured ones
    /// (`first`) — the live index's for `stale_only` — and, with a build in
    /// progress, means "resume it".
    pub model: Option<String>,
    pub pipeline_version: Option<String>,
    /// Keep the old collection after the swap.
    pub keep_old: bool,
    /// Only documents whose recorded versions differ from the target's.
    pub stale_only: bool,
    /// The extractor version of this build (what `--stale-only` compares).
    pub extractor_version: String,
}

/// How a reindex started.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "started", rename_all = "snake_case")]
pub enum Started {
    /// A new collection is being built; every document was queued for it.
    Build { index: IndexRecord },
    /// The build already in progress goes on.
    Resumed { index: IndexRecord },
    /// The target is the live index's seal: the stale documents were queued
    /// again in place (each swaps to its new generation as it completes).
    InPlace { requeued: Vec<String> },
}

/// Starts (or resumes) a reindex. `first` is what a registry with no index
/// yet records as live.
pub async fn start(
    state: &dyn StateStore,
    collections: &dyn Collections,
    first: &NewIndex,
    req: &ReindexRequest,
) -> Result<Started, AdminError> {
    let indexes = state.indexes().await?;
    if let Some(building) = indexes.iter().find(|i| i.state == IndexState::Building) {
        let same = req.model.as_ref().is_none_or(|m| *m == building.model)
            && req.pipeline_version.as_ref().is_none_or(|p| *p == building.pipeline_version);
        if !same || req.stale_only {
            return Err(AdminError::BadRequest(format!(
                "a reindex into {} ({} / pipeline {}) is in progress: run `ragpipe reindex` without \
                 --model, --pipeline-version and --stale-only to resume it",
                building.name, building.model, building.pipeline_version
            )));
        }
        return Ok(Started::Resumed { index: building.clone() });
    }
    let live = live_index(state, first).await?;
    // A stale-only run brings documents up to the live index's seal unless
    // told otherwise; a full one moves to the configured seal by default.
    let (model, dims, pipeline) = if req.stale_only {
        (&live.model, live.dims, &live.pipeline_version)
    } else {
        (&first.model, first.dims, &first.pipeline_version)
    };
    let target = CollectionSpec {
        model: req.model.clone().unwrap_or_else(|| model.clone()),
        dims: dims as usize,
        pipeline_version: req.pipeline_version.clone().unwrap_or_else(|| pipeline.clone()),
    };
    let sealed_alike = target.model == live.model
        && target.dims as i64 == live.dims
        && target.pipeline_version == live.pipeline_version;
    if req.stale_only && sealed_alike {
        return Ok(Started::InPlace { requeued: requeue_stale(state, &target, &req.extractor_version).await? });
    }
    // Read again: the live index may have just been recorded.
    let name = free_name(&state.indexes().await?, collections, &target).await?;
    let index = NewIndex {
        name: name.clone(),
        model: target.model.clone(),
        dims: target.dims as i64,
        pipeline_version: target.pipeline_version.clone(),
        keep_old: req.keep_old,
    };
    // The collection exists before any worker is told to write to it.
    drop(collections.create(&name, &target).await?);
    if !state.begin_build(&index).await? {
        return Err(AdminError::BadRequest("another reindex started at the same moment".into()));
    }
    let index = state.indexes().await?.into_iter().find(|i| i.name == name).expect("just recorded");
    Ok(Started::Build { index })
}

/// The first build name of `spec` that neither the registry nor the engine
/// has: a leftover collection of an abandoned build may hold stray points.
async fn free_name(
    indexes: &[IndexRecord],
    collections: &dyn Collections,
    spec: &CollectionSpec,
) -> Result<String, AdminError> {
    for n in 1.. {
        let name = spec.build_name(n);
        if indexes.iter().any(|i| i.name == name) {
            continue;
        }
        if collections.open(&name, spec).await?.is_none() {
            return Ok(name);
        }
    }
    unreachable!("names are unbounded")
}

async fn requeue_stale(
    state: &dyn StateStore,
    target: &CollectionSpec,
    extractor_version: &str,
) -> Result<Vec<String>, AdminError> {
    let seal = Seal {
        model: target.model.clone(),
        pipeline_version: target.pipeline_version.clone(),
        extractor_version: extractor_version.to_string(),
    };
    let stale = DocQuery { stale_against: Some(seal), ..DocQuery::default() };
    let mut requeued = Vec::new();
    loop {
        // Requeued documents leave the selection: the first page is the next.
        let page = state.page(&stale, &Cursor::Start, REQUEUE_BATCH).await?;
        let ids: Vec<DocumentId> = page.documents.iter().map(|d| d.id.clone()).collect();
        let done = state.requeue_many(&ids, DocStatus::Indexed).await?;
        requeued.extend(done.iter().map(|r| r.id.to_string()));
        if !page.more || done.is_empty() {
            return Ok(requeued);
        }
    }
}

/// The documents a build (or an in-place reindex) waits on, for publishing.
async fn queued(state: &dyn StateStore, only: Option<&[String]>) -> Result<Vec<Retried>, AdminError> {
    let queued = state.queued().await?;
    Ok(match only {
        Some(ids) => queued.into_iter().filter(|r| ids.iter().any(|i| i == r.id.as_str())).collect(),
        None => queued,
    })
}

/// Publishes the extract jobs of the documents a reindex queued, once per
/// build (a resumed build whose jobs all went out publishes none; an
/// in-place reindex publishes the documents it requeued, `only`). Returns
/// how many went out. Like a retry's, in the distributed mode only: the
/// embedded mode's next ingest processes queued documents.
pub async fn publish(
    state: &dyn StateStore,
    queue: &dyn Queue,
    started: &Started,
    only: Option<&[String]>,
) -> Result<usize, AdminError> {
    let build = match started {
        Started::Build { index } | Started::Resumed { index } => Some(index),
        Started::InPlace { .. } => None,
    };
    if build.is_some_and(|b| b.published) {
        return Ok(0);
    }
    let docs = queued(state, only).await?;
    for d in &docs {
        queue.publish(Topic::Extract, d.job().to_bytes()).await?;
    }
    if let Some(b) = build {
        state.build_published(&b.name).await?;
    }
    Ok(docs.len())
}

/// A swap that happened.
#[derive(Debug, Clone, Serialize)]
pub struct Swapped {
    pub from: Option<String>,
    pub to: String,
    /// The old collection was dropped (not kept by `--keep-old`).
    pub dropped: bool,
}

/// Swaps the building index live if no document is pending: registry first
/// (one transaction: what ragpipe's searches read), then the engine's read
/// alias, then the old collection is dropped unless kept. `None` when there
/// is no build or it is not complete.
pub async fn finish(state: &dyn StateStore, collections: &dyn Collections) -> Result<Option<Swapped>, AdminError> {
    let before = state.indexes().await?;
    let Some(building) = before.iter().find(|i| i.state == IndexState::Building) else { return Ok(None) };
    if state.pending().await? > 0 || !state.swap_index(&building.name).await? {
        return Ok(None);
    }
    collections.publish(&building.name).await?;
    let old = before.iter().find(|i| i.state == IndexState::Live).map(|i| i.name.clone());
    let dropped = match &old {
        Some(old) if !building.keep_old => match collections.drop_collection(old).await {
            Ok(()) => {
                state.forget_index(old).await?;
                true
            }
            // Still held open (an embedder that has had no job since the
            // build started): it stays listed as retired.
            Err(e) => {
                tracing::warn!(collection = %old, error = %e, "old collection kept: it could not be dropped");
                false
            }
        },
        _ => false,
    };
    tracing::info!(from = ?old, to = %building.name, dropped, "reindex swapped");
    Ok(Some(Swapped { from: old, to: building.name.clone(), dropped }))
}
