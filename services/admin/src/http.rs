//! `ragpipe serve admin`: the admin functions over HTTP (axum), the OpenAPI
//! description of that API and the web page that uses it.
//!
//! `/healthz` and `/readyz` are open (probes carry no token); everything
//! under `/api/` needs `Authorization: Bearer <token>` when a token is set.
//! The page itself holds no data, so it is served without a token and asks
//! for one when the API answers 401.

use crate::{Admin, AdminError, DocumentView, Filter, group_failures};
use axum::extract::{Path, Query, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use ragpipe_core::{DocStatus, DocumentId};
use ragpipe_queue::Topic;
use serde::Deserialize;
use serde_json::json;
use std::future::Future;
use std::net::SocketAddr;
use tokio::net::TcpListener;

const PAGE: &str = include_str!("page.html");
const OPENAPI: &str = include_str!("openapi.json");

/// The admin API, the page and the probes.
pub fn router(admin: Admin) -> Router {
    let api = Router::new()
        .route("/documents", get(list))
        .route("/documents/{id}", get(detail))
        .route("/retry", post(retry))
        .route("/status", get(status))
        .route("/reindex", get(reindex))
        .layer(middleware::from_fn_with_state(admin.clone(), auth));
    Router::new()
        .route("/", get(|| async { Html(PAGE) }))
        .route("/openapi.json", get(|| async { ([(header::CONTENT_TYPE, "application/json")], OPENAPI) }))
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(ready))
        .nest("/api", api)
        .with_state(admin)
}

/// Binds the admin server's address, refusing a non-loopback one when no
/// token is configured: an unauthenticated retry button must not face a network.
pub async fn bind(addr: &str, token: Option<&str>) -> Result<TcpListener, AdminError> {
    let addr: SocketAddr =
        addr.parse().map_err(|e| AdminError::BadRequest(format!("admin.listen {addr:?} is not an address: {e}")))?;
    if token.is_none() && !addr.ip().is_loopback() {
        return Err(AdminError::BadRequest(format!(
            "refusing to serve the admin API on {addr} without a token: set admin.token \
             (RAGPIPE_ADMIN_TOKEN) or listen on a loopback address"
        )));
    }
    TcpListener::bind(addr).await.map_err(|e| AdminError::BadRequest(format!("binding {addr}: {e}")))
}

/// Serves until `shutdown` resolves; requests in flight finish first.
pub async fn serve(
    admin: Admin,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, router(admin)).with_graceful_shutdown(shutdown).await
}

async fn auth(State(admin): State<Admin>, req: Request, next: Next) -> Response {
    if let Some(token) = &admin.token {
        let given = req.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok());
        if given.and_then(|v| v.strip_prefix("Bearer ")) != Some(token.as_str()) {
            return (StatusCode::UNAUTHORIZED, Json(json!({"error": "missing or wrong bearer token"}))).into_response();
        }
    }
    next.run(req).await
}

impl IntoResponse for AdminError {
    fn into_response(self) -> Response {
        let code = match &self {
            AdminError::NotFound(_) => StatusCode::NOT_FOUND,
            AdminError::BadRequest(_) => StatusCode::BAD_REQUEST,
            AdminError::Queue(_) => StatusCode::SERVICE_UNAVAILABLE,
            AdminError::State(e) if e.is_retryable() => StatusCode::SERVICE_UNAVAILABLE,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        (code, Json(json!({"error": self.to_string()}))).into_response()
    }
}

/// Documents matching the filter, and the failures among them grouped by reason.
async fn list(State(admin): State<Admin>, Query(filter): Query<Filter>) -> Result<Json<serde_json::Value>, AdminError> {
    let documents = admin.documents(&filter).await?;
    let failures = group_failures(&documents);
    Ok(Json(json!({ "documents": documents, "failures": failures })))
}

async fn detail(State(admin): State<Admin>, Path(id): Path<String>) -> Result<Json<serde_json::Value>, AdminError> {
    let doc_id = DocumentId::from_raw(id.clone());
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
    filter: Option<Filter>,
}

async fn retry(
    State(admin): State<Admin>,
    Json(req): Json<RetryRequest>,
) -> Result<Json<crate::RetryReport>, AdminError> {
    if req.ids.is_empty() && req.filter.is_none() {
        return Err(AdminError::BadRequest("name documents (ids) or a filter to retry".into()));
    }
    let mut ids: Vec<DocumentId> = req.ids.into_iter().map(DocumentId::from_raw).collect();
    if let Some(mut filter) = req.filter {
        filter.status = Some(DocStatus::Failed);
        ids.extend(admin.select(&filter).await?.into_iter().map(|d| d.id));
    }
    Ok(Json(admin.retry(&ids).await?))
}

/// Counts by status, the current model and pipeline, stale documents,
/// queue depths, recent sync runs and the reindex in progress.
async fn status(State(admin): State<Admin>) -> Result<Json<serde_json::Value>, AdminError> {
    let mut counts = serde_json::Map::new();
    for (s, c) in admin.state.counts().await? {
        counts.insert(s.as_str().into(), json!(c.documents));
    }
    let stale = admin.documents(&Filter { stale: true, ..Filter::default() }).await?.len();
    let mut queues = serde_json::Map::new();
    if let Some(queue) = &admin.queue {
        for topic in [Topic::Extract, Topic::Embed] {
            queues.insert(format!("{topic:?}").to_lowercase(), json!(queue.depth(topic).await?));
        }
    }
    let syncs = admin.state.sync_runs(10).await?;
    let reindex = reindex_view(&admin).await?;
    Ok(Json(json!({
        "documents": counts, "stale": stale, "current": admin.current().await?,
        "queues": queues, "syncs": syncs, "reindex": reindex,
    })))
}

/// The live index, the build in progress with its progress, kept ones.
async fn reindex(State(admin): State<Admin>) -> Result<Json<serde_json::Value>, AdminError> {
    Ok(Json(reindex_view(&admin).await?))
}

async fn reindex_view(admin: &Admin) -> Result<serde_json::Value, AdminError> {
    let status = crate::reindex::status(admin.state.as_ref()).await?;
    let (done, total) = status.progress();
    let mut view = serde_json::to_value(&status).map_err(|e| AdminError::BadRequest(e.to_string()))?;
    view["done"] = json!(done);
    view["total"] = json!(total);
    Ok(view)
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
