//! Abstention with the real model and its calibrated rule: a question that
//! lands near one document, well clear of the others, is answered even a
//! little beyond the distance threshold; a question that lands among all of
//! them at about the same distance is refused (docs/EVALUATION.md,
//! "Abstention").

mod common;

use std::path::Path;

fn ragpipe(data: &Path, args: &[&str]) -> serde_json::Value {
    common::ragpipe_ok(data, &[], args)
}

fn search(data: &Path, query: &str) -> serde_json::Value {
    ragpipe(data, &["search", query, "--json"])
}

#[test]
fn a_document_that_stands_out_is_an_answer_and_a_question_among_all_is_not() {
    let (folder, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples");
    for name in ["rust-book-hash-maps.html", "walkdir-README.md", "dpkg-rootless-builds.txt"] {
        std::fs::copy(samples.join(name), folder.path().join(name)).unwrap();
    }
    std::fs::write(folder.path().join("policy.md"), "# Remote work\n\nRemote work requires a signed VPN agreement.\n")
        .unwrap();
    ragpipe(data.path(), &["ingest", folder.path().to_str().unwrap(), "--json", "--quiet"]);

    // Beyond the threshold by distance alone (0.62 against 0.49 when
    // written), but only the policy is anywhere near.
    let asked = search(data.path(), "what do I need to sign to work from my kitchen table");
    let (distance, margin) = (asked["nearest_distance"].as_f64().unwrap(), asked["margin"].as_f64().unwrap());
    let (threshold, weight) = (asked["threshold"].as_f64().unwrap(), asked["margin_weight"].as_f64().unwrap());
    assert!(weight > 0.0, "the model's rule weighs the margin: {asked}");
    assert!(distance > threshold, "beyond the threshold by distance alone: {asked}");
    assert!(margin > 0.2, "the next document is far: {asked}");
    assert_eq!(asked["abstained"], false, "{asked}");
    assert!(asked["hits"][0]["document"].as_str().unwrap().ends_with("policy.md"), "{asked}");

    // Unrelated to all four: refused, whatever its margin.
    let off = search(data.path(), "what temperature should I bake sourdough bread at");
    assert_eq!(off["abstained"], true, "{off}");
    assert!(off["hits"].as_array().unwrap().is_empty());
}
