//! `ragpipe bench ingest <folder>`: the embedded pipeline end to end on a real
//! folder (documents/s, chunks/s), then each stage alone on the same files so
//! the time split is measured rather than inferred, and the peak RSS.

use crate::cli::{BenchIngestArgs, IngestArgs};
use crate::wiring;
use ragpipe_chunking::chunk_document;
use ragpipe_config::Config;
use ragpipe_core::{Chunk, point_id};
use ragpipe_embed::Embedder;
use ragpipe_state::StateStore;
use ragpipe_vectors::{Bm25, ChunkPayload, EdgeStore, Point, VectorStore};
use std::process::ExitCode;
use std::time::{Duration, Instant};

pub async fn ingest(config: Config, args: BenchIngestArgs) -> anyhow::Result<ExitCode> {
    let scratch = tempfile::tempdir()?;
    let mut e2e = config.clone();
    e2e.data_dir = scratch.path().join("e2e");
    let tree = super::TreeRss::start();
    let started = Instant::now();
    crate::ingest::run(
        e2e.clone(),
        IngestArgs { source: args.folder.display().to_string(), json: false, quiet: true, every: None },
    )
    .await?;
    let wall = started.elapsed();
    let tree_peak = tree.peak_mib();
    let state = wiring::open_state(&e2e).await?;
    let counts = state.counts().await?;
    let docs = counts.total();
    let chunks = counts.get(ragpipe_core::DocStatus::Indexed).chunks;

    let split = stages(&config, &args, scratch.path()).await?;
    println!();
    println!("end to end: {docs} documents, {chunks} chunks in {:.2}s", wall.as_secs_f64());
    println!(
        "  {:.1} documents/s, {:.1} chunks/s",
        docs as f64 / wall.as_secs_f64(),
        chunks as f64 / wall.as_secs_f64()
    );
    println!("stages alone (same files, one after another):");
    let total: Duration = split.iter().map(|(_, d)| *d).sum();
    for (name, d) in &split {
        println!("  {name:<8} {:>8.2}s {:>5.1}%", d.as_secs_f64(), 100.0 * d.as_secs_f64() / total.as_secs_f64());
    }
    println!("peak RSS of the end-to-end run's whole process tree (extraction children included): {tree_peak:.0} MiB");
    if let Some(mib) = super::peak_rss_mib() {
        println!("peak RSS: {mib:.0} MiB (this process, stage runs included)");
    }
    if let Some(mib) = super::peak_child_rss_mib() {
        println!("peak RSS of an extraction child: {mib:.0} MiB (children run one per document, beside it)");
    }
    Ok(ExitCode::SUCCESS)
}

async fn stages(
    config: &Config,
    args: &BenchIngestArgs,
    scratch: &std::path::Path,
) -> anyhow::Result<Vec<(&'static str, Duration)>> {
    let tokenizer = wiring::load_tokenizer(config)?;
    let embedder = wiring::load_embedder(config)?;
    let cfg = config.chunking;
    let (mut extract, mut chunk) = (Duration::ZERO, Duration::ZERO);
    let mut all: Vec<(String, Chunk)> = Vec::new();
    for entry in walkdir::WalkDir::new(&args.folder).sort_by_file_name() {
        let entry = entry?;
        if !entry.file_type().is_file() {
            continue;
        }
        let name = entry.path().to_string_lossy().to_string();
        let bytes = std::fs::read(entry.path())?;
        let t = Instant::now();
        let doc = ragpipe_extract::detect(&name, &bytes).and_then(|k| ragpipe_extract::extract(k, &name, &bytes));
        extract += t.elapsed();
        let Ok(doc) = doc else { continue };
        let t = Instant::now();
        let cut = chunk_document(&doc, tokenizer.as_ref(), &cfg);
        chunk += t.elapsed();
        all.extend(cut.into_iter().map(|c| (name.clone(), c)));
    }
    let texts: Vec<&str> = all.iter().map(|(_, c)| c.text.as_str()).collect();
    let t = Instant::now();
    let mut vectors = Vec::with_capacity(texts.len());
    for group in texts.chunks(config.workers.embed_batch) {
        vectors.extend(embedder.embed(group)?.vectors);
    }
    let embed = t.elapsed();
    let store = EdgeStore::open(&scratch.join("stage-store"), &wiring::configured_collection(config)?)?;
    // The configured analysis; with `auto` each chunk's language is
    // detected alone (ingest detects once per batch of 32), so this stage
    // errs on the slow side.
    let pipeline_version = wiring::pipeline_version(config)?;
    let bm25 = Bm25::for_pipeline(&pipeline_version).map_err(anyhow::Error::msg)?;
    let t = Instant::now();
    let points: Vec<Point> = all
        .iter()
        .zip(vectors)
        .map(|((name, c), dense)| {
            let doc = ragpipe_core::DocumentId::from_uri(name);
            let analysis = bm25.for_documents(&[c.content.as_str()]);
            Point {
                id: point_id(&doc, 1, c.index),
                dense,
                sparse: analysis.document(&c.text),
                payload: ChunkPayload {
                    document_id: doc.to_string(),
                    generation: 1,
                    chunk_index: c.index,
                    document: name.clone(),
                    title: String::new(),
                    section: c.section.join(" > "),
                    kind: String::new(),
                    locator: c.locator.to_string(),
                    content: c.content.clone(),
                    text: c.text.clone(),
                    tokens: c.tokens,
                    model: embedder.model().into(),
                    pipeline_version: pipeline_version.clone(),
                    language: analysis.language().into(),
                },
            }
        })
        .collect();
    for batch in points.chunks(config.workers.embed_batch).map(<[Point]>::to_vec) {
        store.upsert(batch).await?;
    }
    store.optimize().await?;
    let stored = t.elapsed();
    Ok(vec![("extract", extract), ("chunk", chunk), ("embed", embed), ("store", stored)])
}
