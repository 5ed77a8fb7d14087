//! Opus, the codec of voice notes (`.opus`, Ogg) and of browser and
//! meeting recordings (WebM, Matroska): symphonia demuxes it but has no
//! decoder, so `opus-pure` (pure Rust, no dependencies) decodes it behind
//! symphonia's [`Decoder`] trait. The rest of the audio path (duration, truncation,
//! 16 kHz mono for the recogniser) is the one every other codec takes.

use opus_pure::{Error as OpusError, OpusMSDecoder};
use symphonia::core::audio::{AsAudioBufferRef, AudioBuffer, AudioBufferRef, Channels, Signal, SignalSpec};
use symphonia::core::codecs::{
    CODEC_TYPE_OPUS, CodecDescriptor, CodecParameters, Decoder, DecoderOptions, FinalizeResult,
};
use symphonia::core::errors::{Result, decode_error, unsupported_error};
use symphonia::core::formats::Packet;
use symphonia::core::support_codec;

/// Opus always decodes at 48 kHz here; the resampler takes it to 16 kHz.
const RATE: u32 = 48_000;
/// The longest Opus packet: 120 ms at 48 kHz, per channel.
const MAX_FRAMES: usize = 5_760;
/// More channels than a recording of speech has; surround beyond 7.1 is refused.
const MAX_CHANNELS: usize = 8;

pub(super) struct OpusCodec {
    params: CodecParameters,
    decoder: OpusMSDecoder,
    channels: usize,
    /// Interleaved samples of the last packet.
    pcm: Vec<f32>,
    buf: AudioBuffer<f32>,
}

/// How the channels are carried, from the identification header
/// (`OpusHead`, RFC 7845 section 5.1) that Ogg and Matroska both store as
/// the track's extra data.
#[derive(Debug, PartialEq)]
struct Layout {
    family: u8,
    channels: usize,
    streams: usize,
    coupled: usize,
    mapping: Vec<u8>,
}

impl Layout {
    /// Mapping family 0 (mono or stereo, one stream) unless the header
    /// gives a channel mapping table. Without a header, the container's
    /// channel count.
    fn read(head: Option<&[u8]>, channels: Option<usize>) -> Option<Layout> {
        let Some(head) = head else {
            let channels = channels.filter(|c| (1..=2).contains(c))?;
            return Some(Layout::family0(channels));
        };
        if head.len() < 19 || !head.starts_with(b"OpusHead") {
            return None;
        }
        let channels = usize::from(head[9]);
        if !(1..=MAX_CHANNELS).contains(&channels) {
            return None;
        }
        match head[18] {
            0 if channels <= 2 => Some(Layout::family0(channels)),
            0 => None,
            family => {
                let table = head.get(19..21 + channels)?;
                let (streams, coupled) = (usize::from(table[0]), usize::from(table[1]));
                let mapping = table[2..].to_vec();
                (streams > 0 && coupled <= streams).then_some(Layout { family, channels, streams, coupled, mapping })
            }
        }
    }

    fn family0(channels: usize) -> Layout {
        Layout { family: 0, channels, streams: 1, coupled: channels - 1, mapping: (0..channels as u8).collect() }
    }
}

/// The first `n` channel positions, for a buffer that only counts them.
fn positions(n: usize) -> Channels {
    Channels::from_bits_truncate((1u32 << n) - 1)
}

fn reason(e: &OpusError) -> &'static str {
    match e {
        OpusError::InvalidPacket(_) => "invalid Opus packet",
        OpusError::BufferTooSmall { .. } => "Opus packet longer than 120 ms",
        _ => "Opus decoder error",
    }
}

/// The decoder for `layout`: the standard layout of its mapping family
/// (mono or stereo; the Vorbis surround orders), which must be the one the
/// header declares (family 255, a layout of the encoder's own, is refused).
fn decoder_for(layout: &Layout) -> Option<OpusMSDecoder> {
    let decoder = OpusMSDecoder::new(RATE as i32, layout.channels, layout.family).ok()?;
    let standard = decoder.layout();
    let same = (standard.nb_streams, standard.nb_coupled_streams, standard.mapping.as_slice())
        == (layout.streams, layout.coupled, layout.mapping.as_slice());
    same.then_some(decoder)
}

impl Decoder for OpusCodec {
    fn try_new(params: &CodecParameters, _: &DecoderOptions) -> Result<Self> {
        let channels = params.channels.map(|c| c.count());
        let Some(layout) = Layout::read(params.extra_data.as_deref(), channels) else {
            return unsupported_error("opus: channel layout");
        };
        let Some(decoder) = decoder_for(&layout) else {
            return unsupported_error("opus: channel layout");
        };
        let spec = SignalSpec::new(RATE, positions(layout.channels));
        let mut params = params.clone();
        params.with_sample_rate(RATE);
        Ok(OpusCodec {
            params,
            decoder,
            channels: layout.channels,
            pcm: vec![0.0; MAX_FRAMES * layout.channels],
            buf: AudioBuffer::new(MAX_FRAMES as u64, spec),
        })
    }

    fn supported_codecs() -> &'static [CodecDescriptor] {
        &[support_codec!(CODEC_TYPE_OPUS, "opus", "Opus")]
    }

    fn reset(&mut self) {
        // Resetting fresh decoders' state cannot fail.
        let _ = self.decoder.reset_state();
    }

    fn codec_params(&self) -> &CodecParameters {
        &self.params
    }

    fn decode(&mut self, packet: &Packet) -> Result<AudioBufferRef<'_>> {
        self.buf.clear();
        // An empty packet would ask the decoder to conceal a lost one.
        if packet.data.is_empty() {
            return decode_error("empty Opus packet");
        }
        // A damaged packet that makes the decoder panic counts as one that
        // did not decode (the stream's damage is judged by how many).
        let decoded = crate::unpanicked(|| self.decoder.decode(&packet.data, MAX_FRAMES, &mut self.pcm));
        let frames = match decoded {
            Ok(Ok(frames)) => frames.min(MAX_FRAMES),
            Ok(Err(e)) => return decode_error(reason(&e)),
            Err(_) => return decode_error("the Opus decoder stopped on a packet"),
        };
        self.buf.render_reserved(Some(frames));
        for c in 0..self.channels {
            let samples = self.pcm.iter().skip(c).step_by(self.channels);
            for (out, &s) in self.buf.chan_mut(c).iter_mut().zip(samples) {
                *out = s;
            }
        }
        Ok(self.buf.as_audio_buffer_ref())
    }

    fn finalize(&mut self) -> FinalizeResult {
        FinalizeResult::default()
    }

    fn last_decoded(&self) -> AudioBufferRef<'_> {
        self.buf.as_audio_buffer_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(channels: u8, family: u8, table: &[u8]) -> Vec<u8> {
        let mut h = b"OpusHead".to_vec();
        h.extend([1, channels, 0x38, 0x01, 0x80, 0xBB, 0, 0, 0, 0, family]);
        h.extend(table);
        h
    }

    #[test]
    fn the_identification_header_gives_the_streams() {
        assert_eq!(Layout::read(Some(&head(1, 0, &[])), None), Some(Layout::family0(1)));
        assert_eq!(Layout::read(Some(&head(2, 0, &[])), None).map(|l| l.coupled), Some(1));
        let surround = Layout::read(Some(&head(6, 1, &[4, 2, 0, 4, 1, 2, 3, 5])), None).unwrap();
        assert_eq!((surround.streams, surround.coupled, surround.mapping.len()), (4, 2, 6));
        assert!(decoder_for(&surround).is_some(), "5.1 in the Vorbis order is the standard layout");
        let odd = Layout::read(Some(&head(6, 1, &[4, 2, 5, 4, 1, 2, 3, 0])), None).unwrap();
        assert!(decoder_for(&odd).is_none(), "a layout of the encoder's own is refused");
        assert!(decoder_for(&Layout::family0(2)).is_some());
        // Family 0 holds at most two channels; a table must be whole.
        assert_eq!(Layout::read(Some(&head(3, 0, &[])), None), None);
        assert_eq!(Layout::read(Some(&head(6, 1, &[4, 2, 0])), None), None);
        assert_eq!(Layout::read(Some(b"OpusTags and more bytes"), None), None);
        assert_eq!(Layout::read(None, Some(2)), Some(Layout::family0(2)));
        assert_eq!(Layout::read(None, None), None);
    }
}
