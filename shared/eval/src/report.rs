//! Aggregating per-query results into the report, and comparing two reports.

use crate::stats::{sign_test, wilson};
use ragpipe_core::Abstention;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The cut-offs reported for recall.
pub const KS: [usize; 4] = [1, 4, 8, 20];

/// One in-domain query's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryResult {
    pub id: String,
    pub qid: String,
    pub style: String,
    pub kind: String,
    /// 1-based rank of the first hit holding every needle (within the top 20).
    pub rank: Option<usize>,
    /// Cosine distance of the query's nearest chunk.
    pub nearest_distance: f32,
    /// Share of the query's lexical terms that the first hit holds: evidence
    /// for abstention beside the distance (docs/EVALUATION.md).
    #[serde(default)]
    pub lexical_overlap: f32,
    /// How much nearer the nearest chunk is than the nearest chunk of any
    /// other document (cosine distance; 0 when no other document is near).
    #[serde(default)]
    pub margin: f32,
    /// No single chunk of the index holds every needle: chunking destroyed it.
    pub destroyed: bool,
    /// The ranked hits (`document#locator`, and whether each answers), for
    /// fusing runs offline (`eval/fuse.py`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub top: Vec<(String, bool)>,
}

/// One out-of-domain query's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OodResult {
    pub id: String,
    pub nearest_distance: f32,
    #[serde(default)]
    pub lexical_overlap: f32,
    #[serde(default)]
    pub margin: f32,
}

/// A proportion with its Wilson 95 % interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    pub queries: usize,
    /// recall@k for k in [`KS`].
    pub recall: BTreeMap<usize, Estimate>,
    /// Mean reciprocal rank (ranks beyond 20 count 0), with a normal 95 % interval.
    pub mrr: Estimate,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepRow {
    pub threshold: f32,
    /// In-domain queries that would get "no answer".
    pub refused: usize,
    /// Out-of-domain queries that would still get an answer.
    pub bluffs: usize,
}

/// Index-side facts, read from the index rather than from search results.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IndexFacts {
    pub chunks: usize,
    pub chunks_over_window: usize,
    pub tokens_embedded: i64,
    pub header_tokens: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Free-form description of the run (config, model, mode).
    pub run: serde_json::Value,
    pub overall: Metrics,
    pub by_kind: BTreeMap<String, Metrics>,
    pub by_style: BTreeMap<String, Metrics>,
    pub destroyed: Vec<String>,
    pub index: IndexFacts,
    pub header_share: f64,
    pub sweep: Vec<SweepRow>,
    /// The cut-off minimising refused in-domain + bluffed out-of-domain
    /// queries as shares of their sets (equal cost); ties go to the larger.
    pub suggested_threshold: Option<f32>,
    pub queries: Vec<QueryResult>,
    pub ood: Vec<OodResult>,
}

pub fn metrics(results: &[&QueryResult]) -> Metrics {
    let n = results.len();
    let recall = KS
        .iter()
        .map(|&k| {
            let hits = results.iter().filter(|r| r.rank.is_some_and(|rank| rank <= k)).count();
            let (low, high) = wilson(hits, n);
            (k, Estimate { value: hits as f64 / n.max(1) as f64, low, high })
        })
        .collect();
    let rr: Vec<f64> = results.iter().map(|r| r.rank.map_or(0.0, |rank| 1.0 / rank as f64)).collect();
    let mean = rr.iter().sum::<f64>() / n.max(1) as f64;
    let var = rr.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n.max(2) - 1) as f64;
    let half = 1.96 * (var / n.max(1) as f64).sqrt();
    Metrics {
        queries: n,
        recall,
        mrr: Estimate { value: mean, low: (mean - half).max(0.0), high: (mean + half).min(1.0) },
    }
}

fn grouped(results: &[QueryResult], key: impl Fn(&QueryResult) -> &str) -> BTreeMap<String, Metrics> {
    let mut groups: BTreeMap<String, Vec<&QueryResult>> = BTreeMap::new();
    for r in results {
        groups.entry(key(r).to_string()).or_default().push(r);
    }
    groups.into_iter().map(|(k, v)| (k, metrics(&v))).collect()
}

/// Refusals and bluffs at every threshold 0.01 apart across the nearest
/// distances seen, by the model's rule (`margin_weight`, see
/// [`Abstention`]): models place distances differently (MiniLM's in-domain
/// questions sit around 0.3–0.6, e5's around 0.1–0.25), so the grid follows
/// the data.
pub fn sweep(queries: &[QueryResult], ood: &[OodResult], margin_weight: f32) -> Vec<SweepRow> {
    let seen = queries.iter().map(|q| q.nearest_distance).chain(ood.iter().map(|o| o.nearest_distance));
    let (low, high) = seen.fold((f32::MAX, f32::MIN), |(lo, hi), d| (lo.min(d), hi.max(d)));
    if low > high {
        return Vec::new();
    }
    let (from, to) = (((low * 100.0).floor() as i32 - 1).max(0), ((high * 100.0).ceil() as i32 + 1).min(200));
    (from..=to).map(|i| outcome(queries, ood, Abstention { threshold: i as f32 / 100.0, margin_weight })).collect()
}

/// What `rule` does to a run: answerable queries it refuses, out-of-domain
/// ones it answers.
pub fn outcome(queries: &[QueryResult], ood: &[OodResult], rule: Abstention) -> SweepRow {
    SweepRow {
        threshold: rule.threshold,
        refused: queries.iter().filter(|q| rule.abstains(q.nearest_distance, q.margin)).count(),
        bluffs: ood.iter().filter(|o| !rule.abstains(o.nearest_distance, o.margin)).count(),
    }
}

/// The middle of the widest-margin choice: among the thresholds with the
/// lowest cost (refused in-domain share + bluffed out-of-domain share), the
/// middle of the first run of them, so that neither side is shaved close.
fn suggest(rows: &[SweepRow], queries: usize, ood: usize) -> Option<f32> {
    if queries == 0 || ood == 0 {
        return None;
    }
    let cost = |r: &SweepRow| r.refused as f64 / queries as f64 + r.bluffs as f64 / ood as f64;
    let best = rows.iter().map(cost).min_by(f64::total_cmp)?;
    let first = rows.iter().position(|r| cost(r) <= best + 1e-12)?;
    let run = rows[first..].iter().take_while(|r| cost(r) <= best + 1e-12).count();
    Some(rows[first + (run - 1) / 2].threshold)
}

impl Report {
    /// The report of one run; the threshold sweep follows the rule with
    /// `margin_weight` (0: the nearest distance alone).
    pub fn build(
        run: serde_json::Value,
        queries: Vec<QueryResult>,
        ood: Vec<OodResult>,
        index: IndexFacts,
        margin_weight: f32,
    ) -> Report {
        let all: Vec<&QueryResult> = queries.iter().collect();
        let rows = sweep(&queries, &ood, margin_weight);
        Report {
            run,
            overall: metrics(&all),
            by_kind: grouped(&queries, |q| &q.kind),
            by_style: grouped(&queries, |q| &q.style),
            destroyed: queries.iter().filter(|q| q.destroyed).map(|q| q.id.clone()).collect(),
            header_share: index.header_tokens as f64 / index.tokens_embedded.max(1) as f64,
            index,
            suggested_threshold: suggest(&rows, queries.len(), ood.len()),
            sweep: rows,
            queries,
            ood,
        }
    }
}

/// Per-k wins and losses of run `b` over run `a`, paired by query id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub paired: usize,
    pub rows: Vec<ComparisonRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComparisonRow {
    pub k: usize,
    pub recall_a: f64,
    pub recall_b: f64,
    pub wins: usize,
    pub losses: usize,
    /// Exact two-sided sign test on the discordant pairs.
    pub p: f64,
}

pub fn compare(a: &Report, b: &Report) -> Comparison {
    let ranks: BTreeMap<&str, Option<usize>> = a.queries.iter().map(|q| (q.id.as_str(), q.rank)).collect();
    let pairs: Vec<(Option<usize>, Option<usize>)> =
        b.queries.iter().filter_map(|q| ranks.get(q.id.as_str()).map(|ra| (*ra, q.rank))).collect();
    let within = |r: Option<usize>, k: usize| r.is_some_and(|r| r <= k);
    let rows = KS
        .iter()
        .map(|&k| {
            let wins = pairs.iter().filter(|(ra, rb)| !within(*ra, k) && within(*rb, k)).count();
            let losses = pairs.iter().filter(|(ra, rb)| within(*ra, k) && !within(*rb, k)).count();
            let n = pairs.len().max(1) as f64;
            ComparisonRow {
                k,
                recall_a: pairs.iter().filter(|(ra, _)| within(*ra, k)).count() as f64 / n,
                recall_b: pairs.iter().filter(|(_, rb)| within(*rb, k)).count() as f64 / n,
                wins,
                losses,
                p: sign_test(wins, losses),
            }
        })
        .collect();
    Comparison { paired: pairs.len(), rows }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(id: &str, rank: Option<usize>, d: f32) -> QueryResult {
        QueryResult {
            id: id.into(),
            qid: id.into(),
            style: "doc".into(),
            kind: "html".into(),
            rank,
            nearest_distance: d,
            lexical_overlap: 0.0,
            margin: 0.0,
            destroyed: false,
            top: Vec::new(),
        }
    }

    #[test]
    fn recall_mrr_and_sweep() {
        let qs = vec![q("a", Some(1), 0.2), q("b", Some(5), 0.4), q("c", None, 0.7)];
        let ood = vec![OodResult { id: "x".into(), nearest_distance: 0.5, lexical_overlap: 0.0, margin: 0.0 }];
        let r = Report::build(serde_json::Value::Null, qs, ood, IndexFacts::default(), 0.0);
        assert_eq!(r.overall.recall[&1].value, 1.0 / 3.0);
        assert_eq!(r.overall.recall[&8].value, 2.0 / 3.0);
        assert!((r.overall.mrr.value - (1.0 + 0.2) / 3.0).abs() < 1e-12);
        let at = |t: f32| r.sweep.iter().find(|s| (s.threshold - t).abs() < 1e-6).unwrap().clone();
        assert_eq!((at(0.45).refused, at(0.45).bluffs), (1, 0));
        assert_eq!((at(0.5).refused, at(0.5).bluffs), (1, 1));
        // Refusing only "c" holds from 0.40 to 0.49: the middle of that.
        assert_eq!(r.suggested_threshold, Some(0.44));
        assert_eq!(r.sweep.first().map(|s| s.threshold), Some(0.19), "the grid spans what was seen");
    }

    #[test]
    fn outcome_follows_the_rule_and_caps_the_margin_credit() {
        let with_margin = |id: &str, d: f32, m: f32| QueryResult { margin: m, ..q(id, Some(1), d) };
        let qs =
            vec![with_margin("near", 0.45, 0.0), with_margin("stands out", 0.6, 0.1), with_margin("capped", 0.7, 0.4)];
        let ood = vec![OodResult { id: "x".into(), nearest_distance: 0.55, lexical_overlap: 0.0, margin: 0.0 }];
        let rule = Abstention { threshold: 0.5, margin_weight: 1.5 };
        // 0.6 - 1.5 x 0.1 = 0.45 answers; 0.7 less at most 0.3 x 0.5 = 0.55 refuses.
        assert_eq!(outcome(&qs, &ood, rule), SweepRow { threshold: 0.5, refused: 1, bluffs: 0 });
        assert_eq!(outcome(&qs, &ood, Abstention::distance(0.6)).refused, 1);
        assert_eq!(outcome(&qs, &ood, Abstention::distance(0.6)).bluffs, 1);
    }

    #[test]
    fn comparison_counts_discordant_pairs() {
        let a = Report::build(
            serde_json::Value::Null,
            vec![q("a", None, 0.0), q("b", Some(1), 0.0), q("c", Some(2), 0.0)],
            vec![],
            IndexFacts::default(),
            0.0,
        );
        let b = Report::build(
            serde_json::Value::Null,
            vec![q("a", Some(1), 0.0), q("b", Some(1), 0.0), q("c", None, 0.0)],
            vec![],
            IndexFacts::default(),
            0.0,
        );
        let c = compare(&a, &b);
        let at1 = &c.rows[0];
        assert_eq!((at1.k, at1.wins, at1.losses), (1, 1, 0));
        let at4 = &c.rows[1];
        assert_eq!((at4.wins, at4.losses), (1, 1));
        assert_eq!(at4.p, 1.0);
    }
}
