//! What a model is, read from its own folder, and the seal an index records
//! of the model its vectors came from.
//!
//! A model folder holds `model.onnx` (and `model-int8.onnx`),
//! `tokenizer.json` and `ragpipe-model.json`, the spec: name, dimensions,
//! pooling, normalisation, window and the prefixes some models (e5) want on
//! queries and passages. A folder without a spec is the legacy provisioned
//! all-MiniLM-L6-v2 and nothing else; its real output width is checked when it
//! loads, so another export in such a folder is refused, not cut to 384.

use serde::{Deserialize, Serialize};
use std::path::Path;

/// The spec file in a model folder.
pub const SPEC_FILE: &str = "ragpipe-model.json";

/// The model a new index gets when `[model] name` is not set.
pub const DEFAULT_MODEL: &str = "all-MiniLM-L6-v2";

/// How token vectors become one text vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Pooling {
    /// The mean over the attention mask (sentence-transformers, e5).
    #[default]
    Mean,
    /// The first token's vector (BGE, GTE exports).
    Cls,
}

/// A model's description (`ragpipe-model.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSpec {
    pub name: String,
    pub dims: usize,
    #[serde(default)]
    pub pooling: Pooling,
    #[serde(default = "yes")]
    pub normalize: bool,
    /// Word-pieces per input the model was trained for, special tokens and
    /// prefix included.
    pub max_tokens: usize,
    /// Put before every query (e5: `"query: "`).
    #[serde(default)]
    pub query_prefix: String,
    /// Put before every chunk (e5: `"passage: "`).
    #[serde(default)]
    pub passage_prefix: String,
    /// Cosine distance above which a search's best hit is no answer, as
    /// calibrated for this model (`[search] threshold` overrides it).
    #[serde(default)]
    pub threshold: Option<f32>,
    /// The same for the int8 weights, whose distances run a little
    /// differently; unset: `threshold`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold_int8: Option<f32>,
    /// How much the nearest document's margin over the next document
    /// counts towards answering: a search abstains when the nearest
    /// distance less this times the margin exceeds the threshold (unset: 0,
    /// the distance alone). Calibrated with the threshold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin_weight: Option<f32>,
    /// Hybrid search fuses dense and BM25 by score with this weight on the
    /// dense similarity (0..=1), as calibrated for this model; unset: by
    /// rank (RRF). `[search] fusion` and `dense_weight` override it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dense_weight: Option<f32>,
    /// Abstain by windows: the distance the rule reads (and `threshold` is
    /// calibrated for) is the nearest window of this many words among the
    /// nearest chunks' windows, not the nearest chunk's
    /// (`ragpipe_vectors::windows`); unset: the nearest chunk's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abstain_window_words: Option<usize>,
    /// The chunk budget (word-pieces, specials and header included) the
    /// model's calibration was measured with, what `chunking.budget = 0`
    /// means for it; at most `max_tokens`. Unset: 256 (or the window, if
    /// smaller).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunk_budget: Option<usize>,
}

fn yes() -> bool {
    true
}

impl ModelSpec {
    /// The spec of a folder without a spec file: the all-MiniLM-L6-v2 that
    /// provisioning put there before it wrote specs (sentence-transformers'
    /// max_seq_length 256, mean pooling, unit vectors).
    pub fn legacy_minilm() -> Self {
        ModelSpec {
            name: DEFAULT_MODEL.into(),
            dims: 384,
            pooling: Pooling::Mean,
            normalize: true,
            max_tokens: 256,
            query_prefix: String::new(),
            passage_prefix: String::new(),
            threshold: Some(0.49),
            threshold_int8: Some(0.49),
            margin_weight: Some(1.5),
            dense_weight: Some(0.75),
            abstain_window_words: None,
            chunk_budget: None,
        }
    }

    /// The spec in `dir`: its `ragpipe-model.json`, or the legacy MiniLM
    /// when there is none. `Err` names the file and what is wrong with it.
    pub fn read(dir: &Path) -> Result<Self, String> {
        let path = dir.join(SPEC_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::legacy_minilm()),
            Err(e) => return Err(format!("reading {}: {e}", path.display())),
        };
        let spec: ModelSpec = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        if spec.name.trim().is_empty() || spec.dims == 0 || spec.max_tokens < 3 {
            return Err(format!("{}: name, dims and max_tokens (≥ 3) are required", path.display()));
        }
        if let Some(b) = spec.chunk_budget.filter(|&b| !(32..=spec.max_tokens).contains(&b)) {
            return Err(format!(
                "{}: chunk_budget must be within 32..=max_tokens ({}), not {b}",
                path.display(),
                spec.max_tokens
            ));
        }
        if spec.abstain_window_words == Some(0) {
            return Err(format!("{}: abstain_window_words must be at least 1", path.display()));
        }
        if let Some(w) = spec.dense_weight.filter(|w| !(0.0..=1.0).contains(w)) {
            return Err(format!("{}: dense_weight must be within 0..=1, not {w}", path.display()));
        }
        Ok(spec)
    }
}

/// What an index records of the model that embedded it: vectors from other
/// weights, another width or other prefixes are not comparable with its own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelSeal {
    /// The recorded model name (the int8 variant's ends in `-int8`).
    pub model: String,
    pub dims: usize,
    pub pooling: Pooling,
    pub normalize: bool,
    pub query_prefix: String,
    pub passage_prefix: String,
    /// sha256 of the ONNX graph file, hex.
    pub sha256: String,
}

impl ModelSeal {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a seal serialises")
    }

    pub fn parse(json: &str) -> Result<Self, String> {
        serde_json::from_str(json).map_err(|e| format!("the index's model seal is unreadable: {e}"))
    }

    /// Whether `found` may embed into (and query) an index sealed to `self`;
    /// `Err` says what differs, for an error a person can act on.
    pub fn admits(&self, found: &ModelSeal) -> Result<(), String> {
        if self == found {
            return Ok(());
        }
        let short = |h: &str| h.chars().take(12).collect::<String>();
        let mut differs = Vec::new();
        if self.model != found.model {
            differs.push(format!("name {} vs {}", self.model, found.model));
        }
        if self.dims != found.dims {
            differs.push(format!("{} vs {} dimensions", self.dims, found.dims));
        }
        if self.sha256 != found.sha256 {
            differs.push(format!("weights sha256 {}… vs {}…", short(&self.sha256), short(&found.sha256)));
        }
        if (self.pooling, self.normalize) != (found.pooling, found.normalize) {
            differs.push("pooling or normalisation".into());
        }
        if (&self.query_prefix, &self.passage_prefix) != (&found.query_prefix, &found.passage_prefix) {
            differs.push("query/passage prefixes".into());
        }
        Err(differs.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seal() -> ModelSeal {
        ModelSeal {
            model: "m".into(),
            dims: 384,
            pooling: Pooling::Mean,
            normalize: true,
            query_prefix: String::new(),
            passage_prefix: String::new(),
            sha256: "ab".repeat(32),
        }
    }

    #[test]
    fn a_seal_admits_only_the_same_model() {
        let sealed = seal();
        assert_eq!(sealed.admits(&ModelSeal::parse(&sealed.to_json()).unwrap()), Ok(()));
        let other = ModelSeal { sha256: "cd".repeat(32), ..seal() };
        let why = sealed.admits(&other).unwrap_err();
        assert!(why.contains("weights sha256 abababababab… vs cdcdcdcdcdcd…"), "{why}");
        let wider = ModelSeal { dims: 768, ..seal() };
        assert!(sealed.admits(&wider).unwrap_err().contains("384 vs 768 dimensions"));
        let prefixed = ModelSeal { query_prefix: "query: ".into(), ..seal() };
        assert!(sealed.admits(&prefixed).unwrap_err().contains("prefixes"));
    }

    #[test]
    fn specs_read_from_the_folder_or_the_legacy_default() {
        let dir = std::env::temp_dir().join(format!("ragpipe-spec-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(ModelSpec::read(&dir).unwrap(), ModelSpec::legacy_minilm());
        std::fs::write(
            dir.join(SPEC_FILE),
            r#"{"name": "e5", "dims": 384, "max_tokens": 512, "query_prefix": "query: ", "passage_prefix": "passage: "}"#,
        )
        .unwrap();
        let spec = ModelSpec::read(&dir).unwrap();
        assert_eq!((spec.name.as_str(), spec.pooling, spec.normalize), ("e5", Pooling::Mean, true));
        std::fs::write(dir.join(SPEC_FILE), r#"{"name": "x", "dims": 384, "max_tokens": 512, "pool": "cls"}"#).unwrap();
        assert!(ModelSpec::read(&dir).unwrap_err().contains("unknown field `pool`"));
        let windows = |words: u32| {
            format!(r#"{{"name": "e5", "dims": 384, "max_tokens": 512, "abstain_window_words": {words}}}"#)
        };
        std::fs::write(dir.join(SPEC_FILE), windows(32)).unwrap();
        assert_eq!(ModelSpec::read(&dir).unwrap().abstain_window_words, Some(32));
        std::fs::write(dir.join(SPEC_FILE), windows(0)).unwrap();
        assert!(ModelSpec::read(&dir).unwrap_err().contains("abstain_window_words must be at least 1"));
        let budget = |b: usize| format!(r#"{{"name": "m", "dims": 768, "max_tokens": 384, "chunk_budget": {b}}}"#);
        std::fs::write(dir.join(SPEC_FILE), budget(384)).unwrap();
        assert_eq!(ModelSpec::read(&dir).unwrap().chunk_budget, Some(384));
        std::fs::write(dir.join(SPEC_FILE), budget(512)).unwrap();
        assert!(
            ModelSpec::read(&dir).unwrap_err().contains("chunk_budget must be within 32..=max_tokens (384), not 512")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
