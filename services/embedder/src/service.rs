//! How the embedder runs as a service (`ragpipe serve embedder`): as many
//! consume loops as `workers.embedders` over the broker, kept running by
//! the worker runtime (reconnects, probes, stop). The model is loaded once
//! and shared by the loops.

use crate::{EmbedStage, Targets};
use ragpipe_config::Config;
use ragpipe_embed::Embedder;
use ragpipe_queue::{Handler, Queue};
use ragpipe_state::StateStore;
use ragpipe_worker::{Role, Stop};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

/// What the embedder reads and writes, besides the broker.
#[derive(Clone)]
pub struct Ports {
    pub state: Arc<dyn StateStore>,
    /// Where batches go: the registry's write target.
    pub targets: Arc<Targets>,
    /// The model of the index being written.
    pub embedder: Arc<dyn Embedder>,
}

impl EmbedStage {
    pub fn new(ports: Ports) -> Self {
        EmbedStage {
            state: ports.state,
            targets: ports.targets,
            embedder: ports.embedder,
            analyses: Arc::default(),
            hints: Default::default(),
        }
    }
}

/// Serves embed (and delete) jobs until `stop`: `workers.embedders` loops
/// on one broker connection, opened (and reopened when lost) by `connect`.
pub async fn run<C, Fut>(config: &Config, ports: Ports, connect: C, stop: Stop) -> anyhow::Result<()>
where
    C: Fn() -> Fut,
    Fut: Future<Output = anyhow::Result<Arc<dyn Queue>>>,
{
    let role = Role {
        name: "embedder",
        workers: config.workers.embedders,
        health_listen: config.workers.health_listen.clone(),
        stuck_after: Duration::from_secs(config.workers.lease_secs.max(1)),
    };
    let stage: Arc<dyn Handler> = Arc::new(EmbedStage::new(ports));
    let loops = role.workers.max(1);
    ragpipe_worker::serve(role, connect, move |_| vec![stage.clone(); loops], stop).await
}
