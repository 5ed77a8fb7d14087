//! The search API over HTTP (axum): `POST /api/search`, its OpenAPI
//! description, and the probes. `/api/*` needs `Authorization: Bearer
//! <token>` when a token is set (`search.token`); without one the server
//! listens on loopback only (see [`ragpipe_worker::auth`]).

use crate::{SearchError, SearchRequest, Searcher};
use axum::extract::rejection::JsonRejection;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router, middleware};
use ragpipe_worker::auth::{self, BearerToken};
use serde_json::json;
use std::future::Future;
use std::sync::Arc;
use tokio::net::TcpListener;

const OPENAPI: &str = include_str!("openapi.json");

/// Largest request body, in bytes: a query, a top_k and a filter.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// The search API and the probes.
pub fn router(searcher: Arc<Searcher>, token: Option<&str>) -> Router {
    let api = Router::new()
        .route("/search", post(search))
        .layer(middleware::from_fn_with_state(BearerToken::new(token), auth::require_token));
    Router::new()
        .route("/openapi.json", get(|| async { ([(header::CONTENT_TYPE, "application/json")], OPENAPI) }))
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(ready))
        .nest("/api", api)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(searcher)
}

/// Serves until `shutdown` resolves; searches in flight finish first.
pub async fn serve(
    searcher: Arc<Searcher>,
    token: Option<&str>,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, router(searcher, token)).with_graceful_shutdown(shutdown).await
}

async fn search(
    State(searcher): State<Arc<Searcher>>,
    body: Result<Json<SearchRequest>, JsonRejection>,
) -> Result<Response, SearchError> {
    let Json(req) = body.map_err(body_error)?;
    Ok(Json(searcher.search(&req).await?).into_response())
}

/// Ready once the live index and its model are open.
async fn ready(State(searcher): State<Arc<Searcher>>) -> Response {
    match searcher.ready().await {
        Ok(()) => (StatusCode::OK, Json(json!({"ready": true}))).into_response(),
        Err(e) => (StatusCode::SERVICE_UNAVAILABLE, Json(json!({"ready": false, "problems": [e.to_string()]})))
            .into_response(),
    }
}

/// A body that is not a search request: too large (413), or not JSON of
/// its shape (400, axum's description saying which field).
fn body_error(rejection: JsonRejection) -> SearchError {
    let problem = if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
        format!("larger than {MAX_BODY_BYTES} bytes")
    } else {
        rejection.body_text()
    };
    SearchError::Invalid { parameter: "body".into(), problem }
}

impl IntoResponse for SearchError {
    fn into_response(self) -> Response {
        let code = match &self {
            SearchError::Invalid { parameter, problem } => {
                let code = if problem.starts_with("larger than") {
                    StatusCode::PAYLOAD_TOO_LARGE
                } else {
                    StatusCode::BAD_REQUEST
                };
                return (code, Json(json!({"error": self.to_string(), "parameter": parameter}))).into_response();
            }
            SearchError::State(e) if e.is_retryable() => StatusCode::SERVICE_UNAVAILABLE,
            SearchError::Vectors(_) | SearchError::Model(_) | SearchError::Unavailable(_) => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        (code, Json(json!({"error": self.to_string()}))).into_response()
    }
}
