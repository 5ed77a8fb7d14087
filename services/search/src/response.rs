//! What a search answers, in the one JSON shape `ragpipe search --json` prints
//! and `POST /api/search` returns.

use ragpipe_state::IndexRecord;
use ragpipe_vectors::retrieval::{Answer, Mode, SearchOptions};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SearchResponse {
    /// The index searched (the live one).
    pub index: IndexOut,
    pub query: String,
    /// The question as it was searched when that differs from `query`: its
    /// words typed without accents written as the nearest chunks write
    /// them (`Answer::with_accents`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_as: Option<String>,
    /// Nothing in the index is close enough to the query to be an answer.
    pub abstained: bool,
    /// The cosine distance the nearest chunk had to be within, after the
    /// margin's credit (`None`: no threshold was applied).
    pub threshold: Option<f32>,
    /// The evidence: the nearest chunk's cosine distance, how much nearer
    /// it is than any other document's (the margin), and how much the
    /// margin counts (abstained: distance - min(margin_weight * margin,
    /// 0.3 * threshold) > threshold; `ragpipe_core::abstention`).
    #[serde(default)]
    pub nearest_distance: Option<f32>,
    /// For a model that abstains by windows, the nearest window's cosine
    /// distance among the nearest chunks: the distance its rule reads in
    /// place of `nearest_distance` (`ragpipe_search::windows`). Absent when
    /// the nearest chunk is clear enough not to need it
    /// (`Abstention::clearly_answers`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nearest_window_distance: Option<f32>,
    #[serde(default)]
    pub margin: f32,
    #[serde(default)]
    pub margin_weight: f32,
    /// How the hits' `score` was fused: `rrf (k 60)` (by rank) or `convex
    /// (dense weight 0.75)` (by normalised score); empty in dense mode.
    #[serde(default)]
    pub fusion: String,
    pub hits: Vec<HitOut>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HitOut {
    pub rank: usize,
    pub document: String,
    pub title: String,
    pub section: String,
    pub kind: String,
    /// Where in the document: `#page=3&char=120,480`, `#row=12`, `#t=1.5,4.0`…
    pub locator: String,
    pub content: String,
    pub distance: f32,
    pub score: f32,
    /// The pipeline version the chunk was written by.
    pub pipeline_version: String,
    /// The language BM25 analysed the chunk in (with `[lexical] language =
    /// "auto"`, the one detected in its document); absent for chunks
    /// written before it was recorded.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub language: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct IndexOut {
    pub name: String,
    pub model: String,
    pub pipeline_version: String,
}

impl SearchResponse {
    pub fn new(index: &IndexRecord, query: &str, opts: &SearchOptions, answer: Answer) -> Self {
        SearchResponse {
            index: IndexOut {
                name: index.name.clone(),
                model: index.model.clone(),
                pipeline_version: index.pipeline_version.clone(),
            },
            query: query.to_string(),
            read_as: None,
            abstained: answer.abstained,
            threshold: opts.abstention.map(|a| a.threshold),
            nearest_distance: answer.nearest_distance,
            nearest_window_distance: answer.nearest_window_distance,
            margin: answer.margin(),
            margin_weight: opts.abstention.map_or(0.0, |a| a.margin_weight),
            fusion: match opts.mode {
                Mode::Hybrid => opts.fusion.to_string(),
                Mode::Dense => String::new(),
            },
            hits: answer
                .hits
                .into_iter()
                .map(|h| HitOut {
                    rank: h.rank,
                    document: h.payload.document,
                    title: h.payload.title,
                    section: h.payload.section,
                    kind: h.payload.kind,
                    locator: h.payload.locator,
                    content: h.payload.content,
                    distance: h.distance,
                    score: h.score,
                    pipeline_version: h.payload.pipeline_version,
                    language: h.payload.language,
                })
                .collect(),
        }
    }
}
