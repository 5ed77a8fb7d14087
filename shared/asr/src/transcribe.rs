//! A whole recording, window by window, as Whisper's own transcribe loop
//! does it: each 30 s window is decoded, cut into segments at timestamp
//! pairs, and the next window starts at the last timestamp the model gave
//! (so a sentence cut by the window edge is heard again whole), or after
//! the window when it ended in silence.
//!
//! Guards against text that was never said: digitally silent windows are not
//! decoded at all; a window the model itself judges speechless (no-speech
//! probability over 0.6 with a low average log-probability, Whisper's rule)
//! is skipped; text that compresses too well (a loop of one phrase, the
//! classic hallucination on music and noise) is dropped; and a segment that
//! only repeats the one before it is dropped.

use crate::model::Whisper;
use crate::{AsrError, Segment};
use std::io::Write;

/// Whisper's thresholds (openai-whisper's transcribe() defaults).
const NO_SPEECH: f32 = 0.6;
const LOGPROB: f32 = -1.0;
const COMPRESSION_RATIO: f64 = 2.4;
/// RMS below which a window is digital silence (about -80 dBFS).
const SILENT_RMS: f32 = 1e-4;

/// What one recording came to.
#[derive(Debug, Clone, Default)]
pub struct Transcript {
    pub segments: Vec<Segment>,
    /// The language decoded (detected, configured, or `en` for English-only models).
    pub language: String,
    /// Windows skipped as silence or judged speechless, and windows whose text
    /// was dropped as a loop: reported, so a quiet result can be explained.
    pub skipped_windows: usize,
    pub dropped_windows: usize,
}

impl Whisper {
    /// Transcribes 16 kHz mono `samples`; `language` None = detect it (once,
    /// on the first window with sound) or `en` for English-only models.
    pub fn transcribe(&mut self, samples: &[f32], language: Option<&str>) -> Result<Transcript, AsrError> {
        let a = self.spec.audio.clone();
        let mel = crate::mel::log_mel(samples, a.n_mels);
        let content = samples.len() / a.hop_length;
        let per_frame = a.hop_length as f64 / f64::from(a.sample_rate);
        let frames_per_ts = (f64::from(self.spec.tokens.seconds_per_timestamp) / per_frame).round() as usize;
        let tb = self.spec.tokens.timestamp_begin;
        let mut out = Transcript { language: language.unwrap_or("").to_string(), ..Transcript::default() };
        if !self.spec.multilingual {
            out.language = "en".into();
        }
        let mut seek = 0usize;
        while seek < content {
            let size = a.n_frames.min(content - seek);
            let t0 = seek as f64 * per_frame;
            let span = &samples[seek * a.hop_length..((seek + size) * a.hop_length).min(samples.len())];
            if rms(span) < SILENT_RMS {
                out.skipped_windows += 1;
                seek += size;
                continue;
            }
            let cross = self.encode(&padded(&mel.window(seek, size), a.n_mels, size, a.n_frames))?;
            if out.language.is_empty() {
                out.language = self.detect_language(&cross)?;
            }
            let prompt = self.spec.prompt(&out.language)?;
            let d = self.decode(&cross, &prompt)?;
            tracing::debug!(at = t0, tokens = ?d.tokens, no_speech = d.no_speech, avg_logprob = d.avg_logprob, "window decoded");
            if d.no_speech > NO_SPEECH && d.avg_logprob < LOGPROB {
                out.skipped_windows += 1;
                seek += size;
                continue;
            }
            // Milliseconds are what the timestamps resolve (0.02 s) and what locators print.
            let step = f64::from(self.spec.tokens.seconds_per_timestamp);
            let secs = |tok: u32| ((t0 + f64::from(tok - tb) * step) * 1000.0).round() / 1000.0;
            let tokens = &d.tokens;
            let is_ts = |i: usize| tokens[i] >= tb;
            let mut cuts: Vec<usize> = (1..tokens.len()).filter(|&i| is_ts(i - 1) && is_ts(i)).collect();
            let lone_end = tokens.len() >= 2 && !is_ts(tokens.len() - 2) && is_ts(tokens.len() - 1);
            let mut found = Vec::new();
            let advance;
            if cuts.is_empty() {
                let mut end = t0 + size as f64 * per_frame;
                if let Some(&last) = tokens.iter().rev().find(|&&t| t >= tb).filter(|&&t| t != tb) {
                    end = secs(last);
                }
                found.push((t0, end, self.text(tokens)?));
                advance = size;
            } else {
                if lone_end {
                    cuts.push(tokens.len());
                }
                let mut last = 0;
                for &cut in &cuts {
                    let part = &tokens[last..cut];
                    found.push((secs(part[0]), secs(part[part.len() - 1]), self.text(part)?));
                    last = cut;
                }
                advance = if lone_end { size } else { (tokens[last - 1] - tb) as usize * frames_per_ts };
            }
            let window_text: String = found.iter().map(|(_, _, t)| t.as_str()).collect::<Vec<_>>().join(" ");
            if compression_ratio(&window_text) > COMPRESSION_RATIO {
                out.dropped_windows += 1;
            } else {
                for (start, end, text) in found {
                    push_segment(
                        &mut out.segments,
                        start,
                        end.min(samples.len() as f64 / f64::from(a.sample_rate)),
                        text,
                    );
                }
            }
            // A window whose last timestamp is 0.00 would never move: it moves whole.
            seek += if advance == 0 { size } else { advance.min(size) };
        }
        Ok(out)
    }
}

/// A `n_mels × size` window zero-padded to `n` frames per row: Whisper pads a
/// window that reaches past the recording's own frames with zeros, not with
/// the spectrogram of the appended silence.
fn padded(window: &[f32], n_mels: usize, size: usize, n: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; n_mels * n];
    for (src, dst) in window.chunks_exact(size.max(1)).zip(out.chunks_exact_mut(n)) {
        dst[..size].copy_from_slice(src);
    }
    out
}

/// Keeps `text` as a segment unless it is empty or repeats the previous one.
fn push_segment(segments: &mut Vec<Segment>, start: f64, end: f64, text: String) {
    if text.is_empty() {
        return;
    }
    if segments.last().is_some_and(|p| normalised(&p.text) == normalised(&text)) {
        return;
    }
    segments.push(Segment { start, end: end.max(start), text });
}

fn normalised(text: &str) -> String {
    text.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

fn rms(samples: &[f32]) -> f32 {
    if samples.is_empty() {
        return 0.0;
    }
    (samples.iter().map(|x| x * x).sum::<f32>() / samples.len() as f32).sqrt()
}

/// How much gzip shrinks `text`: Whisper's test for a phrase stuck in a loop.
pub(crate) fn compression_ratio(text: &str) -> f64 {
    if text.is_empty() {
        return 0.0;
    }
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let packed = z.write_all(text.as_bytes()).and_then(|()| z.finish()).map(|v| v.len()).unwrap_or(text.len());
    text.len() as f64 / packed as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loops_compress_and_speech_does_not() {
        let speech = "And so, my fellow Americans, ask not what your country can do for you, ask what you can do for your country.";
        assert!(compression_ratio(speech) < COMPRESSION_RATIO);
        let looped = "Thank you. ".repeat(30);
        assert!(compression_ratio(&looped) > COMPRESSION_RATIO);
    }

    #[test]
    fn a_repeated_segment_is_kept_once() {
        let mut s = Vec::new();
        push_segment(&mut s, 0.0, 1.0, "Sign the logbook.".into());
        push_segment(&mut s, 1.0, 2.0, "sign the logbook".into());
        push_segment(&mut s, 2.0, 3.0, String::new());
        push_segment(&mut s, 3.0, 4.0, "Then leave.".into());
        assert_eq!(s.iter().map(|x| x.text.as_str()).collect::<Vec<_>>(), ["Sign the logbook.", "Then leave."]);
    }
}
