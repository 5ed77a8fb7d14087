//! A sync run's diff, a page of listed objects at a time, for the SQL
//! adapter: one read of the page's rows, one insert of its new objects and
//! one update of its unchanged ones, so 100,000 unchanged objects cost a
//! few hundred statements, not 200,000 round trips. Changed objects (rare
//! between two syncs) are bumped one by one, each conditional on the
//! generation read, exactly as [`StateStore::observe`] does.

use crate::pages::placeholders;
use crate::sql::{SqlStateStore, now_ms};
use crate::{Observation, Observed, StateError, StateStore};
use ragpipe_core::DocStatus;
use sqlx::Row;
use std::collections::HashMap;

/// Objects one statement names (7 parameters each in the insert).
pub const OBSERVE_BATCH: usize = 500;

/// A document's row as the diff reads it.
struct Seen {
    etag: String,
    size: i64,
    status: DocStatus,
    generation: i64,
    lease: Option<i64>,
    queued_by: Option<i64>,
    published: bool,
    /// Failed only because its fetch gave up on transient errors.
    unread: bool,
}

/// What the diff does about one object of the page.
enum Step {
    Insert,
    Seen(Observation),
    Requeued(Observation),
    /// Another version than the row's: bumped on its own.
    Bump,
}

impl SqlStateStore {
    pub(crate) async fn observe_page(&self, objs: &[Observed], run: i64) -> Result<Vec<Observation>, StateError> {
        let mut out = Vec::with_capacity(objs.len());
        for page in objs.chunks(OBSERVE_BATCH) {
            out.extend(self.observe_batch(page, run).await?);
        }
        Ok(out)
    }

    async fn observe_batch(&self, objs: &[Observed], run: i64) -> Result<Vec<Observation>, StateError> {
        let now = now_ms();
        let rows = self.rows_of(objs).await?;
        let steps: Vec<Step> = objs.iter().map(|o| step(o, rows.get(o.id.as_str()), run, now)).collect();

        let new: Vec<&Observed> =
            objs.iter().zip(&steps).filter(|(_, s)| matches!(s, Step::Insert)).map(|(o, _)| o).collect();
        let inserted = self.insert_new(&new, run, now).await?;
        let ids = |want: fn(&Step) -> bool| -> Vec<&str> {
            objs.iter().zip(&steps).filter(|(_, s)| want(s)).map(|(o, _)| o.id.as_str()).collect()
        };
        self.touch(&ids(|s| matches!(s, Step::Seen(_))), run, false).await?;
        self.touch(&ids(|s| matches!(s, Step::Requeued(_))), run, true).await?;

        let mut out = Vec::with_capacity(objs.len());
        for (obj, step) in objs.iter().zip(steps) {
            out.push(match step {
                Step::Insert if inserted.contains(obj.id.as_str()) => Observation::New { generation: 1 },
                // Inserted by someone else since the read (or listed twice):
                // the one-by-one path decides.
                Step::Insert | Step::Bump => self.observe(obj, run).await?,
                Step::Seen(o) | Step::Requeued(o) => o,
            });
        }
        Ok(out)
    }

    async fn rows_of(&self, objs: &[Observed]) -> Result<HashMap<String, Seen>, StateError> {
        let list = placeholders(2, objs.len());
        let sql = format!(
            "SELECT d.id, d.etag, d.size, d.status, d.generation, d.lease_expires, d.queued_run, \
             CAST(CASE WHEN r.finished_at IS NOT NULL AND r.error IS NULL THEN 1 ELSE 0 END AS BIGINT), \
             CAST(CASE WHEN d.status = 'failed' AND d.failure_stage = 'fetch' AND d.failure_reason LIKE $1 \
             THEN 1 ELSE 0 END AS BIGINT) \
             FROM documents d LEFT JOIN sync_runs r ON r.run = d.queued_run WHERE d.id IN ({list})"
        );
        let mut query = sqlx::query(&sql).bind(crate::sql::gave_up_pattern());
        for o in objs {
            query = query.bind(o.id.as_str());
        }
        let mut rows = HashMap::with_capacity(objs.len());
        for r in query.fetch_all(&self.pool).await? {
            let id: String = r.try_get(0)?;
            let status =
                crate::sql::parse_status(&ragpipe_core::DocumentId::from_raw(&id), &r.try_get::<String, _>(3)?)?;
            let seen = Seen {
                etag: r.try_get(1)?,
                size: r.try_get(2)?,
                status,
                generation: r.try_get(4)?,
                lease: r.try_get(5)?,
                queued_by: r.try_get(6)?,
                published: r.try_get::<i64, _>(7)? == 1,
                unread: r.try_get::<i64, _>(8)? == 1,
            };
            rows.insert(id, seen);
        }
        Ok(rows)
    }

    /// Inserts first sightings; returns the ids this statement inserted.
    async fn insert_new(
        &self,
        new: &[&Observed],
        run: i64,
        now: i64,
    ) -> Result<std::collections::HashSet<String>, StateError> {
        if new.is_empty() {
            return Ok(Default::default());
        }
        let values: Vec<String> = (0..new.len())
            .map(|i| {
                let p = |k: usize| format!("${}", i * 5 + k + 3);
                format!("({}, {}, {}, {}, {}, 'queued', 1, $1, $1, $2, $2)", p(0), p(1), p(2), p(3), p(4))
            })
            .collect();
        let sql = format!(
            "INSERT INTO documents (id, uri, source_key, etag, size, status, generation, last_seen, queued_run, \
             created_at, updated_at) VALUES {} ON CONFLICT (id) DO NOTHING RETURNING id",
            values.join(", ")
        );
        let mut query = sqlx::query(&sql).bind(run).bind(now);
        for o in new {
            query = query.bind(o.id.as_str()).bind(&o.uri).bind(&o.key).bind(&o.etag).bind(o.size);
        }
        let rows = query.fetch_all(&self.pool).await?;
        rows.iter().map(|r| Ok(r.try_get::<String, _>(0)?)).collect()
    }

    /// Records that run `run` saw these documents (and, `requeued`, that it
    /// publishes their jobs from now on).
    async fn touch(&self, ids: &[&str], run: i64, requeued: bool) -> Result<(), StateError> {
        if ids.is_empty() {
            return Ok(());
        }
        let set = if requeued { "last_seen = $1, queued_run = $1" } else { "last_seen = $1" };
        let sql = format!("UPDATE documents SET {set} WHERE id IN ({})", placeholders(2, ids.len()));
        let mut query = sqlx::query(&sql).bind(run);
        for id in ids {
            query = query.bind(*id);
        }
        query.execute(&self.pool).await?;
        Ok(())
    }
}

/// What [`StateStore::observe`] would decide for `obj` given its row.
fn step(obj: &Observed, row: Option<&Seen>, run: i64, now: i64) -> Step {
    let Some(row) = row else { return Step::Insert };
    // A fetch that gave up is bumped one by one, as a changed object is.
    if row.etag != obj.etag || row.size != obj.size || row.status == DocStatus::Deleted || row.unread {
        return Step::Bump;
    }
    let generation = row.generation;
    let stalled = row.status == DocStatus::Extracting && row.lease.is_some_and(|l| l < now);
    let unpublished = row.status == DocStatus::Queued && row.queued_by.is_some_and(|r| r != run) && !row.published;
    match () {
        _ if unpublished => Step::Requeued(Observation::Unpublished { generation }),
        _ if stalled => Step::Seen(Observation::Stalled { generation }),
        _ if row.status.is_pending() => Step::Seen(Observation::Pending { generation }),
        _ => Step::Seen(Observation::Unchanged),
    }
}
