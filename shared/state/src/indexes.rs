//! The index registry, for the SQL adapter: which collection is live, which
//! one a reindex builds, and the swap between them. Starting a build and
//! swapping are each one transaction, so a crash leaves either the old state
//! or the new one, never half of each.

use crate::sql::{SqlStateStore, now_ms};
use crate::{IndexRecord, IndexState, NewIndex, Retried, StateError};
use ragpipe_core::DocumentId;
use sqlx::Row;
use sqlx::any::AnyRow;

impl SqlStateStore {
    pub(crate) async fn list_indexes(&self) -> Result<Vec<IndexRecord>, StateError> {
        let rows = sqlx::query(include_str!("sql/index_list.sql")).fetch_all(&self.pool).await?;
        rows.iter().map(index_from_row).collect()
    }

    pub(crate) async fn insert_index(&self, index: &NewIndex, state: IndexState) -> Result<bool, StateError> {
        let r = insert(index, state).execute(&self.pool).await?;
        Ok(r.rows_affected() == 1)
    }

    pub(crate) async fn start_build(&self, index: &NewIndex) -> Result<bool, StateError> {
        let mut tx = self.pool.begin().await?;
        if insert(index, IndexState::Building).execute(&mut *tx).await?.rows_affected() != 1 {
            return Ok(false);
        }
        let requeued = sqlx::query(include_str!("sql/index_requeue_all.sql")).bind(now_ms()).execute(&mut *tx).await?;
        sqlx::query(include_str!("sql/index_set_documents.sql"))
            .bind(&index.name)
            .bind(requeued.rows_affected() as i64)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(true)
    }

    pub(crate) async fn set_published(&self, name: &str) -> Result<(), StateError> {
        sqlx::query(include_str!("sql/index_published.sql")).bind(name).execute(&self.pool).await?;
        Ok(())
    }

    pub(crate) async fn queued_documents(&self) -> Result<Vec<Retried>, StateError> {
        let rows = sqlx::query(include_str!("sql/requeued.sql")).fetch_all(&self.pool).await?;
        rows.iter()
            .map(|r| {
                Ok(Retried {
                    id: DocumentId::from_raw(r.try_get::<String, _>(0)?),
                    uri: r.try_get(1)?,
                    key: r.try_get(2)?,
                    generation: r.try_get(3)?,
                })
            })
            .collect()
    }

    pub(crate) async fn pending_documents(&self) -> Result<i64, StateError> {
        Ok(sqlx::query(include_str!("sql/index_pending.sql")).fetch_one(&self.pool).await?.try_get(0)?)
    }

    pub(crate) async fn go_live(&self, name: &str) -> Result<bool, StateError> {
        let mut tx = self.pool.begin().await?;
        let pending: i64 = sqlx::query(include_str!("sql/index_pending.sql")).fetch_one(&mut *tx).await?.try_get(0)?;
        if pending > 0 {
            return Ok(false);
        }
        sqlx::query(include_str!("sql/index_retire_live.sql")).execute(&mut *tx).await?;
        let live =
            sqlx::query(include_str!("sql/index_go_live.sql")).bind(name).bind(now_ms()).execute(&mut *tx).await?;
        if live.rows_affected() != 1 {
            // Not building (already swapped, or never started): roll back.
            return Ok(false);
        }
        tx.commit().await?;
        Ok(true)
    }

    pub(crate) async fn seal(&self, name: &str, seal: &str) -> Result<Option<String>, StateError> {
        sqlx::query(include_str!("sql/index_seal.sql")).bind(name).bind(seal).execute(&self.pool).await?;
        let row = sqlx::query(include_str!("sql/index_seal_read.sql")).bind(name).fetch_optional(&self.pool).await?;
        Ok(match row {
            Some(r) => r.try_get(0)?,
            None => None,
        })
    }

    pub(crate) async fn delete_index(&self, name: &str) -> Result<(), StateError> {
        sqlx::query(include_str!("sql/index_delete.sql")).bind(name).execute(&self.pool).await?;
        Ok(())
    }
}

fn insert(index: &NewIndex, state: IndexState) -> sqlx::query::Query<'_, sqlx::Any, sqlx::any::AnyArguments<'_>> {
    sqlx::query(include_str!("sql/index_insert.sql"))
        .bind(&index.name)
        .bind(&index.model)
        .bind(index.dims)
        .bind(&index.pipeline_version)
        .bind(state.as_str())
        .bind(i64::from(index.keep_old))
        .bind(now_ms())
}

fn index_from_row(r: &AnyRow) -> Result<IndexRecord, StateError> {
    let name: String = r.try_get(0)?;
    let state: String = r.try_get(4)?;
    let state = IndexState::parse(&state)
        .ok_or_else(|| StateError::Corrupt { id: name.clone(), reason: format!("unknown index state {state:?}") })?;
    Ok(IndexRecord {
        model: r.try_get(1)?,
        dims: r.try_get(2)?,
        pipeline_version: r.try_get(3)?,
        state,
        keep_old: r.try_get::<i64, _>(5)? != 0,
        documents: r.try_get(6)?,
        published: r.try_get::<i64, _>(7)? != 0,
        created_at: r.try_get(8)?,
        swapped_at: r.try_get(9)?,
        seal: r.try_get(10)?,
        name,
    })
}
