//! Which token may come next: Whisper's decoding rules for greedy search
//! with timestamps (suppressed tokens, a timestamp first and no later than
//! a second in, timestamps in pairs that never go back in time, and a
//! timestamp whenever all timestamps together outweigh the best text token).
//! Without these the model drifts into untimed text and the `#t=` locators
//! that cite a transcript would have nothing to stand on.

use crate::spec::AsrSpec;

/// Applies the rules to `logits` (the raw scores of the next position) given
/// the tokens `sampled` so far in this window.
pub(crate) fn apply(spec: &AsrSpec, logits: &mut [f32], sampled: &[u32]) {
    let t = &spec.tokens;
    let (tb, eot) = (t.timestamp_begin as usize, t.eot as usize);
    let ninf = f32::NEG_INFINITY;
    for &s in &spec.suppress_tokens {
        if let Some(l) = logits.get_mut(s as usize) {
            *l = ninf;
        }
    }
    logits[t.no_timestamps as usize] = ninf;
    if sampled.is_empty() {
        for &s in &spec.suppress_blank {
            if let Some(l) = logits.get_mut(s as usize) {
                *l = ninf;
            }
        }
        logits[..tb].fill(ninf);
        let last_allowed = tb + (spec.max_initial_timestamp / t.seconds_per_timestamp).round() as usize;
        if last_allowed + 1 < logits.len() {
            logits[last_allowed + 1..].fill(ninf);
        }
    } else {
        let is_ts = |x: u32| x as usize >= tb;
        let last_ts = is_ts(sampled[sampled.len() - 1]);
        let penult_ts = sampled.len() < 2 || is_ts(sampled[sampled.len() - 2]);
        if last_ts {
            if penult_ts {
                logits[tb..].fill(ninf); // a pair just closed: text next
            } else {
                logits[..eot].fill(ninf); // a lone timestamp: its pair or the end next
            }
        }
        if let Some(&last) = sampled.iter().rev().find(|&&x| is_ts(x)) {
            let upto = (last as usize + usize::from(!last_ts || penult_ts)).min(logits.len());
            logits[tb..upto].fill(ninf);
        }
    }
    let logp = log_softmax(logits);
    let ts_mass = log_sum_exp(&logp[tb..]);
    let best_text = logp[..tb].iter().copied().fold(ninf, f32::max);
    if ts_mass > best_text {
        logits[..tb].fill(ninf);
    }
}

/// `log(sum(exp(x)))`, stable; `-inf` for an empty or all `-inf` slice.
pub(crate) fn log_sum_exp(x: &[f32]) -> f32 {
    let max = x.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    if max == f32::NEG_INFINITY {
        return max;
    }
    max + x.iter().map(|v| (v - max).exp()).sum::<f32>().ln()
}

pub(crate) fn log_softmax(x: &[f32]) -> Vec<f32> {
    let z = log_sum_exp(x);
    x.iter().map(|v| v - z).collect()
}

/// Index of the largest value (the first on ties, as numpy's argmax).
pub(crate) fn argmax(x: &[f32]) -> usize {
    let mut best = 0;
    for (i, &v) in x.iter().enumerate() {
        if v > x[best] {
            best = i;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::*;

    /// A toy vocabulary: text 0..10, eot 10, sot 11, no_timestamps 12,
    /// timestamps 13..=63 (0.00 s .. 1.00 s at 0.02 s).
    fn spec() -> AsrSpec {
        AsrSpec {
            name: "toy".into(),
            multilingual: false,
            files: Files {
                encoder: String::new(),
                cross_kv: String::new(),
                decoder: String::new(),
                tokenizer: String::new(),
            },
            audio: AudioSpec { sample_rate: 16000, hop_length: 160, n_mels: 80, n_frames: 3000 },
            model: Dims { n_text_ctx: 448, n_vocab: 64, decoder_layers: 1, decoder_heads: 1, head_dim: 1 },
            tokens: Tokens {
                eot: 10,
                sot: 11,
                transcribe: 11,
                no_speech: None,
                no_timestamps: 12,
                timestamp_begin: 13,
                seconds_per_timestamp: 0.02,
            },
            languages: Default::default(),
            suppress_tokens: vec![3],
            suppress_blank: vec![0, 10],
            max_initial_timestamp: 0.2,
        }
    }

    #[test]
    fn a_window_starts_with_an_early_timestamp() {
        let s = spec();
        let mut l = vec![0.0f32; 64];
        l[5] = 9.0; // the best text token must still lose to a timestamp
        apply(&s, &mut l, &[]);
        let best = argmax(&l);
        assert!((13..=23).contains(&best), "first token {best} is a timestamp within 0.2 s");
        assert!(l[24..].iter().all(|v| v.is_infinite()), "no later initial timestamp");
    }

    #[test]
    fn timestamps_come_in_pairs_and_never_go_back() {
        let s = spec();
        // After <|0.10|> text: a lone timestamp then forces its pair or eot.
        let mut l = vec![0.0f32; 64];
        l[4] = 50.0;
        apply(&s, &mut l, &[18, 4, 30]);
        assert!(l[..10].iter().all(|v| v.is_infinite()), "no text after a lone timestamp");
        assert!(l[13..30].iter().all(|v| v.is_infinite()), "no timestamp before the last one");
        assert!(l[30].is_finite(), "the closing timestamp may repeat the opening one");
        // After a closed pair text comes next, and suppressed tokens never.
        let mut l = vec![0.0f32; 64];
        l[4] = 50.0;
        apply(&s, &mut l, &[18, 4, 30, 30]);
        assert!(l[13..].iter().all(|v| v.is_infinite()));
        assert!(l[3].is_infinite() && l[12].is_infinite());
        assert_eq!(argmax(&l), 4);
    }
}
