//! `[search]`: how searches rank (dense, BM25 and key lists, fused) and
//! when they answer nothing, and where the search service listens.

use serde::Deserialize;

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SearchConfig {
    pub top_k: usize,
    /// `hybrid` (dense + BM25 + the key list, fused) or `dense`.
    pub mode: String,
    /// How hybrid search fuses its lists: `rrf` (by rank, constant
    /// `rrf_k`) or `convex` (by normalised score, `dense_weight` × dense +
    /// the rest × BM25). Unset: as calibrated for the index's model (its
    /// spec's `dense_weight`: convex; none: rrf). `dense_weight` alone
    /// means convex with that weight.
    pub fusion: Option<String>,
    pub rrf_k: f32,
    pub dense_weight: Option<f32>,
    /// A fixed cosine distance above which the best hit is not an answer.
    /// Unset: the rule calibrated for the index's model (its spec's
    /// `threshold` and `margin_weight`; all-MiniLM-L6-v2: 0.49 and 1.5).
    /// Env: `RAGPIPE_SEARCH_THRESHOLD`.
    pub threshold: Option<f32>,
    /// Where `ragpipe serve search` listens. Env: `RAGPIPE_SEARCH_LISTEN`.
    pub listen: String,
    /// Bearer token every search call must carry. Without one the server
    /// only starts on a loopback address. Env: `RAGPIPE_SEARCH_TOKEN`.
    pub token: Option<String>,
    /// Query embeddings the search service keeps for repeated questions
    /// (and window vectors of a quarter as many chunks, for a model that
    /// abstains by windows).
    pub cache_entries: usize,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            top_k: 5,
            mode: "hybrid".into(),
            fusion: None,
            rrf_k: 60.0,
            dense_weight: None,
            threshold: None,
            listen: "127.0.0.1:8081".into(),
            token: None,
            cache_entries: 4096,
        }
    }
}

impl SearchConfig {
    pub(crate) fn validate(&self) -> Result<(), String> {
        if !matches!(self.mode.as_str(), "hybrid" | "dense") {
            return Err(format!("search.mode must be hybrid or dense, not {:?}", self.mode));
        }
        if let Some(f) = self.fusion.as_deref().filter(|f| !matches!(*f, "rrf" | "convex")) {
            return Err(format!("search.fusion must be rrf or convex, not {f:?}"));
        }
        if let Some(w) = self.dense_weight.filter(|w| !(0.0..=1.0).contains(w)) {
            return Err(format!("search.dense_weight must be within 0..=1, not {w}"));
        }
        if let Some(t) = self.threshold.filter(|t| !(0.0..=2.0).contains(t)) {
            return Err(format!("search.threshold is a cosine distance within 0..=2, not {t}"));
        }
        Ok(())
    }
}
