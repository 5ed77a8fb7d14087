//! Hybrid search fused as the model's spec calibrates it, with the real
//! model: all-MiniLM-L6-v2 fuses by normalised score (0.75 dense), which
//! ranks first the chunk the model clearly prefers where fusing ranks let
//! BM25's liking for a neighbour decide (docs/EVALUATION.md, "Fusion by
//! scores"). Two golden-set questions over their two documents.

mod common;

use serde_json::Value;
use std::path::Path;

/// Support-ticket questions and the words of the chunk that answers each
/// (eval/golden.jsonl q137-ticket, q140-ticket).
const ASKED: [(&str, &str); 2] = [
    (
        "when we push a very long generated command through a pseudo-terminal, parts of it silently go missing",
        "the kernel will simply drop those bytes, instead of blocking waiting for the shell",
    ),
    (
        "a security scan flags our python helper that asks for a temporary file name and only opens the file later. what is the risk?",
        "someone else may have beaten you to the punch",
    ),
];

/// The rank (from 1) of the first hit holding `needle`.
fn rank_of(answer: &Value, needle: &str) -> Option<usize> {
    let hits = answer["hits"].as_array().unwrap();
    hits.iter()
        .position(|h| h["content"].as_str().unwrap().split_whitespace().collect::<Vec<_>>().join(" ").contains(needle))
        .map(|i| i + 1)
}

#[test]
fn the_model_decides_how_lists_fuse_and_a_setting_overrides_it() {
    let (folder, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../eval/corpus");
    for name in ["shlex-quoting-warning.md", "tempfile.py"] {
        std::fs::copy(corpus.join(name), folder.path().join(name)).unwrap();
    }
    common::ragpipe_ok(data.path(), &[], &["ingest", folder.path().to_str().unwrap(), "--json", "--quiet"]);
    let by_rank = data.path().join("rrf.toml");
    std::fs::write(&by_rank, "[search]\nfusion = \"rrf\"\n").unwrap();
    let dense_only_weight = data.path().join("weight.toml");
    std::fs::write(&dense_only_weight, "[search]\ndense_weight = 0.6\n").unwrap();
    let search =
        |pre: &[&str], query: &str| common::ragpipe_ok(data.path(), pre, &["search", query, "--json", "--top-k", "5"]);

    for (query, needle) in ASKED {
        let model = search(&[], query);
        assert_eq!(model["fusion"], "convex (dense weight 0.75)", "the model's calibration: {model}");
        assert_eq!(rank_of(&model, needle), Some(1), "fused by score, the answer leads: {model}");
        let scores: Vec<f64> = model["hits"].as_array().unwrap().iter().map(|h| h["score"].as_f64().unwrap()).collect();
        assert!(scores.windows(2).all(|w| w[0] >= w[1]) && scores[0] <= 2.0, "normalised scores, in order: {scores:?}");

        let ranks = search(&["--config", by_rank.to_str().unwrap()], query);
        assert_eq!(ranks["fusion"], "rrf (k 60)", "{ranks}");
        let rank = rank_of(&ranks, needle);
        assert!(rank.is_some_and(|r| r > 1), "by rank a neighbour leads (the case fusing scores is for): {ranks}");

        let weighted = search(&["--config", dense_only_weight.to_str().unwrap()], query);
        assert_eq!(weighted["fusion"], "convex (dense weight 0.6)", "a weight alone means by score: {weighted}");
    }
}
