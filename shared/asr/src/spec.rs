//! `ragpipe-asr.json`: what `scripts/build_whisper.py` writes beside the
//! graphs. The graphs say nothing about Whisper's special tokens, the prompt
//! or the front end; this file does, so the Rust side never hard-codes ids
//! that differ between the English-only and the multilingual vocabularies.

use crate::AsrError;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// The parts of the spec the transcriber reads (the file holds more, for people).
#[derive(Debug, Clone, Deserialize)]
pub struct AsrSpec {
    pub name: String,
    pub multilingual: bool,
    pub files: Files,
    pub audio: AudioSpec,
    pub model: Dims,
    pub tokens: Tokens,
    /// Language code → its token (empty for English-only models).
    pub languages: BTreeMap<String, u32>,
    pub suppress_tokens: Vec<u32>,
    /// Suppressed at the first sampled position only (blank, end of text).
    pub suppress_blank: Vec<u32>,
    /// Seconds: the first timestamp may not be later than this.
    pub max_initial_timestamp: f32,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Files {
    pub encoder: String,
    pub cross_kv: String,
    pub decoder: String,
    pub tokenizer: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct AudioSpec {
    pub sample_rate: u32,
    pub hop_length: usize,
    pub n_mels: usize,
    /// Frames in one 30 s window (3000).
    pub n_frames: usize,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Dims {
    pub n_text_ctx: usize,
    pub n_vocab: usize,
    pub decoder_layers: usize,
    pub decoder_heads: usize,
    pub head_dim: usize,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Tokens {
    pub eot: u32,
    pub sot: u32,
    pub transcribe: u32,
    pub no_speech: Option<u32>,
    pub no_timestamps: u32,
    pub timestamp_begin: u32,
    pub seconds_per_timestamp: f32,
}

impl AsrSpec {
    /// Reads `dir/ragpipe-asr.json`.
    pub fn read(dir: &Path) -> Result<Self, AsrError> {
        let path = dir.join("ragpipe-asr.json");
        let text = std::fs::read_to_string(&path).map_err(|e| AsrError::Model(format!("{}: {e}", path.display())))?;
        serde_json::from_str(&text).map_err(|e| AsrError::Model(format!("{}: {e}", path.display())))
    }

    /// The decoder prompt for `language` (ignored by English-only models).
    pub fn prompt(&self, language: &str) -> Result<Vec<u32>, AsrError> {
        if !self.multilingual {
            return Ok(vec![self.tokens.sot]);
        }
        let lang = self.language_token(language)?;
        Ok(vec![self.tokens.sot, lang, self.tokens.transcribe])
    }

    /// The token of a language code, or an error naming the known codes.
    pub fn language_token(&self, language: &str) -> Result<u32, AsrError> {
        self.languages.get(language).copied().ok_or_else(|| {
            let known: Vec<&str> = self.languages.keys().map(String::as_str).collect();
            AsrError::Config(format!("[asr] language {language:?} is not one of {}", known.join(", ")))
        })
    }
}
