//! Wiring of the embedded mode: SQLite state, qdrant-edge vectors and the
//! ONNX embedder, all under one data directory.

use anyhow::Context;
use ragpipe_config::Config;
use ragpipe_embed::{Embedder, ModelFiles, ModelVariant, OnnxEmbedder, WordPieceTokenizer};
use ragpipe_state::SqlStateStore;
use ragpipe_vectors::{CollectionSpec, EdgeStore, QdrantStore, VectorStore};
use std::sync::Arc;

pub fn model_files(config: &Config, variant: ModelVariant) -> anyhow::Result<ModelFiles> {
    Ok(ModelFiles::locate(config.model.dir.as_deref(), config.model.runtime.as_deref(), variant)?)
}

pub fn variant(config: &Config) -> ModelVariant {
    ModelVariant::parse(&config.model.variant).unwrap_or_default()
}

pub fn load_embedder(config: &Config) -> anyhow::Result<Arc<OnnxEmbedder>> {
    let files = model_files(config, variant(config))?;
    Ok(Arc::new(OnnxEmbedder::load(&files, config.model.threads, config.model.batch_size)?))
}

/// The chunker settings of `[chunking]`.
pub fn chunk_config(config: &Config) -> ragpipe_chunking::ChunkConfig {
    let c = &config.chunking;
    ragpipe_chunking::ChunkConfig {
        budget: c.budget,
        contextual_header: c.contextual_header,
        table_rows_as: match c.table_rows {
            ragpipe_config::TableRows::Readable => ragpipe_chunking::TableRows::Readable,
            ragpipe_config::TableRows::Linearised => ragpipe_chunking::TableRows::Linearised,
        },
    }
}

pub fn load_tokenizer(config: &Config) -> anyhow::Result<Arc<WordPieceTokenizer>> {
    let files = model_files(config, variant(config))?;
    Ok(Arc::new(WordPieceTokenizer::from_file(&files.tokenizer, 256)?))
}

/// The document state: PostgreSQL when `distributed.state_url` is set,
/// else the embedded SQLite file in the data directory.
pub async fn open_state(config: &Config) -> anyhow::Result<Arc<SqlStateStore>> {
    let lease = std::time::Duration::from_secs(config.workers.lease_secs.max(1));
    if let Some(url) = &config.distributed.state_url {
        let store =
            SqlStateStore::connect(url).await.context("connecting to the state store (distributed.state_url)")?;
        return Ok(Arc::new(store.with_lease(lease)));
    }
    std::fs::create_dir_all(&config.data_dir).with_context(|| format!("creating {}", config.data_dir.display()))?;
    let url = format!("sqlite://{}", config.data_dir.join("state.db").display());
    Ok(Arc::new(SqlStateStore::connect(&url).await?.with_lease(lease)))
}

/// The collection this build writes and searches: sealed to model, dims and
/// pipeline version.
pub fn collection(embedder: &dyn Embedder) -> CollectionSpec {
    CollectionSpec {
        model: embedder.model().to_string(),
        dims: embedder.dims(),
        pipeline_version: ragpipe_core::PIPELINE_VERSION.to_string(),
    }
}

/// The collection of the configured model without loading it (for tools
/// that only read).
pub fn configured_collection(config: &Config) -> CollectionSpec {
    CollectionSpec {
        model: variant(config).recorded_name(),
        dims: ragpipe_embed::MODEL_DIMS,
        pipeline_version: ragpipe_core::PIPELINE_VERSION.to_string(),
    }
}

/// The vector store: a Qdrant server when `distributed.qdrant_url` is set
/// (searches read through the `{namespace}_chunks` alias), else the embedded
/// qdrant-edge store in the data directory.
pub async fn open_vectors(config: &Config, spec: &CollectionSpec) -> anyhow::Result<Arc<dyn VectorStore>> {
    let d = &config.distributed;
    if let Some(url) = &d.qdrant_url {
        let alias = format!("{}_chunks", d.namespace.as_deref().unwrap_or("ragpipe"));
        let store = QdrantStore::open(url, d.qdrant_api_key.as_deref(), spec, Some(&alias))
            .await
            .context("connecting to Qdrant (distributed.qdrant_url)")?;
        return Ok(Arc::new(store));
    }
    Ok(Arc::new(EdgeStore::open(&config.data_dir.join("vectors"), spec)?))
}
