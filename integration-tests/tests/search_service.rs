//! End-to-end: `ragpipe serve search` over an embedded index of the sample
//! folder. It answers what `ragpipe search --json` answers, filters inside
//! the store, refuses requests out of bounds naming the parameter, needs its
//! token when it has one, and serves concurrent clients.

use common::net::Killed;
use ragpipe_integration_tests::ragpipe_bin;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

const QUESTION: &str = "how do I update the value stored under a key in a hash map";
/// Answered by the text file (dpkg-rootless-builds.txt).
const ROOTLESS: &str = "can packages be built without root privileges";

fn ragpipe(data: &Path, env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(ragpipe_bin());
    cmd.arg("--data-dir").arg(data).envs(env.iter().copied());
    cmd
}

/// Starts the service; returns it and its base URL.
fn serve(data: &Path, env: &[(&str, &str)]) -> (Killed, String) {
    let mut cmd = ragpipe(data, env);
    cmd.args(["serve", "search", "--listen", "127.0.0.1:0"]);
    common::net::serve(cmd, "search")
}

fn post(url: &str, body: &Value, token: Option<&str>) -> (u16, Value) {
    let http: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    let mut req = http.post(&format!("{url}/api/search"));
    if let Some(t) = token {
        req = req.header("Authorization", &format!("Bearer {t}"));
    }
    let mut res = req.send_json(body).unwrap();
    let text = res.body_mut().read_to_string().unwrap();
    (res.status().as_u16(), serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

/// The sample folder ingested into a fresh data directory.
fn indexed() -> tempfile::TempDir {
    let data = tempfile::tempdir().unwrap();
    let samples = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../samples");
    let (code, summary) = common::run_json(ragpipe(data.path(), &[]), &["ingest", samples.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{summary}");
    data
}

#[test]
fn the_service_answers_as_the_cli_does_and_filters_in_the_store() {
    let data = indexed();
    // The CLI first: the embedded store admits one owner at a time.
    let (code, cli) = common::run_json(ragpipe(data.path(), &[]), &["search", QUESTION, "--json"]);
    assert_eq!(code, 0, "{cli}");
    let (code, cli_text) =
        common::run_json(ragpipe(data.path(), &[]), &["search", ROOTLESS, "--json", "--kind", "text", "--top-k", "3"]);
    assert_eq!(code, 0, "{cli_text}");

    let (_server, url) = serve(data.path(), &[]);
    let (code, ready) = common::net::http_get(&format!("{url}/readyz"), None);
    assert_eq!((code, &ready["ready"]), (200, &json!(true)), "{ready}");
    let (code, served) = post(&url, &json!({"query": QUESTION}), None);
    assert_eq!(code, 200, "{served}");
    assert_eq!(served, cli, "one JSON shape, one answer");
    assert!(served["hits"][0]["document"].as_str().unwrap().ends_with("rust-book-hash-maps.html"));
    let (_, again) = post(&url, &json!({"query": QUESTION}), None);
    assert_eq!(again, served, "a repeated question (its embedding cached) answers the same");

    // A filter narrows inside the store: only the text file, as many hits as asked.
    let (code, text) = post(&url, &json!({"query": ROOTLESS, "top_k": 3, "filter": {"kinds": ["text"]}}), None);
    assert_eq!(code, 200, "{text}");
    assert_eq!(text, cli_text, "the CLI's --kind is the API's filter");
    let hits = text["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 3, "{text}");
    assert!(hits.iter().all(|h| h["kind"] == "text"), "{text}");
    let readme = served["hits"].as_array().unwrap().iter().find_map(|h| {
        let d = h["document"].as_str().unwrap();
        (!d.ends_with("rust-book-hash-maps.html")).then(|| d.to_string())
    });
    if let Some(doc) = readme {
        let (_, one) = post(&url, &json!({"query": QUESTION, "filter": {"documents": [doc]}}), None);
        assert!(one["hits"].as_array().unwrap().iter().all(|h| h["document"] == doc.as_str()), "{one}");
    }

    // Out of bounds: refused, naming the parameter.
    for (body, parameter) in [
        (json!({"query": ""}), "query"),
        (json!({"query": "x".repeat(5000)}), "query"),
        (json!({"query": QUESTION, "top_k": 0}), "top_k"),
        (json!({"query": QUESTION, "top_k": 1000}), "top_k"),
        (json!({"query": QUESTION, "where": "1=1"}), "body"),
        (json!({"query": QUESTION, "filter": {"kinds": "pdf"}}), "body"),
    ] {
        let (code, err) = post(&url, &body, None);
        assert_eq!((code, err["parameter"].as_str()), (400, Some(parameter)), "{body}: {err}");
    }
    let (code, spec) = common::net::http_get(&format!("{url}/openapi.json"), None);
    assert_eq!(code, 200);
    assert!(spec["paths"]["/api/search"]["post"].is_object(), "{spec}");
}

#[test]
fn concurrent_clients_are_all_answered_and_the_token_is_required() {
    let data = indexed();
    let token = "a-long-search-secret";
    let (_server, url) = serve(data.path(), &[("RAGPIPE_SEARCH_TOKEN", token)]);
    let (code, _) = post(&url, &json!({"query": QUESTION}), None);
    assert_eq!(code, 401, "no token");
    let (code, _) = post(&url, &json!({"query": QUESTION}), Some("wrong"));
    assert_eq!(code, 401, "wrong token");
    let (code, ready) = common::net::http_get(&format!("{url}/readyz"), None);
    assert_eq!(code, 200, "probes carry no token: {ready}");

    let questions = [QUESTION, "rootless builds with fakeroot", "walk a directory recursively", "Cargo.lock"];
    let clients: Vec<_> = (0..16)
        .map(|i| {
            let (url, q) = (url.clone(), questions[i % questions.len()].to_string());
            std::thread::spawn(move || post(&url, &json!({"query": q, "top_k": 2}), Some(token)))
        })
        .collect();
    for client in clients {
        let (code, answer) = client.join().unwrap();
        assert_eq!(code, 200, "{answer}");
        assert!(answer["hits"].as_array().unwrap().len() <= 2, "{answer}");
    }
}

/// `ragpipe serve --folder`: one process indexes the folder, keeps it in
/// sync and answers searches and the admin API over the same index.
#[test]
fn one_process_indexes_a_folder_keeps_it_in_sync_and_answers() {
    use std::io::BufRead;
    let (folder, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let samples = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../samples");
    std::fs::copy(samples.join("rust-book-hash-maps.html"), folder.path().join("hash-maps.html")).unwrap();
    let env = [("RAGPIPE_SEARCH_LISTEN", "127.0.0.1:0"), ("RAGPIPE_ADMIN_LISTEN", "127.0.0.1:0")];
    let mut cmd = ragpipe(data.path(), &env);
    cmd.args(["serve", "--folder", folder.path().to_str().unwrap(), "--every", "1s"]);
    let mut child = cmd.stdout(std::process::Stdio::piped()).spawn().unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let _server = Killed(child);
    let mut url = |what: &str| {
        let line = lines.next().unwrap().unwrap();
        line.strip_prefix(&format!("{what} listening on ")).unwrap_or_else(|| panic!("{line:?}")).to_string()
    };
    let (search, admin) = (url("search"), url("admin"));
    // Keep reading what the process prints (run summaries) so it never blocks.
    std::thread::spawn(move || lines.for_each(drop));

    let found = |question: &str, file: &str| {
        let started = std::time::Instant::now();
        loop {
            let (code, answer) = post(&search, &json!({"query": question}), None);
            assert_eq!(code, 200, "{answer}");
            let hits = answer["hits"].as_array().unwrap();
            if hits.iter().any(|h| h["document"].as_str().unwrap().ends_with(file)) {
                return answer;
            }
            assert!(started.elapsed().as_secs() < 180, "{file} never found: {answer}");
            std::thread::sleep(std::time::Duration::from_millis(500));
        }
    };
    found(QUESTION, "hash-maps.html");
    std::fs::write(
        folder.path().join("tides.md"),
        "# Tides\n\nThe causeway to the island floods at every spring tide; cross only at low water.\n",
    )
    .unwrap();
    let answer = found("when is the causeway to the island under water", "tides.md");
    assert_eq!(answer["hits"][0]["document"].as_str().map(|d| d.ends_with("tides.md")), Some(true), "{answer}");
    // The new document's points are searchable a moment before the embedder
    // commits its state (count read back, then `indexed`): wait for that.
    let started = std::time::Instant::now();
    loop {
        let (code, status) = common::net::http_get(&format!("{admin}/api/status"), None);
        assert_eq!(code, 200, "{status}");
        if status["documents"]["indexed"].as_i64() == Some(2) {
            break;
        }
        assert!(started.elapsed().as_secs() < 60, "tides.md never indexed: {status}");
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}
