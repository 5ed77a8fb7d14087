//! Where the model and the ONNX Runtime library live on disk.

use crate::EmbedError;
use std::path::{Path, PathBuf};

/// Which weights to run: the exact fp32 export or its dynamic int8 quantisation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ModelVariant {
    #[default]
    Fp32,
    Int8,
}

impl ModelVariant {
    pub fn as_str(self) -> &'static str {
        match self {
            ModelVariant::Fp32 => "fp32",
            ModelVariant::Int8 => "int8",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "fp32" => Some(ModelVariant::Fp32),
            "int8" => Some(ModelVariant::Int8),
            _ => None,
        }
    }
}

/// The files an embedder needs. `scripts/provision-model.sh` builds them under
/// `~/.cache/ragpipe`; a user with their own export points at theirs instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelFiles {
    pub onnx: PathBuf,
    pub tokenizer: PathBuf,
    pub runtime: PathBuf,
    pub variant: ModelVariant,
}

impl ModelFiles {
    /// The default cache root: `$RAGPIPE_CACHE`, else `~/.cache/ragpipe`.
    pub fn cache_root() -> PathBuf {
        if let Some(dir) = std::env::var_os("RAGPIPE_CACHE") {
            return PathBuf::from(dir);
        }
        let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."));
        home.join(".cache").join("ragpipe")
    }

    /// Resolves the files: `model_dir` (else `$RAGPIPE_MODEL_DIR`, else the
    /// cache) holds `model.onnx` / `model-int8.onnx` and `tokenizer.json`;
    /// the runtime is `runtime` (else `$ORT_DYLIB_PATH`, else the cache).
    pub fn locate(model_dir: Option<&Path>, runtime: Option<&Path>, variant: ModelVariant) -> Result<Self, EmbedError> {
        let root = Self::cache_root();
        let dir = model_dir
            .map(Path::to_path_buf)
            .or_else(|| std::env::var_os("RAGPIPE_MODEL_DIR").map(PathBuf::from))
            .unwrap_or_else(|| root.join("models").join(crate::MODEL_NAME));
        let runtime = runtime
            .map(Path::to_path_buf)
            .or_else(|| std::env::var_os("ORT_DYLIB_PATH").map(PathBuf::from))
            .unwrap_or_else(|| root.join("onnxruntime").join("libonnxruntime.so.1.31.1"));
        let onnx = dir.join(match variant {
            ModelVariant::Fp32 => "model.onnx",
            ModelVariant::Int8 => "model-int8.onnx",
        });
        let files = ModelFiles { onnx, tokenizer: dir.join("tokenizer.json"), runtime, variant };
        for path in [&files.onnx, &files.tokenizer, &files.runtime] {
            if !path.is_file() {
                return Err(EmbedError::MissingFiles(path.display().to_string()));
            }
        }
        Ok(files)
    }
}
