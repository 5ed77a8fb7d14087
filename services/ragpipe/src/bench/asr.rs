//! `ragpipe bench asr <file>…`: speech recognition alone, the model loaded
//! once, every file decoded and transcribed in this process as the
//! extraction child would do it (symphonia, resampling to 16 kHz, Whisper).
//!
//! It prints the transcripts with their timestamps, not only the speed, so
//! `scripts/compare-asr.sh` can score word error rates and check the
//! timestamps against the clips' bounds from the same run that timed them.

use crate::cli::BenchAsrArgs;
use anyhow::Context;
use ragpipe_asr::{Transcript, Whisper};
use ragpipe_config::Config;
use ragpipe_extract::{Cue, Transcriber};
use serde_json::json;
use std::process::ExitCode;
use std::time::Instant;

pub fn asr(config: Config, args: BenchAsrArgs) -> anyhow::Result<ExitCode> {
    let extractor = ragpipe_extractor::ExtractorConfig::from_config(&config)?;
    let settings = extractor.asr.as_ref().context("speech recognition is off ([asr] model = \"off\")")?;
    let started = Instant::now();
    let whisper = settings.load().map_err(anyhow::Error::msg)?;
    let load_seconds = started.elapsed().as_secs_f64();
    eprintln!("bench asr: {} loaded in {load_seconds:.2}s, {} threads", settings.label(), settings.threads);
    let mut timed = Timed { whisper, language: settings.language.clone(), last: None };
    let (mut audio, mut spent) = (0.0, 0.0);
    for path in &args.files {
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
        timed.last = None;
        let started = Instant::now();
        let doc = ragpipe_extract::detect(&name, &bytes).map_err(|e| e.to_string()).and_then(|kind| {
            ragpipe_extract::extract_media(kind, &name, &bytes, None, Some(&mut timed), &extractor.limits)
                .map_err(|e| e.to_string())
        });
        let seconds = started.elapsed().as_secs_f64();
        let line = match (doc, timed.last.take()) {
            (Ok(doc), Some((t, transcribe_seconds))) => {
                let duration = doc.duration.unwrap_or(0.0);
                (audio, spent) = (audio + duration, spent + seconds);
                let rtf = if duration > 0.0 { seconds / duration } else { 0.0 };
                let segments: Vec<_> =
                    t.segments.iter().map(|s| json!({"start": s.start, "end": s.end, "text": s.text})).collect();
                if !args.json {
                    eprintln!("{name}: {duration:.1}s of audio in {seconds:.2}s (rtf {rtf:.3}), {}", t.language);
                }
                json!({"file": path, "duration": duration, "seconds": seconds, "transcribe_seconds": transcribe_seconds,
                       "rtf": rtf, "language": t.language, "segments": segments,
                       "skipped_windows": t.skipped_windows, "dropped_windows": t.dropped_windows})
            }
            (Ok(_), None) => json!({"file": path, "error": "not transcribed (a sidecar or not media)"}),
            (Err(e), _) => json!({"file": path, "error": e}),
        };
        if args.json {
            println!("{line}");
        } else {
            for s in line["segments"].as_array().into_iter().flatten() {
                println!("[{:>8.2} {:>8.2}] {}", s["start"], s["end"], s["text"].as_str().unwrap_or(""));
            }
            if let Some(e) = line["error"].as_str() {
                println!("{name}: {e}");
            }
        }
    }
    let peak = super::peak_rss_mib().unwrap_or(0.0);
    let rtf = if audio > 0.0 { spent / audio } else { 0.0 };
    if args.json {
        println!(
            "{}",
            json!({"load_seconds": load_seconds, "audio_seconds": audio, "seconds": spent, "rtf": rtf, "peak_rss_mib": peak})
        );
    } else {
        println!(
            "{audio:.1}s of audio in {spent:.2}s: real-time factor {rtf:.3}; load {load_seconds:.2}s; peak RSS {peak:.0} MiB"
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Whisper as the extractor's port, keeping the last transcript (with its
/// language and skipped windows, which cues do not carry) and its time.
struct Timed {
    whisper: Whisper,
    language: Option<String>,
    last: Option<(Transcript, f64)>,
}

impl Transcriber for Timed {
    fn transcribe(&mut self, samples: &[f32]) -> Result<Vec<Cue>, String> {
        let started = Instant::now();
        let t = self.whisper.transcribe(samples, self.language.as_deref()).map_err(|e| e.to_string())?;
        let cues = t.segments.iter().map(|s| Cue { start: s.start, end: s.end, text: s.text.clone() }).collect();
        self.last = Some((t, started.elapsed().as_secs_f64()));
        Ok(cues)
    }
}
