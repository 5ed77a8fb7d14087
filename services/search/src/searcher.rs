//! One searcher for a process: the live index's collection and model are
//! opened once and kept, the registry is re-read at most every
//! [`RECHECK`] so a reindex's swap is followed within a second, and query
//! embeddings are kept in an LRU cache so a repeated question skips the
//! model (the only part of a search that costs milliseconds).

use crate::windows::WindowCache;
use crate::{SearchError, SearchResponse};
use lru::LruCache;
use ragpipe_core::Abstention;
use ragpipe_embed::Embedder;
use ragpipe_state::{IndexRecord, NewIndex, StateStore, live_index};
use ragpipe_vectors::retrieval::{self, FusionSetting, Mode, SearchOptions};
use ragpipe_vectors::{Bm25, Collections, SearchFilter, VectorStore};
use serde::Deserialize;
use std::future::Future;
use std::num::NonZeroUsize;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::RwLock;

/// How long the live index is trusted before the registry is read again.
pub const RECHECK: Duration = Duration::from_secs(1);
/// Most hits one search over the API returns (the CLI, run by the index's
/// owner, may ask for every chunk).
pub const MAX_TOP_K: usize = 100;
/// Longest query, in bytes (the model reads 256 word-pieces at most).
pub const MAX_QUERY_BYTES: usize = 4096;
/// Most values one filter field lists.
pub const MAX_FILTER_VALUES: usize = 100;

/// The embedder an index is sealed to (its model, whatever the
/// configuration says now), or why it cannot be loaded.
pub type EmbedderFor =
    Arc<dyn Fn(IndexRecord) -> Pin<Box<dyn Future<Output = Result<Arc<dyn Embedder>, String>> + Send>> + Send + Sync>;

/// What a searcher reads.
#[derive(Clone)]
pub struct Ports {
    pub state: Arc<dyn StateStore>,
    pub collections: Arc<dyn Collections>,
    /// What the registry records as live while it holds no index yet.
    pub first: NewIndex,
    pub embedder_for: EmbedderFor,
}

/// When a search answers nothing: never, beyond a fixed cosine distance
/// (`[search] threshold`, the distance alone), or by the rule calibrated for
/// the index's model (the default: its threshold and margin weight).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Threshold {
    Off,
    Fixed(f32),
    OfModel,
}

/// How searches rank and when they abstain (`[search]`).
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Hits when a request does not say.
    pub top_k: usize,
    pub mode: Mode,
    /// How hybrid search fuses; what it leaves open, the model decides.
    pub fusion: FusionSetting,
    pub threshold: Threshold,
    /// Query embeddings kept (0: none); a model that abstains by windows
    /// also keeps the window vectors of a quarter as many chunks.
    pub cache_entries: usize,
    /// Most hits a request may ask for.
    pub max_top_k: usize,
}

/// One search.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchRequest {
    pub query: String,
    pub top_k: Option<usize>,
    #[serde(default)]
    pub filter: SearchFilter,
}

/// Query embeddings by (model, question).
type QueryCache = Mutex<LruCache<(String, String), Arc<[f32]>>>;

/// The live index as opened.
struct Live {
    index: IndexRecord,
    store: Arc<dyn VectorStore>,
    embedder: Arc<dyn Embedder>,
    /// The index's own BM25 analysis (its pipeline version's language).
    bm25: Arc<Bm25>,
    checked: Instant,
}

pub struct Searcher {
    ports: Ports,
    options: Options,
    live: RwLock<Option<Arc<Live>>>,
    cache: Option<QueryCache>,
    /// Window vectors of chunks, for a model that abstains by windows.
    windows: Option<WindowCache>,
}

impl Searcher {
    pub fn new(ports: Ports, options: Options) -> Self {
        let cache = NonZeroUsize::new(options.cache_entries).map(|n| Mutex::new(LruCache::new(n)));
        // A quarter as many chunks as questions: a chunk keeps ~6 vectors.
        let windows = WindowCache::new(options.cache_entries / 4);
        Searcher { ports, options, live: RwLock::new(None), cache, windows }
    }

    /// Runs one search on the live index.
    pub async fn search(&self, req: &SearchRequest) -> Result<SearchResponse, SearchError> {
        check(req, self.options.max_top_k)?;
        let live = self.live().await?;
        let mut vector = self.query_vector(&live, &req.query).await?;
        let abstention = match self.options.threshold {
            Threshold::Off => None,
            Threshold::Fixed(t) => Some(Abstention::distance(t)),
            Threshold::OfModel => live
                .embedder
                .threshold()
                .map(|threshold| Abstention { threshold, margin_weight: live.embedder.margin_weight() }),
        };
        let opts = SearchOptions {
            top_k: req.top_k.unwrap_or(self.options.top_k),
            mode: self.options.mode,
            fusion: self.options.fusion.resolve(live.embedder.dense_weight()),
            abstention,
        };
        let store = live.store.as_ref();
        // A model that abstains by windows decides after its windows are
        // measured (a fixed threshold is the chunk distance alone).
        let by_windows = self.options.threshold == Threshold::OfModel && live.embedder.abstain_window_words().is_some();
        let first = SearchOptions { abstention: if by_windows { None } else { opts.abstention }, ..opts };
        let mut answer = retrieval::search_in(store, &live.bm25, &vector, &req.query, &first, &req.filter).await?;
        let read_as = answer.with_accents.take();
        if let Some(again) = &read_as {
            vector = self.query_vector(&live, again).await?;
            answer = retrieval::search_in(store, &live.bm25, &vector, again, &first, &req.filter).await?;
        }
        if by_windows {
            // A chunk well within the threshold answers whatever its windows
            // say (`Abstention::clearly_answers`); `ragpipe eval` measures
            // every question's windows, to calibrate.
            let clear = opts.abstention.zip(answer.nearest_distance).is_some_and(|(rule, d)| rule.clearly_answers(d));
            if !clear {
                crate::windows::measure(&live.embedder, &mut answer, &vector, self.windows.as_ref()).await?;
            }
            answer.decide(opts.abstention);
        }
        Ok(SearchResponse { read_as, ..SearchResponse::new(&live.index, &req.query, &opts, answer) })
    }

    /// Opens the live index if it is not open yet (what readiness checks).
    pub async fn ready(&self) -> Result<(), SearchError> {
        self.live().await.map(|_| ())
    }

    /// The live index, re-read from the registry when the last read is
    /// older than [`RECHECK`]; a swapped-in index is opened (with its own
    /// model), the old one is closed when the searches using it finish.
    async fn live(&self) -> Result<Arc<Live>, SearchError> {
        if let Some(live) = self.live.read().await.as_ref().filter(|l| l.checked.elapsed() < RECHECK) {
            return Ok(live.clone());
        }
        let mut slot = self.live.write().await;
        if let Some(live) = slot.as_ref().filter(|l| l.checked.elapsed() < RECHECK) {
            return Ok(live.clone());
        }
        let index = live_index(self.ports.state.as_ref(), &self.ports.first).await?;
        let live = match slot.as_ref().filter(|l| l.index.name == index.name && l.index.model == index.model) {
            Some(l) => Live {
                index,
                store: l.store.clone(),
                embedder: l.embedder.clone(),
                bm25: l.bm25.clone(),
                checked: Instant::now(),
            },
            None => {
                // Close the old collection first: an embedded one admits one owner.
                *slot = None;
                self.open().await?
            }
        };
        let live = Arc::new(live);
        *slot = Some(live.clone());
        Ok(live)
    }

    /// Opens the live index. A reindex may swap and drop a collection
    /// between the registry read and the open: then the registry, read
    /// again, names another one, and that one is opened instead (never is
    /// a dropped collection created again).
    async fn open(&self) -> Result<Live, SearchError> {
        let state = self.ports.state.as_ref();
        for _ in 0..5 {
            let index = live_index(state, &self.ports.first).await?;
            let spec = index.spec();
            let opened = self.ports.collections.open(&index.name, &spec).await;
            if live_index(state, &self.ports.first).await?.name != index.name {
                continue;
            }
            let store = match opened? {
                Some(store) => store,
                // Nothing was ever written to it: an empty index.
                None => self.ports.collections.create(&index.name, &spec).await?,
            };
            let embedder = (self.ports.embedder_for)(index.clone()).await.map_err(SearchError::Model)?;
            let bm25 = Bm25::for_pipeline(&index.pipeline_version)
                .map_err(|e| SearchError::Unavailable(format!("index {}: {e}", index.name)))?;
            tracing::info!(index = %index.name, model = %index.model, "searching the live index");
            return Ok(Live { index, store, embedder, bm25: Arc::new(bm25), checked: Instant::now() });
        }
        Err(SearchError::Unavailable("the live index kept changing while it was being opened".into()))
    }

    /// The query's embedding by the index's model, from the cache when the
    /// same question was asked of the same model.
    async fn query_vector(&self, live: &Live, query: &str) -> Result<Arc<[f32]>, SearchError> {
        let key = (live.index.model.clone(), query.to_string());
        if let Some(cache) = &self.cache
            && let Some(v) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(&key)
        {
            return Ok(v.clone());
        }
        let (embedder, text) = (live.embedder.clone(), query.to_string());
        let embedded = tokio::task::spawn_blocking(move || embedder.embed_queries(&[text.as_str()]))
            .await
            .map_err(|e| SearchError::Embed(format!("embedding task failed: {e}")))?
            .map_err(|e| SearchError::Embed(e.to_string()))?;
        let vector: Arc<[f32]> = embedded.vectors.into_iter().next().unwrap_or_default().into();
        if let Some(cache) = &self.cache {
            cache.lock().unwrap_or_else(|p| p.into_inner()).put(key, vector.clone());
        }
        Ok(vector)
    }
}

/// A request within bounds, or the parameter that is not.
fn check(req: &SearchRequest, max_top_k: usize) -> Result<(), SearchError> {
    let invalid = |parameter: &str, problem: String| SearchError::Invalid { parameter: parameter.into(), problem };
    if req.query.trim().is_empty() {
        return Err(invalid("query", "is empty".into()));
    }
    if req.query.len() > MAX_QUERY_BYTES {
        return Err(invalid("query", format!("longer than {MAX_QUERY_BYTES} bytes")));
    }
    if req.top_k.is_some_and(|k| k == 0 || k > max_top_k) {
        return Err(invalid("top_k", format!("must be from 1 to {max_top_k}")));
    }
    for (name, values) in [("filter.kinds", &req.filter.kinds), ("filter.documents", &req.filter.documents)] {
        if values.len() > MAX_FILTER_VALUES {
            return Err(invalid(name, format!("lists more than {MAX_FILTER_VALUES} values")));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parameter(req: serde_json::Value) -> Option<String> {
        let req: SearchRequest = serde_json::from_value(req).unwrap();
        match check(&req, MAX_TOP_K) {
            Err(SearchError::Invalid { parameter, .. }) => Some(parameter),
            _ => None,
        }
    }

    #[test]
    fn requests_out_of_bounds_name_their_parameter() {
        assert_eq!(parameter(serde_json::json!({"query": "tides"})), None);
        assert_eq!(parameter(serde_json::json!({"query": "tides", "top_k": 100})), None);
        assert_eq!(parameter(serde_json::json!({"query": "  "})).as_deref(), Some("query"));
        assert_eq!(parameter(serde_json::json!({"query": "é".repeat(3000)})).as_deref(), Some("query"), "bytes");
        assert_eq!(parameter(serde_json::json!({"query": "q", "top_k": 101})).as_deref(), Some("top_k"));
        let many: Vec<String> = (0..=MAX_FILTER_VALUES).map(|i| format!("s3://b/{i}")).collect();
        let req = serde_json::json!({"query": "q", "filter": {"documents": many}});
        assert_eq!(parameter(req).as_deref(), Some("filter.documents"));
    }
}
