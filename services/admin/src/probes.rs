//! Probes for the queue workers (`ragpipe serve extractor|embedder` with
//! `workers.health_listen`), so an orchestrator can tell a live worker from
//! a hung one and a connected one from one waiting for the broker.
//! `/healthz`: the process answers. `/readyz`: it holds a broker connection
//! and its workers are consuming.

use axum::Router;
use axum::http::StatusCode;
use axum::routing::get;
use std::future::Future;
use tokio::net::TcpListener;
use tokio::sync::watch;

/// Serves the probes until `shutdown`; `ready` is the worker's connection state.
pub async fn serve_probes(
    listener: TcpListener,
    ready: watch::Receiver<bool>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let router = Router::new().route("/healthz", get(|| async { "ok" })).route(
        "/readyz",
        get(move || {
            let ready = *ready.borrow();
            async move {
                if ready {
                    (StatusCode::OK, "ready")
                } else {
                    (StatusCode::SERVICE_UNAVAILABLE, "not connected to the broker")
                }
            }
        }),
    );
    axum::serve(listener, router).with_graceful_shutdown(shutdown).await
}
