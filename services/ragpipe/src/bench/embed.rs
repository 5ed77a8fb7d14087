//! `ragpipe bench embed`: embedding throughput on real chunks, printed as
//! figures (never asserted). Chunks come from chunking a real folder with the
//! production chunker, so lengths are the ones ingest embeds.

use crate::cli::BenchEmbedArgs;
use crate::wiring;
use anyhow::Context;
use ragpipe_chunking::chunk_document;
use ragpipe_config::Config;
use ragpipe_embed::{Embedder, ModelVariant, OnnxEmbedder, RunOptions};
use std::process::ExitCode;
use std::time::Instant;

/// Forward-pass cost per token of the models whose shape we know: 2 FLOP
/// per weight of the layers' matrices (4 h x h attention projections and
/// 2 h x 4h feed-forward ones per layer), attention scores left out. Other
/// models print no GFLOP/s.
fn flop_per_token(model: &str) -> Option<f64> {
    let (layers, hidden) = match model {
        "all-MiniLM-L6-v2" => (6.0, 384.0),
        "multilingual-e5-small" => (12.0, 384.0),
        "all-mpnet-base-v2" => (12.0, 768.0),
        _ => return None,
    };
    Some(2.0 * layers * 12.0 * hidden * hidden)
}

pub async fn embed(config: Config, args: BenchEmbedArgs) -> anyhow::Result<ExitCode> {
    let texts = sample_chunks(&config, &args)?;
    if let Some(path) = &args.dump_chunks {
        // The same chunks, for the sentence-transformers comparison script.
        std::fs::write(path, serde_json::to_string(&texts)?)?;
    }
    let mut rows = Vec::new();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let tokenizer = wiring::load_tokenizer(&config)?;
    let tokens: usize = texts.iter().map(|t| tokenizer.encode(t).map(|e| e.ids.len()).unwrap_or(0)).sum();
    let mhz = cpu_mhz();
    let lanes = fp32_flop_per_cycle();
    let flop = flop_per_token(&config.model.name);
    println!(
        "machine: {cores} cores, {}, {lanes} fp32 FLOP/cycle/core peak (util is against that at the nominal clock)",
        mhz.map_or("unknown clock".into(), |m| format!("{m:.0} MHz"))
    );
    println!(
        "workload: {} chunks from {}, {} word-pieces ({:.0} per chunk)",
        texts.len(),
        args.folder.display(),
        tokens,
        tokens as f64 / texts.len() as f64
    );
    println!(
        "{:<6} {:>7} {:>8} {:>5} {:>6} {:>10} {:>10} {:>11} {:>9} {:>6}",
        "model", "threads", "sessions", "spin", "batch", "chunks/s", "ms/chunk", "tokens/s", "GFLOP/s", "util"
    );
    // Texts reach the model as ingest hands them over: embed jobs of
    // `workers.embed_batch` chunks, cut into model batches.
    let job = config.workers.embed_batch;
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    for variant in [ModelVariant::Fp32, ModelVariant::Int8] {
        let files = wiring::model_files(&config, &config.model.name, variant)?;
        for &threads in &args.threads {
            for &sessions in args.sessions.iter().filter(|&&s| s <= threads) {
                for &spinning in &args.spinning {
                    for &batch_size in &args.batches {
                        let options = RunOptions { threads, sessions, batch_size, spinning };
                        let embedder = OnnxEmbedder::load_with(&files, options)?;
                        embedder.embed(&refs[..refs.len().min(job.max(batch_size))])?; // warm-up
                        let start = Instant::now();
                        for group in refs.chunks(job.max(batch_size)) {
                            embedder.embed(group)?;
                        }
                        let secs = start.elapsed().as_secs_f64();
                        let gflops = flop.map(|f| tokens as f64 * f / secs / 1e9);
                        let util = gflops.zip(mhz).map(|(g, m)| g / (threads as f64 * m * 1e6 * lanes / 1e9));
                        rows.push(serde_json::json!({
                            "variant": variant.as_str(), "threads": threads, "sessions": sessions,
                            "spinning": spinning, "batch": batch_size,
                            "chunks_per_s": texts.len() as f64 / secs, "tokens_per_s": tokens as f64 / secs,
                        }));
                        println!(
                            "{:<6} {:>7} {:>8} {:>5} {:>6} {:>10.1} {:>10.2} {:>11.0} {:>9} {:>6}",
                            variant.as_str(),
                            threads,
                            sessions,
                            if spinning { "on" } else { "off" },
                            batch_size,
                            texts.len() as f64 / secs,
                            secs * 1000.0 / texts.len() as f64,
                            tokens as f64 / secs,
                            gflops.map_or("-".into(), |g| format!("{g:.1}")),
                            util.map_or("-".into(), |u| format!("{:.0}%", u * 100.0)),
                        );
                    }
                }
            }
        }
    }
    if let Some(path) = &args.json_out {
        std::fs::write(path, serde_json::to_string_pretty(&rows)?)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn sample_chunks(config: &Config, args: &BenchEmbedArgs) -> anyhow::Result<Vec<String>> {
    let tokenizer = wiring::load_tokenizer(config)?;
    let cfg = config.chunking;
    let mut texts = Vec::new();
    for entry in walkdir::WalkDir::new(&args.folder).sort_by_file_name() {
        let entry = entry.with_context(|| format!("reading {}", args.folder.display()))?;
        let name = entry.path().to_string_lossy().to_string();
        let Ok(bytes) = std::fs::read(entry.path()) else {
            continue;
        };
        let Ok(kind) = ragpipe_extract::detect(&name, &bytes) else {
            continue;
        };
        let Ok(doc) = ragpipe_extract::extract(kind, &name, &bytes) else {
            continue;
        };
        texts.extend(chunk_document(&doc, tokenizer.as_ref(), &cfg).into_iter().map(|c| c.text));
        if texts.len() >= args.chunks {
            break;
        }
    }
    texts.truncate(args.chunks);
    anyhow::ensure!(!texts.is_empty(), "no chunkable documents in {}", args.folder.display());
    Ok(texts)
}

/// Peak fp32 FLOP per cycle per core: two FMA units of 16 lanes with
/// AVX-512, of 8 lanes with AVX2, each FMA counting 2 FLOP.
fn fp32_flop_per_cycle() -> f64 {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let flags = info.lines().find(|l| l.starts_with("flags")).unwrap_or_default();
    if flags.split_whitespace().any(|f| f == "avx512f") { 64.0 } else { 32.0 }
}

fn cpu_mhz() -> Option<f64> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    info.lines().find(|l| l.starts_with("cpu MHz"))?.split(':').nth(1)?.trim().parse().ok()
}
