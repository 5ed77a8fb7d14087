//! Decoded audio to what speech recognition reads: 16 kHz mono.
//!
//! Channels are averaged, then a windowed-sinc low-pass interpolator (cut
//! off just under the lower Nyquist frequency, Blackman window, 16 zero
//! crossings a side, read from a table) computes each output sample from the input
//! around its position. Band-limiting matters: 44.1 kHz audio decimated
//! without it folds everything above 8 kHz back into the speech band. The
//! input is consumed as it arrives and only a kernel's width of it is kept,
//! so memory is the 16 kHz output alone (64 KB a second).

const TARGET: f64 = 16_000.0;
/// Zero crossings of the sinc on each side of an output sample.
const TAPS: f64 = 16.0;
/// Kernel table entries per input sample (linear interpolation between them).
const RES: f64 = 256.0;
/// Cut-off as a fraction of the lower Nyquist frequency.
const ROLLOFF: f64 = 0.95;

pub(crate) struct ToMono16k {
    channels: usize,
    /// Input samples per output sample.
    step: f64,
    /// Kernel half-width in input samples.
    reach: f64,
    /// The kernel at 0, 1/RES, 2/RES … `reach` input samples.
    kernel: Vec<f64>,
    /// Mono input not yet wholly consumed; `base` is the index of its first sample.
    pending: Vec<f32>,
    base: usize,
    /// Position (in input samples) of the next output sample.
    next: f64,
    out: Vec<f32>,
}

impl ToMono16k {
    pub(crate) fn new(source_rate: u32, channels: usize) -> Self {
        let step = f64::from(source_rate.max(1)) / TARGET;
        let cutoff = ROLLOFF * 0.5 / step.max(1.0);
        let reach = TAPS / (2.0 * cutoff);
        let kernel = (0..=(reach * RES).ceil() as usize + 1)
            .map(|i| {
                let x = i as f64 / RES;
                let sinc = if i == 0 {
                    2.0 * cutoff
                } else {
                    (2.0 * std::f64::consts::PI * cutoff * x).sin() / (std::f64::consts::PI * x)
                };
                sinc * blackman(x / reach)
            })
            .collect();
        ToMono16k { channels: channels.max(1), step, reach, kernel, pending: Vec::new(), base: 0, next: 0.0, out: Vec::new() }
    }

    /// Takes interleaved samples of the source's channels.
    pub(crate) fn push(&mut self, interleaved: &[f32]) {
        let c = self.channels;
        self.pending.extend(interleaved.chunks(c).map(|f| f.iter().sum::<f32>() / c as f32));
        self.drain(false);
    }

    /// The whole recording at 16 kHz.
    pub(crate) fn finish(mut self) -> Vec<f32> {
        self.drain(true);
        self.out
    }

    fn drain(&mut self, all: bool) {
        if self.step == 1.0 {
            self.out.append(&mut self.pending);
            return;
        }
        let end = self.base + self.pending.len();
        let total = if all { end as f64 } else { end as f64 - self.reach - 1.0 };
        while self.next < total && (!all || self.next < end as f64) {
            self.out.push(self.sample_at(self.next));
            self.next += self.step;
        }
        // Keep only what a later output sample can still reach.
        let keep_from = ((self.next - self.reach).floor().max(0.0) as usize).max(self.base);
        let drop = (keep_from - self.base).min(self.pending.len());
        self.pending.drain(..drop);
        self.base += drop;
    }

    fn sample_at(&self, t: f64) -> f32 {
        let lo = (t - self.reach).ceil().max(self.base as f64) as usize;
        let hi = ((t + self.reach).floor() as usize).min(self.base + self.pending.len().saturating_sub(1));
        let mut acc = 0.0f64;
        for i in lo..=hi {
            let pos = (i as f64 - t).abs() * RES;
            let (j, frac) = (pos as usize, pos.fract());
            let (a, b) = (self.kernel[j], self.kernel.get(j + 1).copied().unwrap_or(0.0));
            acc += f64::from(self.pending[i - self.base]) * (a + (b - a) * frac);
        }
        acc as f32
    }
}

/// Blackman window over `u` in -1..1.
fn blackman(u: f64) -> f64 {
    if u.abs() >= 1.0 {
        return 0.0;
    }
    let a = std::f64::consts::PI * (u + 1.0);
    0.42 - 0.5 * a.cos() + 0.08 * (2.0 * a).cos()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tone(rate: u32, hz: f64, seconds: f64, channels: usize) -> Vec<f32> {
        let n = (f64::from(rate) * seconds) as usize;
        (0..n)
            .flat_map(|i| {
                let v = (2.0 * std::f64::consts::PI * hz * i as f64 / f64::from(rate)).sin() as f32 * 0.5;
                std::iter::repeat_n(v, channels)
            })
            .collect()
    }

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

    #[test]
    fn speech_band_passes_and_keeps_its_pitch() {
        let out = resample(44_100, 2, &tone(44_100, 1000.0, 1.0, 2), 1152);
        assert!((out.len() as i64 - 16_000).abs() <= 2, "{} samples", out.len());
        let middle = &out[2000..14_000];
        let crossings = middle.windows(2).filter(|w| w[0] <= 0.0 && w[1] > 0.0).count();
        assert!((740..=760).contains(&crossings), "{crossings} rising crossings in 0.75 s of 1 kHz");
        assert!((rms(middle) - 0.5 / 2f32.sqrt()).abs() < 0.01, "amplitude kept: {}", rms(middle));
    }

    #[test]
    fn what_cannot_be_represented_is_filtered_not_folded() {
        let out = resample(48_000, 1, &tone(48_000, 10_000.0, 1.0, 1), 1000);
        assert!(rms(&out[2000..14_000]) < 0.01, "10 kHz folds to 6 kHz without a filter: rms {}", rms(&out));
    }

    #[test]
    fn pieces_do_not_change_the_result() {
        let input = tone(22_050, 440.0, 0.5, 1);
        let whole = resample(22_050, 1, &input, input.len());
        let pieces = resample(22_050, 1, &input, 7);
        assert_eq!(whole.len(), pieces.len());
        assert!(whole.iter().zip(&pieces).all(|(a, b)| (a - b).abs() < 1e-5));
        let same = resample(16_000, 2, &tone(16_000, 300.0, 0.1, 2), 64);
        assert_eq!(same, tone(16_000, 300.0, 0.1, 1));
    }
}
