//! `ragpipe bench ocr <file>…`: OCR alone, the engine loaded once, every
//! image file or scanned PDF decoded and read in this process as the
//! extraction child would do it.
//!
//! It prints each file's text, not only the speed, so
//! `scripts/compare-ocr.sh` scores character error rates on the same run
//! that timed them.

use crate::cli::BenchOcrArgs;
use anyhow::Context;
use ragpipe_config::Config;
use ragpipe_extract::PageReader;
use ragpipe_ocr::{GrayImage, PageText};
use serde_json::json;
use std::process::ExitCode;
use std::time::Instant;

pub fn ocr(config: Config, args: BenchOcrArgs) -> anyhow::Result<ExitCode> {
    let extractor = ragpipe_extractor::ExtractorConfig::from_config(&config)?;
    let settings = extractor.ocr.as_ref().context("ocr is off ([ocr] engine = \"off\")")?;
    let started = Instant::now();
    let engine = settings.load().map_err(anyhow::Error::msg)?;
    let load_seconds = started.elapsed().as_secs_f64();
    eprintln!("bench ocr: {} loaded in {load_seconds:.2}s, {} threads", settings.label(), settings.threads);
    let mut counted = Counted { engine, pages: 0, low: settings.low_confidence };
    let (mut pages, mut spent) = (0usize, 0.0);
    for path in &args.files {
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
        counted.pages = 0;
        let started = Instant::now();
        let doc = ragpipe_extract::detect(&name, &bytes).map_err(|e| e.to_string()).and_then(|kind| {
            ragpipe_extract::extract_scanned(kind, &name, &bytes, None, None, Some(&mut counted), &extractor.limits)
                .map_err(|e| e.to_string())
        });
        let seconds = started.elapsed().as_secs_f64();
        let line = match doc {
            Ok(doc) => {
                (pages, spent) = (pages + counted.pages, spent + seconds);
                let confidence: Vec<_> = doc.ocr_pages.iter().map(|p| json!([p.page, p.confidence])).collect();
                json!({"file": path, "pages": counted.pages, "seconds": seconds, "text": doc.text.replace('\u{c}', "\n"),
                       "confidence": confidence})
            }
            Err(e) => json!({"file": path, "error": e}),
        };
        if args.json {
            println!("{line}");
        } else if let Some(e) = line["error"].as_str() {
            println!("{name}: {e}");
        } else {
            println!("{}", line["text"].as_str().unwrap_or(""));
            eprintln!("{name}: {} pages in {seconds:.2}s", counted.pages);
        }
    }
    let peak = super::peak_rss_mib().unwrap_or(0.0);
    let rate = if spent > 0.0 { pages as f64 / spent } else { 0.0 };
    if args.json {
        println!(
            "{}",
            json!({"load_seconds": load_seconds, "pages": pages, "seconds": spent, "pages_per_second": rate, "peak_rss_mib": peak})
        );
    } else {
        println!("{pages} pages in {spent:.2}s: {rate:.3} pages/s; load {load_seconds:.2}s; peak RSS {peak:.0} MiB");
    }
    Ok(ExitCode::SUCCESS)
}

/// The engine as the extractor's port, counting the pages it reads.
struct Counted {
    engine: ragpipe_ocr::Engine,
    pages: usize,
    low: f32,
}

impl PageReader for Counted {
    fn read(&mut self, page: &GrayImage) -> Result<PageText, String> {
        self.pages += 1;
        self.engine.read(page).map_err(|e| e.to_string())
    }

    fn low_confidence(&self) -> f32 {
        self.low
    }
}
