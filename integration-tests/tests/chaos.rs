//! Chaos: the distributed deployment (SeaweedFS, RabbitMQ, PostgreSQL, a
//! Qdrant server, two extractor and two embedder processes) indexes a
//! corpus made of real files while its parts are killed and restarted:
//! workers (SIGKILL, restarted), RabbitMQ (stop_app/start_app), PostgreSQL
//! (cluster restart), Qdrant (SIGKILL, started again on the same storage)
//! and the coordinator in the middle of a sync. At the end nothing is lost,
//! stuck, duplicated or miscounted, and one JSON summary says so.
//!
//! `cargo test` runs the short form (one fault of each kind, 24 documents and
//! the 20 small files that come with the killed coordinator's slice);
//! `scripts/chaos.sh` runs the same test with the full plan through
//! `RAGPIPE_CHAOS_*` (documents, worker kills, restarts per service, seed).
//! It restarts the machine's RabbitMQ and PostgreSQL, so it is alone in its
//! test binary, built only with the `server-tests` feature.

use ragpipe_core::{DocState, DocStatus};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashSet};
use std::time::{Duration, Instant};

mod common;

use common::deployment::{Deployment, FIXTURE_FAILURES, fixture};
use common::faults::{QdrantProcess, restart_postgres, restart_rabbitmq};

/// Real files that index, and two that fail with a known reason. An audio
/// file travels with its transcript sidecar.
const CORPUS: [(&str, &str); 12] = [
    ("pdf", "handbook.pdf"),
    ("code", "hex.rs"),
    ("sheets", "book.xlsx"),
    ("code", "stack.go"),
    ("code", "textwrap.py"),
    ("audio", "intro.wav"),
    ("sheets", "penguins.tsv"),
    ("code", "queue.js"),
    ("sheets", "book.ods"),
    ("pdf", "encrypted.pdf"),
    ("code", "errors.go"),
    ("sheets", "truncated.xlsx"),
];

/// Copies of a small source file that arrive with the killed coordinator's
/// slice.
const BURST: usize = 20;

/// How hard to shake: from `RAGPIPE_CHAOS_*`, else the short form.
struct Plan {
    docs: usize,
    worker_kills: usize,
    restarts: usize,
    seed: u64,
}

impl Plan {
    fn from_env() -> Plan {
        let get = |k: &str, d: u64| std::env::var(k).ok().map_or(d, |v| v.parse().expect(k));
        Plan {
            docs: get("RAGPIPE_CHAOS_DOCS", 24) as usize,
            worker_kills: get("RAGPIPE_CHAOS_WORKER_KILLS", 2) as usize,
            restarts: get("RAGPIPE_CHAOS_RESTARTS", 1) as usize,
            seed: get("RAGPIPE_CHAOS_SEED", 7),
        }
    }
}

/// xorshift64*: the same seed replays the same faults at the same moments.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n.max(1)
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Fault {
    KillExtractor,
    KillEmbedder,
    RestartRabbitmq,
    RestartPostgres,
    RestartQdrant,
    KillCoordinator,
}

/// The `i`-th document of the corpus: its name and bytes (code files get
/// a line of their own so no two documents are the same text).
fn document(i: usize) -> Vec<(String, Vec<u8>)> {
    let (kind, file) = CORPUS[i % CORPUS.len()];
    let mut bytes = fixture(kind, file);
    if kind == "code" {
        let comment = if file.ends_with(".py") { "#" } else { "//" };
        bytes.extend_from_slice(format!("\n{comment} chaos copy {i}\n").as_bytes());
    }
    let mut out = vec![(format!("{i:03}-{file}"), bytes)];
    if kind == "audio" {
        out.push((format!("{i:03}-intro.vtt"), fixture("audio", "intro.vtt")));
    }
    out
}

/// Documents finished (indexed or failed) so far, and documents known.
async fn finished(state: &ragpipe_state::SqlStateStore) -> Option<(usize, usize)> {
    let all = ragpipe_state::every(state, &Default::default()).await.ok()?;
    Some((all.iter().filter(|d| matches!(d.status, DocStatus::Indexed | DocStatus::Failed)).count(), all.len()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_is_lost_duplicated_or_miscounted_under_faults() {
    let plan = Plan::from_env();
    let mut rng = Rng(plan.seed.max(1));
    let mut qdrant = QdrantProcess::start();
    let mut dep = Deployment::new().await.on_qdrant(&qdrant.url());
    dep.configure("[workers]\nembed_batch = 8\n[model]\nthreads = 1\n");
    dep.env.retain(|(k, _)| k != "RAGPIPE_EXTRACT_TIMEOUT_SECS");
    // A killed coordinator's lock runs out in 3 s instead of 60.
    dep.env.push(("RAGPIPE_SYNC_LEASE_SECS".into(), "3".into()));
    // One pool for the monitor: it reconnects by itself after PostgreSQL restarts.
    let monitor = dep.state().await;
    let started = Instant::now();
    let at = |t: Instant| t.duration_since(started).as_secs_f64();

    let mut faults = Vec::new();
    for _ in 0..plan.worker_kills {
        faults.push(if rng.below(2) == 0 { Fault::KillExtractor } else { Fault::KillEmbedder });
    }
    if plan.worker_kills >= 2 {
        faults[0] = Fault::KillExtractor;
        faults[1] = Fault::KillEmbedder;
    }
    for _ in 0..plan.restarts {
        faults.extend([Fault::RestartQdrant, Fault::RestartRabbitmq, Fault::RestartPostgres]);
    }
    for i in (1..faults.len()).rev() {
        faults.swap(i, rng.below(i as u64 + 1) as usize);
    }
    faults.insert(faults.len() / 2, Fault::KillCoordinator);

    // The corpus arrives in slices, one before each fault, so every fault
    // lands while documents are in flight; the coordinator that is killed
    // is the one syncing its slice.
    let slices = faults.len() + 1;
    let slice = |k: usize| k * plan.docs / slices..(k + 1) * plan.docs / slices;
    for i in slice(0) {
        for (name, bytes) in document(i) {
            dep.put(&name, bytes).await;
        }
    }
    for role in ["extractor", "extractor", "embedder", "embedder"] {
        dep.start(role);
    }
    let report = dep.sync();
    assert_eq!(report["new"].as_u64(), Some(slice(0).len() as u64), "{report}");

    let mut log = Vec::new();
    for (k, fault) in faults.into_iter().enumerate() {
        let docs = slice(k + 1);
        for i in docs.clone() {
            for (name, bytes) in document(i) {
                dep.put(&name, bytes).await;
            }
        }
        if fault != Fault::KillCoordinator {
            let report = dep.sync();
            assert_eq!(report["new"].as_u64(), Some(docs.len() as u64), "{report}");
        }
        tokio::time::sleep(Duration::from_millis(300 + rng.below(1200))).await;
        let begun = Instant::now();
        let mut detail = json!({});
        match fault {
            Fault::KillExtractor | Fault::KillEmbedder => {
                let role = if fault == Fault::KillExtractor { "extractor" } else { "embedder" };
                let pid = dep.kill_one(role, rng.below(2) as usize);
                dep.start(role);
                detail = json!({ "pid": pid });
            }
            Fault::RestartRabbitmq => restart_rabbitmq(Duration::from_secs(2)),
            Fault::RestartPostgres => restart_postgres(),
            Fault::RestartQdrant => {
                qdrant.kill();
                tokio::time::sleep(Duration::from_secs(1)).await;
                qdrant.launch();
            }
            Fault::KillCoordinator => {
                // A burst of small files beside the slice, so the run has
                // work left whenever the kill lands after its first document.
                for j in 0..BURST {
                    let mut code = fixture("code", "queue.js");
                    code.extend_from_slice(format!("\n// burst copy {j}\n").as_bytes());
                    dep.put(&format!("burst-{j:02}-queue.js"), code).await;
                }
                detail = kill_coordinator_mid_sync(&dep, docs.start).await;
            }
        }
        let back = Instant::now();
        // Recovered: a document finished after the fault ended (one that
        // finished during the outage does not count).
        let before = finished(&monitor).await.unwrap_or_default().0;
        let mut recovered = None;
        while back.elapsed() < Duration::from_secs(120) {
            match finished(&monitor).await {
                Some((done, _)) if done > before => {
                    recovered = Some(back.elapsed().as_secs_f64());
                    break;
                }
                // Nothing was left to do: no recovery to measure.
                Some((done, known)) if done == known => break,
                _ => {}
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        eprintln!(
            "chaos: {:>6.1}s {fault:?}: down {:.1}s, a document finished {recovered:?}s after",
            at(begun),
            (back - begun).as_secs_f64()
        );
        let (done, known) = finished(&monitor).await.unwrap_or_default();
        assert!(
            recovered.is_some() || done == known,
            "no document finished within 120 s of {fault:?}\n{}\nqdrant: {}",
            dep.report(),
            qdrant.log_tail()
        );
        log.push(json!({
            "fault": format!("{fault:?}"), "at_secs": at(begun), "down_secs": back.duration_since(begun).as_secs_f64(),
            "finished_one_after_secs": recovered, "detail": detail,
        }));
    }

    eprintln!(
        "chaos: {:>6.1}s every fault injected; waiting for {} documents to settle",
        at(Instant::now()),
        plan.docs + BURST
    );
    let docs = dep.settle_within(plan.docs + BURST, Duration::from_secs(900)).await;
    eprintln!("chaos: {:>6.1}s settled", at(Instant::now()));
    let summary = summarise(&dep, &docs, &plan, log, at(Instant::now())).await;
    println!("CHAOS SUMMARY {}", serde_json::to_string(&summary).unwrap());
    if let Ok(path) = std::env::var("RAGPIPE_CHAOS_SUMMARY") {
        std::fs::write(path, serde_json::to_string_pretty(&summary).unwrap()).unwrap();
    }
    for key in ["stuck", "lost", "miscounted", "duplicate_points", "older_generation_points", "failed_without_reason"] {
        assert_eq!(summary[key], json!(0), "{key}: {summary:#}");
    }
    for d in &docs {
        let file = d.uri.rsplit('/').next().unwrap();
        let expected = if FIXTURE_FAILURES.iter().any(|(f, _)| file.ends_with(f)) {
            DocStatus::Failed
        } else {
            DocStatus::Indexed
        };
        assert_eq!(d.status, expected, "{file}: {:?}", d.failure_reason);
    }
    let coordinator = summary["faults"].as_array().unwrap().iter().find(|f| f["fault"] == "KillCoordinator").unwrap();
    assert_eq!(coordinator["detail"]["killed_mid_sync"], true, "{coordinator}");
    for role in ["embedder", "extractor"] {
        dep.stop(role, false);
    }
    dep.remove().await;
}

/// Starts `ragpipe sync` for the new objects (the state knows `known`
/// documents) and SIGKILLs it as soon as it has queued one; then runs sync until the dead run's lock has run out,
/// and that run publishes what the dead one may not have.
async fn kill_coordinator_mid_sync(dep: &Deployment, known: usize) -> Value {
    let state = dep.state().await;
    let mut child = dep.command(&["sync"]).stdout(std::process::Stdio::null()).spawn().unwrap();
    let killed_at = loop {
        let rows = ragpipe_state::every(&state, &Default::default()).await.map(|all| all.len()).unwrap_or_default();
        if rows > known {
            break rows;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    };
    let mid_sync = child.try_wait().unwrap().is_none();
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    child.wait().unwrap();
    let waited = Instant::now();
    loop {
        let report = dep.sync();
        if report.get("held_by").is_none() {
            return json!({
                "killed_mid_sync": mid_sync, "documents_when_killed": killed_at,
                "lock_waited_secs": waited.elapsed().as_secs_f64(), "next_run": report,
            });
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// The end state, checked against the bucket and the vector store.
async fn summarise(dep: &Deployment, docs: &[DocState], plan: &Plan, faults: Vec<Value>, secs: f64) -> Value {
    let mut by_status: BTreeMap<String, usize> = BTreeMap::new();
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for d in docs {
        *by_status.entry(d.status.as_str().to_string()).or_default() += 1;
        if let Some(r) = &d.failure_reason {
            *reasons.entry(r.clone()).or_default() += 1;
        }
    }
    let stuck = docs.iter().filter(|d| !matches!(d.status, DocStatus::Indexed | DocStatus::Failed)).count();
    let failed_without_reason =
        docs.iter().filter(|d| d.status == DocStatus::Failed && d.failure_reason.as_deref().unwrap_or("").is_empty());
    let rows: HashSet<String> = docs.iter().map(|d| d.uri.rsplit('/').next().unwrap().to_string()).collect();
    let objects = dep.objects().await;
    let sidecar = |k: &str| ragpipe_extractor::SIDECAR_EXTENSIONS.iter().any(|e| k.ends_with(&format!(".{e}")));
    let lost = objects.iter().filter(|k| !sidecar(k) && !rows.contains(k.as_str())).count();

    let chunks = dep.store(&dep.live_collection()).chunks(None).await.unwrap();
    let current: BTreeMap<&str, &DocState> = docs.iter().map(|d| (d.id.as_str(), d)).collect();
    let (mut seen, mut duplicates, mut older) = (HashSet::new(), 0, 0);
    let mut points: BTreeMap<String, i64> = BTreeMap::new();
    for c in &chunks {
        if !seen.insert((c.document_id.clone(), c.generation, c.chunk_index)) {
            duplicates += 1;
        }
        match current.get(c.document_id.as_str()) {
            Some(d) if d.generation == c.generation => *points.entry(c.document_id.clone()).or_default() += 1,
            _ => older += 1,
        }
    }
    let miscounted = docs
        .iter()
        .filter(|d| match d.status {
            DocStatus::Indexed => d.chunks_stored != points.get(d.id.as_str()).copied(),
            _ => points.contains_key(d.id.as_str()),
        })
        .count();
    json!({
        "seed": plan.seed, "documents": docs.len(), "objects": objects.len(), "by_status": by_status,
        "failure_reasons": reasons, "points": chunks.len(), "stuck": stuck, "lost": lost, "miscounted": miscounted,
        "duplicate_points": duplicates, "older_generation_points": older,
        "failed_without_reason": failed_without_reason.count(), "faults": faults, "wall_secs": secs,
    })
}
