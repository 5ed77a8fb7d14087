//! The [`Embedder`] port and its ONNX Runtime implementation for BERT-style
//! sentence encoders described by a [`ModelSpec`] (all-MiniLM-L6-v2 by
//! default, multilingual-e5-small, all-mpnet-base-v2, or a folder of one's
//! own). Embedding is CPU-bound and synchronous by design: callers run it on
//! blocking threads, one session per worker. The tokenizer here is the one
//! the chunkers measure with, so "fits the window" means the same thing on
//! both sides.

mod hash;
mod model;
mod onnx;
mod pool;
mod spec;
mod tokenizer;

pub use model::{CUSTOM, MPNET, ModelFiles, ModelVariant, provisioner, reads_only_english};
pub use onnx::{OnnxEmbedder, RunOptions, runtime_environment};
pub use spec::{DEFAULT_MODEL, ModelSeal, ModelSpec, Pooling, SPEC_FILE};
pub use tokenizer::{Encoded, ModelTokenizer};

const INT8_SUFFIX: &str = "-int8";

impl ModelVariant {
    /// The name state and collections record for model `name` in this
    /// variant: the int8 variant's vectors differ slightly, so they are
    /// never mixed.
    pub fn recorded_name(self, name: &str) -> String {
        match self {
            ModelVariant::Fp32 => name.to_string(),
            ModelVariant::Int8 => format!("{name}{INT8_SUFFIX}"),
        }
    }

    /// The model name and variant a [`ModelVariant::recorded_name`] stands for.
    pub fn split_recorded(recorded: &str) -> (&str, Self) {
        match recorded.strip_suffix(INT8_SUFFIX) {
            Some(name) => (name, ModelVariant::Int8),
            None => (recorded, ModelVariant::Fp32),
        }
    }
}

/// Embeddings of a batch of texts, in input order.
#[derive(Debug, Clone, PartialEq)]
pub struct Embeddings {
    /// Unit-length vectors, one per input text.
    pub vectors: Vec<Vec<f32>>,
    /// Word-pieces per text as the model saw it, special tokens included.
    pub tokens: Vec<usize>,
    /// How many texts were longer than the window and had to be cut. Always a
    /// chunker bug; surfaced so it can be counted and reported, never hidden.
    pub truncated: usize,
}

/// Turns texts into dense vectors. Implementations must be deterministic for a
/// given model and return unit vectors so cosine similarity is a dot product.
pub trait Embedder: Send + Sync {
    /// Name of the model, part of the index's identity.
    fn model(&self) -> &str;
    /// Vector dimensions.
    fn dims(&self) -> usize;
    /// Maximum word-pieces per input, special tokens included.
    fn window(&self) -> usize;
    /// Embeds a batch of passages (chunks).
    fn embed(&self, texts: &[&str]) -> Result<Embeddings, EmbedError>;
    /// Embeds a batch of queries; differs from [`Embedder::embed`] for
    /// models trained with a query prefix (e5).
    fn embed_queries(&self, texts: &[&str]) -> Result<Embeddings, EmbedError> {
        self.embed(texts)
    }
    /// The cosine distance above which a query's nearest chunk is no
    /// answer, as calibrated for this model; `None`: never abstain.
    fn threshold(&self) -> Option<f32> {
        None
    }
    /// How much the margin of the nearest document over the next one
    /// counts towards answering (the distance compared with the threshold
    /// is the nearest distance less this times the margin); 0: the
    /// distance alone.
    fn margin_weight(&self) -> f32 {
        0.0
    }
    /// The weight of the dense similarity when hybrid search fuses by
    /// score, as calibrated for this model; `None`: fuse by rank.
    fn dense_weight(&self) -> Option<f32> {
        None
    }
    /// When set, the model abstains by the nearest window of this many
    /// words among the nearest chunks, not by the nearest chunk.
    fn abstain_window_words(&self) -> Option<usize> {
        None
    }
}

#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// What is missing, and the script that provisions that model.
    #[error("model files missing: {0} (run {1}, or point [model] dir / RAGPIPE_MODEL_DIR at the model's folder)")]
    MissingFiles(String, &'static str),
    #[error("model spec: {0}")]
    Spec(String),
    #[error("reading the model's weights {path}: {reason}")]
    Weights { path: String, reason: String },
    #[error("loading tokenizer {path}: {reason}")]
    Tokenizer { path: String, reason: String },
    #[error("loading onnx runtime from {path}: {reason}")]
    Runtime { path: String, reason: String },
    #[error("onnx runtime: {0}")]
    Inference(String),
}

impl From<ort::Error> for EmbedError {
    fn from(e: ort::Error) -> Self {
        EmbedError::Inference(e.to_string())
    }
}
