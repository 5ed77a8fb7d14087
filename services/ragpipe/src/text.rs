//! `ragpipe text <file>`: the canonical text of one file as the extractors
//! make it, for checking what a document's `#char` offsets count in (and for
//! `eval/check_golden.py`, which checks needles against it). Runs the
//! extractor in this process with the configured limits (and `[asr]`, so
//! audio without a sidecar is transcribed).

use crate::cli::TextArgs;
use anyhow::Context;
use ragpipe_config::Config;
use ragpipe_core::Kind;
use ragpipe_extract::Sidecar;
use ragpipe_extractor::SIDECAR_EXTENSIONS;
use std::process::ExitCode;

pub fn run(config: Config, args: TextArgs) -> anyhow::Result<ExitCode> {
    let path = &args.file;
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let kind = ragpipe_extract::detect(&name, &bytes)?;
    // Only a recording reads a transcript beside it (a transcript alone is
    // its own document: looking would read the file itself again).
    let sidecar = SIDECAR_EXTENSIONS.iter().filter(|_| kind == Kind::Audio).find_map(|ext| {
        let side = path.with_extension(ext);
        let bytes = std::fs::read(&side).ok()?;
        Some((side.file_name()?.to_string_lossy().to_string(), bytes))
    });
    let sidecar = sidecar.as_ref().map(|(name, bytes)| Sidecar { name, bytes });
    let extractor = ragpipe_extractor::ExtractorConfig::from_config(&config)?;
    let doc =
        ragpipe_extractor::speech::extract_one(kind, &name, &bytes, sidecar, &extractor.limits, extractor.models())
            .map_err(anyhow::Error::msg)
            .with_context(|| format!("extracting {name}"))?;
    if args.json {
        println!("{}", serde_json::to_string(&doc)?);
    } else {
        println!("{}", doc.text);
    }
    Ok(ExitCode::SUCCESS)
}
