//! `ragpipe bench extract <file>…`: the extractors and chunkers alone, in
//! this process, on real files: pages/s for PDFs, rows/s for workbooks and
//! CSV, lines/s for code, MB/s for all, and the peak RSS after extraction
//! (before the tokenizer is loaded) and after chunking.

use crate::cli::BenchExtractArgs;
use crate::wiring;
use anyhow::Context;
use ragpipe_chunking::chunk_document;
use ragpipe_config::Config;
use ragpipe_core::{BlockKind, Document, Kind};
use std::process::ExitCode;
use std::time::Instant;

pub fn extract(config: Config, args: BenchExtractArgs) -> anyhow::Result<ExitCode> {
    let extractor = ragpipe_extractor::ExtractorConfig::from_config(&config)?;
    let limits = extractor.limits;
    let mut docs = Vec::new();
    println!(
        "{:<32} {:>6} {:>9} {:>9} {:>12} {:>9} {:>10}",
        "file", "kind", "MB", "extract s", "units/s", "MB/s", "peak RSS"
    );
    for path in &args.files {
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
        let started = Instant::now();
        let kind = ragpipe_extract::detect(&name, &bytes)?;
        let doc = ragpipe_extractor::speech::extract_one(kind, &name, &bytes, None, &limits, extractor.models())
            .map_err(anyhow::Error::msg)
            .with_context(|| format!("extracting {name}"))?;
        let secs = started.elapsed().as_secs_f64();
        let mb = bytes.len() as f64 / 1e6;
        let (units, unit) = units(&doc);
        println!(
            "{:<32} {:>6} {:>9.1} {:>9.2} {:>8.0} {unit:<3} {:>9.1} {:>6.0} MiB",
            name,
            format!("{kind:?}").to_lowercase(),
            mb,
            secs,
            units as f64 / secs,
            mb / secs,
            super::peak_rss_mib().unwrap_or(0.0)
        );
        docs.push((name, doc));
    }
    let tokenizer = wiring::load_tokenizer(&config)?;
    let cfg = config.chunking;
    println!("\nchunking (budget {}):", cfg.budget);
    for (name, doc) in &docs {
        let started = Instant::now();
        let chunks = chunk_document(doc, tokenizer.as_ref(), &cfg);
        let secs = started.elapsed().as_secs_f64();
        println!(
            "{:<32} {:>8} chunks in {:>7.2}s, {:>8.0} chunks/s",
            name,
            chunks.len(),
            secs,
            chunks.len() as f64 / secs
        );
    }
    if let Some(mib) = super::peak_rss_mib() {
        println!("peak RSS: {mib:.0} MiB");
    }
    Ok(ExitCode::SUCCESS)
}

/// What a document is counted in: pages, table rows, lines or blocks.
fn units(doc: &Document) -> (usize, &'static str) {
    match doc.kind {
        Kind::Pdf | Kind::Image => (doc.text.matches('\u{c}').count() + 1, "pg"),
        Kind::Spreadsheet | Kind::Csv => {
            (doc.blocks.iter().filter(|b| matches!(b.kind, BlockKind::TableRow { .. })).count(), "row")
        }
        Kind::Code | Kind::Text => (doc.text.lines().count(), "ln"),
        // Seconds of audio per second of extraction: 1 / the real-time factor.
        Kind::Audio | Kind::Transcript => (doc.duration.unwrap_or(0.0).round() as usize, "s"),
        _ => (doc.blocks.len(), "blk"),
    }
}
