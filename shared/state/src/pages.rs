//! Document selections for the SQL adapter: keyset pages, counts, failure
//! groups and batched requeues, each one statement whatever the number of
//! rows. The statement is assembled from the parts of the [`DocQuery`] that
//! are set (an unset part adds nothing, so PostgreSQL plans each shape with
//! the index that serves it rather than one generic plan for all).

use crate::query::{Cursor, DocQuery, FailureGroup, Page};
use crate::sql::{SqlStateStore, doc_from_row, now_ms};
use crate::{Retried, StateError};
use ragpipe_core::{DocState, DocStatus, DocumentId, Stage};
use sqlx::Row;
use sqlx::any::{AnyArguments, AnyRow};
use sqlx::query::Query;

/// The columns a [`DocState`] is read from.
pub(crate) const COLUMNS: &str = "id, uri, etag, content_hash, size, kind, status, failure_reason, failure_stage, \
     attempts, generation, chunks_expected, batches_expected, chunks_stored, truncated, model, dims, \
     pipeline_version, extractor_version, title, warning, created_at, updated_at";

/// Documents a batched requeue names in one statement.
pub const REQUEUE_BATCH: usize = 500;

/// A statement being assembled, with its parameters in order.
#[derive(Default)]
struct Statement {
    conditions: Vec<String>,
    binds: Vec<Bind>,
}

enum Bind {
    Text(String),
    Int(i64),
}

impl Statement {
    /// The placeholder of a new parameter.
    fn bind(&mut self, value: Bind) -> String {
        self.binds.push(value);
        format!("${}", self.binds.len())
    }

    fn text(&mut self, value: impl Into<String>) -> String {
        self.bind(Bind::Text(value.into()))
    }

    fn filter(q: &DocQuery) -> Statement {
        let mut s = Statement::default();
        if let Some(status) = q.status {
            let p = s.text(status.as_str());
            s.conditions.push(format!("status = {p}"));
        }
        if let Some(reason) = &q.reason {
            let p = s.text(format!("%{}%", like_escaped(&reason.to_lowercase())));
            s.conditions.push(format!("LOWER(failure_reason) LIKE {p} ESCAPE '\\'"));
        }
        if let Some(kind) = &q.kind {
            let p = s.text(kind.kind.as_str());
            let mut by_name: Vec<String> = Vec::new();
            for ext in &kind.extensions {
                let e = s.text(format!("%.{}", like_escaped(ext)));
                by_name.push(format!("LOWER(uri) LIKE {e} ESCAPE '\\'"));
            }
            let named = if by_name.is_empty() {
                String::new()
            } else {
                format!(" OR (kind IS NULL AND ({}))", by_name.join(" OR "))
            };
            s.conditions.push(format!("(kind = {p}{named})"));
        }
        if q.warned {
            s.conditions.push("warning IS NOT NULL".into());
        }
        if let Some(seal) = &q.stale_against {
            let current = ragpipe_core::extractor_versions(&seal.extractor_version);
            let (m, p) = (s.text(&seal.model), s.text(&seal.pipeline_version));
            let current: Vec<String> = current.iter().map(|v| s.text(v)).collect();
            let current = current.join(", ");
            s.conditions.push(format!(
                "status = 'indexed' AND (model IS NULL OR model <> {m} OR pipeline_version IS NULL \
                 OR pipeline_version <> {p} OR (extractor_version IS NOT NULL \
                 AND extractor_version NOT IN ({current})))"
            ));
        }
        s
    }

    fn where_clause(&self) -> String {
        if self.conditions.is_empty() { String::new() } else { format!(" WHERE {}", self.conditions.join(" AND ")) }
    }

    fn query(self, sql: &str) -> Query<'_, sqlx::Any, AnyArguments<'_>> {
        let mut query = sqlx::query(sql);
        for b in self.binds {
            query = match b {
                Bind::Text(t) => query.bind(t),
                Bind::Int(i) => query.bind(i),
            };
        }
        query
    }
}

/// `$first, $first+1, …` for `n` parameters.
pub(crate) fn placeholders(first: usize, n: usize) -> String {
    (first..first + n).map(|i| format!("${i}")).collect::<Vec<_>>().join(", ")
}

/// `LIKE` pattern text matching `s` literally (with `ESCAPE '\'`).
fn like_escaped(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

impl SqlStateStore {
    pub(crate) async fn document(&self, id: &DocumentId) -> Result<Option<DocState>, StateError> {
        let sql = format!("SELECT {COLUMNS} FROM documents WHERE id = $1");
        let row = sqlx::query(&sql).bind(id.as_str()).fetch_optional(&self.pool).await?;
        row.as_ref().map(doc_from_row).transpose()
    }

    pub(crate) async fn select_page(&self, q: &DocQuery, cursor: &Cursor, limit: usize) -> Result<Page, StateError> {
        let mut s = Statement::filter(q);
        let order = match cursor {
            Cursor::Start => "ASC",
            Cursor::After(uri) => {
                let p = s.text(uri);
                s.conditions.push(format!("uri > {p}"));
                "ASC"
            }
            Cursor::Before(uri) => {
                let p = s.text(uri);
                s.conditions.push(format!("uri < {p}"));
                "DESC"
            }
        };
        // The page's URIs first (one past the page says whether there is
        // more): the filters read indexed columns only, so PostgreSQL walks
        // an index in URI order and stops at the page's end without touching
        // the rows it filters out. Then the page's rows, by URI.
        let n = s.bind(Bind::Int(limit as i64 + 1));
        let sql = format!("SELECT uri FROM documents{} ORDER BY uri {order} LIMIT {n}", s.where_clause());
        let mut uris: Vec<String> =
            s.query(&sql).fetch_all(&self.pool).await?.iter().map(|r| r.try_get(0)).collect::<Result<_, _>>()?;
        let more = uris.len() > limit;
        uris.truncate(limit);
        if uris.is_empty() {
            return Ok(Page { documents: Vec::new(), more });
        }
        let sql =
            format!("SELECT {COLUMNS} FROM documents WHERE uri IN ({}) ORDER BY uri", placeholders(1, uris.len()));
        let mut rows = sqlx::query(&sql);
        for uri in uris {
            rows = rows.bind(uri);
        }
        let documents = rows.fetch_all(&self.pool).await?.iter().map(doc_from_row).collect::<Result<Vec<_>, _>>()?;
        Ok(Page { documents, more })
    }

    pub(crate) async fn count_matching(&self, q: &DocQuery) -> Result<i64, StateError> {
        let s = Statement::filter(q);
        let sql = format!("SELECT COUNT(*) FROM documents{}", s.where_clause());
        Ok(s.query(&sql).fetch_one(&self.pool).await?.try_get(0)?)
    }

    pub(crate) async fn failures(&self, q: &DocQuery, limit: usize) -> Result<Vec<FailureGroup>, StateError> {
        if q.status.is_some_and(|s| s != DocStatus::Failed) || q.stale_against.is_some() {
            return Ok(Vec::new());
        }
        let q = DocQuery { status: Some(DocStatus::Failed), ..q.clone() };
        let mut s = Statement::filter(&q);
        let n = s.bind(Bind::Int(limit as i64));
        let sql = format!(
            "SELECT COALESCE(failure_reason, ''), failure_stage, COUNT(*) FROM documents{} \
             GROUP BY failure_reason, failure_stage ORDER BY COUNT(*) DESC, 1, 2 LIMIT {n}",
            s.where_clause()
        );
        let rows = s.query(&sql).fetch_all(&self.pool).await?;
        rows.iter().map(group_from_row).collect()
    }

    /// Requeues the documents of `ids` in status `from`, [`REQUEUE_BATCH`]
    /// per statement; returns those requeued, in URI order.
    pub(crate) async fn requeue_batch(&self, ids: &[DocumentId], from: DocStatus) -> Result<Vec<Retried>, StateError> {
        let mut requeued = Vec::new();
        for batch in ids.chunks(REQUEUE_BATCH) {
            let mut s = Statement::default();
            let (now, status) = (s.bind(Bind::Int(now_ms())), s.text(from.as_str()));
            let list: Vec<String> = batch.iter().map(|id| s.text(id.as_str())).collect();
            let sql = format!(
                "UPDATE documents SET status = 'queued', generation = generation + 1, attempts = 0, \
                 failure_reason = NULL, failure_stage = NULL, chunks_expected = NULL, batches_expected = NULL, \
                 lease_expires = NULL, queued_run = NULL, updated_at = {now} \
                 WHERE status = {status} AND id IN ({}) RETURNING id, uri, source_key, generation",
                list.join(", ")
            );
            for row in s.query(&sql).fetch_all(&self.pool).await? {
                requeued.push(Retried {
                    id: DocumentId::from_raw(row.try_get::<String, _>(0)?),
                    uri: row.try_get(1)?,
                    key: row.try_get(2)?,
                    generation: row.try_get(3)?,
                });
            }
        }
        requeued.sort_by(|a, b| a.uri.cmp(&b.uri));
        Ok(requeued)
    }
}

fn group_from_row(r: &AnyRow) -> Result<FailureGroup, StateError> {
    let stage: Option<String> = r.try_get(1)?;
    Ok(FailureGroup { reason: r.try_get(0)?, stage: stage.as_deref().and_then(Stage::parse), count: r.try_get(2)? })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_patterns_match_literally() {
        assert_eq!(like_escaped("100%_done\\"), "100\\%\\_done\\\\");
        assert_eq!(like_escaped("plain"), "plain");
    }
}
