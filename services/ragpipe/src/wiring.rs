//! The one place configuration becomes adapters, for both modes: the
//! embedded default (SQLite state, qdrant-edge vectors, an in-process queue,
//! all under the data directory) and the distributed mode (PostgreSQL
//! `distributed.state_url`, RabbitMQ `amqp_url`, a Qdrant server
//! `qdrant_url`, an S3 or folder `source`). Every command and service gets
//! its state store, queue, source, vector collections, model and the
//! admin functions from here.

use anyhow::{Context, bail};
use async_trait::async_trait;
use ragpipe_admin::{Admin, ChunkReader, Current};
use ragpipe_config::Config;
use ragpipe_core::{DocumentId, Kind};
use ragpipe_embed::{ModelFiles, ModelSeal, ModelTokenizer, ModelVariant, OnnxEmbedder, RunOptions};
use ragpipe_extractor::SIDECAR_EXTENSIONS;
use ragpipe_queue::{AmqpOptions, AmqpQueue, Queue};
use ragpipe_source::{Exclude, Excluding, FolderSource, ObjectSource, Pairing, S3Config, S3Source, WithSidecars};
use ragpipe_state::{IndexRecord, NewIndex, SqlStateStore, StateStore, live_index};
use ragpipe_vectors::{
    ChunkPayload, CollectionSpec, Collections, EdgeCollections, QdrantCollections, QdrantStore, VectorStore,
};
use std::sync::Arc;

pub fn model_files(config: &Config, name: &str, variant: ModelVariant) -> anyhow::Result<ModelFiles> {
    Ok(ModelFiles::locate(name, config.model.dir.as_deref(), config.model.runtime.as_deref(), variant)?)
}

pub fn variant(config: &Config) -> ModelVariant {
    ModelVariant::parse(&config.model.variant).unwrap_or_default()
}

/// The files of the configured model (`[model] name` and `variant`).
pub fn configured_files(config: &Config) -> anyhow::Result<ModelFiles> {
    model_files(config, &config.model.name, variant(config))
}

/// The embedder of the configured model.
pub fn load_embedder(config: &Config) -> anyhow::Result<Arc<OnnxEmbedder>> {
    load(config, &configured_files(config)?)
}

/// The embedder an index is sealed to: its vectors and a query's must come
/// from the same model, whatever the configuration now says. The first
/// model to use an index records its seal; a later one with other weights,
/// dimensions or prefixes is refused.
pub async fn load_embedder_for(
    config: &Config,
    state: &dyn StateStore,
    index: &IndexRecord,
) -> anyhow::Result<Arc<OnnxEmbedder>> {
    let (name, variant) = ModelVariant::split_recorded(&index.model);
    let files = model_files(config, name, variant)
        .with_context(|| format!("index {} was built with model {}", index.name, index.model))?;
    // Told by names alone (a custom model's name is in its folder's spec).
    if config.model.name != ragpipe_embed::CUSTOM
        && index.model != self::variant(config).recorded_name(&config.model.name)
    {
        tracing::info!(index = %index.name, model = %index.model, "using the index's model, not the configured one");
    }
    let embedder = load(config, &files)?;
    check_seal(state, index, embedder.seal(), &files).await?;
    Ok(embedder)
}

/// Refuses `found` for an index sealed to another model; seals an index
/// no model has used yet.
async fn check_seal(
    state: &dyn StateStore,
    index: &IndexRecord,
    found: &ModelSeal,
    files: &ModelFiles,
) -> anyhow::Result<()> {
    let recorded = match &index.seal {
        Some(seal) => Some(seal.clone()),
        None => state.seal_index(&index.name, &found.to_json()).await?,
    };
    // Dropped meanwhile (a swap): whoever reads it next finds the new one.
    let Some(recorded) = recorded else { return Ok(()) };
    let sealed = ModelSeal::parse(&recorded).map_err(anyhow::Error::msg)?;
    sealed.admits(found).map_err(|differs| {
        anyhow::anyhow!(
            "index {} is sealed to model {} and the model files at {} are not that model ({differs}); \
             put back the files it was built with, or build a new index with these: `ragpipe reindex`",
            index.name,
            sealed.model,
            files.dir.display()
        )
    })
}

fn load(config: &Config, files: &ModelFiles) -> anyhow::Result<Arc<OnnxEmbedder>> {
    check_budget(config, files)?;
    let m = &config.model;
    let options = RunOptions { threads: m.threads, sessions: m.sessions, batch_size: m.batch_size, spinning: true };
    let embedder = OnnxEmbedder::load_with(files, options)
        .with_context(|| format!("loading model {} from {}", files.spec.name, files.dir.display()))?;
    Ok(Arc::new(embedder))
}

/// The tokenizer chunks are cut with: the configured model's (the model of
/// a new index and of the next reindex).
pub fn load_tokenizer(config: &Config) -> anyhow::Result<Arc<ModelTokenizer>> {
    let files = configured_files(config)?;
    check_budget(config, &files)?;
    Ok(Arc::new(ModelTokenizer::load(&files)?))
}

/// A chunk budget set in `[chunking]` must fit the model that embeds the
/// chunks (0, the default, is the model's own and always does).
fn check_budget(config: &Config, files: &ModelFiles) -> anyhow::Result<()> {
    let (budget, window) = (config.chunking.budget, files.spec.max_tokens);
    anyhow::ensure!(
        budget <= window,
        "chunking.budget {budget} is over the window of {} ({window} word-pieces): chunks would be cut; \
         set at most {window}, or 0 for the model's own",
        files.spec.name
    );
    Ok(())
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

/// The collection spec of the configured model (its name and width read
/// from its spec) and this build's pipeline version: what a new index is
/// sealed to.
pub fn configured_collection(config: &Config) -> anyhow::Result<CollectionSpec> {
    let files = configured_files(config)?;
    Ok(CollectionSpec {
        model: files.recorded_name(),
        dims: files.spec.dims,
        pipeline_version: pipeline_version(config)?,
    })
}

/// This build's pipeline version with the configured lexical analysis
/// (`1`, or `1+bm25-spanish`): what a new index's points are made by.
pub fn pipeline_version(config: &Config) -> anyhow::Result<String> {
    let language = &config.lexical.language;
    // Refused at start, not at the first document.
    ragpipe_vectors::Bm25::for_language(language).map_err(|e| anyhow::anyhow!("lexical.language: {e}"))?;
    Ok(ragpipe_vectors::bm25::pipeline_version(ragpipe_core::PIPELINE_VERSION, language))
}

/// What a registry with no index yet records as live: the configured
/// collection, under the name indexes had before the registry existed.
pub fn first_index(config: &Config) -> anyhow::Result<NewIndex> {
    let spec = configured_collection(config)?;
    Ok(NewIndex {
        name: spec.name(),
        model: spec.model,
        dims: spec.dims as i64,
        pipeline_version: spec.pipeline_version,
        keep_old: false,
    })
}

/// Where collections live: a Qdrant server when `distributed.qdrant_url` is
/// set (collections named `{namespace}_…`, the `{namespace}_chunks` alias on
/// the live one), else one qdrant-edge directory per collection under the
/// data directory.
pub fn collections(config: &Config) -> anyhow::Result<Arc<dyn Collections>> {
    let d = &config.distributed;
    if let Some(url) = &d.qdrant_url {
        let client = QdrantStore::connect(url, d.qdrant_api_key.as_deref())
            .context("connecting to Qdrant (distributed.qdrant_url)")?;
        let namespace = d.namespace.as_deref().unwrap_or("ragpipe");
        return Ok(Arc::new(QdrantCollections::new(client, namespace)));
    }
    Ok(Arc::new(EdgeCollections { root: config.data_dir.join("vectors") }))
}

/// The live index and its collection, for searching and reading chunks.
/// A reindex may swap and drop the collection between reading the registry
/// and opening it; then the registry is read again (it names the new one).
pub async fn open_live(config: &Config, state: &dyn StateStore) -> anyhow::Result<(IndexRecord, Arc<dyn VectorStore>)> {
    let collections = collections(config)?;
    let first = first_index(config)?;
    for _ in 0..5 {
        let index = live_index(state, &first).await?;
        let spec = index.spec();
        let opened = collections.open(&index.name, &spec).await;
        // A swap in between: the registry names another collection now.
        if live_index(state, &first).await?.name != index.name {
            continue;
        }
        return match opened? {
            Some(store) => Ok((index, store)),
            // Nothing was ever written to it: an empty index.
            None => {
                let store = collections.create(&index.name, &spec).await?;
                Ok((index, store))
            }
        };
    }
    anyhow::bail!("the live index kept changing while it was being opened")
}

/// A searcher over this config's state store and collections, loading the
/// model each live index is sealed to.
pub async fn searcher(config: &Config, options: ragpipe_search::Options) -> anyhow::Result<ragpipe_search::Searcher> {
    let state = open_state(config).await?;
    let (for_index, for_state) = (config.clone(), state.clone());
    let embedder_for: ragpipe_search::EmbedderFor = Arc::new(move |index| {
        let (config, state) = (for_index.clone(), for_state.clone());
        Box::pin(async move {
            load_embedder_for(&config, state.as_ref(), &index)
                .await
                .map(|e| e as Arc<dyn ragpipe_embed::Embedder>)
                .map_err(|e| format!("{e:#}"))
        })
    });
    let ports =
        ragpipe_search::Ports { state, collections: collections(config)?, first: first_index(config)?, embedder_for };
    Ok(ragpipe_search::Searcher::new(ports, options))
}

/// The distributed mode's state store; an error naming the setting when
/// `distributed.state_url` is not set.
pub fn require_state(config: &Config) -> anyhow::Result<()> {
    if config.distributed.state_url.is_none() {
        bail!("the distributed mode needs distributed.state_url (or RAGPIPE_STATE_URL), a PostgreSQL URL");
    }
    Ok(())
}

/// A connection to RabbitMQ (`distributed.amqp_url`), its queues named
/// after `distributed.namespace`.
pub async fn open_queue(config: &Config) -> anyhow::Result<Arc<dyn Queue>> {
    let d = &config.distributed;
    let url = d.amqp_url.as_deref().context("the distributed mode needs distributed.amqp_url (or RAGPIPE_AMQP_URL)")?;
    let mut options = AmqpOptions::default();
    if let Some(ns) = &d.namespace {
        options.namespace = ns.clone();
    }
    Ok(Arc::new(AmqpQueue::connect(url, options).await.context("connecting to RabbitMQ")?))
}

/// `s3://bucket/prefix` or a folder path, without the keys `source.exclude`
/// names. A transcript beside its recording is read with it, and lists as
/// part of it; one alone is a document of its own.
pub fn open_source(uri: Option<&str>, config: &Config) -> anyhow::Result<Arc<dyn ObjectSource>> {
    let uri = uri.context("no source: pass --source or set distributed.source (or RAGPIPE_SOURCE)")?;
    let exclude = Exclude::new(&config.source.exclude).map_err(anyhow::Error::msg)?;
    let pairing = Pairing {
        media: ragpipe_extract::extensions_of(Kind::Audio).into_iter().map(String::from).collect(),
        sidecars: SIDECAR_EXTENSIONS.iter().map(|e| e.to_string()).collect(),
    };
    Ok(if uri.starts_with("s3://") {
        Arc::new(WithSidecars::new(Excluding::new(S3Source::new(S3Config::from_uri(uri)?), exclude), pairing))
    } else {
        let folder = FolderSource::new(std::path::Path::new(uri))?;
        Arc::new(WithSidecars::new(Excluding::new(folder, exclude), pairing))
    })
}

/// The admin functions over this config's state store, and its broker when
/// `distributed.amqp_url` is set (retries then publish at once).
pub async fn admin(config: &Config) -> anyhow::Result<Admin> {
    let state = open_state(config).await?;
    let queue = match config.distributed.amqp_url {
        Some(_) => Some(open_queue(config).await?),
        None => None,
    };
    let chunks = Arc::new(OpenPerRequest { config: config.clone(), state: state.clone() });
    Ok(Admin { state, queue, chunks, current: current(config)?, token: config.admin.token.clone() })
}

/// The model and pipeline this configuration seals a new index to, and this
/// build's extractor version (what "stale" is against until the registry
/// records an index; then its seal is). A `lexical.language` BM25 cannot
/// analyse is refused here as at every other start.
pub fn current(config: &Config) -> anyhow::Result<Current> {
    let pipeline_version = pipeline_version(config)?;
    // Without the model's files here (an admin host), the configured name.
    let model = configured_collection(config)
        .map(|spec| spec.model)
        .unwrap_or_else(|_| variant(config).recorded_name(&config.model.name));
    Ok(Current { model, pipeline_version, extractor_version: extractor_version(config) })
}

/// The extractor version current documents carry, with the configured
/// speech model (`2+whisper-base/fp32`) and OCR model when they are on.
pub fn extractor_version(config: &Config) -> String {
    let asr = ragpipe_extractor::AsrSettings::from_config(config);
    let ocr = ragpipe_extractor::OcrSettings::from_config(config);
    ragpipe_extractor::speech::current_version(asr.as_ref(), ocr.as_ref())
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
        let (_, store) = open_live(&self.config, self.state.as_ref()).await.map_err(|e| format!("{e:#}"))?;
        store.chunks(Some(id)).await.map_err(|e| e.to_string())
    }
}
