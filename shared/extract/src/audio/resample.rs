//! Decoded audio to what speech recognition reads: 16 kHz mono.
//!
//! Channels are averaged, then rubato's synchronous FFT resampler converts
//! the rate: a file's rate is fixed, which is the case that resampler is made
//! for, and it band-limits as it goes. That matters here: 44.1 kHz audio
//! decimated without a low-pass filter folds everything above 8 kHz back
//! into the speech band. Its FFT blocks are a multiple of `rate / gcd(rate,
//! 16000)` input and `16000 / gcd` output frames, so a rate sharing few
//! factors with 16 kHz (a damaged or hostile header) would need an unbounded
//! block; such rates get rubato's windowed-sinc resampler instead, whose cost
//! does not depend on the ratio.
//!
//! Input is consumed as it arrives, a fixed-size chunk at a time (so how the
//! decoder cuts its packets cannot change the result), and the resampler's
//! delay is trimmed from the front: memory is the 16 kHz output (64 KB a
//! second) plus one chunk.

use rubato::audioadapter_buffers::direct::InterleavedSlice;
use rubato::{Async, Fft, FixedAsync, FixedSync, Indexing, Resampler, SincInterpolationParameters, WindowFunction};

const TARGET_RATE: u32 = 16_000;
/// Frames per resampler call on the longer side, about: the FFT block is
/// this rounded up to whole `rate / gcd` units (2205 input frames at 44.1 kHz,
/// 2058 at 48 kHz), whose filter passes up to about 7.8 kHz (441: 7.3 kHz).
const CHUNK: usize = 2048;
/// Largest `rate / gcd` unit, on either side, before the sinc resampler is
/// used instead (every rate from 1 Hz to 192 kHz stays under it).
const MAX_FFT_BLOCK: usize = 192_000;
/// Taps of the fallback sinc filter; rubato's suggested starting point.
const SINC_LEN: usize = 256;

pub(crate) struct ToMono16k {
    channels: usize,
    /// `None` when the source already is 16 kHz.
    rate: Option<Rate>,
    out: Vec<f32>,
}

/// The resampling half: only there when the rate differs.
struct Rate {
    source_rate: u64,
    resampler: Box<dyn Resampler<f32> + Send>,
    /// Mono input not yet resampled: less than one chunk between pushes.
    pending: Vec<f32>,
    /// Mono input frames pushed in all.
    frames_in: u64,
    /// Output frames still to drop from the front: the resampler's delay.
    delay: usize,
    /// One call's output.
    chunk_out: Vec<f32>,
}

impl ToMono16k {
    pub(crate) fn new(source_rate: u32, channels: usize) -> Self {
        let rate = (source_rate != TARGET_RATE).then(|| Rate::new(source_rate.max(1)));
        ToMono16k { channels: channels.max(1), rate, out: Vec::new() }
    }

    /// Takes interleaved samples of the source's channels (whole frames).
    pub(crate) fn push(&mut self, interleaved: &[f32]) {
        let c = self.channels;
        let mono = interleaved.chunks_exact(c).map(|f| f.iter().sum::<f32>() / c as f32);
        match &mut self.rate {
            None => self.out.extend(mono),
            Some(rate) => {
                rate.pending.extend(mono);
                rate.drain(&mut self.out);
            }
        }
    }

    /// The whole recording at 16 kHz: `round(frames · 16000 / rate)` samples.
    pub(crate) fn finish(mut self) -> Vec<f32> {
        if let Some(rate) = &mut self.rate {
            rate.flush(&mut self.out);
        }
        self.out
    }
}

impl Rate {
    fn new(source_rate: u32) -> Self {
        let (from, to) = (source_rate as usize, TARGET_RATE as usize);
        let (unit_in, unit_out) = (from / gcd(from, to), to / gcd(from, to));
        let resampler: Box<dyn Resampler<f32> + Send> = if unit_in.max(unit_out) <= MAX_FFT_BLOCK {
            // Blocks of k units, the larger side near CHUNK; k 7-smooth keeps the
            // FFT sizes smooth (683 · 3 frames at 48 kHz would be five times slower).
            let chunk = unit_in * smooth_at_least(CHUNK.div_ceil(unit_in.max(unit_out)));
            let fft = Fft::new_custom(from, to, chunk, 1, 1, WindowFunction::BlackmanHarris2, FixedSync::Both);
            Box::new(fft.expect("rates and chunk size are non-zero"))
        } else {
            let params = SincInterpolationParameters::new(SINC_LEN, WindowFunction::BlackmanHarris2);
            let sinc = Async::new_sinc(to as f64 / from as f64, 1.0, &params, CHUNK, 1, FixedAsync::Input);
            Box::new(sinc.expect("the ratio is finite and positive"))
        };
        Rate {
            source_rate: u64::from(source_rate),
            delay: resampler.output_delay(),
            chunk_out: vec![0.0; resampler.output_frames_max()],
            resampler,
            pending: Vec::new(),
            frames_in: 0,
        }
    }

    /// Resamples every whole chunk of `pending`.
    fn drain(&mut self, out: &mut Vec<f32>) {
        let mut used = 0;
        while self.pending.len() - used >= self.resampler.input_frames_next() {
            used += self.call(out, used, None);
        }
        self.frames_in += used as u64;
        self.pending.drain(..used);
    }

    /// The last partial chunk, then silence until the delayed tail is out.
    fn flush(&mut self, out: &mut Vec<f32>) {
        self.frames_in += self.pending.len() as u64;
        let want = (self.frames_in * u64::from(TARGET_RATE) + self.source_rate / 2) / self.source_rate;
        let want = usize::try_from(want).expect("fits: the output is held in memory");
        let mut partial = Some(self.pending.len());
        while out.len() < want {
            self.call(out, 0, partial);
            partial = Some(0);
        }
        out.truncate(want);
    }

    /// One resampler call on `pending[from..]` (or its first `partial` frames,
    /// the rest taken as silence); returns the input frames consumed.
    fn call(&mut self, out: &mut Vec<f32>, from: usize, partial: Option<usize>) -> usize {
        let input = &self.pending[from..];
        let frames = partial.unwrap_or_else(|| self.resampler.input_frames_next()).min(input.len());
        let wave_in = InterleavedSlice::new(input, 1, frames).expect("frames within the slice");
        let max_out = self.chunk_out.len();
        let mut wave_out = InterleavedSlice::new_mut(&mut self.chunk_out, 1, max_out).expect("sized by the resampler");
        let indexing = partial.map(|n| Indexing::new().partial_len(n));
        let (used, made) = self
            .resampler
            .process_into_buffer(&wave_in, &mut wave_out, indexing.as_ref())
            .expect("buffers are sized as the resampler asks");
        let skip = self.delay.min(made);
        self.delay -= skip;
        out.extend_from_slice(&self.chunk_out[skip..made]);
        used
    }
}

/// The least n' ≥ n with no prime factor above 7.
fn smooth_at_least(n: usize) -> usize {
    let smooth = |mut k: usize| {
        for p in [2, 3, 5, 7] {
            while k.is_multiple_of(p) {
                k /= p;
            }
        }
        k == 1
    };
    (n.max(1)..).find(|&k| smooth(k)).expect("7-smooth numbers are unbounded")
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::PI;

    /// `seconds` of a `hz` sine at amplitude 0.5, the same in every channel.
    fn tone(rate: u32, hz: f64, seconds: f64, channels: usize) -> Vec<f32> {
        let n = (f64::from(rate) * seconds) as usize;
        (0..n)
            .flat_map(|i| {
                let v = (0.5 * (2.0 * PI * hz * i as f64 / f64::from(rate)).sin()) as f32;
                std::iter::repeat_n(v, channels)
            })
            .collect()
    }

    /// Pushes `input` in pieces of `piece` frames.
    fn resample(rate: u32, channels: usize, input: &[f32], piece: usize) -> Vec<f32> {
        let mut r = ToMono16k::new(rate, channels);
        for p in input.chunks(piece * channels) {
            r.push(p);
        }
        r.finish()
    }

    fn rms(x: &[f32]) -> f32 {
        (x.iter().map(|v| v * v).sum::<f32>() / x.len() as f32).sqrt()
    }

    /// The `hz` component of 16 kHz `x` (one DFT bin) as the amplitude and
    /// the lag in seconds of a sine `a · sin(2π·hz·(t − lag))`.
    fn component(x: &[f32], hz: f64) -> (f64, f64) {
        let (mut re, mut im) = (0.0, 0.0);
        for (i, &v) in x.iter().enumerate() {
            let phase = 2.0 * PI * hz * i as f64 / 16_000.0;
            re += f64::from(v) * phase.cos();
            im += f64::from(v) * phase.sin();
        }
        (2.0 * re.hypot(im) / x.len() as f64, (-re).atan2(im) / (2.0 * PI * hz))
    }

    fn amplitude_at(x: &[f32], hz: f64) -> f64 {
        component(x, hz).0
    }

    #[test]
    fn speech_band_keeps_its_pitch_length_and_level() {
        let out = resample(44_100, 2, &tone(44_100, 1000.0, 2.0, 2), 1152);
        assert!((out.len() as i64 - 32_000).abs() <= 2, "{} samples for 2 s", out.len());
        let middle = &out[4000..28_000];
        let rising = middle.windows(2).filter(|w| w[0] <= 0.0 && w[1] > 0.0).count();
        assert!((1499..=1501).contains(&rising), "{rising} rising crossings in 1.5 s of 1 kHz");
        assert!((amplitude_at(middle, 1000.0) - 0.5).abs() < 0.005, "1 kHz at {}", amplitude_at(middle, 1000.0));
        assert!(amplitude_at(middle, 1100.0) < 0.005, "and nothing beside it");
        // The resampler's delay is trimmed: what is left is rubato's filter
        // lagging half an input sample (11 µs), far under one output sample.
        // `middle` starts 250 whole cycles in, so its phase is the tone's.
        let lag = component(middle, 1000.0).1;
        assert!(lag.abs() < 0.5 / 16_000.0, "output lags the input by {:.1} µs", lag * 1e6);
    }

    #[test]
    fn a_click_stays_where_it_was() {
        // At 0.5 s of 44.1 kHz stereo; cues are cut by time, so the delay must be gone.
        let mut input = vec![0.0f32; 2 * 44_100];
        input[2 * 22_050..2 * 22_050 + 2].copy_from_slice(&[1.0, 1.0]);
        let out = resample(44_100, 2, &input, 1000);
        let peak = (0..out.len()).max_by(|&a, &b| out[a].abs().total_cmp(&out[b].abs())).expect("not empty");
        assert!(peak.abs_diff(8000) <= 1, "click at sample {peak}, not 8000");
    }

    #[test]
    fn what_16_khz_cannot_hold_is_filtered_not_folded() {
        let out = resample(48_000, 1, &tone(48_000, 10_000.0, 1.0, 1), 1000);
        assert_eq!(out.len(), 16_000);
        // Decimating without a filter would put the tone at 6 kHz, amplitude 0.5.
        assert!(amplitude_at(&out[2000..14_000], 6000.0) < 1e-3, "alias {}", amplitude_at(&out, 6000.0));
        assert!(rms(&out[2000..14_000]) < 1e-3, "rms {}", rms(&out[2000..14_000]));
    }

    #[test]
    fn lower_rates_are_upsampled() {
        for rate in [8000, 11_025, 22_050] {
            let out = resample(rate, 1, &tone(rate, 440.0, 1.0, 1), 333);
            assert!((out.len() as i64 - 16_000).abs() <= 1, "{rate} Hz: {} samples", out.len());
            let a = amplitude_at(&out[2000..14_000], 440.0);
            assert!((a - 0.5).abs() < 0.005, "{rate} Hz: 440 Hz at {a}");
        }
    }

    #[test]
    fn a_rate_without_common_factors_takes_the_sinc_path() {
        let rate = 999_983; // prime: the FFT block would be a million frames
        assert!(rate as usize / gcd(rate as usize, 16_000) > MAX_FFT_BLOCK);
        let out = resample(rate, 1, &tone(rate, 1000.0, 0.5, 1), 4096);
        assert!((out.len() as i64 - 8000).abs() <= 1, "{} samples", out.len());
        let a = amplitude_at(&out[1000..7000], 1000.0);
        assert!((a - 0.5).abs() < 0.01, "1 kHz at {a}");
    }

    #[test]
    fn absurd_rates_stay_small() {
        // 1 Hz: a 1 → 16000 unit, one unit a block (not 2048 of them: 500 MB).
        let mut one = ToMono16k::new(1, 1);
        one.push(&[0.25, 0.25, 0.25]);
        assert_eq!(one.finish().len(), 48_000);
        assert_eq!(resample(u32::MAX, 1, &[0.1; 10_000], 999).len(), 0, "10000 frames at 4.3 GHz round to none");
    }

    #[test]
    fn pieces_do_not_change_the_result() {
        let input = tone(44_100, 440.0, 0.7, 2);
        let whole = resample(44_100, 2, &input, input.len());
        for piece in [1, 7, 1151, 4099] {
            let pieces = resample(44_100, 2, &input, piece);
            assert_eq!(whole.len(), pieces.len(), "pieces of {piece}");
            let worst = whole.iter().zip(&pieces).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
            assert!(worst < 1e-5, "pieces of {piece}: {worst}");
        }
    }

    #[test]
    fn sixteen_khz_passes_through_after_averaging() {
        let left = tone(16_000, 300.0, 0.1, 1);
        let right = tone(16_000, 700.0, 0.1, 1);
        let stereo: Vec<f32> = left.iter().zip(&right).flat_map(|(&l, &r)| [l, r]).collect();
        let want: Vec<f32> = left.iter().zip(&right).map(|(l, r)| (l + r) / 2.0).collect();
        assert_eq!(resample(16_000, 2, &stereo, 64), want);
    }

    #[test]
    fn short_and_empty_inputs() {
        assert!(ToMono16k::new(44_100, 2).finish().is_empty());
        let out = resample(44_100, 1, &tone(44_100, 1000.0, 0.01, 1), 100);
        assert_eq!(out.len(), 160, "441 frames at 44.1 kHz are 160 at 16 kHz");
    }
}
