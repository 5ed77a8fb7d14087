//! all-MiniLM-L6-v2 on ONNX Runtime: tokenise, run the encoder on batches
//! padded to their longest member, mean-pool over the attention mask and
//! L2-normalise, exactly as sentence-transformers does.

use crate::{EmbedError, Embedder, Embeddings, ModelFiles, WordPieceTokenizer};
use ndarray::Array2;
use ort::environment::Environment;
use ort::session::Session;
use ort::session::builder::GraphOptimizationLevel;
use ort::value::TensorRef;
use std::sync::{Mutex, OnceLock};

/// ONNX Runtime allows one environment per process; the first embedder made
/// loads the library, later ones share it.
static ENVIRONMENT: OnceLock<Result<Environment, String>> = OnceLock::new();

fn environment(files: &ModelFiles) -> Result<Environment, EmbedError> {
    ENVIRONMENT
        .get_or_init(|| {
            let builder = ort::init_from(&files.runtime).map_err(|e| e.to_string())?;
            builder.with_name("ragpipe").build().map_err(|e| e.to_string())
        })
        .clone()
        .map_err(|reason| EmbedError::Runtime { path: files.runtime.display().to_string(), reason })
}

pub struct OnnxEmbedder {
    session: Mutex<Session>,
    tokenizer: WordPieceTokenizer,
    name: String,
    dims: usize,
    batch_size: usize,
}

impl OnnxEmbedder {
    /// Loads the model with `threads` intra-op threads (0 = all cores).
    /// The int8 variant records its own model name: its vectors differ from
    /// fp32 ones and must not share an index with them.
    pub fn load(files: &ModelFiles, threads: usize, batch_size: usize) -> Result<Self, EmbedError> {
        let env = environment(files)?;
        let tokenizer = WordPieceTokenizer::from_file(&files.tokenizer, 256)?;
        let threads = if threads == 0 { std::thread::available_parallelism().map_or(1, |n| n.get()) } else { threads };
        let session = Session::builder(&env)?
            .with_optimization_level(GraphOptimizationLevel::Level3)
            .map_err(|e| EmbedError::Inference(e.to_string()))?
            .with_intra_threads(threads)
            .map_err(|e| EmbedError::Inference(e.to_string()))?
            .commit_from_file(&files.onnx)?;
        let name = files.variant.recorded_name();
        Ok(OnnxEmbedder {
            session: Mutex::new(session),
            tokenizer,
            name,
            dims: crate::MODEL_DIMS,
            batch_size: batch_size.max(1),
        })
    }

    /// The tokenizer the model uses, for chunkers to measure with.
    pub fn tokenizer(&self) -> &WordPieceTokenizer {
        &self.tokenizer
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
        let outputs = session.run(ort::inputs![
            "input_ids" => TensorRef::from_array_view(&ids)?,
            "attention_mask" => TensorRef::from_array_view(&mask)?,
            "token_type_ids" => TensorRef::from_array_view(&types)?,
        ])?;
        let hidden = outputs["last_hidden_state"].try_extract_array::<f32>()?;
        let mut vectors = Vec::with_capacity(rows);
        for (r, enc) in batch.iter().enumerate() {
            let len = enc.ids.len();
            let mut v = vec![0f32; self.dims];
            for c in 0..len {
                for (d, slot) in v.iter_mut().enumerate() {
                    *slot += hidden[[r, c, d]];
                }
            }
            let norm = v.iter().map(|x| (x / len as f32).powi(2)).sum::<f32>().sqrt().max(1e-12);
            for slot in &mut v {
                *slot = *slot / len as f32 / norm;
            }
            vectors.push(v);
        }
        Ok(vectors)
    }
}

impl Embedder for OnnxEmbedder {
    fn model(&self) -> &str {
        &self.name
    }

    fn dims(&self) -> usize {
        self.dims
    }

    fn window(&self) -> usize {
        self.tokenizer.window()
    }

    fn embed(&self, texts: &[&str]) -> Result<Embeddings, EmbedError> {
        let encoded = texts.iter().map(|t| self.tokenizer.encode(t)).collect::<Result<Vec<_>, _>>()?;
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
