//! The distributed mode end to end on real engines: objects in SeaweedFS,
//! jobs on RabbitMQ, state in PostgreSQL, workers as separate `ragpipe
//! serve` processes (`common::deployment`). Each test has its own bucket,
//! queue namespace and database schema.

use ragpipe_core::{DocState, DocStatus};
use ragpipe_state::StateStore;
use serde_json::Value;
use std::collections::BTreeMap;
use std::process::Stdio;
use std::time::{Duration, Instant};

mod common;

use common::deployment::{Deployment, FIXTURE_FAILURES, failures, fixture};
use common::net::{free_port, http_get};

fn name(d: &DocState) -> &str {
    d.uri.rsplit('/').next().unwrap()
}

async fn check_counts(dep: &Deployment, docs: &[DocState]) {
    dep.check_counts(&dep.live_collection(), docs).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn services_index_an_s3_bucket_resync_only_changes_and_survive_killed_workers() {
    let mut dep = Deployment::new().await;
    dep.put("handbook.pdf", fixture("pdf", "handbook.pdf")).await;
    dep.put("book.xlsx", fixture("sheets", "book.xlsx")).await;
    dep.put("hex.rs", fixture("code", "hex.rs")).await;
    dep.put("intro.wav", fixture("audio", "intro.wav")).await;
    dep.put("intro.vtt", fixture("audio", "intro.vtt")).await;
    dep.put("truncated.xlsx", fixture("sheets", "truncated.xlsx")).await;
    dep.put("encrypted.pdf", fixture("pdf", "encrypted.pdf")).await;

    // The first sync publishes before any worker runs: jobs wait durably.
    let report = dep.sync();
    assert_eq!((report["new"].as_u64(), report["listed"].as_u64()), (Some(6), Some(6)), "{report}");
    // Two extractor processes share the extract queue.
    dep.start("extractor");
    dep.start("extractor");
    dep.start("embedder");
    let docs = dep.settle(6).await;
    assert_eq!(failures(&docs), BTreeMap::from(FIXTURE_FAILURES));
    dep.stop("embedder", false);
    check_counts(&dep, &docs).await;

    // Unchanged: nothing is published.
    let report = dep.sync();
    assert_eq!((report["new"].as_u64(), report["changed"].as_u64()), (Some(0), Some(0)), "{report}");
    assert_eq!(report["unchanged"].as_u64(), Some(6));

    // One modified, one deleted, two added, one that spins its parser: only
    // those move. Workers are killed (SIGKILL) in the middle of a document:
    // the extractor while the spinning PDF is being extracted, the embedder
    // half-way through a many-batch document; new ones finish the work.
    let before: BTreeMap<String, i64> = docs.iter().map(|d| (name(d).to_string(), d.generation)).collect();
    let mut hex = fixture("code", "hex.rs");
    hex.extend_from_slice(b"\n/// Added after the first sync.\npub fn extra() {}\n");
    dep.put("hex.rs", hex).await;
    dep.delete("book.xlsx").await;
    dep.put("stack.go", fixture("code", "stack.go")).await;
    dep.put("penguins.tsv", fixture("sheets", "penguins.tsv")).await;
    // A page that is its own parent: pdf-extract loops until the time limit.
    let spin = common::Page { content: b"BT /F1 12 Tf (x) Tj ET", parent: Some("3 0 R"), ..Default::default() };
    dep.put("spin.pdf", common::one_page_pdf(spin)).await;
    let report = dep.sync();
    let moved = (report["new"].as_u64(), report["changed"].as_u64(), report["deleted"].as_u64());
    assert_eq!(moved, (Some(3), Some(1), Some(1)), "{report}");

    dep.start("extractor");
    dep.wait_for("spin.pdf", DocStatus::Extracting).await;
    dep.stop("extractor", true);
    dep.start("extractor");
    let penguins = dep.wait_for("penguins.tsv", DocStatus::Embedding).await;
    let expected = penguins.batches_expected.unwrap();
    assert!(expected >= 10, "penguins.tsv is {expected} embed jobs");
    dep.start("embedder");
    let started = Instant::now();
    while dep.batches(&penguins).await == 0 {
        assert!(started.elapsed() < Duration::from_secs(120), "the embedder never stored a batch");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    dep.stop("embedder", true);
    let stored = dep.batches(&penguins).await;
    assert!(stored < expected, "killed half-way: {stored} of {expected} batches stored");
    dep.start("embedder");
    dep.settle(9).await;

    // The broker connection of every worker drops (the proxy cuts them all
    // and comes back): the workers reconnect and process a new document.
    dep.broker.cut().await;
    dep.put("late.md", b"# Late\n\nAdded after every broker connection was cut.\n".to_vec()).await;
    let report = dep.sync();
    assert_eq!(report["new"].as_u64(), Some(1), "{report}");
    let docs = dep.settle(10).await;
    assert!(docs.iter().any(|d| name(d) == "late.md" && d.status == DocStatus::Indexed), "reconnected workers");
    dep.stop("embedder", false);
    dep.stop("extractor", false);

    let status: BTreeMap<&str, &DocState> = docs.iter().map(|d| (name(d), d)).collect();
    assert_eq!(status["book.xlsx"].status, DocStatus::Deleted);
    for new in ["stack.go", "penguins.tsv", "hex.rs"] {
        assert_eq!(status[new].status, DocStatus::Indexed, "{new}");
    }
    assert!(status["hex.rs"].generation > before["hex.rs"], "hex.rs has a new generation");
    assert_eq!(status["spin.pdf"].status, DocStatus::Failed);
    assert_eq!(status["spin.pdf"].failure_reason.as_deref(), Some("extraction timed out after 3s"));
    for unchanged in ["handbook.pdf", "intro.wav", "encrypted.pdf", "truncated.xlsx"] {
        assert_eq!(status[unchanged].generation, before[unchanged], "{unchanged} was not reprocessed");
    }
    check_counts(&dep, &docs).await;

    // `ragpipe eval` runs against the deployment's index as it does against
    // the embedded one (state from PostgreSQL, the embedder's vectors).
    let golden = dep.data.path().join("golden.jsonl");
    let lines = [
        r#"{"id":"d1-doc","qid":"d1","style":"doc","query":"When does the causeway flood?","doc":"handbook.pdf","kind":"pdf","needles":["causeway floods two hours before high water"]}"#,
        r#"{"id":"d2-doc","qid":"d2","style":"doc","query":"Where are the first aid kits kept?","doc":"handbook.pdf","kind":"pdf","needles":["First aid kits are kept in the kitchen"]}"#,
    ];
    std::fs::write(&golden, lines.join("\n")).unwrap();
    let out = dep.command(&["eval", "--golden", golden.to_str().unwrap(), "--json"]).output().unwrap();
    assert!(out.status.success(), "eval: {}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["overall"]["queries"], 2, "{report}");
    assert_eq!(report["overall"]["recall"]["8"]["value"], 1.0, "{report}");
    assert_eq!(report["destroyed"], serde_json::json!([]));
    // The abstention gate applies the model's own rule at its threshold: an
    // unrelated question is refused, a question the handbook answers, posed
    // as out-of-domain, is a bluff and fails the gate.
    let ood = dep.data.path().join("ood.jsonl");
    let gated = |line: &str| {
        std::fs::write(&ood, line).unwrap();
        let args = ["eval", "--golden", golden.to_str().unwrap(), "--ood", ood.to_str().unwrap()];
        dep.command(&args).args(["--gate", "--max-refused", "0", "--max-bluffs", "0"]).output().unwrap()
    };
    let out = gated(r#"{"id":"o1","query":"How long should I boil an egg to get a runny yolk?","kind":"ood"}"#);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text} {}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("0 of 2 answerable refused (0.0 %), 0 of 1 out-of-domain answered"), "{text}");
    let out = gated(r#"{"id":"o1","query":"Where are the first aid kits kept?","kind":"ood"}"#);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stderr).contains("answers 100.0 % of the out-of-domain queries"));

    // Scheduled form: one JSON line per run, nothing to do, stops on SIGTERM.
    let mut every =
        dep.command(&["sync", "--every", "200ms"]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(every.stdout.take().unwrap()));
    for _ in 0..2 {
        let Some(Ok(line)) = lines.next() else {
            let out = every.wait_with_output().unwrap();
            panic!("sync --every stopped: {:?} {}", out.status, String::from_utf8_lossy(&out.stderr));
        };
        let run: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(
            (run["new"].as_u64(), run["changed"].as_u64(), run["deleted"].as_u64()),
            (Some(0), Some(0), Some(0))
        );
        assert_eq!(run["listed"].as_u64(), Some(9), "{run}");
    }
    unsafe { libc::kill(every.id() as i32, libc::SIGTERM) };
    assert!(every.wait().unwrap().success(), "a scheduled sync stops cleanly on SIGTERM");

    // Runs never overlap: while another coordinator holds the sync lock, a
    // run does nothing and says who holds it; once that coordinator is gone
    // (its lease ran out) the next run works and the dead one is abandoned.
    let state = dep.state().await;
    let lease = std::time::Duration::from_millis(1500);
    state.begin_sync(1, "s3://elsewhere", "other-host:42", lease).await.unwrap().expect("the lock is free");
    let skipped = dep.sync();
    assert_eq!(skipped["held_by"]["holder"], "other-host:42", "{skipped}");
    assert!(skipped.get("new").is_none(), "a refused run lists nothing: {skipped}");
    std::thread::sleep(lease);
    let report = dep.sync();
    assert_eq!(report["listed"].as_u64(), Some(9), "{report}");
    let runs = state.sync_runs(50).await.unwrap();
    let abandoned = runs.iter().find(|r| r.run == 1).unwrap();
    assert_eq!(abandoned.state, ragpipe_state::SyncRunState::Abandoned);
    assert!(runs.iter().filter(|r| r.run != 1).all(|r| r.state == ragpipe_state::SyncRunState::Finished), "{runs:?}");

    // Admin retry: the failed documents whose reason matches are queued as a
    // new generation and their jobs published; a worker fails them again.
    let out = dep.command(&["retry", "--reason", "encrypted", "--json"]).output().unwrap();
    assert!(out.status.success(), "retry: {}", String::from_utf8_lossy(&out.stderr));
    let retried: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(retried["queued"].as_array().map(Vec::len), Some(1), "{retried}");
    assert_eq!(retried["published"], true);
    // This extractor answers probes: live at once, ready once consuming.
    let probes = free_port();
    dep.env.push(("RAGPIPE_HEALTH_LISTEN".into(), format!("127.0.0.1:{probes}")));
    dep.start("extractor");
    dep.env.pop();
    assert_eq!(http_get(&format!("http://127.0.0.1:{probes}/readyz"), None).0, 200);
    assert_eq!(http_get(&format!("http://127.0.0.1:{probes}/healthz"), None).0, 200);
    let state = dep.state().await;
    let started = Instant::now();
    loop {
        let doc = ragpipe_state::every(&state, &Default::default())
            .await
            .unwrap()
            .into_iter()
            .find(|d| name(d) == "encrypted.pdf")
            .unwrap();
        if doc.generation == before["encrypted.pdf"] + 1 && doc.status == DocStatus::Failed {
            assert_eq!(doc.failure_reason.as_deref(), Some("encrypted PDF"));
            assert_eq!(doc.attempts, 1, "attempts start again");
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "retried document not processed: {doc:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    dep.stop("extractor", false);

    // The admin server over this deployment, with a token: the failures are
    // listed with their reasons, and it is ready (PostgreSQL and RabbitMQ answer).
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let mut admin = dep
        .command(&["serve", "admin", "--listen", &listen])
        .env("RAGPIPE_ADMIN_TOKEN", "t0ken")
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let api = format!("http://{listen}/api/documents?status=failed");
    let (code, body) = http_get(&api, Some("t0ken"));
    assert_eq!(code, 200, "{body}");
    let reasons: BTreeMap<String, String> = body["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (d["source"].as_str().unwrap().rsplit('/').next().unwrap().into(), d["reason"].as_str().unwrap().into())
        })
        .collect();
    assert_eq!(reasons.get("encrypted.pdf").map(String::as_str), Some("encrypted PDF"), "{body}");
    assert_eq!(http_get(&api, None).0, 401);
    assert_eq!(http_get(&format!("http://{listen}/readyz"), None).0, 200);
    unsafe { libc::kill(admin.id() as i32, libc::SIGTERM) };
    assert!(admin.wait().unwrap().success());
    dep.remove().await;
}

/// A reindex over running services: the same worker processes follow the
/// build (no restart) and write the new collection, `ragpipe reindex`
/// publishes its jobs and waits, the swap comes when every document is
/// indexed or failed in the new collection, and the old one is dropped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reindex_runs_on_the_workers_and_swaps_when_complete() {
    let mut dep = Deployment::new().await;
    dep.put("handbook.pdf", fixture("pdf", "handbook.pdf")).await;
    dep.put("hex.rs", fixture("code", "hex.rs")).await;
    dep.put("encrypted.pdf", fixture("pdf", "encrypted.pdf")).await;
    dep.start("extractor");
    dep.start("embedder");
    dep.sync();
    let before: BTreeMap<String, DocState> =
        dep.settle(3).await.into_iter().map(|d| (name(&d).to_string(), d)).collect();
    let old = dep.data.path().join("vectors").join(dep.live_collection());
    assert!(old.exists(), "{}", old.display());

    let out = dep.command(&["reindex", "--pipeline-version", "2", "--json"]).output().unwrap();
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("reindex: {e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(out.status.code(), Some(1), "a document failed in the new index: {report}");
    let new = report["swapped"]["to"].as_str().unwrap().to_string();
    // The label keeps the configured lexical analysis (auto, the default).
    assert!(new.ends_with("_p2-bm25-auto") && report["swapped"]["dropped"] == true, "{report}");
    assert_eq!(report["index"]["live"]["name"], new.as_str());

    let after = dep.settle(3).await;
    for d in &after {
        assert_eq!(d.generation, before[name(d)].generation + 1, "{}: reprocessed once", name(d));
        match name(d) {
            "encrypted.pdf" => assert_eq!(d.failure_reason.as_deref(), Some("encrypted PDF")),
            other => assert_eq!(
                (d.status, d.pipeline_version.as_deref()),
                (DocStatus::Indexed, Some("2+bm25-auto")),
                "{other}"
            ),
        }
    }
    dep.stop("embedder", false);
    dep.check_counts(&new, &after).await;
    assert!(!old.exists(), "the old collection is dropped");
    let out = dep.command(&["search", "causeway floods", "--json", "--no-threshold"]).output().unwrap();
    let found: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("search: {e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(found["index"]["pipeline_version"], "2+bm25-auto", "{found}");
    let hits = found["hits"].as_array().unwrap();
    assert!(hits.iter().all(|h| h["pipeline_version"] == "2+bm25-auto"), "{found}");
    assert!(hits[0]["content"].as_str().is_some_and(|c| c.contains("causeway")), "{found}");
    dep.stop("extractor", false);
    dep.remove().await;
}
