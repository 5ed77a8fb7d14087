//! Wiring of the admin functions (`ragpipe documents`, `retry`,
//! `serve admin`) to this deployment's adapters: the state store of either
//! mode, the broker when there is one, and the vector store for chunks.

use crate::{embedded, serve};
use async_trait::async_trait;
use ragpipe_admin::{Admin, ChunkReader, Current};
use ragpipe_config::Config;
use ragpipe_core::DocumentId;
use ragpipe_state::SqlStateStore;
use ragpipe_vectors::ChunkPayload;
use std::process::ExitCode;
use std::sync::Arc;

/// The admin functions over this config's state store, and its broker when
/// `distributed.amqp_url` is set (retries then publish at once).
pub async fn build(config: &Config) -> anyhow::Result<Admin> {
    let state = embedded::open_state(config).await?;
    let queue = match config.distributed.amqp_url {
        Some(_) => Some(serve::open_queue(config).await?),
        None => None,
    };
    let chunks = Arc::new(OpenPerRequest { config: config.clone(), state: state.clone() });
    Ok(Admin { state, queue, chunks, current: current(config), token: config.admin.token.clone() })
}

/// The model and pipeline this configuration seals a new index to, and this
/// build's extractor version (what "stale" is against until the registry
/// records an index; then its seal is).
pub fn current(config: &Config) -> Current {
    let spec = embedded::configured_collection(config);
    Current {
        model: spec.model,
        pipeline_version: spec.pipeline_version,
        extractor_version: ragpipe_extract::EXTRACTOR_VERSION.into(),
    }
}

/// `ragpipe serve admin`: serves until SIGTERM or Ctrl-C.
pub async fn serve(config: Config, listen: Option<String>) -> anyhow::Result<ExitCode> {
    let admin = build(&config).await?;
    let addr = listen.unwrap_or_else(|| config.admin.listen.clone());
    let listener = ragpipe_admin::bind(&addr, admin.token.as_deref()).await?;
    // The bound address (the port may have been 0), for scripts and tests.
    println!("admin listening on http://{}", listener.local_addr()?);
    ragpipe_admin::serve(admin, listener, serve::shutdown()).await?;
    Ok(ExitCode::SUCCESS)
}

/// "3 min ago"-style age of a millisecond timestamp.
pub fn updated(ms: i64) -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
    let secs = ((now - ms) / 1000).max(0) as u64;
    format!("{} ago", humantime::format_duration(std::time::Duration::from_secs(secs)))
}

/// The live collection, opened for each request and closed after it: the
/// embedded store admits one owner, so the admin server never keeps
/// `ragpipe ingest` from opening it, and a reindex's swap is followed.
struct OpenPerRequest {
    config: Config,
    state: Arc<SqlStateStore>,
}

#[async_trait]
impl ChunkReader for OpenPerRequest {
    async fn chunks(&self, id: &DocumentId) -> Result<Vec<ChunkPayload>, String> {
        let (_, store) = embedded::open_live(&self.config, self.state.as_ref()).await.map_err(|e| format!("{e:#}"))?;
        store.chunks(Some(id)).await.map_err(|e| e.to_string())
    }
}
