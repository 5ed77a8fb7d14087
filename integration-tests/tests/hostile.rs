//! End to end: the representative subset of the hostile corpus
//! (`scripts/hostile/make_corpus.py --small`: truncated, bit-flipped,
//! empty, mislabelled, encrypted, bombs, deep nesting, long one-line files,
//! XXE, bad encodings, symlinks out, FIFOs, odd names, a sparse 3 GiB file,
//! an MP3 without ID3, beside good controls) through `ragpipe ingest`,
//! checked by the same script the full figures come from
//! (`scripts/hostile.sh`): every document `indexed` or `failed` with a
//! reason, none pending, the good controls indexed, nothing outside the
//! folder indexed, entries that are not documents reported as skipped, and
//! the whole process tree under the 2 GiB cap (the watcher kills it past
//! that, which fails the run).

use ragpipe_integration_tests::ragpipe_bin;
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

#[test]
fn a_hostile_folder_ends_with_every_document_indexed_or_failed_within_2_gib() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Command::new(root.join("scripts/hostile.sh"))
        .arg("--small")
        .env("RAGPIPE_BIN", ragpipe_bin())
        .output()
        .expect("scripts/hostile.sh runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let summary: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("hostile.sh printed no JSON summary ({e}); stderr:\n{stderr}"));
    eprintln!("{}", serde_json::to_string_pretty(&summary).unwrap());
    assert!(out.status.success(), "failed checks: {}", summary["failed_checks"]);
    assert_eq!(summary["ok"], true);

    let by_status = summary["documents"]["by_status"].as_object().expect("documents by status");
    for pending in ["queued", "extracting", "embedding"] {
        assert!(by_status.get(pending).is_none_or(|n| n == 0), "{pending}: {by_status:?}");
    }
    assert!(by_status["indexed"].as_u64().unwrap() >= 10, "the good controls are indexed: {by_status:?}");
    assert!(by_status["failed"].as_u64().unwrap() >= 10, "the broken files fail: {by_status:?}");
    let peak = summary["peak_tree_rss_mib"].as_f64().expect("peak RSS measured");
    assert!(peak > 0.0 && peak < 2048.0, "peak tree RSS {peak} MiB");
    assert!(summary["cap_hit"] == false && summary["wall_limit_hit"] == false);
    let skipped = summary["ingest_report"]["sync"]["skipped"].as_u64().unwrap_or_default();
    assert!(skipped >= 3, "symlinks out, FIFOs and the like are reported as skipped: {}", summary["ingest_report"]);
}
