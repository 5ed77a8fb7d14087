//! Speech recognition: Whisper on ONNX Runtime, on the CPU, offline.
//!
//! Audio without a transcript is most of what corporate folders hold
//! (meetings, calls, trainings, voicemail). This crate turns 16 kHz mono
//! samples into timed segments that the audio extractor writes as transcript
//! cues, so a hit cites `#t=START,END` like a sidecar's cue does. The model is
//! the graphs `scripts/build_whisper.py` makes from the registry's
//! CTranslate2 weights; ONNX Runtime is the one the embedder already loads
//! (one environment per process, shared through `ragpipe-embed`).
//!
//! The pieces: [`mel`] (the log-mel front end), `rules` (which token may
//! come next), `model` (the three graphs and one window's greedy decode),
//! `transcribe` (windows over a whole recording, with the guards against
//! text that was never said).

pub mod mel;
mod model;
mod rules;
pub mod spec;
mod transcribe;

pub use model::Whisper;
pub use transcribe::Transcript;

/// One stretch of speech, in seconds from the start of the recording.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    pub start: f64,
    pub end: f64,
    pub text: String,
}

/// Which copy of the graphs to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// As converted: exact.
    Fp32,
    /// Weights quantised to int8 (`*-int8.onnx`).
    Int8,
}

impl Variant {
    /// `encoder.onnx` → `encoder-int8.onnx` for the int8 variant.
    pub(crate) fn file_name(self, file: &str) -> String {
        match self {
            Variant::Fp32 => file.to_string(),
            Variant::Int8 => match file.rsplit_once('.') {
                Some((stem, ext)) => format!("{stem}-int8.{ext}"),
                None => format!("{file}-int8"),
            },
        }
    }
}

/// Why a recording could not be transcribed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AsrError {
    /// The model's files are missing or unreadable.
    #[error("speech recognition model: {0}")]
    Model(String),
    /// A setting does not fit the model (an unknown language).
    #[error("{0}")]
    Config(String),
    #[error("speech recognition failed: {0}")]
    Inference(String),
}
