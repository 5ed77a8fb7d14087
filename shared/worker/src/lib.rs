//! What every long-running worker process needs, whatever its stage: a stop
//! signal, waiting patiently for a dependency that is not up yet, a broker
//! connection that comes back after it is lost, health probes and the
//! queue-depth gauge. A service crate says what one worker does (a
//! [`Handler`]); [`serve`] runs as many as configured and keeps them running.
//! The served APIs (admin, search) share its [`auth`]: the bearer token and
//! the loopback rule.

pub mod auth;
mod probes;
mod stop;

pub use probes::{Health, serve_probes};
pub use stop::Stop;

use ragpipe_queue::{Activity, Handler, Queue, Topic};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

/// First wait before trying a dependency again; it doubles up to [`RECONNECT_MAX`].
pub const RECONNECT_MIN: Duration = Duration::from_secs(1);
pub const RECONNECT_MAX: Duration = Duration::from_secs(30);

/// How long a stopped worker lets the job in hand finish (an orchestrator's
/// usual grace before SIGKILL is 30 s).
pub const STOP_GRACE: Duration = Duration::from_secs(20);

/// How a role's workers run.
#[derive(Debug, Clone)]
pub struct Role {
    /// For logs: `extractor`, `embedder`.
    pub name: &'static str,
    /// Consume loops in this process: the length of the list `make` builds
    /// (one handler per loop; loops may serve different topics).
    pub workers: usize,
    /// Where `/healthz` and `/readyz` listen (`workers.health_listen`).
    pub health_listen: Option<String>,
    /// A worker on one delivery for longer than this is reported stuck by
    /// `/healthz` (its document's lease has run out by then: another worker
    /// may already have taken the job over).
    pub stuck_after: Duration,
}

/// Runs `attempt` until it succeeds, waiting the reconnect backoff between
/// tries; `None` if `stop` fires meanwhile. For what a worker needs before
/// it can start (the state store, the index registry).
pub async fn patiently<T, E, F, Fut>(what: &str, stop: &Stop, attempt: F) -> Option<T>
where
    F: Fn() -> Fut,
    Fut: Future<Output = Result<T, E>>,
    E: std::fmt::Display,
{
    let mut backoff = RECONNECT_MIN;
    loop {
        match attempt().await {
            Ok(v) => return Some(v),
            // `{:#}`: with its causes (anyhow shows only the outer context otherwise).
            Err(e) => tracing::warn!(error = %format!("{e:#}"), ?backoff, "cannot reach {what}; retrying"),
        }
        if stop.sleep(backoff).await {
            return None;
        }
        backoff = (backoff * 2).min(RECONNECT_MAX);
    }
}

/// Runs `role.workers` consume loops, one per handler in the list `make`
/// builds for each broker connection, until `stop`. In-flight jobs finish (or, if the
/// process is killed, the broker redelivers them). When the connection is
/// lost the loops end, unacked jobs go back to the queue, and a new
/// connection is opened with exponential backoff (1 s doubling to 30 s);
/// whatever `make` captures (model, tokenizer, stores) is kept across.
pub async fn serve<C, CFut, M>(role: Role, connect: C, make: M, stop: Stop) -> anyhow::Result<()>
where
    C: Fn() -> CFut,
    CFut: Future<Output = anyhow::Result<Arc<dyn Queue>>>,
    M: Fn(Arc<dyn Queue>) -> Vec<Arc<dyn Handler>>,
{
    let workers = role.workers.max(1);
    let activities: Arc<Vec<Activity>> = Arc::new((0..workers).map(|_| Activity::default()).collect());
    let (ready_tx, ready) = tokio::sync::watch::channel(false);
    if let Some(addr) = &role.health_listen {
        let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| anyhow::anyhow!("binding {addr}: {e}"))?;
        let health = probes::Health { ready, activities: activities.clone(), stuck_after: role.stuck_after };
        tokio::spawn(serve_probes(listener, health, stop.clone().stopped_owned()));
    }
    let mut backoff = RECONNECT_MIN;
    while !stop.is_stopped() {
        match connect().await {
            Ok(queue) => {
                let depth = tokio::spawn(sample_depth(queue.clone()));
                let handlers = make(queue.clone());
                debug_assert_eq!(handlers.len(), workers, "one handler per consume loop");
                let tasks: Vec<_> = (0..workers)
                    .zip(handlers)
                    .map(|(i, handler)| {
                        let (queue, activities, stop) = (queue.clone(), activities.clone(), stop.clone());
                        tokio::spawn(async move {
                            ragpipe_queue::consume(queue.as_ref(), handler.as_ref(), &activities[i], stop.stopped())
                                .await
                        })
                    })
                    .collect();
                let _ = ready_tx.send(true);
                tracing::info!(role = role.name, workers, "serving");
                let mut lost = None;
                for mut task in tasks {
                    // Stopped: the job in hand may finish within the grace
                    // period; one that cannot is abandoned (unacked, so the
                    // broker delivers it again) rather than keep the process.
                    let ended = tokio::select! {
                        ended = &mut task => ended,
                        _ = stop.stopped() => match tokio::time::timeout(STOP_GRACE, &mut task).await {
                            Ok(ended) => ended,
                            Err(_) => {
                                tracing::warn!(role = role.name, grace = ?STOP_GRACE, "a job outlived the stop grace period; abandoned, the broker redelivers it");
                                task.abort();
                                continue;
                            }
                        },
                    };
                    if let Err(e) = ended? {
                        lost = Some(e);
                    }
                }
                let _ = ready_tx.send(false);
                depth.abort();
                if stop.is_stopped() {
                    break;
                }
                tracing::warn!(role = role.name, error = ?lost, "lost the broker connection; reconnecting");
                backoff = RECONNECT_MIN;
            }
            Err(e) => {
                tracing::warn!(role = role.name, error = %format!("{e:#}"), ?backoff, "cannot reach the broker; retrying")
            }
        }
        if stop.sleep(backoff).await {
            break;
        }
        backoff = (backoff * 2).min(RECONNECT_MAX);
    }
    Ok(())
}

/// Records the depth of every queue every 10 s (the `ragpipe.queue.depth`
/// gauge) while the connection lives.
async fn sample_depth(queue: Arc<dyn Queue>) {
    let gauge = &ragpipe_telemetry::metrics::metrics().queue_depth;
    loop {
        for topic in Topic::ALL {
            if let Ok(n) = queue.depth(topic).await {
                gauge.record(n, &[opentelemetry::KeyValue::new("topic", topic.as_str())]);
            }
        }
        tokio::time::sleep(Duration::from_secs(10)).await;
    }
}
