//! The SQL adapter, for SQLite (embedded) and PostgreSQL (distributed).

use crate::{
    BatchStats, Completion, Cursor, DocQuery, Extracted, FailureGroup, IndexRecord, IndexState, NewIndex, Observation,
    Observed, Page, Retried, StateError, StateStore, StatusCount, StatusCounts, SyncRun,
};
use async_trait::async_trait;
use ragpipe_core::{DocState, DocStatus, DocumentId, Kind, Stage};
use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::{AnyPool, Row};
use std::time::{SystemTime, UNIX_EPOCH};

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../../migrations");

/// State in a SQL database reached through a URL: `sqlite://path/state.db` or
/// `postgres://user@host/db`. Migrations run on connect.
#[derive(Clone)]
pub struct SqlStateStore {
    pub(crate) pool: AnyPool,
    /// How long a claim for extraction holds (ms).
    lease_ms: i64,
}

/// Default extraction lease: far above the extraction time limit (60 s by
/// default), so only a claim whose worker is gone outlives it.
pub const DEFAULT_LEASE: std::time::Duration = std::time::Duration::from_secs(15 * 60);

impl SqlStateStore {
    pub async fn connect(url: &str) -> Result<Self, StateError> {
        sqlx::any::install_default_drivers();
        let sqlite = url.starts_with("sqlite:");
        let url = if sqlite && !url.contains("mode=") {
            format!("{url}{}mode=rwc", if url.contains('?') { '&' } else { '?' })
        } else {
            url.to_string()
        };
        let pool = AnyPoolOptions::new()
            .max_connections(if sqlite { 4 } else { 8 })
            .after_connect(move |conn, _| {
                Box::pin(async move {
                    if sqlite {
                        // WAL lets readers (status, progress) run beside the
                        // writer; the timeout makes writers queue, not fail.
                        sqlx::query("PRAGMA journal_mode = WAL").execute(&mut *conn).await?;
                        sqlx::query("PRAGMA busy_timeout = 30000").execute(&mut *conn).await?;
                        sqlx::query("PRAGMA synchronous = NORMAL").execute(&mut *conn).await?;
                    }
                    Ok(())
                })
            })
            .connect(&url)
            .await?;
        MIGRATOR.run(&pool).await?;
        Ok(SqlStateStore { pool, lease_ms: DEFAULT_LEASE.as_millis() as i64 })
    }

    /// Sets how long a claim for extraction holds before the next sync may
    /// re-enqueue the document.
    pub fn with_lease(mut self, lease: std::time::Duration) -> Self {
        self.lease_ms = lease.as_millis() as i64;
        self
    }

    /// Closes the pool, flushing SQLite's WAL.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

pub(crate) fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// The `LIKE` pattern of a failure reason whose fetch gave up on transient
/// errors ([`ragpipe_core::state::GAVE_UP`]).
pub(crate) fn gave_up_pattern() -> String {
    format!("{} %", ragpipe_core::state::GAVE_UP)
}

#[async_trait]
impl StateStore for SqlStateStore {
    async fn observe(&self, obj: &Observed, run: i64) -> Result<Observation, StateError> {
        let now = now_ms();
        let inserted = sqlx::query(include_str!("sql/observe_insert.sql"))
            .bind(obj.id.as_str())
            .bind(&obj.uri)
            .bind(&obj.key)
            .bind(&obj.etag)
            .bind(obj.size)
            .bind(run)
            .bind(now)
            .execute(&self.pool)
            .await?;
        if inserted.rows_affected() == 1 {
            return Ok(Observation::New { generation: 1 });
        }
        let row = sqlx::query(include_str!("sql/observe_select.sql"))
            .bind(obj.id.as_str())
            .bind(gave_up_pattern())
            .fetch_one(&self.pool)
            .await?;
        let etag: String = row.try_get(0)?;
        let size: i64 = row.try_get(1)?;
        let status = parse_status(&obj.id, &row.try_get::<String, _>(2)?)?;
        let generation: i64 = row.try_get(3)?;
        let lease: Option<i64> = row.try_get(4)?;
        let queued_by: Option<i64> = row.try_get(5)?;
        let published = row.try_get::<i64, _>(6)? == 1;
        let unread = row.try_get::<i64, _>(7)? == 1;
        if etag == obj.etag && size == obj.size && status != DocStatus::Deleted && !unread {
            let stalled = status == DocStatus::Extracting && lease.is_some_and(|l| l < now);
            // Queued by a run that died or failed before it could publish:
            // this run publishes it, and answers for it from now on.
            let unpublished = status == DocStatus::Queued && queued_by.is_some_and(|r| r != run) && !published;
            let seen = if unpublished {
                include_str!("sql/observe_requeued.sql")
            } else {
                include_str!("sql/observe_seen.sql")
            };
            sqlx::query(seen).bind(obj.id.as_str()).bind(run).execute(&self.pool).await?;
            return Ok(match () {
                _ if stalled => Observation::Stalled { generation },
                _ if unpublished => Observation::Unpublished { generation },
                _ if status.is_pending() => Observation::Pending { generation },
                _ => Observation::Unchanged,
            });
        }
        let changed = sqlx::query(include_str!("sql/observe_changed.sql"))
            .bind(obj.id.as_str())
            .bind(&obj.uri)
            .bind(&obj.key)
            .bind(&obj.etag)
            .bind(obj.size)
            .bind(run)
            .bind(now)
            .bind(generation)
            .execute(&self.pool)
            .await?;
        if changed.rows_affected() != 1 {
            // Someone else bumped it between our read and write; they enqueue.
            return Ok(Observation::Unchanged);
        }
        let generation = generation + 1;
        Ok(if unread { Observation::Unread { generation } } else { Observation::Changed { generation } })
    }

    async fn observe_many(&self, objs: &[Observed], run: i64) -> Result<Vec<Observation>, StateError> {
        self.observe_page(objs, run).await
    }

    async fn mark_missing(&self, run: i64) -> Result<Vec<DocumentId>, StateError> {
        let rows = sqlx::query(include_str!("sql/missing.sql")).bind(run).bind(now_ms()).fetch_all(&self.pool).await?;
        rows.iter().map(|r| Ok(DocumentId::from_raw(r.try_get::<String, _>(0)?))).collect()
    }

    async fn begin_extract(&self, id: &DocumentId, generation: i64) -> Result<bool, StateError> {
        let now = now_ms();
        let r = sqlx::query(include_str!("sql/begin_extract.sql"))
            .bind(id.as_str())
            .bind(generation)
            .bind(now)
            .bind(now + self.lease_ms)
            .execute(&self.pool)
            .await?;
        Ok(r.rows_affected() == 1)
    }

    async fn set_extracted(&self, id: &DocumentId, generation: i64, ex: &Extracted) -> Result<bool, StateError> {
        let r = sqlx::query(include_str!("sql/set_extracted.sql"))
            .bind(id.as_str())
            .bind(generation)
            .bind(ex.kind.as_str())
            .bind(&ex.title)
            .bind(&ex.content_hash)
            .bind(ex.chunks)
            .bind(ex.batches)
            .bind(&ex.extractor_version)
            .bind(now_ms())
            .bind(&ex.warning)
            .execute(&self.pool)
            .await?;
        Ok(r.rows_affected() == 1)
    }

    async fn record_batch(
        &self,
        id: &DocumentId,
        generation: i64,
        batch: u32,
        s: BatchStats,
    ) -> Result<i64, StateError> {
        sqlx::query(include_str!("sql/record_batch.sql"))
            .bind(id.as_str())
            .bind(generation)
            .bind(i64::from(batch))
            .bind(s.chunks)
            .bind(s.tokens)
            .bind(s.header_tokens)
            .bind(s.truncated)
            .execute(&self.pool)
            .await?;
        let row = sqlx::query(include_str!("sql/count_batches.sql"))
            .bind(id.as_str())
            .bind(generation)
            .fetch_one(&self.pool)
            .await?;
        Ok(row.try_get(0)?)
    }

    async fn complete(&self, id: &DocumentId, generation: i64, c: &Completion) -> Result<bool, StateError> {
        let r = sqlx::query(include_str!("sql/complete.sql"))
            .bind(id.as_str())
            .bind(generation)
            .bind(c.chunks_stored)
            .bind(&c.model)
            .bind(c.dims)
            .bind(&c.pipeline_version)
            .bind(now_ms())
            .execute(&self.pool)
            .await?;
        if r.rows_affected() == 1 {
            sqlx::query(include_str!("sql/prune_batches.sql"))
                .bind(id.as_str())
                .bind(generation)
                .execute(&self.pool)
                .await?;
        }
        Ok(r.rows_affected() == 1)
    }

    async fn fail(&self, id: &DocumentId, generation: i64, stage: Stage, reason: &str) -> Result<bool, StateError> {
        let r = sqlx::query(include_str!("sql/fail.sql"))
            .bind(id.as_str())
            .bind(generation)
            .bind(reason)
            .bind(stage.as_str())
            .bind(now_ms())
            .execute(&self.pool)
            .await?;
        Ok(r.rows_affected() == 1)
    }

    async fn get(&self, id: &DocumentId) -> Result<Option<DocState>, StateError> {
        self.document(id).await
    }

    async fn page(&self, query: &DocQuery, cursor: &Cursor, limit: usize) -> Result<Page, StateError> {
        self.select_page(query, cursor, limit).await
    }

    async fn count(&self, query: &DocQuery) -> Result<i64, StateError> {
        self.count_matching(query).await
    }

    async fn failure_groups(&self, query: &DocQuery, limit: usize) -> Result<Vec<FailureGroup>, StateError> {
        self.failures(query, limit).await
    }

    async fn requeue_many(&self, ids: &[DocumentId], from: DocStatus) -> Result<Vec<Retried>, StateError> {
        self.requeue_batch(ids, from).await
    }

    async fn requeue(&self, id: &DocumentId, from: DocStatus) -> Result<Option<Retried>, StateError> {
        let r = sqlx::query(include_str!("sql/retry.sql"))
            .bind(id.as_str())
            .bind(now_ms())
            .bind(from.as_str())
            .execute(&self.pool)
            .await?;
        if r.rows_affected() != 1 {
            return Ok(None);
        }
        let row = sqlx::query(include_str!("sql/retried.sql")).bind(id.as_str()).fetch_one(&self.pool).await?;
        Ok(Some(Retried { id: id.clone(), uri: row.try_get(0)?, key: row.try_get(1)?, generation: row.try_get(2)? }))
    }

    async fn indexes(&self) -> Result<Vec<IndexRecord>, StateError> {
        self.list_indexes().await
    }

    async fn adopt_index(&self, index: &NewIndex) -> Result<bool, StateError> {
        self.insert_index(index, IndexState::Live).await
    }

    async fn begin_build(&self, index: &NewIndex) -> Result<bool, StateError> {
        self.start_build(index).await
    }

    async fn build_published(&self, name: &str) -> Result<(), StateError> {
        self.set_published(name).await
    }

    async fn queued(&self) -> Result<Vec<Retried>, StateError> {
        self.queued_documents().await
    }

    async fn pending(&self) -> Result<i64, StateError> {
        self.pending_documents().await
    }

    async fn swap_index(&self, name: &str) -> Result<bool, StateError> {
        self.go_live(name).await
    }

    async fn forget_index(&self, name: &str) -> Result<(), StateError> {
        self.delete_index(name).await
    }

    async fn seal_index(&self, name: &str, seal: &str) -> Result<Option<String>, StateError> {
        self.seal(name, seal).await
    }

    async fn begin_sync(
        &self,
        run: i64,
        source: &str,
        holder: &str,
        lease: std::time::Duration,
    ) -> Result<Result<(), SyncRun>, StateError> {
        self.take_sync_lock(run, source, holder, lease).await
    }

    async fn renew_sync(&self, run: i64, lease: std::time::Duration) -> Result<bool, StateError> {
        self.renew_sync_lock(run, lease).await
    }

    async fn finish_sync(&self, run: i64, outcome: Result<&str, &str>) -> Result<(), StateError> {
        self.release_sync_lock(run, outcome).await
    }

    async fn sync_runs(&self, limit: i64) -> Result<Vec<SyncRun>, StateError> {
        self.recent_sync_runs(limit).await
    }

    async fn counts(&self) -> Result<StatusCounts, StateError> {
        let rows = sqlx::query(include_str!("sql/counts.sql")).fetch_all(&self.pool).await?;
        let counts: Result<Vec<_>, StateError> = rows
            .iter()
            .map(|r| {
                let status: String = r.try_get(0)?;
                let count = StatusCount {
                    documents: r.try_get(1)?,
                    chunks: r.try_get(2)?,
                    truncated: r.try_get(3)?,
                    tokens: r.try_get(4)?,
                    header_tokens: r.try_get(5)?,
                };
                Ok((parse_status(&DocumentId::from_raw("-"), &status)?, count))
            })
            .collect();
        Ok(StatusCounts::new(counts?))
    }
}

pub(crate) fn parse_status(id: &DocumentId, s: &str) -> Result<DocStatus, StateError> {
    DocStatus::parse(s)
        .ok_or_else(|| StateError::Corrupt { id: id.to_string(), reason: format!("unknown status {s:?}") })
}

pub(crate) fn doc_from_row(r: &AnyRow) -> Result<DocState, StateError> {
    let id = DocumentId::from_raw(r.try_get::<String, _>("id")?);
    let kind: Option<String> = r.try_get("kind")?;
    let stage: Option<String> = r.try_get("failure_stage")?;
    Ok(DocState {
        uri: r.try_get("uri")?,
        etag: r.try_get("etag")?,
        content_hash: r.try_get("content_hash")?,
        size: r.try_get("size")?,
        kind: kind.as_deref().and_then(Kind::parse),
        status: parse_status(&id, &r.try_get::<String, _>("status")?)?,
        failure_reason: r.try_get("failure_reason")?,
        failure_stage: stage.as_deref().and_then(Stage::parse),
        attempts: r.try_get("attempts")?,
        generation: r.try_get("generation")?,
        chunks_expected: r.try_get("chunks_expected")?,
        batches_expected: r.try_get("batches_expected")?,
        chunks_stored: r.try_get("chunks_stored")?,
        truncated: r.try_get("truncated")?,
        model: r.try_get("model")?,
        dims: r.try_get("dims")?,
        pipeline_version: r.try_get("pipeline_version")?,
        extractor_version: r.try_get("extractor_version")?,
        title: r.try_get("title")?,
        warning: r.try_get("warning")?,
        created_at: r.try_get("created_at")?,
        updated_at: r.try_get("updated_at")?,
        id,
    })
}
