//! Audio and the sound of video (symphonia: wav, mp3, flac, ogg/vorbis,
//! m4a/aac, mp4, mkv/webm; Opus by `opus-pure`), with a WebVTT or SubRip sidecar transcript or,
//! without one, a transcript made by speech recognition.
//!
//! The whole stream is decoded, not just probed: that is the only way to
//! learn the true duration and to know the file is sound, and a recording
//! that cannot be played should fail here with a reason rather than be cited
//! by `#t=` ranges nobody can open. Without a transcriber the samples are
//! counted and dropped, so memory stays flat however long the recording;
//! with one they are kept as 16 kHz mono (64 KB a second), which is what the
//! recogniser reads.
//!
//! Canonical text: one cue per line, in the sidecar's (or the recogniser's)
//! order; each line is a [`BlockKind::Cue`] block with the cue's start and
//! end in seconds. A sidecar, when present, wins over recognition. A
//! transcript with no recording beside it is read the same way, as a
//! document of its own ([`Kind::Transcript`]).

mod opus;
mod resample;
mod subtitles;

use crate::{ExtractError, Limits, Sidecar, fallback_title};
use ragpipe_core::{Block, BlockKind, Document, Kind};
use symphonia::core::audio::SampleBuffer;
use symphonia::core::codecs::{CODEC_TYPE_NULL, CodecRegistry, DecoderOptions};
use symphonia::core::errors::Error as AudioError;
use symphonia::core::formats::FormatOptions;
use symphonia::core::io::MediaSourceStream;
use symphonia::core::meta::MetadataOptions;
use symphonia::core::probe::Hint;

pub use subtitles::Cue;

/// The reason given for audio with no sidecar when recognition is off.
pub(crate) const NO_TRANSCRIPT: &str = "speech recognition disabled ([asr] model = \"off\")";

/// Speech recognition as the audio extractor sees it: the port the
/// extraction child fills with Whisper (`ragpipe-asr`).
pub trait Transcriber {
    /// Timed text of 16 kHz mono `samples`, in order. An error is the
    /// failure reason as an admin reads it.
    fn transcribe(&mut self, samples: &[f32]) -> Result<Vec<Cue>, String>;
}

pub(crate) fn extract(
    name: &str,
    bytes: &[u8],
    sidecar: Option<Sidecar<'_>>,
    asr: Option<&mut dyn Transcriber>,
    limits: &Limits,
) -> Result<Document, ExtractError> {
    let want_samples = sidecar.is_none() && asr.is_some();
    let (duration, samples) = decode(name, bytes, limits, want_samples)?;
    let cues = match (sidecar, asr) {
        (Some(sidecar), _) => read_cues(sidecar.name, sidecar.bytes)?,
        (None, Some(asr)) => {
            let cues = asr.transcribe(&samples.unwrap_or_default()).map_err(ExtractError::Malformed)?;
            if cues.is_empty() {
                return Err(ExtractError::Malformed("no speech detected".into()));
            }
            cues
        }
        (None, None) => return Err(ExtractError::Malformed(NO_TRANSCRIPT.into())),
    };
    Ok(timed(name, Kind::Audio, cues, duration))
}

/// A transcript file on its own (no recording beside it): its cues, cited
/// by time as a recording's are; its length is where its last cue ends.
pub(crate) fn transcript(name: &str, bytes: &[u8]) -> Result<Document, ExtractError> {
    let cues = read_cues(name, bytes)?;
    let duration = cues.iter().map(|c| c.end).fold(0.0, f64::max);
    Ok(timed(name, Kind::Transcript, cues, duration))
}

/// The cues of a WebVTT or SubRip file; one with none is an error.
fn read_cues(name: &str, bytes: &[u8]) -> Result<Vec<Cue>, ExtractError> {
    let text = crate::text::decode(bytes)?;
    let cues =
        subtitles::parse(&text).map_err(|e| ExtractError::Malformed(format!("malformed transcript {name}: {e}")))?;
    if cues.is_empty() {
        return Err(ExtractError::Malformed(format!("empty transcript: {name} has no cues")));
    }
    Ok(cues)
}

/// The canonical document of timed text: one cue per line, each a
/// [`BlockKind::Cue`] block.
fn timed(name: &str, kind: Kind, cues: Vec<Cue>, duration: f64) -> Document {
    let mut out = String::new();
    let mut blocks = Vec::with_capacity(cues.len());
    for cue in cues {
        if !out.is_empty() {
            out.push('\n');
        }
        let start = out.len();
        out.push_str(&cue.text);
        let kind = BlockKind::Cue { start: cue.start, end: cue.end };
        blocks.push(Block { kind, range: start..out.len(), page: None });
    }
    Document {
        title: fallback_title(name),
        kind,
        text: out,
        blocks,
        tables: Vec::new(),
        duration: Some(duration),
        regions: Vec::new(),
        ocr_pages: Vec::new(),
        warnings: Vec::new(),
    }
}

/// Decodes the whole stream (checking it as [`extract`] does) and returns
/// its length in seconds, keeping no samples.
pub(crate) fn duration(name: &str, bytes: &[u8], limits: &Limits) -> Result<f64, ExtractError> {
    decode(name, bytes, limits, false).map(|(seconds, _)| seconds)
}

fn corrupt(why: impl std::fmt::Display) -> ExtractError {
    ExtractError::Malformed(format!("corrupt audio: {why}"))
}

/// Decodes every packet of the first audio track and returns its length in
/// seconds, and its samples as 16 kHz mono when `keep` says so. A stream
/// that stops well short of the length its header declares is truncated;
/// one whose packets mostly fail to decode is corrupt; either is an error.
fn decode(name: &str, bytes: &[u8], limits: &Limits, keep: bool) -> Result<(f64, Option<Vec<f32>>), ExtractError> {
    check_wav_format(bytes)?;
    let source = MediaSourceStream::new(Box::new(std::io::Cursor::new(bytes.to_vec())), Default::default());
    let mut hint = Hint::new();
    hint.with_extension(&crate::extension(name));
    let probed = symphonia::default::get_probe()
        .format(&hint, source, &FormatOptions::default(), &MetadataOptions::default())
        .map_err(corrupt)?;
    let mut format = probed.format;
    let track = format
        .tracks()
        .iter()
        .find(|t| t.codec_params.codec != CODEC_TYPE_NULL)
        .ok_or_else(|| corrupt("no audio track"))?;
    let (track_id, params) = (track.id, track.codec_params.clone());
    let rate = params.sample_rate.filter(|&r| r > 0).ok_or_else(|| corrupt("no sample rate"))? as f64;
    let declared = params.n_frames.or_else(|| mp3_declared_frames(bytes)).map(|n| n as f64 / rate);
    if let Some(d) = declared.filter(|&d| d > limits.max_duration_secs) {
        return Err(too_long(d, limits));
    }
    let mut decoder = codecs().make(&params, &DecoderOptions::default()).map_err(|e| match e {
        AudioError::Unsupported(_) => ExtractError::Unsupported(format!(
            "audio codec {} (ragpipe decodes PCM, ADPCM, MP3, FLAC, Vorbis, AAC and Opus)",
            params.codec
        )),
        e => corrupt(e),
    })?;
    let mut pcm: Option<resample::ToMono16k> = None;
    let mut scratch: Option<SampleBuffer<f32>> = None;
    let (mut frames, mut packets, mut failed) = (0u64, 0u64, 0u64);
    let mut first_error = None;
    loop {
        let packet = match format.next_packet() {
            Ok(p) => p,
            Err(AudioError::IoError(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Err(AudioError::ResetRequired) => break,
            Err(e) => return Err(corrupt(e)),
        };
        if packet.track_id() != track_id {
            continue;
        }
        packets += 1;
        match decoder.decode(&packet) {
            Ok(buf) => {
                frames += buf.frames() as u64;
                if keep {
                    let spec = *buf.spec();
                    let channels = spec.channels.count().max(1);
                    let pcm = pcm.get_or_insert_with(|| resample::ToMono16k::new(spec.rate, channels));
                    let need = buf.capacity() as u64;
                    if scratch.as_ref().is_none_or(|s| s.capacity() < buf.capacity() * channels) {
                        scratch = Some(SampleBuffer::new(need, spec));
                    }
                    let sb = scratch.as_mut().expect("made just above");
                    sb.copy_interleaved_ref(buf);
                    pcm.push(sb.samples());
                }
            }
            Err(AudioError::DecodeError(e)) => {
                failed += 1;
                first_error.get_or_insert(e);
            }
            Err(e) => return Err(corrupt(e)),
        }
        if frames as f64 / rate > limits.max_duration_secs {
            return Err(too_long(frames as f64 / rate, limits));
        }
    }
    let seconds = frames as f64 / rate;
    if frames == 0 {
        return Err(corrupt(first_error.map_or("no audio frames".to_string(), |e| format!("malformed stream: {e}"))));
    }
    // A lost frame or two is what players shrug off; more is damage.
    if failed > 2 && failed * 100 > packets {
        let e = first_error.unwrap_or("decode error");
        return Err(corrupt(format!("{failed} of {packets} packets undecodable ({e})")));
    }
    if let Some(d) = declared.filter(|&d| seconds < d * 0.98 - 0.1) {
        return Err(corrupt(format!("truncated: {seconds:.1}s of {d:.1}s decodable")));
    }
    Ok((seconds, keep.then(|| pcm.map(resample::ToMono16k::finish).unwrap_or_default())))
}

/// symphonia's decoders and ours (Opus).
fn codecs() -> &'static CodecRegistry {
    static CODECS: std::sync::OnceLock<CodecRegistry> = std::sync::OnceLock::new();
    CODECS.get_or_init(|| {
        let mut codecs = CodecRegistry::new();
        symphonia::default::register_enabled_codecs(&mut codecs);
        codecs.register_all::<opus::OpusCodec>();
        codecs
    })
}

/// Refuses a WAV whose `fmt ` chunk declares no samples: symphonia panics
/// on a sample rate of 0 (a zero time base), which would reach the admin as
/// a parser's panic message instead of what is wrong with the file.
fn check_wav_format(bytes: &[u8]) -> Result<(), ExtractError> {
    if bytes.len() < 12 || &bytes[..4] != b"RIFF" || &bytes[8..12] != b"WAVE" {
        return Ok(());
    }
    let mut at = 12;
    while let Some(head) = bytes.get(at..at + 8) {
        let size = u32::from_le_bytes([head[4], head[5], head[6], head[7]]) as usize;
        if &head[..4] == b"fmt " {
            let Some(fmt) = bytes.get(at + 8..at + 16) else { return Err(corrupt("truncated fmt chunk")) };
            let channels = u16::from_le_bytes([fmt[2], fmt[3]]);
            let rate = u32::from_le_bytes([fmt[4], fmt[5], fmt[6], fmt[7]]);
            return match (channels, rate) {
                (0, _) => Err(corrupt("0 channels")),
                (_, 0) => Err(corrupt("sample rate 0")),
                _ => Ok(()),
            };
        }
        // Chunks are padded to an even length.
        at = at.saturating_add(8).saturating_add(size).saturating_add(size & 1);
    }
    Ok(())
}

fn too_long(seconds: f64, limits: &Limits) -> ExtractError {
    ExtractError::Limit(format!(
        "audio lasts over {seconds:.0}s, more than max_duration_secs {:.0}",
        limits.max_duration_secs
    ))
}

/// The length in samples an MP3's Xing/Info header (written by LAME and most
/// encoders) declares, which symphonia does not report. Without it a cut-off
/// MP3 would decode "successfully" to a shorter recording.
fn mp3_declared_frames(bytes: &[u8]) -> Option<u64> {
    let mut at = 0;
    if bytes.starts_with(b"ID3") && bytes.len() >= 10 {
        // ID3v2 size: four 7-bit bytes, after the 10-byte header.
        let size = bytes[6..10].iter().fold(0usize, |n, &b| (n << 7) | (b & 0x7f) as usize);
        at = 10 + size;
    }
    let header = bytes.get(at..at + 4)?;
    if header[0] != 0xff || header[1] & 0xe0 != 0xe0 || (header[1] >> 1) & 3 != 1 {
        return None; // not an MPEG audio Layer III frame
    }
    let samples_per_frame = if (header[1] >> 3) & 3 == 3 { 1152 } else { 576 };
    // The tag follows the side information, 9 to 32 bytes after the header.
    let frame = bytes.get(at + 4..(at + 64).min(bytes.len()))?;
    let tag = frame.windows(4).position(|w| w == b"Xing" || w == b"Info")?;
    let field = |i: usize| frame.get(i..i + 4).map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
    let flags = field(tag + 4)?;
    let frames = if flags & 1 == 1 { field(tag + 8)? } else { return None };
    Some(frames as u64 * samples_per_frame)
}
