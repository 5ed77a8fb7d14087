//! A sentence encoder on ONNX Runtime: prefix and tokenise, run the encoder
//! on batches padded to their longest member, pool (mean over the attention
//! mask, or the first token) and L2-normalise, as the model's spec says and
//! exactly as sentence-transformers does for all-MiniLM-L6-v2.

use crate::{EmbedError, Embedder, Embeddings, ModelFiles, ModelSeal, ModelSpec, ModelTokenizer, Pooling};
use ndarray::Array2;
use ort::environment::Environment;
use ort::session::builder::GraphOptimizationLevel;
use ort::session::{Session, SessionInputValue};
use ort::value::TensorRef;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

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

pub struct OnnxEmbedder {
    session: Mutex<Session>,
    tokenizer: Arc<ModelTokenizer>,
    spec: ModelSpec,
    seal: ModelSeal,
    /// Whether the graph takes `token_type_ids` (BERT exports do).
    token_types: bool,
    batch_size: usize,
}

impl OnnxEmbedder {
    /// Loads the model with `threads` intra-op threads (0 = all cores),
    /// hashes its weights for the seal, and embeds one probe text to check
    /// that the graph's output width is the one its spec declares.
    pub fn load(files: &ModelFiles, threads: usize, batch_size: usize) -> Result<Self, EmbedError> {
        let env = environment(files)?;
        let tokenizer = Arc::new(ModelTokenizer::load(files)?);
        let threads = if threads == 0 { std::thread::available_parallelism().map_or(1, |n| n.get()) } else { threads };
        let session = Session::builder(&env)?
            .with_optimization_level(GraphOptimizationLevel::Level3)
            .map_err(|e| EmbedError::Inference(e.to_string()))?
            .with_intra_threads(threads)
            .map_err(|e| EmbedError::Inference(e.to_string()))?
            .commit_from_file(&files.onnx)?;
        let token_types = session.inputs().iter().any(|i| i.name() == "token_type_ids");
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
            session: Mutex::new(session),
            tokenizer,
            spec,
            seal,
            token_types,
            batch_size: batch_size.max(1),
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

    fn run_batch(&self, batch: &[&crate::Encoded]) -> Result<Vec<Vec<f32>>, EmbedError> {
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
        let mut session = self.session.lock().unwrap_or_else(|p| p.into_inner());
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
        let mut vectors = vec![Vec::new(); encoded.len()];
        for group in order.chunks(self.batch_size) {
            let batch: Vec<&crate::Encoded> = group.iter().map(|&i| &encoded[i]).collect();
            for (&i, v) in group.iter().zip(self.run_batch(&batch)?) {
                vectors[i] = v;
            }
        }
        let tokens = encoded.iter().map(|e| e.full_len).collect();
        Ok(Embeddings { vectors, tokens, truncated })
    }
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
}
