//! `ragpipe serve admin`: the admin functions over HTTP (axum), the OpenAPI
//! description of that API and the web page that uses it.
//!
//! `/healthz` and `/readyz` are open (probes carry no token); everything
//! under `/api/` needs `Authorization: Bearer <token>` when a token is set.
//! The page itself holds no data, so it is served without a token and asks
//! for one when the API answers 401. It shows document names, titles and
//! failure reasons, which come from whoever named the files: it renders
//! them as text only, and its Content-Security-Policy runs no script but
//! its own, so a name that looks like HTML stays a name.

use crate::params::{RawFilter, document_id, invalid, page_query};
use crate::{Admin, AdminError, DocumentView};
use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{StatusCode, header};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use ragpipe_core::{DocStatus, DocumentId};
use ragpipe_queue::Topic;
use ragpipe_worker::auth::{self, BearerToken};
use serde::Deserialize;
use serde_json::json;
use std::future::Future;
use tokio::net::TcpListener;

const PAGE: &str = include_str!("page.html");
const PAGE_JS: &str = include_str!("page.js");
const OPENAPI: &str = include_str!("openapi.json");

/// Largest request body read, in bytes. The only body is a retry request,
/// a few dozen bytes per id; a bigger one is refused (413) before it is
/// buffered.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// The page's policy: its own script only (no inline script, no event
/// handler attributes), data from this server only, never framed.
const PAGE_CSP: &str = "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; \
                        img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The admin API, the page and the probes.
pub fn router(admin: Admin) -> Router {
    let api = Router::new()
        .route("/documents", get(list))
        .route("/documents/{id}", get(detail))
        .route("/retry", post(retry))
        .route("/status", get(status))
        .route("/reindex", get(reindex))
        .layer(middleware::from_fn_with_state(BearerToken::new(admin.token.as_deref()), auth::require_token));
    Router::new()
        .route("/", get(|| async { page("text/html; charset=utf-8", PAGE) }))
        .route("/page.js", get(|| async { page("text/javascript; charset=utf-8", PAGE_JS) }))
        .route("/openapi.json", get(|| async { ([(header::CONTENT_TYPE, "application/json")], OPENAPI) }))
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(ready))
        .nest("/api", api)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(admin)
}

/// The page or its script, with the headers that keep it inert if a
/// future edit ever put an untrusted string into markup.
fn page(content_type: &'static str, body: &'static str) -> impl IntoResponse {
    let headers = [
        (header::CONTENT_TYPE, content_type),
        (header::CONTENT_SECURITY_POLICY, PAGE_CSP),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    ];
    (headers, body)
}

/// Binds the admin server's address, refusing a non-loopback one when no
/// token is configured (an unauthenticated retry button must not face a
/// network) and a token that is no secret (empty or a placeholder).
pub async fn bind(addr: &str, token: Option<&str>) -> Result<TcpListener, AdminError> {
    auth::bind(addr, token, "admin.token (RAGPIPE_ADMIN_TOKEN)")
        .await
        .map_err(|e| AdminError::BadRequest(format!("admin.listen: {e}")))
}

/// Serves until `shutdown` resolves; requests in flight finish first.
pub async fn serve(
    admin: Admin,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, router(admin)).with_graceful_shutdown(shutdown).await
}

impl IntoResponse for AdminError {
    fn into_response(self) -> Response {
        let code = match &self {
            AdminError::NotFound(_) => StatusCode::NOT_FOUND,
            AdminError::BadRequest(_) => StatusCode::BAD_REQUEST,
            AdminError::Invalid { parameter, .. } => {
                let body = json!({"error": self.to_string(), "parameter": parameter});
                return (StatusCode::BAD_REQUEST, Json(body)).into_response();
            }
            AdminError::BodyTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            AdminError::Queue(_) => StatusCode::SERVICE_UNAVAILABLE,
            AdminError::State(e) if e.is_retryable() => StatusCode::SERVICE_UNAVAILABLE,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        (code, Json(json!({"error": self.to_string()}))).into_response()
    }
}

/// One page of the documents matching the filter, the cursors of the pages
/// beside it, and the failures among every match grouped by reason.
async fn list(
    State(admin): State<Admin>,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<Json<serde_json::Value>, AdminError> {
    let Query(pairs) = query.map_err(|e| invalid("query", e.body_text()))?;
    let (filter, cursor, limit) = page_query(pairs)?;
    let page = admin.page(&filter, &cursor, limit).await?;
    let failures = admin.failures(&filter).await?;
    Ok(Json(json!({
        "documents": page.documents, "next": page.next, "previous": page.previous, "failures": failures
    })))
}

async fn detail(
    State(admin): State<Admin>,
    id: Result<Path<String>, PathRejection>,
) -> Result<Json<serde_json::Value>, AdminError> {
    let Path(id) = id.map_err(|_| invalid("id", "not a document id"))?;
    let doc_id = document_id(&id, "id")?;
    let doc = admin.state.get(&doc_id).await?.ok_or(AdminError::NotFound(id))?;
    let document = DocumentView::new(&doc, &admin.current().await?);
    let mut body = json!({ "document": document });
    if doc.status != DocStatus::Deleted {
        match admin.chunks.chunks(&doc_id).await {
            Ok(chunks) => {
                let chunks: Vec<_> = chunks
                    .iter()
                    .map(|c| {
                        json!({"index": c.chunk_index, "generation": c.generation, "locator": c.locator,
                               "section": c.section, "tokens": c.tokens, "content": c.content})
                    })
                    .collect();
                body["chunks"] = json!(chunks);
            }
            Err(e) => body["chunks_error"] = json!(e),
        }
    }
    Ok(Json(body))
}

/// A retry: named documents, or every failed document a filter selects.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RetryRequest {
    #[serde(default)]
    ids: Vec<String>,
    filter: Option<RawFilter>,
}

async fn retry(
    State(admin): State<Admin>,
    body: Result<Json<RetryRequest>, JsonRejection>,
) -> Result<Json<crate::RetryReport>, AdminError> {
    let Json(req) = body.map_err(body_error)?;
    if req.ids.is_empty() && req.filter.is_none() {
        return Err(AdminError::BadRequest("name documents (ids) or a filter to retry".into()));
    }
    let ids: Vec<DocumentId> =
        req.ids.iter().enumerate().map(|(i, id)| document_id(id, &format!("ids[{i}]"))).collect::<Result<_, _>>()?;
    let filter = req.filter.map(|f| f.check("filter.")).transpose()?;
    let mut report = admin.retry(&ids).await?;
    if let Some(filter) = filter {
        report.queued.extend(admin.retry_matching(&filter).await?.queued);
    }
    Ok(Json(report))
}

/// A body that is not a retry request: too large (413), or not JSON of its
/// shape (400, axum's description saying which field).
fn body_error(rejection: JsonRejection) -> AdminError {
    if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
        return AdminError::BodyTooLarge(MAX_BODY_BYTES);
    }
    let text = rejection.body_text();
    let mut chars = text.chars();
    let problem: String = chars.next().map(|c| c.to_lowercase().chain(chars).collect()).unwrap_or_default();
    invalid("body", problem)
}

/// Counts by status, failed and stale documents, the current seal, queue
/// depths, recent sync runs and the reindex in progress: what `ragpipe
/// status --json` prints.
async fn status(State(admin): State<Admin>) -> Result<Json<crate::Status>, AdminError> {
    Ok(Json(crate::status(admin.state.as_ref(), admin.queue.as_deref(), &admin.current).await?))
}

/// The live index, the build in progress with its progress, kept ones.
async fn reindex(State(admin): State<Admin>) -> Result<Json<crate::reindex::ReindexStatus>, AdminError> {
    Ok(Json(crate::reindex::status(admin.state.as_ref()).await?))
}

/// Ready when the state store (and the broker, in the distributed mode) answer.
async fn ready(State(admin): State<Admin>) -> Response {
    let mut problems = Vec::new();
    if let Err(e) = admin.state.counts().await {
        problems.push(format!("state store: {e}"));
    }
    if let Some(queue) = &admin.queue
        && let Err(e) = queue.depth(Topic::Extract).await
    {
        problems.push(format!("queue: {e}"));
    }
    if problems.is_empty() {
        (StatusCode::OK, Json(json!({"ready": true}))).into_response()
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, Json(json!({"ready": false, "problems": problems}))).into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The page's script writes untrusted strings as text only, and the page
    /// has no inline script for the policy to have to allow.
    #[test]
    fn the_page_never_parses_strings_as_markup() {
        let code = PAGE_JS.lines().filter(|l| !l.trim_start().starts_with("//"));
        for (n, line) in code.enumerate() {
            for sink in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"] {
                assert!(!line.contains(sink), "page.js code line {n} uses {sink}: {line}");
            }
        }
        assert!(PAGE.contains(r#"<script src="/page.js"></script>"#));
        assert_eq!(PAGE.matches("<script").count(), 1, "no inline script");
        let script_src = PAGE_CSP.split(';').map(str::trim).find(|d| d.starts_with("script-src"));
        assert_eq!(script_src, Some("script-src 'self'"), "no inline script or handler attribute runs");
    }

    /// The page's filters and the API description offer exactly the kinds
    /// and statuses ragpipe has: a kind added without them could be listed
    /// by the API but not picked on the page, or not be in the schema.
    #[test]
    fn filters_and_schema_name_every_kind_and_status() {
        let spec: serde_json::Value = serde_json::from_str(OPENAPI).unwrap();
        let schema = |name: &str| -> Vec<String> {
            let values = spec["components"]["schemas"][name]["enum"].as_array().unwrap();
            values.iter().map(|v| v.as_str().unwrap().to_owned()).collect()
        };
        let options = |id: &str| -> Vec<String> {
            let select = PAGE.split(&format!(r#"<select id="{id}">"#)).nth(1).unwrap();
            let select = select.split("</select>").next().unwrap();
            select.split("<option>").skip(1).map(|o| o.split("</option>").next().unwrap().to_owned()).collect()
        };
        let kinds: Vec<String> = ragpipe_core::Kind::ALL.iter().map(|k| k.as_str().to_owned()).collect();
        let statuses: Vec<String> = DocStatus::ALL.iter().map(|s| s.as_str().to_owned()).collect();
        assert_eq!(schema("Kind"), kinds);
        assert_eq!(schema("Status"), statuses);
        let sorted = |mut v: Vec<String>| {
            v.sort();
            v
        };
        assert_eq!(sorted(options("kind-filter")), sorted(kinds));
        assert_eq!(options("status-filter"), statuses);
    }
}
