//! Sync runs and the lock that keeps them from overlapping, for the SQL
//! adapter. The lock is a lease, so a coordinator that dies mid-run gives it
//! back when the lease runs out; the run it left is then reported abandoned.

use crate::sql::{SqlStateStore, now_ms};
use crate::{StateError, SyncRun, SyncRunState};
use sqlx::Row;
use sqlx::any::AnyRow;
use std::time::Duration;

impl SqlStateStore {
    pub(crate) async fn take_sync_lock(
        &self,
        run: i64,
        source: &str,
        holder: &str,
        lease: Duration,
    ) -> Result<Result<(), SyncRun>, StateError> {
        for _ in 0..3 {
            let now = now_ms();
            let taken = sqlx::query(include_str!("sql/sync_lock_take.sql"))
                .bind(run)
                .bind(holder)
                .bind(now + lease.as_millis() as i64)
                .bind(now)
                .fetch_optional(&self.pool)
                .await?;
            if taken.is_some() {
                sqlx::query(include_str!("sql/sync_run_insert.sql"))
                    .bind(run)
                    .bind(source)
                    .bind(holder)
                    .bind(now)
                    .execute(&self.pool)
                    .await?;
                return Ok(Ok(()));
            }
            // Held: report by whom (the row can vanish or still lack its run
            // record between our two statements; look again).
            let row = sqlx::query(include_str!("sql/sync_lock_holder.sql")).fetch_optional(&self.pool).await?;
            if let Some(row) = row {
                return Ok(Err(sync_run(&row, now)?));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Err(StateError::Corrupt { id: "sync_lock".into(), reason: "held, but by no recorded run".into() })
    }

    pub(crate) async fn renew_sync_lock(&self, run: i64, lease: Duration) -> Result<bool, StateError> {
        let r = sqlx::query(include_str!("sql/sync_lock_renew.sql"))
            .bind(run)
            .bind(now_ms() + lease.as_millis() as i64)
            .execute(&self.pool)
            .await?;
        Ok(r.rows_affected() == 1)
    }

    pub(crate) async fn release_sync_lock(&self, run: i64, outcome: Result<&str, &str>) -> Result<(), StateError> {
        let (report, error) = match outcome {
            Ok(report) => (Some(report), None),
            Err(error) => (None, Some(error)),
        };
        sqlx::query(include_str!("sql/sync_run_finish.sql"))
            .bind(run)
            .bind(now_ms())
            .bind(report)
            .bind(error)
            .execute(&self.pool)
            .await?;
        sqlx::query(include_str!("sql/sync_lock_release.sql")).bind(run).execute(&self.pool).await?;
        Ok(())
    }

    pub(crate) async fn recent_sync_runs(&self, limit: i64) -> Result<Vec<SyncRun>, StateError> {
        let now = now_ms();
        let rows = sqlx::query(include_str!("sql/sync_runs_recent.sql")).bind(limit).fetch_all(&self.pool).await?;
        rows.iter().map(|r| sync_run(r, now)).collect()
    }
}

fn sync_run(r: &AnyRow, now: i64) -> Result<SyncRun, StateError> {
    let finished_at: Option<i64> = r.try_get(4)?;
    let error: Option<String> = r.try_get(6)?;
    let lock_expires: Option<i64> = r.try_get(7)?;
    let state = match (finished_at, &error, lock_expires) {
        (Some(_), None, _) => SyncRunState::Finished,
        (Some(_), Some(_), _) => SyncRunState::Failed,
        (None, _, Some(expires)) if expires >= now => SyncRunState::Running,
        (None, _, _) => SyncRunState::Abandoned,
    };
    Ok(SyncRun {
        run: r.try_get(0)?,
        source: r.try_get(1)?,
        holder: r.try_get(2)?,
        started_at: r.try_get(3)?,
        finished_at,
        report: r.try_get(5)?,
        error,
        state,
    })
}
