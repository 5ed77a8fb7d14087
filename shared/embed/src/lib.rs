//! The [`Embedder`] port and its ONNX Runtime implementation of
//! all-MiniLM-L6-v2. Embedding is CPU-bound and synchronous by design: callers
//! run it on blocking threads, one session per worker. The tokenizer here is
//! the one the chunkers measure with, so "fits the window" means the same
//! thing on both sides.

mod model;
mod onnx;
mod tokenizer;

pub use model::{ModelFiles, ModelVariant};
pub use onnx::OnnxEmbedder;
pub use tokenizer::{Encoded, WordPieceTokenizer};

/// The embedding model's name as recorded in state and collection names.
pub const MODEL_NAME: &str = "all-MiniLM-L6-v2";

/// Dimensions of the model's sentence embeddings.
pub const MODEL_DIMS: usize = 384;

impl ModelVariant {
    /// The name state and collections record for this variant: the int8
    /// variant's vectors differ slightly, so they are never mixed.
    pub fn recorded_name(self) -> String {
        match self {
            ModelVariant::Fp32 => MODEL_NAME.to_string(),
            ModelVariant::Int8 => format!("{MODEL_NAME}-int8"),
        }
    }

    /// The variant whose [`ModelVariant::recorded_name`] is `name`.
    pub fn from_recorded(name: &str) -> Option<Self> {
        [ModelVariant::Fp32, ModelVariant::Int8].into_iter().find(|v| v.recorded_name() == name)
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
    /// Embeds a batch.
    fn embed(&self, texts: &[&str]) -> Result<Embeddings, EmbedError>;
}

#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error("model files missing: {0} (run scripts/provision-model.sh or set RAGPIPE_MODEL_DIR)")]
    MissingFiles(String),
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
