//! Whisper's log-mel front end, computed exactly as the model was trained on
//! it (openai-whisper's `log_mel_spectrogram`, which `scripts/check_whisper.py`
//! restates in numpy as `log_mel`): a model fed slightly different features
//! transcribes slightly worse, and silently.
//!
//! The recipe: the audio plus 30 s of zeros, reflect-padded by half a frame
//! at both ends; 400-sample periodic-Hann frames every 160 samples, the last
//! one dropped; the power spectrum; Slaney mel filters; `log10` clamped at
//! 1e-10; floored 8 decades below the recording's maximum; then `(x + 4) / 4`.
//! The transform runs in f64 like numpy's, so the two agree to about 1e-6.
//!
//! Cost is linear in the audio and memory is the result alone: each frame
//! is projected onto the (sparse) mel filters as soon as it is transformed,
//! so the power spectrogram is never held, and only the global maximum needs
//! a second pass, over the mel values. 80 floats per 10 ms is 115 MB an hour.

use rustfft::num_complex::Complex;
use rustfft::{Fft, FftPlanner};
use std::sync::Arc;

/// Samples per second of the audio Whisper reads.
pub const SAMPLE_RATE: usize = 16_000;
/// Samples per analysis frame (25 ms).
pub const N_FFT: usize = 400;
/// Samples between frame starts (10 ms).
pub const HOP: usize = 160;
/// Seconds of zeros appended, one window's worth, so that the last window
/// of a recording is as padded as the model saw in training.
pub const CHUNK_SECONDS: usize = 30;

/// Spectrum bins of a real frame: 0 Hz to Nyquist.
const BINS: usize = N_FFT / 2 + 1;
/// Mel energy clamp before the logarithm.
const ENERGY_FLOOR: f32 = 1e-10;
/// Decades kept below the recording's loudest value.
const DYNAMIC_RANGE: f32 = 8.0;

/// `n_mels × frames` log-mel values, row-major: row `m` is mel band `m`
/// over time, one column per 10 ms frame.
#[derive(Debug, Clone, PartialEq)]
pub struct LogMel {
    pub n_mels: usize,
    pub frames: usize,
    pub data: Vec<f32>,
}

impl LogMel {
    /// Columns `start .. start + n` as one `n_mels × n` row-major window;
    /// columns past the end are 0.0 (not the silence floor), which is how
    /// Whisper pads a window cut from the end of a recording.
    pub fn window(&self, start: usize, n: usize) -> Vec<f32> {
        let mut out = vec![0.0f32; self.n_mels * n];
        let start = start.min(self.frames);
        let take = n.min(self.frames - start);
        for (row, dst) in self.data.chunks_exact(self.frames.max(1)).zip(out.chunks_exact_mut(n.max(1))) {
            dst[..take].copy_from_slice(&row[start..start + take]);
        }
        out
    }
}

/// The log-mel spectrogram of 16 kHz mono `samples` followed by
/// [`CHUNK_SECONDS`] of zeros: `samples.len() / HOP + 3000` frames of
/// `n_mels` bands (80 for every Whisper model but large-v3's 128).
pub fn log_mel(samples: &[f32], n_mels: usize) -> LogMel {
    let frames = (samples.len() + CHUNK_SECONDS * SAMPLE_RATE) / HOP;
    let bands = mel_bands(n_mels);
    let silent = ENERGY_FLOOR.log10();
    let mut data = vec![silent; n_mels * frames];
    // Frame f reads samples f·HOP − N_FFT/2 .. f·HOP + N_FFT/2; once that
    // starts past the audio it reads only the zero tail, so it is `silent`.
    let sounding = frames.min((samples.len() + N_FFT / 2).div_ceil(HOP));
    let mut stft = Stft::new();
    for f in 0..sounding {
        let power = stft.power(samples, f * HOP);
        for (m, band) in bands.iter().enumerate() {
            data[m * frames + f] = (band.energy(power) as f32).max(ENERGY_FLOOR).log10();
        }
    }
    let floor = data.iter().copied().fold(f32::NEG_INFINITY, f32::max) - DYNAMIC_RANGE;
    for x in &mut data {
        *x = (x.max(floor) + 4.0) / 4.0;
    }
    LogMel { n_mels, frames, data }
}

/// One planned 400-point transform and its buffers, reused for every frame.
struct Stft {
    fft: Arc<dyn Fft<f64>>,
    window: Vec<f64>,
    buf: Vec<Complex<f64>>,
    scratch: Vec<Complex<f64>>,
    power: Vec<f64>,
}

impl Stft {
    fn new() -> Self {
        let fft = FftPlanner::new().plan_fft_forward(N_FFT);
        let scratch = vec![Complex::default(); fft.get_inplace_scratch_len()];
        // Periodic Hann: the window of an N_FFT + 1 point symmetric one, less its last point.
        let window =
            (0..N_FFT).map(|n| 0.5 - 0.5 * (2.0 * std::f64::consts::PI * n as f64 / N_FFT as f64).cos()).collect();
        Stft { fft, window, buf: vec![Complex::default(); N_FFT], scratch, power: vec![0.0; BINS] }
    }

    /// |rfft|² of the windowed frame starting at `start` in the padded signal.
    ///
    /// Padded index `j` is signal index `j − N_FFT/2`, reflected at 0
    /// (`x[−i] = x[i]`). The other end needs no reflection: the signal ends
    /// in 30 s of zeros, and its reflection is zeros too.
    fn power(&mut self, samples: &[f32], start: usize) -> &[f64] {
        for (k, (slot, w)) in self.buf.iter_mut().zip(&self.window).enumerate() {
            let i = (start + k) as isize - (N_FFT / 2) as isize;
            let x = samples.get(i.unsigned_abs()).copied().unwrap_or(0.0);
            *slot = Complex::new(f64::from(x) * w, 0.0);
        }
        self.fft.process_with_scratch(&mut self.buf, &mut self.scratch);
        for (p, c) in self.power.iter_mut().zip(&self.buf) {
            *p = c.norm_sqr();
        }
        &self.power
    }
}

/// One triangular mel filter: its weights from bin `first` on (the rest are 0).
struct Band {
    first: usize,
    weights: Vec<f32>,
}

impl Band {
    fn energy(&self, power: &[f64]) -> f64 {
        self.weights.iter().zip(&power[self.first..]).map(|(&w, &p)| f64::from(w) * p).sum()
    }
}

/// librosa's `filters.mel(sr=16000, n_fft=400, n_mels)` with its defaults
/// (Slaney mel scale, Slaney area normalisation, 0 Hz to Nyquist), computed in
/// f64 and stored as f32 like Whisper's `mel_filters.npz`.
fn mel_bands(n_mels: usize) -> Vec<Band> {
    let fft_hz = linspace(0.0, SAMPLE_RATE as f64 / 2.0, BINS);
    let edges: Vec<f64> =
        linspace(hz_to_mel(0.0), hz_to_mel(SAMPLE_RATE as f64 / 2.0), n_mels + 2).into_iter().map(mel_to_hz).collect();
    edges
        .windows(3)
        .map(|e| {
            let (lo, mid, hi) = (e[0], e[1], e[2]);
            let area = 2.0 / (hi - lo);
            let dense: Vec<f32> = fft_hz
                .iter()
                .map(|&f| (((f - lo) / (mid - lo)).min((hi - f) / (hi - mid)).max(0.0) * area) as f32)
                .collect();
            let first = dense.iter().position(|&w| w > 0.0).unwrap_or(0);
            let last = dense.iter().rposition(|&w| w > 0.0).map_or(first, |l| l + 1);
            Band { first, weights: dense[first..last].to_vec() }
        })
        .collect()
}

/// Slaney's mel scale: linear below 1 kHz (3 mels per 200 Hz), logarithmic above.
const HZ_PER_MEL: f64 = 200.0 / 3.0;
const LOG_FROM_HZ: f64 = 1000.0;
const LOG_FROM_MEL: f64 = LOG_FROM_HZ / HZ_PER_MEL;

fn log_step() -> f64 {
    6.4f64.ln() / 27.0
}

fn hz_to_mel(hz: f64) -> f64 {
    if hz >= LOG_FROM_HZ { LOG_FROM_MEL + (hz / LOG_FROM_HZ).ln() / log_step() } else { hz / HZ_PER_MEL }
}

fn mel_to_hz(mel: f64) -> f64 {
    if mel >= LOG_FROM_MEL { LOG_FROM_HZ * (log_step() * (mel - LOG_FROM_MEL)).exp() } else { HZ_PER_MEL * mel }
}

/// numpy's `linspace`: `start + i·step`, the last point exactly `stop`.
fn linspace(start: f64, stop: f64, num: usize) -> Vec<f64> {
    let step = (stop - start) / (num - 1) as f64;
    (0..num).map(|i| if i == num - 1 { stop } else { start + i as f64 * step }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1.3 s of a chirp rising from 150 Hz at 2 kHz/s plus a quieter 3 kHz
    /// tone; the numpy reference builds the same from the same formula.
    fn chirp() -> Vec<f32> {
        use std::f64::consts::PI;
        (0..20_800)
            .map(|i| {
                let t = i as f64 / 16_000.0;
                (0.3 * (2.0 * PI * (150.0 * t + 1000.0 * t * t)).sin() + 0.1 * (2.0 * PI * 3000.0 * t).sin()) as f32
            })
            .collect()
    }

    /// Values printed by `check_whisper.log_mel(chirp, a)` (numpy 64-bit FFT):
    /// inside the sound, at its fading end (it stops at frame 130), and on
    /// the floor.
    #[test]
    fn matches_the_numpy_reference() {
        let mel = log_mel(&chirp(), 80);
        assert_eq!((mel.n_mels, mel.frames, mel.data.len()), (80, 3130, 80 * 3130));
        let max = mel.data.iter().copied().fold(f32::MIN, f32::max);
        assert!((max - 1.330_723_3).abs() < 1e-4, "global max {max}");
        let probes = [
            (0, 0, 1.126_647_7),
            (3, 1, 1.299_224_6),
            (5, 10, 0.426_258_15),
            (10, 20, 0.336_267),
            (20, 40, 0.175_512_91),
            (25, 64, -0.569_816_2),
            (33, 70, -0.073_255_42),
            (40, 90, -0.042_793_63),
            (45, 100, 1.155_055_2),
            (50, 125, 0.868_488_7),
            (55, 129, 0.941_306_5),
            (60, 130, 0.467_708_4),
            (38, 130, 0.453_935_15),
            (12, 131, -0.148_183_1),
            (64, 131, -0.163_429_14),
            (79, 100, -0.669_276_7),
            (7, 133, -0.669_276_7),
            (2, 3129, -0.669_276_7),
        ];
        for (m, f, want) in probes {
            let got = mel.data[m * mel.frames + f];
            assert!((got - want).abs() < 1e-4, "mel {m} frame {f}: {got}, numpy {want}");
        }
        let min = mel.data.iter().copied().fold(f32::MAX, f32::min);
        assert!((min - (max - 2.0)).abs() < 1e-6, "the floor is 8 decades (2 after scaling) below the max");
        let floored = mel.data.iter().filter(|&&x| x == min).count();
        assert_eq!(floored, 247_280, "cells on the floor (numpy's count)");
    }

    #[test]
    fn frame_count_is_len_over_hop_plus_3000() {
        // numpy's frame counts for these lengths: the last frame is dropped.
        for (len, frames) in [(0, 3000), (1, 3000), (159, 3000), (160, 3001), (479, 3002), (1000, 3006)] {
            assert_eq!(log_mel(&vec![0.01; len], 80).frames, frames, "{len} samples");
        }
    }

    #[test]
    fn digital_silence_is_the_floor_everywhere() {
        let mel = log_mel(&vec![0.0; 16_000], 80);
        assert_eq!(mel.frames, 3100);
        // numpy: (log10(float32(1e-10)) + 4) / 4 = -1.5000002 in every cell.
        assert!(mel.data.iter().all(|&x| (x - -1.500_000_2).abs() < 1e-6));
    }

    #[test]
    fn filters_match_librosa() {
        let bands = mel_bands(80);
        assert_eq!(bands.len(), 80);
        let weight = |m: usize, bin: usize| {
            let b = &bands[m];
            bin.checked_sub(b.first).and_then(|i| b.weights.get(i)).copied().unwrap_or(0.0)
        };
        // numpy's mel_filters(16000, 400, 80)[m, bin].
        let want = [
            (0, 1, 0.024_862_595),
            (0, 2, 0.0),
            (1, 1, 0.001_990_822),
            (1, 2, 0.022_871_772),
            (10, 11, 0.004_954_375_3),
            (10, 13, 0.0),
            (39, 41, 0.011_486_922),
            (39, 42, 0.010_089_745),
            (79, 186, 0.000_366_741_67),
            (79, 190, 0.002_232_055),
            (79, 199, 0.000_448_759_03),
            (79, 200, 0.0),
        ];
        for (m, bin, w) in want {
            assert!((weight(m, bin) - w).abs() < 1e-7, "band {m} bin {bin}: {} vs {w}", weight(m, bin));
        }
        // Where each row is non-zero, as numpy's np.nonzero gives it.
        let support = |m: usize| (bands[m].first, bands[m].first + bands[m].weights.len() - 1);
        assert_eq!([support(0), support(1), support(39), support(79)], [(1, 1), (1, 2), (40, 43), (186, 199)]);
    }

    #[test]
    fn windows_are_zero_padded_past_the_end() {
        let mel = log_mel(&chirp(), 80);
        let w = mel.window(3100, 50);
        assert_eq!(w.len(), 80 * 50);
        for m in [0, 41, 79] {
            let row = &w[m * 50..(m + 1) * 50];
            assert!(row[..30].iter().all(|&x| x == mel.data[m * mel.frames + 3100]), "copied columns");
            assert!(row[30..].iter().all(|&x| x == 0.0), "0.0 past the end, not the floor");
        }
        let first = mel.window(0, 3000);
        assert_eq!(first[45 * 3000 + 100], mel.data[45 * mel.frames + 100]);
        assert!(mel.window(5000, 10).iter().all(|&x| x == 0.0), "a window wholly past the end");
    }
}
