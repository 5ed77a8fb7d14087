//! Speech recognition inside the extraction child: the settings that cross
//! the pipe, and Whisper behind the extractor's [`Transcriber`] port.
//!
//! Why in the child: transcription decodes untrusted media (symphonia has
//! panicked on crafted files) and runs minutes of native inference, so it
//! gets the same isolation as every parser, with a wall clock and address
//! space scaled to the recording (measured first by a decode-only child,
//! see [`crate::isolate`]). Each audio document loads the model afresh
//! (~0.3 s for base, next to ~5 s of compute per minute of speech) and the
//! memory goes back to the system when the child exits.

use crate::ocr::{OcrReader, OcrSettings};
use ragpipe_asr::{Variant, Whisper};
use ragpipe_config::Config;
use ragpipe_extract::{Cue, PageReader, Transcriber};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

/// Where the model is and how to run it, as the child is told.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AsrSettings {
    /// `whisper-base`, `whisper-tiny.en`: the model's folder name.
    pub name: String,
    /// `fp32` or `int8`: which copy of the graphs runs.
    pub variant: String,
    pub dir: PathBuf,
    /// The ONNX Runtime library.
    pub runtime: PathBuf,
    pub language: Option<String>,
    pub threads: usize,
    /// Extraction seconds per second of audio on top of the base timeout.
    pub seconds_per_audio_second: f64,
    /// Extra address space of a transcribing child, bytes.
    pub extra_memory_bytes: u64,
}

impl AsrSettings {
    /// From `[asr]` (None when `model = "off"`).
    pub fn from_config(config: &Config) -> Option<Self> {
        let a = &config.asr;
        if !a.enabled() {
            return None;
        }
        let name = format!("whisper-{}", a.model);
        let dir = a.dir.clone().unwrap_or_else(|| ragpipe_embed::ModelFiles::cache_root().join("models").join(&name));
        let threads =
            if a.threads == 0 { std::thread::available_parallelism().map_or(1, |n| n.get()) } else { a.threads };
        Some(AsrSettings {
            name,
            variant: a.variant.clone(),
            dir,
            runtime: ragpipe_embed::ModelFiles::runtime_path(config.model.runtime.as_deref()),
            language: a.language.clone(),
            threads,
            seconds_per_audio_second: a.seconds_per_audio_second,
            extra_memory_bytes: a.memory_mib << 20,
        })
    }

    /// The wall clock a recording of `seconds` gets beyond the base timeout.
    pub fn extra_time(&self, seconds: f64) -> Duration {
        Duration::from_secs_f64((seconds * self.seconds_per_audio_second).max(0.0))
    }

    /// What a transcribed document records (`whisper-base/fp32`): a change
    /// of model or variant makes its transcripts stale.
    pub fn label(&self) -> String {
        format!("{}/{}", self.name, self.variant)
    }

    /// Loads the model (in the child, or on a blocking thread in-process).
    pub fn load(&self) -> Result<Whisper, String> {
        let env = ragpipe_embed::runtime_environment(&self.runtime).map_err(|e| e.to_string())?;
        let variant = if self.variant == "int8" { Variant::Int8 } else { Variant::Fp32 };
        let whisper = Whisper::load(&self.dir, &env, self.threads, variant).map_err(|e| e.to_string())?;
        if let Some(lang) = &self.language {
            whisper.spec().prompt(lang).map_err(|e| e.to_string())?;
        }
        Ok(whisper)
    }
}

/// The extractor version a document records: the plain
/// [`ragpipe_extract::EXTRACTOR_VERSION`], or for a transcript made here
/// that version plus the speech model (`2+whisper-base/fp32`), so a change of
/// model or variant makes those documents, and only those, stale; likewise
/// for a document read by OCR (`2+ocr:pp-ocrv6-small/1600`).
pub fn extractor_version(transcribed_by: Option<&AsrSettings>) -> String {
    versioned(transcribed_by.map(AsrSettings::label))
}

/// The version current documents carry: the plain version plus the label
/// of every model that is on (`2+whisper-base/int8+ocr:pp-ocrv6-small/1600`);
/// a document is current with any one of them, see
/// [`ragpipe_core::extractor_versions`].
pub fn current_version(asr: Option<&AsrSettings>, ocr: Option<&OcrSettings>) -> String {
    let labels = asr.map(AsrSettings::label).into_iter().chain(ocr.map(OcrSettings::label));
    std::iter::once(ragpipe_extract::EXTRACTOR_VERSION.to_string()).chain(labels).collect::<Vec<_>>().join("+")
}

/// [`ragpipe_extract::EXTRACTOR_VERSION`] plus the model that made the text, if any.
pub fn versioned(model: Option<String>) -> String {
    match model {
        Some(label) => format!("{}+{label}", ragpipe_extract::EXTRACTOR_VERSION),
        None => ragpipe_extract::EXTRACTOR_VERSION.to_string(),
    }
}

/// Whisper as the audio extractor's port, loaded on the first recording
/// that needs it (a file that fails to decode never pays for the model).
pub struct WhisperTranscriber<'a> {
    settings: &'a AsrSettings,
    whisper: Option<Whisper>,
}

impl<'a> WhisperTranscriber<'a> {
    pub fn new(settings: &'a AsrSettings) -> Self {
        WhisperTranscriber { settings, whisper: None }
    }
}

impl Transcriber for WhisperTranscriber<'_> {
    fn transcribe(&mut self, samples: &[f32]) -> Result<Vec<Cue>, String> {
        let whisper = match &mut self.whisper {
            Some(w) => w,
            None => self.whisper.insert(self.settings.load()?),
        };
        let t = whisper.transcribe(samples, self.settings.language.as_deref()).map_err(|e| e.to_string())?;
        Ok(t.segments.into_iter().map(|s| Cue { start: s.start, end: s.end, text: s.text }).collect())
    }
}

/// The models extraction may use: speech recognition for media without a
/// sidecar, OCR for images and scanned PDFs (None: off).
#[derive(Debug, Clone, Copy, Default)]
pub struct Models<'a> {
    pub asr: Option<&'a AsrSettings>,
    pub ocr: Option<&'a OcrSettings>,
}

/// Extracts one file with the models that are on: the one path the child
/// and in-process extraction share.
pub fn extract_one(
    kind: ragpipe_core::Kind,
    name: &str,
    bytes: &[u8],
    sidecar: Option<ragpipe_extract::Sidecar<'_>>,
    limits: &ragpipe_extract::Limits,
    models: Models<'_>,
) -> Result<ragpipe_core::Document, String> {
    let mut whisper = models.asr.map(WhisperTranscriber::new);
    let asr = whisper.as_mut().map(|m| m as &mut dyn Transcriber);
    let mut reader = models.ocr.map(OcrReader::new);
    let ocr = reader.as_mut().map(|r| r as &mut dyn PageReader);
    ragpipe_extract::extract_scanned(kind, name, bytes, sidecar, asr, ocr, limits).map_err(|e| e.to_string())
}
