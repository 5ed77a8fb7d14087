//! Recognition input and output: strips of similar width batched into one
//! tensor (padded on the right, at least 320 wide as the graph was trained),
//! and the greedy CTC decode of its per-step class probabilities.
//!
//! The classes are: 0 the CTC blank, 1..=N the alphabet stored in the
//! graph's metadata (`character`, one entry per line), N + 1 a space.

use crate::crop::{HEIGHT, Strip};

/// The narrowest batch the graph is given (PaddleOCR's 3 × 48 × 320 shape).
const MIN_WIDTH: usize = 320;

/// A batch's NCHW tensor, grey repeated over three channels, normalised to
/// -1..1; padding is 0 (mid-grey), as in training.
pub(crate) fn batch_tensor(strips: &[&Strip]) -> (usize, Vec<f32>) {
    let width = strips.iter().map(|s| s.width).max().unwrap_or(0).max(MIN_WIDTH);
    let plane = HEIGHT * width;
    let mut out = vec![0.0f32; strips.len() * 3 * plane];
    for (n, s) in strips.iter().enumerate() {
        for row in 0..HEIGHT {
            for col in 0..s.width {
                let value = f32::from(s.pixels[row * s.width + col]) / 127.5 - 1.0;
                for c in 0..3 {
                    out[(n * 3 + c) * plane + row * width + col] = value;
                }
            }
        }
    }
    (width, out)
}

/// Greedy CTC: the most likely class at each step, repeats merged, blanks
/// dropped. Returns the text and the mean probability of its characters.
pub(crate) fn decode(steps: &[f32], classes: usize, alphabet: &[String]) -> (String, f32) {
    let mut text = String::new();
    let (mut sum, mut n) = (0.0f32, 0usize);
    let mut previous = 0usize;
    for step in steps.chunks_exact(classes) {
        let (best, p) = step.iter().enumerate().fold((0, f32::MIN), |b, (i, &p)| if p > b.1 { (i, p) } else { b });
        if best != 0 && best != previous {
            match alphabet.get(best - 1) {
                Some(ch) => text.push_str(ch),
                None => text.push(' '),
            }
            sum += p;
            n += 1;
        }
        previous = best;
    }
    let confidence = if n == 0 { 0.0 } else { sum / n as f32 };
    (text.trim().to_string(), confidence)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ctc_merges_repeats_drops_blanks_and_maps_the_last_class_to_space() {
        let alphabet: Vec<String> = ["a", "b"].map(String::from).to_vec();
        // classes: 0 blank, 1 a, 2 b, 3 space
        let one_hot = |c: usize, p: f32| {
            let mut v = vec![(1.0 - p) / 3.0; 4];
            v[c] = p;
            v
        };
        let steps: Vec<f32> = [(1, 0.9), (1, 0.9), (0, 0.9), (1, 0.7), (3, 0.8), (2, 0.6), (0, 0.9)]
            .iter()
            .flat_map(|&(c, p)| one_hot(c, p))
            .collect();
        let (text, conf) = decode(&steps, 4, &alphabet);
        assert_eq!(text, "aa b");
        assert!((conf - (0.9 + 0.7 + 0.8 + 0.6) / 4.0).abs() < 1e-6);
    }

    #[test]
    fn batches_are_padded_to_the_widest_strip_or_320() {
        let s = Strip { width: 2, pixels: vec![255; 2 * HEIGHT] };
        let (w, t) = batch_tensor(&[&s]);
        assert_eq!((w, t.len()), (320, 3 * HEIGHT * 320));
        assert_eq!((t[0], t[1], t[2]), (1.0, 1.0, 0.0));
    }
}
