//! Probes for the queue workers (`workers.health_listen`), so an
//! orchestrator can tell a live worker from a hung one and a connected one
//! from one waiting for the broker. `/healthz`: the process answers and no
//! worker has been on one job longer than its role allows (503 names the
//! stuck workers). `/readyz`: it holds a broker connection and its workers
//! are consuming.

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::get;
use ragpipe_queue::Activity;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::watch;

/// What the probes read.
#[derive(Clone)]
pub struct Health {
    /// Whether the role holds a broker connection.
    pub ready: watch::Receiver<bool>,
    /// One per consume loop.
    pub activities: Arc<Vec<Activity>>,
    pub stuck_after: Duration,
}

impl Health {
    /// Workers on their current job for longer than `stuck_after`, with how long.
    pub fn stuck(&self) -> Vec<(usize, Duration)> {
        let busy = self.activities.iter().enumerate().filter_map(|(i, a)| a.busy_for().map(|d| (i, d)));
        busy.filter(|(_, d)| *d > self.stuck_after).collect()
    }
}

/// Serves the probes until `shutdown`.
pub async fn serve_probes(
    listener: TcpListener,
    health: Health,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let router = Router::new().route("/healthz", get(healthz)).route("/readyz", get(readyz)).with_state(health);
    axum::serve(listener, router).with_graceful_shutdown(shutdown).await
}

async fn healthz(State(health): State<Health>) -> (StatusCode, String) {
    let stuck = health.stuck();
    if stuck.is_empty() {
        return (StatusCode::OK, "ok".into());
    }
    // Whole milliseconds: `1.2s`, `450ms`.
    let ms = |d: &Duration| Duration::from_millis(d.as_millis() as u64);
    let list: Vec<String> = stuck.iter().map(|(i, d)| format!("worker {i} for {:?}", ms(d))).collect();
    let limit = ms(&health.stuck_after);
    (StatusCode::SERVICE_UNAVAILABLE, format!("stuck on one job longer than {limit:?}: {}", list.join(", ")))
}

async fn readyz(State(health): State<Health>) -> (StatusCode, &'static str) {
    if *health.ready.borrow() {
        (StatusCode::OK, "ready")
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "not connected to the broker")
    }
}
