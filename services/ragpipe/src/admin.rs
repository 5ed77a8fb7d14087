//! Wiring of the admin functions (`ragpipe documents`, `retry`,
//! `serve admin`) to this deployment's adapters: the state store of either
//! mode, the broker when there is one, and the vector store for chunks.

use crate::{embedded, serve};
use async_trait::async_trait;
use ragpipe_admin::{Admin, ChunkReader, Current};
use ragpipe_config::Config;
use ragpipe_core::DocumentId;
use ragpipe_vectors::{ChunkPayload, CollectionSpec, VectorStore};
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
    let spec = embedded::configured_collection(config);
    let chunks: Arc<dyn ChunkReader> = match config.distributed.qdrant_url {
        Some(_) => Arc::new(Held(embedded::open_vectors(config, &spec).await?)),
        None => Arc::new(OpenPerRequest { config: config.clone(), spec }),
    };
    Ok(Admin { state, queue, chunks, current: current(config), token: config.admin.token.clone() })
}

/// The model and pipeline this configuration writes (what "stale" is against).
pub fn current(config: &Config) -> Current {
    let spec = embedded::configured_collection(config);
    Current { model: spec.model, pipeline_version: spec.pipeline_version }
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

/// A vector store shared by every request (a Qdrant server).
struct Held(Arc<dyn VectorStore>);

#[async_trait]
impl ChunkReader for Held {
    async fn chunks(&self, id: &DocumentId) -> Result<Vec<ChunkPayload>, String> {
        self.0.chunks(Some(id)).await.map_err(|e| e.to_string())
    }
}

/// The embedded store, opened for each request and closed after it, so the
/// admin server never keeps `ragpipe ingest` from opening it.
struct OpenPerRequest {
    config: Config,
    spec: CollectionSpec,
}

#[async_trait]
impl ChunkReader for OpenPerRequest {
    async fn chunks(&self, id: &DocumentId) -> Result<Vec<ChunkPayload>, String> {
        let store = embedded::open_vectors(&self.config, &self.spec).await.map_err(|e| format!("{e:#}"))?;
        store.chunks(Some(id)).await.map_err(|e| e.to_string())
    }
}
