//! `[asr]`: speech recognition for audio and video without a transcript
//! sidecar (Whisper on ONNX Runtime, in the extraction child).

use serde::Deserialize;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AsrConfig {
    /// `base` (multilingual, default), `tiny.en` (English only, ~2× faster)
    /// or `off` (media without a sidecar fail as recognition disabled).
    /// Env: `RAGPIPE_ASR_MODEL`.
    pub model: String,
    /// The model's folder (default: the provisioning cache's
    /// `models/whisper-<model>`). Env: `RAGPIPE_ASR_DIR`.
    pub dir: Option<PathBuf>,
    /// Language code (`en`, `es`, …) for the multilingual model; unset =
    /// detected per recording. Env: `RAGPIPE_ASR_LANGUAGE`.
    pub language: Option<String>,
    /// `int8` (default: the Linear weights quantised per channel; the same
    /// word error rates as fp32 on every set measured, a decoder step ~2×
    /// faster, docs/BENCHMARKS.md) or `fp32` (the converted graphs, exact).
    /// Env: `RAGPIPE_ASR_VARIANT`.
    pub variant: String,
    /// Intra-op threads of one transcription; 0 = all cores.
    /// Env: `RAGPIPE_ASR_THREADS`.
    pub threads: usize,
    /// Extraction seconds allowed per second of audio, on top of
    /// `limits.extract_timeout_secs` (the child's wall clock and CPU time
    /// scale with the recording: an hour of audio gets an hour at 1.0).
    pub seconds_per_audio_second: f64,
    /// Address space a transcribing child gets on top of
    /// `limits.extract_memory_mib`, MiB (the model and ONNX Runtime's arenas).
    pub memory_mib: u64,
}

impl Default for AsrConfig {
    fn default() -> Self {
        AsrConfig {
            model: "base".into(),
            dir: None,
            language: None,
            variant: "int8".into(),
            threads: 0,
            seconds_per_audio_second: 1.0,
            memory_mib: 3072,
        }
    }
}

impl AsrConfig {
    /// The models `model` may name.
    pub const MODELS: [&'static str; 3] = ["base", "tiny.en", "off"];

    /// Whether recognition is on.
    pub fn enabled(&self) -> bool {
        self.model != "off"
    }

    pub(crate) fn validate(&self) -> Result<(), String> {
        if !Self::MODELS.contains(&self.model.as_str()) {
            return Err(format!("asr.model must be base, tiny.en or off, not {:?}", self.model));
        }
        if !matches!(self.variant.as_str(), "fp32" | "int8") {
            return Err(format!("asr.variant must be fp32 or int8, not {:?}", self.variant));
        }
        if self.language.as_deref().is_some_and(|l| l.is_empty() || !l.chars().all(|c| c.is_ascii_lowercase())) {
            return Err(format!("asr.language must be a language code such as en or es, not {:?}", self.language));
        }
        if self.seconds_per_audio_second.is_nan() || self.seconds_per_audio_second <= 0.0 {
            return Err(format!(
                "asr.seconds_per_audio_second must be positive, not {}",
                self.seconds_per_audio_second
            ));
        }
        Ok(())
    }
}
