//! A sentence encoder on ONNX Runtime: prefix and tokenise, run the encoder
//! on batches padded to their longest member, pool (mean over the attention
//! mask, or the first token) and L2-normalise, as the model's spec says and
//! exactly as sentence-transformers does for all-MiniLM-L6-v2.

use crate::pool::{BusyClock, SessionPool};
use crate::{EmbedError, Embedder, Embeddings, ModelFiles, ModelSeal, ModelSpec, ModelTokenizer, Pooling};
use ndarray::Array2;
use ort::environment::Environment;
use ort::session::builder::GraphOptimizationLevel;
use ort::session::{Session, SessionInputValue};
use ort::value::TensorRef;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// ONNX Runtime allows one environment per process; the first model made
/// (embedder or speech recogniser) loads the library, later ones share it.
static ENVIRONMENT: OnceLock<Result<Environment, String>> = OnceLock::new();

/// The process's ONNX Runtime environment, loading the shared library at
/// `runtime` the first time (later calls share the first library loaded).
pub fn runtime_environment(runtime: &Path) -> Result<Environment, EmbedError> {
    ENVIRONMENT
        .get_or_init(|| {
            let builder = ort::init_from(runtime).map_err(|e| e.to_string())?;
            builder.with_name("ragpipe").build().map_err(|e| e.to_string())
        })
        .clone()
        .map_err(|reason| EmbedError::Runtime { path: runtime.display().to_string(), reason })
}

fn environment(files: &ModelFiles) -> Result<Environment, EmbedError> {
    runtime_environment(&files.runtime)
}

/// How an embedder runs its model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunOptions {
    /// Intra-op threads over all sessions; 0 = all cores.
    pub threads: usize,
    /// Sessions that run batches side by side, the threads split among
    /// them; 0 = one session per thread.
    pub sessions: usize,
    /// Texts per model call.
    pub batch_size: usize,
    /// Whether idle intra-op threads spin waiting for work (ONNX Runtime's
    /// default) rather than sleep.
    pub spinning: bool,
}

impl RunOptions {
    /// One session using `threads` threads (0 = all cores).
    pub fn single(threads: usize, batch_size: usize) -> Self {
        RunOptions { threads, sessions: 1, batch_size, spinning: true }
    }

    /// (sessions, intra-op threads of each).
    fn layout(&self) -> (usize, usize) {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let threads = if self.threads == 0 { cores } else { self.threads };
        let sessions = if self.sessions == 0 { threads } else { self.sessions.min(threads) };
        (sessions.max(1), (threads / sessions.max(1)).max(1))
    }
}

pub struct OnnxEmbedder {
    sessions: SessionPool,
    busy: BusyClock,
    tokenizer: Arc<ModelTokenizer>,
    spec: ModelSpec,
    seal: ModelSeal,
    /// Whether the graph takes `token_type_ids` (BERT exports do).
    token_types: bool,
    batch_size: usize,
}

impl OnnxEmbedder {
    /// Loads the model in one session with `threads` intra-op threads (0 =
    /// all cores).
    pub fn load(files: &ModelFiles, threads: usize, batch_size: usize) -> Result<Self, EmbedError> {
        Self::load_with(files, RunOptions::single(threads, batch_size))
    }

    /// Loads the model's sessions, hashes its weights for the seal, and
    /// embeds one probe text to check that the graph's output width is the
    /// one its spec declares.
    pub fn load_with(files: &ModelFiles, options: RunOptions) -> Result<Self, EmbedError> {
        let env = environment(files)?;
        let tokenizer = Arc::new(ModelTokenizer::load(files)?);
        let (count, threads) = options.layout();
        let sessions = (0..count)
            .map(|_| {
                Session::builder(&env)?
                    .with_optimization_level(GraphOptimizationLevel::Level3)
                    .map_err(inference)?
                    .with_intra_threads(threads)
                    .map_err(inference)?
                    .with_intra_op_spinning(options.spinning)
                    .map_err(inference)?
                    .commit_from_file(&files.onnx)
                    .map_err(EmbedError::from)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let token_types = sessions[0].inputs().iter().any(|i| i.name() == "token_type_ids");
        let spec = files.spec.clone();
        let seal = ModelSeal {
            model: files.recorded_name(),
            dims: spec.dims,
            pooling: spec.pooling,
            normalize: spec.normalize,
            query_prefix: spec.query_prefix.clone(),
            passage_prefix: spec.passage_prefix.clone(),
            sha256: crate::hash::sha256_of(&files.onnx)?,
        };
        let embedder = OnnxEmbedder {
            sessions: SessionPool::new(sessions),
            busy: BusyClock::default(),
            tokenizer,
            spec,
            seal,
            token_types,
            batch_size: options.batch_size.max(1),
        };
        embedder.embed(&["ragpipe"])?;
        Ok(embedder)
    }

    /// The tokenizer the model uses, for chunkers to measure with.
    pub fn tokenizer(&self) -> &Arc<ModelTokenizer> {
        &self.tokenizer
    }

    /// What an index embedded by this model records of it.
    pub fn seal(&self) -> &ModelSeal {
        &self.seal
    }

    /// The model's spec (its calibrated threshold among the rest).
    pub fn spec(&self) -> &ModelSpec {
        &self.spec
    }

    /// Sessions that run batches side by side.
    pub fn sessions(&self) -> usize {
        self.sessions.size()
    }

    /// Wall time so far during which at least one embedding call ran.
    pub fn busy_time(&self) -> Duration {
        self.busy.total()
    }

    fn run_batch(&self, session: &mut Session, batch: &[&crate::Encoded]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let rows = batch.len();
        let cols = batch.iter().map(|e| e.ids.len()).max().unwrap_or(0);
        let mut ids = Array2::<i64>::zeros((rows, cols));
        let mut mask = Array2::<i64>::zeros((rows, cols));
        let mut types = Array2::<i64>::zeros((rows, cols));
        for (r, enc) in batch.iter().enumerate() {
            for (c, (&id, &ty)) in enc.ids.iter().zip(&enc.type_ids).enumerate() {
                ids[[r, c]] = id;
                mask[[r, c]] = 1;
                types[[r, c]] = ty;
            }
        }
        let mut inputs = ort::inputs![
            "input_ids" => TensorRef::from_array_view(&ids)?,
            "attention_mask" => TensorRef::from_array_view(&mask)?,
        ];
        if self.token_types {
            inputs.push(("token_type_ids".into(), SessionInputValue::from(TensorRef::from_array_view(&types)?)));
        }
        let outputs = session.run(inputs)?;
        let hidden = outputs["last_hidden_state"].try_extract_array::<f32>()?;
        let width = hidden.shape().get(2).copied().unwrap_or(0);
        if width != self.spec.dims {
            return Err(EmbedError::Spec(format!(
                "the graph outputs {width}-dimensional vectors but the spec of {} says {}: \
                 describe this model in its own ragpipe-model.json ([model] name = \"custom\")",
                self.spec.name, self.spec.dims
            )));
        }
        Ok(batch.iter().enumerate().map(|(r, enc)| self.pool(&hidden, r, enc.ids.len())).collect())
    }

    /// Row `r`'s text vector from its `len` token vectors.
    fn pool(&self, hidden: &ndarray::ArrayViewD<'_, f32>, r: usize, len: usize) -> Vec<f32> {
        let mut v = vec![0f32; self.spec.dims];
        let tokens = match self.spec.pooling {
            Pooling::Mean => 0..len,
            Pooling::Cls => 0..1,
        };
        let n = tokens.len().max(1) as f32;
        for c in tokens {
            for (d, slot) in v.iter_mut().enumerate() {
                *slot += hidden[[r, c, d]];
            }
        }
        let norm = if self.spec.normalize { v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12) } else { n };
        for slot in &mut v {
            *slot /= norm;
        }
        v
    }

    /// Embeds `texts`, each behind `prefix`.
    fn embed_with(&self, prefix: &str, texts: &[&str]) -> Result<Embeddings, EmbedError> {
        let _busy = self.busy.enter();
        let encoded = texts
            .iter()
            .map(|t| {
                if prefix.is_empty() {
                    self.tokenizer.encode(t)
                } else {
                    self.tokenizer.encode(&format!("{prefix}{t}"))
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        let truncated = encoded.iter().filter(|e| e.full_len > self.window()).count();
        if truncated > 0 {
            tracing::warn!(truncated, window = self.window(), "texts longer than the model window were truncated");
        }
        // Sorting by length keeps padding (wasted compute) small within a batch.
        let mut order: Vec<usize> = (0..encoded.len()).collect();
        order.sort_by_key(|&i| encoded[i].ids.len());
        let groups: Vec<&[usize]> = order.chunks(self.batch_size).collect();
        let vectors = self.run_groups(&encoded, &groups)?;
        let tokens = encoded.iter().map(|e| e.full_len).collect();
        Ok(Embeddings { vectors, tokens, truncated })
    }

    /// The vectors of `encoded`, batched as `groups` says; the batches run
    /// side by side on as many sessions as there are free, longest first.
    fn run_groups(&self, encoded: &[crate::Encoded], groups: &[&[usize]]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let vectors = Mutex::new(vec![Vec::new(); encoded.len()]);
        let next = AtomicUsize::new(0);
        let work = || -> Result<(), EmbedError> {
            let mut session = self.sessions.take();
            loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                let Some(group) = groups.len().checked_sub(n + 1).map(|g| groups[g]) else {
                    return Ok(());
                };
                let batch: Vec<&crate::Encoded> = group.iter().map(|&i| &encoded[i]).collect();
                let out = self.run_batch(&mut session, &batch)?;
                let mut vectors = vectors.lock().unwrap_or_else(|p| p.into_inner());
                for (&i, v) in group.iter().zip(out) {
                    vectors[i] = v;
                }
            }
        };
        let helpers = self.sessions.size().min(groups.len()).saturating_sub(1);
        if helpers == 0 {
            work()?;
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> = (0..helpers).map(|_| s.spawn(work)).collect();
                let mine = work();
                let joined = handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(panicked())));
                joined.chain([mine]).collect::<Result<(), _>>()
            })?;
        }
        Ok(vectors.into_inner().unwrap_or_else(|p| p.into_inner()))
    }
}

fn inference(e: impl std::fmt::Display) -> EmbedError {
    EmbedError::Inference(e.to_string())
}

fn panicked() -> EmbedError {
    EmbedError::Inference("a model session's thread panicked".into())
}

impl Embedder for OnnxEmbedder {
    fn model(&self) -> &str {
        &self.seal.model
    }

    fn dims(&self) -> usize {
        self.spec.dims
    }

    fn window(&self) -> usize {
        self.tokenizer.window()
    }

    fn embed(&self, texts: &[&str]) -> Result<Embeddings, EmbedError> {
        self.embed_with(&self.spec.passage_prefix, texts)
    }

    fn embed_queries(&self, texts: &[&str]) -> Result<Embeddings, EmbedError> {
        self.embed_with(&self.spec.query_prefix, texts)
    }

    fn threshold(&self) -> Option<f32> {
        self.spec.threshold
    }

    fn margin_weight(&self) -> f32 {
        self.spec.margin_weight.unwrap_or(0.0)
    }

    fn dense_weight(&self) -> Option<f32> {
        self.spec.dense_weight
    }

    fn abstain_window_words(&self) -> Option<usize> {
        self.spec.abstain_window_words
    }
}
