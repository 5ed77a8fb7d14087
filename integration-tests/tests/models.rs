//! Models as data, sealed per index: the `ragpipe` binary with the
//! provisioned all-MiniLM-L6-v2 and with model folders of one's own made from
//! its files. An index records the model that first embedded into it (name,
//! width, weights hash); other weights under the same name are refused, a
//! custom model is recorded under its own name and width, and a spec that
//! misstates the width is refused instead of cut to fit.

use ragpipe_embed::{ModelFiles, ModelVariant};
use ragpipe_integration_tests::ragpipe_bin;
use std::path::Path;
use std::process::{Command, Output};

mod common;

fn ragpipe(data: &Path, env: &[(&str, &Path)], args: &[&str]) -> Output {
    let mut cmd = Command::new(ragpipe_bin());
    cmd.arg("--data-dir").arg(data).args(args);
    for (name, value) in env {
        cmd.env(name, value);
    }
    cmd.output().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn corpus() -> tempfile::TempDir {
    let folder = tempfile::tempdir().unwrap();
    std::fs::write(
        folder.path().join("policy.md"),
        "# Remote work\n\nRemote work requires a signed VPN agreement and a company laptop with disk encryption.\n",
    )
    .unwrap();
    folder
}

/// A model folder holding the provisioned MiniLM's tokenizer, `onnx` as its
/// `as_file` (`model.onnx`, or `model-int8.onnx` for the int8 variant), and
/// `spec` as its `ragpipe-model.json`.
fn model_folder(onnx: &Path, as_file: &str, spec: &str) -> tempfile::TempDir {
    let provisioned = ModelFiles::provisioned(ModelVariant::Fp32).expect("model provisioned");
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(onnx, dir.path().join(as_file)).unwrap();
    std::os::unix::fs::symlink(&provisioned.tokenizer, dir.path().join("tokenizer.json")).unwrap();
    std::fs::write(dir.path().join("ragpipe-model.json"), spec).unwrap();
    dir
}

fn minilm(variant: ModelVariant) -> std::path::PathBuf {
    ModelFiles::provisioned(variant).expect("model provisioned").onnx
}

#[test]
fn an_index_refuses_other_weights_under_its_models_name() {
    let (folder, data) = (corpus(), tempfile::tempdir().unwrap());
    let out = ragpipe(data.path(), &[], &["ingest", folder.path().to_str().unwrap(), "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let found = ragpipe(data.path(), &[], &["search", "what does remote work need", "--json", "--no-threshold"]);
    assert!(found.status.success(), "{}", stderr(&found));

    // The index runs the default int8 weights; the fp32 weights, presented
    // as all-MiniLM-L6-v2's int8 file.
    let spec = r#"{"name": "all-MiniLM-L6-v2", "dims": 384, "max_tokens": 256}"#;
    let imposter = model_folder(&minilm(ModelVariant::Fp32), "model-int8.onnx", spec);
    let env = [("RAGPIPE_MODEL_DIR", imposter.path())];
    for args in [&["search", "what does remote work need"][..], &["ingest", folder.path().to_str().unwrap()]] {
        let out = ragpipe(data.path(), &env, args);
        let why = stderr(&out);
        assert!(!out.status.success(), "{args:?} ran with other weights");
        assert!(why.contains("is sealed to model all-MiniLM-L6-v2-int8"), "{why}");
        assert!(why.contains("weights sha256"), "{why}");
        assert!(why.contains("ragpipe reindex"), "says what to do: {why}");
    }
    // The original files are found again: the index works as before.
    let again = ragpipe(data.path(), &[], &["search", "what does remote work need", "--json", "--no-threshold"]);
    assert!(again.status.success(), "{}", stderr(&again));
}

#[test]
fn a_custom_model_is_recorded_under_its_own_name_and_width() {
    let (folder, data) = (corpus(), tempfile::tempdir().unwrap());
    let spec = r#"{"name": "my-encoder", "dims": 384, "max_tokens": 128}"#;
    let custom = model_folder(&minilm(ModelVariant::Fp32), "model.onnx", spec);
    let env = [("RAGPIPE_MODEL_DIR", custom.path())];
    let config = data.path().join("ragpipe.toml");
    // A folder with only model.onnx under the default variant (int8): refused, saying what to do.
    std::fs::write(&config, "[model]\nname = \"custom\"\n").unwrap();
    let cfg = config.to_str().unwrap();
    let out = ragpipe(data.path(), &env, &["--config", cfg, "ingest", folder.path().to_str().unwrap()]);
    let why = stderr(&out);
    assert!(!out.status.success(), "ran without int8 weights");
    assert!(why.contains("model-int8.onnx") && why.contains("variant = \"fp32\""), "{why}");
    std::fs::write(&config, "[model]\nname = \"custom\"\nvariant = \"fp32\"\n").unwrap();
    let out = ragpipe(data.path(), &env, &["--config", cfg, "ingest", folder.path().to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let found = ragpipe(data.path(), &env, &["--config", cfg, "search", "VPN agreement", "--json", "--no-threshold"]);
    assert!(found.status.success(), "{}", stderr(&found));
    let json: serde_json::Value = serde_json::from_slice(&found.stdout).unwrap();
    assert_eq!(json["index"]["model"], "my-encoder", "{json}");
    assert!(json["index"]["name"].as_str().unwrap().starts_with("chunks_my-encoder_384d"), "{json}");

    // A spec that misstates the width: refused, not cut to fit.
    let wide =
        model_folder(&minilm(ModelVariant::Fp32), "model.onnx", r#"{"name": "wide", "dims": 768, "max_tokens": 256}"#);
    let env = [("RAGPIPE_MODEL_DIR", wide.path())];
    let fresh = tempfile::tempdir().unwrap();
    let out = ragpipe(fresh.path(), &env, &["--config", cfg, "ingest", folder.path().to_str().unwrap()]);
    let why = stderr(&out);
    assert!(!out.status.success());
    assert!(why.contains("outputs 384-dimensional vectors but the spec of wide says 768"), "{why}");
}

#[test]
fn a_spanish_folder_reindexed_with_the_multilingual_model_is_answered_in_spanish() {
    let (folder, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../eval/corpus-es");
    for name in ["man-at.1.txt", "man-chmod.1.txt", "man-fstab.5.txt"] {
        std::fs::copy(corpus.join(name), folder.path().join(name)).unwrap();
    }
    // Indexed first with the default model, then moved to e5 by a reindex.
    let out = ragpipe(data.path(), &[], &["ingest", folder.path().to_str().unwrap(), "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let config = data.path().join("ragpipe.toml");
    std::fs::write(&config, "[model]\nname = \"multilingual-e5-small\"\n").unwrap();
    let cfg = config.to_str().unwrap();
    let out = ragpipe(data.path(), &[], &["--config", cfg, "reindex", "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));

    let asked = "¿Qué archivos definen qué usuarios pueden usar at?";
    let found = ragpipe(data.path(), &[], &["--config", cfg, "search", asked, "--json"]);
    assert!(found.status.success(), "{}", stderr(&found));
    let json: serde_json::Value = serde_json::from_slice(&found.stdout).unwrap();
    assert_eq!(json["index"]["model"], "multilingual-e5-small-int8", "the default variant: {json}");
    assert_eq!(json["abstained"], false, "{json}");
    // At e5's own budget (512) the page is four chunks, all ahead of the
    // other pages; the one that answers is among the first three (fused with
    // BM25, which favours chmod(1)'s many "usuarios", it was second at 256).
    let hits = json["hits"].as_array().unwrap();
    assert!(hits[..3].iter().all(|h| h["document"].as_str().unwrap().ends_with("man-at.1.txt")), "{json}");
    let answer = hits[..3]
        .iter()
        .find(|h| h["content"].as_str().unwrap().contains("los permisos para utilizarlos"))
        .unwrap_or_else(|| panic!("not in the first three hits: {json}"));
    assert!(answer["locator"].as_str().unwrap().starts_with("#char="), "cited: {json}");
    assert_eq!(json["fusion"], "convex (dense weight 0.7)", "the model's own fusion: {json}");

    // e5 abstains by windows (its spec's abstain_window_words): a question
    // whose nearest chunk lies beyond the threshold while a window of that
    // chunk is within it is answered; an unrelated question is refused.
    let search = |q: &str| {
        let out = ragpipe(data.path(), &[], &["--config", cfg, "search", q, "--json"]);
        assert!(out.status.success(), "{}", stderr(&out));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let asked = search("¿Cuándo ejecuta batch las órdenes encoladas?");
    let threshold = asked["threshold"].as_f64().unwrap();
    let window = asked["nearest_window_distance"].as_f64().unwrap_or_else(|| panic!("no window evidence: {asked}"));
    assert!(asked["nearest_distance"].as_f64().unwrap() > threshold, "beyond by its chunk: {asked}");
    assert!(window <= threshold, "within by its window: {asked}");
    assert_eq!(asked["abstained"], false, "{asked}");
    assert!(asked["hits"][0]["document"].as_str().unwrap().ends_with("man-at.1.txt"), "{asked}");
    let off = search("¿Cómo pido el reembolso de los gastos de taxi de un viaje de trabajo?");
    assert_eq!(off["abstained"], true, "{off}");
    assert!(off["nearest_window_distance"].as_f64().unwrap() > threshold, "{off}");
    // A chunk well within the threshold (0.8 x) answers without its windows
    // being measured: the step is skipped where it cannot change the answer.
    let clear = search(
        "at y batch leen órdenes de la entrada estándar o de un archivo especificado que van a ser ejecutadas más tarde",
    );
    assert!(clear["nearest_distance"].as_f64().unwrap() <= 0.8 * threshold, "{clear}");
    assert!(clear["nearest_window_distance"].is_null(), "not measured: {clear}");
    assert_eq!(clear["abstained"], false, "{clear}");
    assert!(clear["hits"][0]["document"].as_str().unwrap().ends_with("man-at.1.txt"), "{clear}");
    // A question typed without its accents is searched once more as its
    // nearest chunks write it (`órdenes`); a word they also write bare
    // (`cuando`) stays as typed, and a question typed with them is not read
    // again.
    let bare = search("¿Cuando ejecuta batch las ordenes encoladas?");
    assert_eq!(bare["read_as"], "¿Cuando ejecuta batch las órdenes encoladas?", "{bare}");
    assert_eq!(bare["abstained"], false, "{bare}");
    assert!(bare["hits"][0]["document"].as_str().unwrap().ends_with("man-at.1.txt"), "{bare}");
    assert!(search("¿Cuándo ejecuta batch las órdenes encoladas?")["read_as"].is_null());
    let typed = ragpipe(data.path(), &[], &["--config", cfg, "search", "¿Cuando ejecuta batch las ordenes encoladas?"]);
    let said = String::from_utf8_lossy(&typed.stdout);
    assert!(said.starts_with("searched as: ¿Cuando ejecuta batch las órdenes encoladas?\n"), "{said}");
    let text = ragpipe(data.path(), &[], &["--config", cfg, "search", "¿Cómo pido el reembolso de un taxi?"]);
    let said = String::from_utf8_lossy(&text.stdout);
    assert!(
        said.contains("no answer") && said.contains("nearest window's distance"),
        "the reason names its evidence: {said}"
    );

    // The service keeps the nearest chunks' window vectors: asked twice,
    // the second answer reads them from its cache, with the same evidence.
    let mut cmd = Command::new(ragpipe_bin());
    cmd.arg("--data-dir").arg(data.path()).args(["--config", cfg, "serve", "search", "--listen", "127.0.0.1:0"]);
    let (_service, url) = common::net::serve(cmd, "search");
    let http: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    let ask = || -> serde_json::Value {
        let body = serde_json::json!({"query": "¿Cuándo ejecuta batch las órdenes encoladas?"});
        let mut res = http.post(&format!("{url}/api/search")).send_json(&body).unwrap();
        serde_json::from_str(&res.body_mut().read_to_string().unwrap()).unwrap()
    };
    let (first, second) = (ask(), ask());
    for served in [&first, &second] {
        let got = served["nearest_window_distance"].as_f64().unwrap();
        assert!((got - window).abs() < 1e-6, "as the CLI measured ({window}): {served}");
        assert_eq!(served["abstained"], false, "{served}");
    }
}

#[test]
fn the_larger_english_model_is_chosen_by_name_and_sealed_as_its_own() {
    // scripts/provision-mpnet.sh (run by scripts/test.sh) put it in the cache.
    let (folder, data) = (corpus(), tempfile::tempdir().unwrap());
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../eval/corpus");
    for name in ["shlex-quoting-warning.md", "getrandom-README.md"] {
        std::fs::copy(corpus.join(name), folder.path().join(name)).unwrap();
    }
    let config = data.path().join("ragpipe.toml");
    std::fs::write(&config, "[model]\nname = \"all-mpnet-base-v2\"\n").unwrap();
    let cfg = config.to_str().unwrap();
    let out = ragpipe(data.path(), &[], &["--config", cfg, "ingest", folder.path().to_str().unwrap(), "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));

    let found = ragpipe(data.path(), &[], &["--config", cfg, "search", "what does remote work require", "--json"]);
    assert!(found.status.success(), "{}", stderr(&found));
    let json: serde_json::Value = serde_json::from_slice(&found.stdout).unwrap();
    assert_eq!(json["index"]["model"], "all-mpnet-base-v2-int8", "the default variant: {json}");
    assert!(json["index"]["name"].as_str().unwrap().contains("_768d"), "768 dimensions, not cut to 384: {json}");
    assert_eq!(json["abstained"], false, "{json}");
    let first = &json["hits"][0];
    assert!(first["document"].as_str().unwrap().ends_with("policy.md"), "{json}");
    assert!(first["content"].as_str().unwrap().contains("signed VPN agreement"), "{json}");
    assert!(first["locator"].as_str().unwrap().starts_with("#char="), "cited: {json}");
    // It abstains by windows, as e5 does (its spec's abstain_window_words),
    // measured only where the nearest chunk leaves the answer in doubt.
    assert!(json["nearest_window_distance"].is_null(), "clearly near, not measured: {json}");
    let out = ragpipe(
        data.path(),
        &[],
        &["--config", cfg, "search", "How do I get a taxi refunded after a business trip?", "--json"],
    );
    let off: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(off["abstained"], true, "{off}");
    assert!(off["nearest_window_distance"].as_f64().unwrap() > off["threshold"].as_f64().unwrap(), "{off}");

    // The index stays the larger model's: a search under the default model's
    // configuration is answered by the index's own model, not refused or mixed.
    let found = ragpipe(data.path(), &[], &["search", "is shlex.quote safe on Windows", "--json"]);
    assert!(found.status.success(), "{}", stderr(&found));
    let json: serde_json::Value = serde_json::from_slice(&found.stdout).unwrap();
    assert_eq!(json["index"]["model"], "all-mpnet-base-v2-int8", "{json}");
    assert!(json["hits"][0]["document"].as_str().unwrap().ends_with("shlex-quoting-warning.md"), "{json}");
    assert!(json["nearest_window_distance"].as_f64().is_some(), "its own abstention rule too: {json}");
    // Its chunks are cut to its own budget (the spec's chunk_budget, 384):
    // some are over MiniLM's 256 and none over 384.
    let readme = folder.path().join("getrandom-README.md");
    let out = ragpipe(data.path(), &[], &["--config", cfg, "chunks", readme.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let chunks: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let tokens: Vec<u64> = chunks.iter().map(|c| c["tokens"].as_u64().unwrap()).collect();
    assert!(tokens.iter().any(|&t| t > 256) && tokens.iter().all(|&t| t <= 384), "{tokens:?}");

    // A budget set over the model's window is refused, not cut.
    let small = data.path().join("small.toml");
    std::fs::write(&small, "[chunking]\nbudget = 384\n").unwrap();
    let fresh = tempfile::tempdir().unwrap();
    let out =
        ragpipe(fresh.path(), &[], &["--config", small.to_str().unwrap(), "ingest", folder.path().to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("chunking.budget 384 is over the window of all-MiniLM-L6-v2 (256 word-pieces)"),
        "{}",
        stderr(&out)
    );
}
