//! One typed configuration for every ragpipe process, read from an optional
//! TOML file and overridden by `RAGPIPE_*` environment variables, validated
//! once at start. Unknown fields are errors: a misspelt limit must not
//! silently fall back to its default.

use serde::Deserialize;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Where the embedded mode keeps its state and vectors.
    pub data_dir: PathBuf,
    pub model: ModelConfig,
    pub chunking: ChunkingConfig,
    pub search: SearchConfig,
    pub limits: LimitsConfig,
    pub workers: WorkersConfig,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ModelConfig {
    /// Folder with `model.onnx`, `model-int8.onnx` and `tokenizer.json`
    /// (default: the provisioning cache). Env: `RAGPIPE_MODEL_DIR`.
    pub dir: Option<PathBuf>,
    /// The ONNX Runtime shared library. Env: `ORT_DYLIB_PATH`.
    pub runtime: Option<PathBuf>,
    /// `fp32` (exact) or `int8` (dynamic quantisation). Env: `RAGPIPE_MODEL_VARIANT`.
    pub variant: String,
    /// Intra-op threads per embedder; 0 = all cores. Env: `RAGPIPE_THREADS`.
    pub threads: usize,
    /// Texts per model call.
    pub batch_size: usize,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ChunkingConfig {
    /// Word-pieces per chunk `text`, header and special tokens included; at
    /// most the model window (256).
    pub budget: usize,
    /// Prefix each chunk's `text` with `Title > Section`.
    pub contextual_header: bool,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SearchConfig {
    pub top_k: usize,
    /// `hybrid` (dense + BM25, RRF) or `dense`.
    pub mode: String,
    pub rrf_k: f32,
    /// Cosine distance above which the best hit is not an answer.
    /// Env: `RAGPIPE_SEARCH_THRESHOLD`.
    pub threshold: f32,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LimitsConfig {
    /// Largest file fetched, in bytes. Env: `RAGPIPE_MAX_FILE_BYTES`.
    pub max_file_bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WorkersConfig {
    pub extractors: usize,
    pub embedders: usize,
    /// Chunks per embed job.
    pub embed_batch: usize,
    /// Messages a queue holds before publishers wait.
    pub queue_capacity: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            data_dir: PathBuf::from(".ragpipe"),
            model: ModelConfig::default(),
            chunking: ChunkingConfig::default(),
            search: SearchConfig::default(),
            limits: LimitsConfig::default(),
            workers: WorkersConfig::default(),
        }
    }
}

impl Default for ModelConfig {
    fn default() -> Self {
        ModelConfig { dir: None, runtime: None, variant: "fp32".into(), threads: 0, batch_size: 32 }
    }
}

impl Default for ChunkingConfig {
    fn default() -> Self {
        ChunkingConfig { budget: 256, contextual_header: true }
    }
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig { top_k: 5, mode: "hybrid".into(), rrf_k: 60.0, threshold: 0.60 }
    }
}

impl Default for LimitsConfig {
    fn default() -> Self {
        LimitsConfig { max_file_bytes: 64 * 1024 * 1024 }
    }
}

impl Default for WorkersConfig {
    fn default() -> Self {
        WorkersConfig { extractors: 2, embedders: 1, embed_batch: 32, queue_capacity: 256 }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("reading config {path}: {reason}")]
    Read { path: String, reason: String },
    #[error("invalid config {path}: {reason}")]
    Parse { path: String, reason: String },
    #[error("invalid environment variable {name}={value}: {reason}")]
    Env { name: &'static str, value: String, reason: String },
    #[error("invalid config: {0}")]
    Invalid(String),
}

impl Config {
    /// Loads `path` if given, else `./ragpipe.toml` if present, else defaults;
    /// then applies environment overrides and validates.
    pub fn load(path: Option<&Path>) -> Result<Config, ConfigError> {
        let default_file = Path::new("ragpipe.toml");
        let file = path.or(default_file.exists().then_some(default_file));
        let mut config = match file {
            Some(p) => {
                let text = std::fs::read_to_string(p)
                    .map_err(|e| ConfigError::Read { path: p.display().to_string(), reason: e.to_string() })?;
                toml::from_str(&text)
                    .map_err(|e| ConfigError::Parse { path: p.display().to_string(), reason: e.to_string() })?
            }
            None => Config::default(),
        };
        config.apply_env(|name| std::env::var(name).ok())?;
        config.validate()?;
        Ok(config)
    }

    /// Applies `RAGPIPE_*` overrides read through `get`.
    pub fn apply_env(&mut self, get: impl Fn(&str) -> Option<String>) -> Result<(), ConfigError> {
        fn parse<T: std::str::FromStr>(name: &'static str, value: String) -> Result<T, ConfigError>
        where
            T::Err: std::fmt::Display,
        {
            value.parse().map_err(|e: T::Err| ConfigError::Env { name, value, reason: e.to_string() })
        }
        if let Some(v) = get("RAGPIPE_DATA_DIR") {
            self.data_dir = PathBuf::from(v);
        }
        if let Some(v) = get("RAGPIPE_MODEL_VARIANT") {
            self.model.variant = v;
        }
        if let Some(v) = get("RAGPIPE_THREADS") {
            self.model.threads = parse("RAGPIPE_THREADS", v)?;
        }
        if let Some(v) = get("RAGPIPE_SEARCH_THRESHOLD") {
            self.search.threshold = parse("RAGPIPE_SEARCH_THRESHOLD", v)?;
        }
        if let Some(v) = get("RAGPIPE_MAX_FILE_BYTES") {
            self.limits.max_file_bytes = parse("RAGPIPE_MAX_FILE_BYTES", v)?;
        }
        Ok(())
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = |m: String| Err(ConfigError::Invalid(m));
        if !matches!(self.model.variant.as_str(), "fp32" | "int8") {
            return bad(format!("model.variant must be fp32 or int8, not {:?}", self.model.variant));
        }
        if !(32..=256).contains(&self.chunking.budget) {
            return bad(format!("chunking.budget must be within 32..=256 word-pieces, not {}", self.chunking.budget));
        }
        if !matches!(self.search.mode.as_str(), "hybrid" | "dense") {
            return bad(format!("search.mode must be hybrid or dense, not {:?}", self.search.mode));
        }
        if !(0.0..=2.0).contains(&self.search.threshold) {
            return bad(format!("search.threshold is a cosine distance within 0..=2, not {}", self.search.threshold));
        }
        if self.search.top_k == 0 || self.model.batch_size == 0 || self.workers.embed_batch == 0 {
            return bad("search.top_k, model.batch_size and workers.embed_batch must be positive".into());
        }
        if self.workers.extractors == 0 || self.workers.embedders == 0 || self.workers.queue_capacity == 0 {
            return bad("workers.extractors, workers.embedders and workers.queue_capacity must be positive".into());
        }
        if self.limits.max_file_bytes == 0 {
            return bad("limits.max_file_bytes must be positive".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_fields_and_bad_values_are_refused() {
        assert!(toml::from_str::<Config>("[chunking]\nbudjet = 100\n").is_err());
        let mut c: Config = toml::from_str("data_dir = \"/tmp/x\"\n[chunking]\nbudget = 300\n").unwrap();
        assert_eq!(c.data_dir, PathBuf::from("/tmp/x"));
        assert!(c.validate().is_err());
        c.chunking.budget = 200;
        c.validate().unwrap();
        c.apply_env(|n| (n == "RAGPIPE_THREADS").then(|| "two".to_string())).unwrap_err();
        c.apply_env(|n| (n == "RAGPIPE_SEARCH_THRESHOLD").then(|| "0.5".to_string())).unwrap();
        assert_eq!(c.search.threshold, 0.5);
    }
}
