//! Where the model and the ONNX Runtime library live on disk.

use crate::{DEFAULT_MODEL, EmbedError, ModelSpec};
use std::path::{Path, PathBuf};

/// Which weights to run: the exact fp32 export or its dynamic int8
/// quantisation (the default: 1.3x the chunks/s, a quarter of the memory and
/// no significant retrieval loss in the paired test, docs/BENCHMARKS.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ModelVariant {
    Fp32,
    #[default]
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

/// `[model] name` for a folder of one's own: whatever model `[model] dir`
/// holds, as its `ragpipe-model.json` names it.
pub const CUSTOM: &str = "custom";

/// The larger English model, provisioned on demand (404 MB of weights).
pub const MPNET: &str = "all-mpnet-base-v2";

/// Whether the model recorded as `recorded` is a built-in one trained on
/// English only (all-MiniLM-L6-v2, all-mpnet-base-v2: their cards say so,
/// and on the Spanish set they rank at half e5's level, docs/EVALUATION.md
/// "Models and languages"); `false` for multilingual-e5-small and for a
/// model of one's own, whose languages ragpipe cannot know.
pub fn reads_only_english(recorded: &str) -> bool {
    let (name, _) = crate::ModelVariant::split_recorded(recorded);
    name == DEFAULT_MODEL || name == MPNET
}

/// The script that puts model `name` in the cache.
pub fn provisioner(name: &str) -> &'static str {
    match name {
        MPNET => "scripts/provision-mpnet.sh",
        _ => "scripts/provision-model.sh",
    }
}

/// The files an embedder needs and the spec read beside them.
/// `scripts/provision-model.sh` builds them under `~/.cache/ragpipe/models/NAME`;
/// a user with their own export points `[model] dir` at theirs.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelFiles {
    pub dir: PathBuf,
    pub spec: ModelSpec,
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

    /// The provisioned default model, as tests and benches use it.
    pub fn provisioned(variant: ModelVariant) -> Result<Self, EmbedError> {
        Self::locate(DEFAULT_MODEL, None, None, variant)
    }

    /// Finds model `name` (or, for [`CUSTOM`], whatever `model_dir` holds):
    /// in `model_dir` (else `$RAGPIPE_MODEL_DIR`) when its spec names that
    /// model, else in the cache's `models/NAME`. The folder holds
    /// `model.onnx` / `model-int8.onnx` and `tokenizer.json`; the runtime is
    /// `runtime` (else `$ORT_DYLIB_PATH`, else the cache).
    pub fn locate(
        name: &str,
        model_dir: Option<&Path>,
        runtime: Option<&Path>,
        variant: ModelVariant,
    ) -> Result<Self, EmbedError> {
        let root = Self::cache_root();
        let configured = model_dir
            .map(Path::to_path_buf)
            .or_else(|| std::env::var_os("RAGPIPE_MODEL_DIR").filter(|d| !d.is_empty()).map(PathBuf::from));
        let cached = (name != CUSTOM).then(|| root.join("models").join(name));
        let mut looked = Vec::new();
        let mut found = None;
        for dir in configured.into_iter().chain(cached) {
            if !dir.is_dir() {
                looked.push(format!("{} (no such folder)", dir.display()));
                continue;
            }
            let spec = ModelSpec::read(&dir).map_err(EmbedError::Spec)?;
            if name == CUSTOM || spec.name == name {
                found = Some((dir, spec));
                break;
            }
            looked.push(format!("{} (holds {})", dir.display(), spec.name));
        }
        if looked.is_empty() && found.is_none() {
            return Err(EmbedError::MissingFiles(
                "model.name = \"custom\" needs the model's folder in [model] dir".into(),
                provisioner(name),
            ));
        }
        let Some((dir, mut spec)) = found else {
            let looked = looked.join(", ");
            return Err(EmbedError::MissingFiles(format!("model {name}: looked in {looked}"), provisioner(name)));
        };
        if variant == ModelVariant::Int8 {
            // The threshold of the weights that will run.
            spec.threshold = spec.threshold_int8.or(spec.threshold);
        }
        let runtime = Self::runtime_path(runtime);
        let onnx = dir.join(match variant {
            ModelVariant::Fp32 => "model.onnx",
            ModelVariant::Int8 => "model-int8.onnx",
        });
        let tokenizer = dir.join("tokenizer.json");
        let files = ModelFiles { dir, spec, onnx, tokenizer, runtime, variant };
        for path in [&files.onnx, &files.tokenizer, &files.runtime] {
            if !path.is_file() {
                let mut missing = path.display().to_string();
                if path == &files.onnx && variant == ModelVariant::Int8 {
                    missing.push_str(
                        " (model.variant = \"int8\", the default, runs model-int8.onnx: add it beside \
                         model.onnx (onnxruntime's quantize_dynamic makes one) or set [model] variant = \"fp32\")",
                    );
                }
                return Err(EmbedError::MissingFiles(missing, provisioner(name)));
            }
        }
        Ok(files)
    }

    /// The ONNX Runtime library: `runtime`, else `$ORT_DYLIB_PATH`, else the
    /// one provisioned in the cache.
    pub fn runtime_path(runtime: Option<&Path>) -> PathBuf {
        runtime
            .map(Path::to_path_buf)
            .or_else(|| std::env::var_os("ORT_DYLIB_PATH").map(PathBuf::from))
            .unwrap_or_else(|| Self::cache_root().join("onnxruntime").join("libonnxruntime.so.1.31.1"))
    }

    /// The name state and collections record for these files: the int8
    /// variant's vectors differ slightly, so they are never mixed.
    pub fn recorded_name(&self) -> String {
        self.variant.recorded_name(&self.spec.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_model_names_the_script_that_provisions_it() {
        let missing = |name| EmbedError::MissingFiles(format!("model {name}"), provisioner(name)).to_string();
        assert!(missing(MPNET).contains("run scripts/provision-mpnet.sh"), "{}", missing(MPNET));
        assert!(missing(crate::DEFAULT_MODEL).contains("run scripts/provision-model.sh"));
        assert!(missing("multilingual-e5-small").contains("run scripts/provision-model.sh"));
    }
}
