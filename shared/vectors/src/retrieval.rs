//! Hybrid retrieval over any [`VectorStore`]: dense and BM25 candidate lists
//! fused by reciprocal rank fusion, each hit carrying its cosine distance to
//! the query, and the evidence (distance, margin over the next document)
//! past which the honest answer is "nothing in the index answers this".

use crate::{Bm25, ChunkPayload, Scored, SearchFilter, VectorError, VectorStore};
use ragpipe_core::Abstention;
use std::collections::HashMap;

/// Which retrievers take part.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Dense + BM25, fused by reciprocal rank.
    #[default]
    Hybrid,
    /// Dense only.
    Dense,
}

/// How the hybrid mode merges its retrievers' lists into one order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fusion {
    /// Reciprocal rank fusion: each list adds `weight / (k + rank)`; a
    /// larger `k` flattens the advantage of top ranks. Ranks only.
    Rrf { k: f32 },
    /// A convex combination of the scores, each list's min-max normalised
    /// over the candidates: `dense_weight` × dense similarity +
    /// (1 − `dense_weight`) × BM25, plus the key list's normalised score
    /// (docs/EVALUATION.md, "Fusion by scores").
    Convex { dense_weight: f32 },
}

impl std::fmt::Display for Fusion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fusion::Rrf { k } => write!(f, "rrf (k {k})"),
            Fusion::Convex { dense_weight } => write!(f, "convex (dense weight {dense_weight})"),
        }
    }
}

/// What the configuration asks of fusion; the model's calibration decides
/// what it leaves open.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FusionSetting {
    /// `Some(true)`: by rank; `Some(false)`: by score; `None`: the model's.
    pub by_rank: Option<bool>,
    /// The dense weight when fusing by score (`None`: the model's, else 0.5).
    pub dense_weight: Option<f32>,
    pub rrf_k: f32,
}

impl FusionSetting {
    /// The fusion for a model calibrated with `model_weight` (its spec's
    /// `dense_weight`): a weight set here alone means by score; nothing set
    /// means the model's choice, by rank when it has none.
    pub fn resolve(&self, model_weight: Option<f32>) -> Fusion {
        match (self.by_rank, self.dense_weight.or(model_weight)) {
            (Some(true), _) | (None, None) => Fusion::Rrf { k: self.rrf_k },
            (_, w) => Fusion::Convex { dense_weight: w.unwrap_or(0.5) },
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchOptions {
    pub top_k: usize,
    pub mode: Mode,
    /// How hybrid mode merges its lists (dense mode has one).
    pub fusion: Fusion,
    /// When to answer nothing (`None`: never): by the nearest chunk's
    /// distance and its margin (see [`Answer::margin`]), calibrated per model.
    pub abstention: Option<Abstention>,
}

/// One result, as cited to a user.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub rank: usize,
    pub payload: ChunkPayload,
    /// Cosine distance (1 - cosine similarity) between query and chunk.
    pub distance: f32,
    /// Fused score (higher is better); the dense similarity in dense mode.
    pub score: f32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub hits: Vec<Hit>,
    /// True when the nearest chunk was too far from the query to be an answer.
    pub abstained: bool,
    /// Cosine distance of the nearest chunk in the whole index (the dense
    /// retriever's first result), whatever the fused order; `None` when empty.
    pub nearest_distance: Option<f32>,
    /// Cosine distance of the nearest chunk of any other document than the
    /// nearest chunk's (among the dense candidates; when every candidate is
    /// of one document, the farthest of them, a lower bound): how far the
    /// best document stands out, evidence for abstention beside the distance.
    pub next_document_distance: Option<f32>,
    /// The dense retriever's first [`NEAREST_KEPT`] chunks, nearest first:
    /// where a model that abstains by windows looks for its evidence.
    pub nearest_chunks: Vec<ChunkPayload>,
    /// Cosine distance of the nearest window of those chunks, when the
    /// model abstains by windows ([`crate::windows`]); the rule then reads
    /// it instead of [`Answer::nearest_distance`].
    pub nearest_window_distance: Option<f32>,
    /// The question with its words typed without accents written as the
    /// dense side's nearest chunks write them (`conexion` → `conexión`),
    /// when that changes it: a caller that can embed it searches once more
    /// with it ([`crate::folding::with_accents_of`]).
    pub with_accents: Option<String>,
}

/// How many of the nearest chunks an [`Answer`] keeps for window evidence
/// (docs/EVALUATION.md, "Abstention": the top 3 chunks' windows did as well
/// as the top 10's).
pub const NEAREST_KEPT: usize = 3;

/// How many of the dense side's nearest chunks a question typed without
/// accents is written again from ([`Answer::with_accents`]).
const ACCENT_HITS: usize = 50;

impl Answer {
    /// How much nearer the nearest chunk is than any other document's
    /// (0 when the index holds one document or none): questions the index
    /// answers single out a document, questions it does not answer land
    /// among many at about the same distance (docs/EVALUATION.md).
    pub fn margin(&self) -> f32 {
        match (self.nearest_distance, self.next_document_distance) {
            (Some(d), Some(next)) => (next - d).max(0.0),
            _ => 0.0,
        }
    }

    /// The distance the abstention rule reads: the nearest window's when
    /// one was measured, else the nearest chunk's.
    pub fn evidence_distance(&self) -> Option<f32> {
        self.nearest_window_distance.or(self.nearest_distance)
    }

    /// Applies `rule` (`None`: always answer): an answer that abstains
    /// keeps its evidence and loses its hits.
    pub fn decide(&mut self, rule: Option<Abstention>) {
        let (distance, margin) = (self.evidence_distance(), self.margin());
        self.abstained = rule.is_some_and(|rule| distance.is_none_or(|d| rule.abstains(d, margin)));
        if self.abstained {
            self.hits.clear();
        }
    }
}

/// Runs a search. `query_vector` is the embedded query (unit length).
pub async fn search(
    store: &dyn VectorStore,
    bm25: &Bm25,
    query_vector: &[f32],
    query_text: &str,
    opts: &SearchOptions,
) -> Result<Answer, VectorError> {
    search_in(store, bm25, query_vector, query_text, opts, &SearchFilter::default()).await
}

/// [`search`] among the chunks the filter selects (every retriever filters).
pub async fn search_in(
    store: &dyn VectorStore,
    bm25: &Bm25,
    query_vector: &[f32],
    query_text: &str,
    opts: &SearchOptions,
    filter: &SearchFilter,
) -> Result<Answer, VectorError> {
    let candidates = (opts.top_k * 4).max(50);
    let dense = by_score_then_id(store.search_dense_in(query_vector, candidates, filter).await?);
    // A key the query names (a date, an identifier) is strong evidence the
    // dense side cannot see: the chunks holding it form a third list,
    // weighted KEY_WEIGHT (by rank) or KEY_SCORE_WEIGHT (by score), so a row
    // found only by its key still leads.
    let (sparse, keyed) = match opts.mode {
        Mode::Hybrid => {
            let (terms, keys) = bm25.queries(query_text);
            let sparse = by_score_then_id(store.search_sparse_in(&terms, candidates, filter).await?);
            let keyed = match keys {
                Some(keys) => by_score_then_id(store.search_sparse_in(&keys, candidates, filter).await?),
                None => Vec::new(),
            };
            (sparse, keyed)
        }
        Mode::Dense => (Vec::new(), Vec::new()),
    };
    let (mut fused, similarity) = match (opts.mode, opts.fusion) {
        (Mode::Dense, _) => (dense.iter().map(|s| (s.clone(), s.score)).collect(), None),
        (Mode::Hybrid, Fusion::Rrf { k }) => {
            (rrf_weighted(&[(&dense, 1.0), (&sparse, 1.0), (&keyed, KEY_WEIGHT)], k), None)
        }
        (Mode::Hybrid, Fusion::Convex { dense_weight }) => {
            // Every candidate's own similarity, not only the dense list's.
            let all = union(&[&dense, &sparse, &keyed]);
            let ids: Vec<uuid::Uuid> = all.iter().map(|s| s.id).collect();
            let similarity = similarities(store, &dense, &ids, query_vector).await?;
            let lists = [(sparse.as_slice(), 1.0 - dense_weight), (keyed.as_slice(), KEY_SCORE_WEIGHT)];
            (convex(all, &similarity, &lists, candidates, dense_weight), Some(similarity))
        }
    };
    fused.truncate(opts.top_k);
    let similarity = match similarity {
        Some(computed) => computed,
        None => {
            let ids: Vec<uuid::Uuid> = fused.iter().map(|(s, _)| s.id).collect();
            similarities(store, &dense, &ids, query_vector).await?
        }
    };
    let hits: Vec<Hit> = fused
        .into_iter()
        .enumerate()
        .map(|(i, (s, score))| Hit { rank: i + 1, distance: 1.0 - similarity[&s.id], score, payload: s.payload })
        .collect();
    // Abstention looks at the globally nearest chunk, not at the fused top-k:
    // the decision then does not change with top_k or the fusion mode.
    let nearest_distance = dense.first().map(|s| 1.0 - s.score);
    let next_document_distance = dense.first().and_then(|first| {
        let other = dense.iter().find(|s| s.payload.document_id != first.payload.document_id);
        let bound = (dense.len() == candidates).then(|| dense.last()).flatten();
        other.or(bound).map(|s| 1.0 - s.score)
    });
    let nearest_chunks = dense.iter().take(NEAREST_KEPT).map(|s| s.payload.clone()).collect();
    let near: Vec<&str> = dense.iter().take(ACCENT_HITS).map(|s| s.payload.text.as_str()).collect();
    let with_accents = crate::folding::with_accents_of(query_text, &near);
    let mut answer = Answer {
        hits,
        abstained: false,
        nearest_distance,
        next_document_distance,
        nearest_chunks,
        nearest_window_distance: None,
        with_accents,
    };
    answer.decide(opts.abstention);
    Ok(answer)
}

/// A retriever's list with equal scores ordered by point id: a store returns
/// ties in its own storage order, which follows the order the pipeline
/// happened to write the points in, so without this the same index could
/// rank a tie differently from one ingest to the next (rows holding the same
/// key all score alike).
fn by_score_then_id(mut list: Vec<Scored>) -> Vec<Scored> {
    list.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id)));
    list
}

/// Reciprocal rank fusion: each list adds `1 / (k + rank)` (rank from 1) to
/// every point it holds. Ties keep the order of first appearance.
pub fn rrf(lists: &[&[Scored]], k: f32) -> Vec<(Scored, f32)> {
    let weighted: Vec<(&[Scored], f32)> = lists.iter().map(|l| (*l, 1.0)).collect();
    rrf_weighted(&weighted, k)
}

/// Weight of the list of chunks holding a key the query names
/// (docs/EVALUATION.md, "Row lookups by key").
pub const KEY_WEIGHT: f32 = 2.0;

/// Weight of the key list when fusing by score: as much as the dense and
/// BM25 shares together, so the chunk holding the key the query names
/// leads unless another holds it as well (then the others decide).
pub const KEY_SCORE_WEIGHT: f32 = 1.0;

/// Reciprocal rank fusion where each list adds `weight / (k + rank)`.
pub fn rrf_weighted(lists: &[(&[Scored], f32)], k: f32) -> Vec<(Scored, f32)> {
    let mut order: Vec<uuid::Uuid> = Vec::new();
    let mut fused: HashMap<uuid::Uuid, (Scored, f32)> = HashMap::new();
    for (list, weight) in lists {
        for (i, s) in list.iter().enumerate() {
            let add = weight / (k + (i + 1) as f32);
            fused.entry(s.id).and_modify(|e| e.1 += add).or_insert_with(|| {
                order.push(s.id);
                (s.clone(), add)
            });
        }
    }
    let mut out: Vec<(Scored, f32)> = order.into_iter().filter_map(|id| fused.remove(&id)).collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1));
    out
}

/// Convex fusion of the candidates (every list's points, each once, in the
/// order first seen): `dense_weight` × their similarity to the query, min-max
/// normalised over them, plus each list's min-max normalised score times its
/// weight. A candidate a list does not hold scores that list's floor: 0 when
/// the list ended before `depth` (it matched nothing more), else its last
/// score (an upper bound). Ties keep the order of first appearance.
fn convex(
    candidates: Vec<Scored>,
    similarity: &HashMap<uuid::Uuid, f32>,
    lists: &[(&[Scored], f32)],
    depth: usize,
    dense_weight: f32,
) -> Vec<(Scored, f32)> {
    let dense: Vec<f32> = candidates.iter().map(|s| similarity[&s.id]).collect();
    let mut total: Vec<f32> = normalised(&dense).into_iter().map(|d| dense_weight * d).collect();
    for (list, weight) in lists {
        let held: HashMap<uuid::Uuid, f32> = list.iter().map(|s| (s.id, s.score)).collect();
        let floor = match list.last() {
            Some(last) if list.len() >= depth => last.score,
            _ => 0.0,
        };
        let scores: Vec<f32> = candidates.iter().map(|s| held.get(&s.id).copied().unwrap_or(floor)).collect();
        for (t, n) in total.iter_mut().zip(normalised(&scores)) {
            *t += weight * n;
        }
    }
    let mut out: Vec<(Scored, f32)> = candidates.into_iter().zip(total).collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1));
    out
}

/// Scores mapped onto 0..=1 by their minimum and maximum (all 0 when equal).
fn normalised(scores: &[f32]) -> Vec<f32> {
    let (lo, hi) = scores.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &s| (lo.min(s), hi.max(s)));
    scores.iter().map(|s| if hi > lo { (s - lo) / (hi - lo) } else { 0.0 }).collect()
}

/// Every list's points, each once, in the order first seen.
fn union(lists: &[&[Scored]]) -> Vec<Scored> {
    let mut seen = std::collections::HashSet::new();
    lists.iter().flat_map(|l| l.iter()).filter(|s| seen.insert(s.id)).cloned().collect()
}

/// Cosine similarity of every point named to the query: read from the dense
/// list where present, computed from the stored vector otherwise.
/// The cosine similarity of two unit vectors.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

async fn similarities(
    store: &dyn VectorStore,
    dense: &[Scored],
    ids: &[uuid::Uuid],
    query: &[f32],
) -> Result<HashMap<uuid::Uuid, f32>, VectorError> {
    let mut sims: HashMap<uuid::Uuid, f32> = dense.iter().map(|s| (s.id, s.score)).collect();
    let missing: Vec<uuid::Uuid> = ids.iter().copied().filter(|id| !sims.contains_key(id)).collect();
    if !missing.is_empty() {
        for (id, v) in store.dense_vectors(&missing).await? {
            sims.insert(id, dot(&v, query));
        }
    }
    for id in ids {
        sims.entry(*id).or_insert(-1.0);
    }
    Ok(sims)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scored(n: u128) -> Scored {
        let payload = ChunkPayload {
            document_id: String::new(),
            generation: 1,
            chunk_index: n as u32,
            document: String::new(),
            title: String::new(),
            section: String::new(),
            kind: String::new(),
            locator: String::new(),
            content: String::new(),
            text: String::new(),
            tokens: 0,
            model: String::new(),
            pipeline_version: String::new(),
            language: String::new(),
        };
        Scored { id: uuid::Uuid::from_u128(n), score: 0.0, payload }
    }

    #[test]
    fn rrf_rewards_agreement() {
        let dense = [scored(1), scored(2), scored(3)];
        let sparse = [scored(3), scored(4), scored(1)];
        let fused = rrf(&[&dense, &sparse], 60.0);
        let ids: Vec<u128> = fused.iter().map(|(s, _)| s.id.as_u128()).collect();
        // 1: 1/61 + 1/63; 3: 1/63 + 1/61 (tie, first seen wins); 2: 1/62; 4: 1/62.
        assert_eq!(ids, [1, 3, 2, 4]);
        assert!((fused[0].1 - (1.0 / 61.0 + 1.0 / 63.0)).abs() < 1e-7);
    }

    fn with_score(n: u128, score: f32) -> Scored {
        Scored { score, ..scored(n) }
    }

    fn ids(fused: &[(Scored, f32)]) -> Vec<u128> {
        fused.iter().map(|(s, _)| s.id.as_u128()).collect()
    }

    #[test]
    fn convex_fusion_weighs_scores_not_ranks() {
        // Dense: 1 barely ahead of 2, 3 far behind. BM25: 2 far ahead of 1.
        let sims: HashMap<uuid::Uuid, f32> =
            [(1, 0.80), (2, 0.79), (3, 0.20)].map(|(n, s)| (uuid::Uuid::from_u128(n), s)).into();
        let all = [scored(1), scored(2), scored(3)];
        let sparse = [with_score(2, 9.0), with_score(1, 1.0)];
        let fuse = |w: f32| convex(all.to_vec(), &sims, &[(&sparse, 1.0 - w)], 50, w);
        assert_eq!(ids(&fuse(1.0)), [1, 2, 3], "dense alone");
        assert_eq!(ids(&fuse(0.0))[..2], [2, 1], "BM25 alone");
        // By rank the two lists tie 1 and 2; by score 2 is a near tie on one
        // side and a clear winner on the other.
        assert_eq!(ids(&fuse(0.5)), [2, 1, 3]);
        let top = fuse(0.5)[0].1;
        assert!((top - (0.5 * (0.59 / 0.60) + 0.5)).abs() < 1e-5, "{top}");
    }

    #[test]
    fn a_list_that_stopped_early_matched_nothing_more() {
        let sims: HashMap<uuid::Uuid, f32> = [(1, 0.5), (2, 0.5)].map(|(n, s)| (uuid::Uuid::from_u128(n), s)).into();
        let all = [scored(1), scored(2)];
        let sparse = [with_score(1, 4.0)];
        // Shorter than its depth: 2 scores 0, the normalised BM25 of 1 is 1.
        let short = convex(all.to_vec(), &sims, &[(&sparse, 0.5)], 50, 0.5);
        assert_eq!(ids(&short), [1, 2]);
        assert!((short[0].1 - 0.5).abs() < 1e-6 && short[1].1.abs() < 1e-6);
        // As deep as asked: 2 may score up to the last score, here 1's own.
        let full = convex(all.to_vec(), &sims, &[(&sparse, 0.5)], 1, 0.5);
        assert!(full.iter().all(|(_, s)| s.abs() < 1e-6), "{full:?}");
    }

    #[test]
    fn the_rule_reads_the_window_distance_when_one_was_measured() {
        let mut answer = Answer {
            hits: vec![Hit { rank: 1, payload: scored(1).payload, distance: 0.155, score: 1.0 }],
            abstained: false,
            nearest_distance: Some(0.155),
            next_document_distance: Some(0.16),
            nearest_chunks: vec![scored(1).payload],
            nearest_window_distance: None,
            with_accents: None,
        };
        let rule = Some(Abstention::distance(0.145));
        answer.decide(rule);
        assert!(answer.abstained && answer.hits.is_empty(), "the chunk is beyond the threshold");
        answer.hits.push(Hit { rank: 1, payload: scored(1).payload, distance: 0.155, score: 1.0 });
        answer.nearest_window_distance = Some(0.13);
        answer.decide(rule);
        assert!(!answer.abstained && answer.hits.len() == 1, "its nearest window is within");
        assert_eq!(answer.evidence_distance(), Some(0.13));
        answer.decide(None);
        assert!(!answer.abstained);
    }

    #[test]
    fn the_setting_leaves_to_the_model_what_it_does_not_say() {
        let set = |by_rank, dense_weight| FusionSetting { by_rank, dense_weight, rrf_k: 60.0 };
        let rrf = Fusion::Rrf { k: 60.0 };
        let convex = |w| Fusion::Convex { dense_weight: w };
        assert_eq!(set(None, None).resolve(None), rrf, "an uncalibrated model fuses by rank");
        assert_eq!(set(None, None).resolve(Some(0.75)), convex(0.75));
        assert_eq!(set(Some(true), None).resolve(Some(0.75)), rrf);
        assert_eq!(set(Some(false), None).resolve(None), convex(0.5));
        assert_eq!(set(None, Some(0.6)).resolve(Some(0.75)), convex(0.6), "a weight alone means by score");
        assert_eq!(set(Some(true), Some(0.6)).resolve(None), rrf);
    }

    #[test]
    fn a_weighted_key_list_lifts_what_only_it_found() {
        // Dense and BM25 agree on 1 and 2; only the key list holds 9.
        let (dense, sparse, keyed) = ([scored(1), scored(2)], [scored(2), scored(1), scored(9)], [scored(9)]);
        let plain = rrf(&[&dense, &sparse, &keyed], 60.0);
        assert_ne!(plain[0].0.id.as_u128(), 9, "unweighted, agreement wins");
        let fused = rrf_weighted(&[(&dense, 1.0), (&sparse, 1.0), (&keyed, KEY_WEIGHT)], 60.0);
        assert_eq!(fused[0].0.id.as_u128(), 9);
    }
}
