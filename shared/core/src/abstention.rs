//! When a search should answer "nothing in the index answers this".
//!
//! The evidence is the nearest chunk's cosine distance and its *margin*: how
//! much nearer it is than the nearest chunk of any other document. A question
//! the index answers singles out a document; a question it does not answer
//! lands among many documents at about the same distance (docs/EVALUATION.md,
//! "Abstention": on the English golden set the margin averages 0.17 for
//! answerable questions and 0.04 for out-of-domain ones).

/// The margin's credit is capped at this share of the threshold: an answer
/// is never farther than 1.3 × the threshold, however much its document
/// stands out (in an index of two documents everything stands out).
pub const MAX_CREDIT: f32 = 0.3;

/// A model that abstains by windows (the nearest window of the nearest
/// chunks, embedded at query time) skips that step when the nearest chunk
/// is within this share of the threshold: the answer is clear. Measured
/// (docs/EVALUATION.md, "A larger English model", "Abstaining by
/// windows"): a window was never more than 0.09
/// farther than its chunk (all-mpnet-base-v2; 0.02 for
/// multilingual-e5-small), so at 0.8 × the threshold no decision of the
/// golden sets changes, and about half the searches skip the step.
pub const CLEARLY_NEAR: f32 = 0.8;

/// A model's calibrated rule: answer when the nearest distance, less
/// `margin_weight` × margin (at most [`MAX_CREDIT`] × threshold), is within
/// `threshold`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Abstention {
    pub threshold: f32,
    pub margin_weight: f32,
}

impl Abstention {
    /// The nearest distance alone.
    pub fn distance(threshold: f32) -> Self {
        Abstention { threshold, margin_weight: 0.0 }
    }

    /// True when a search whose nearest chunk lies at `nearest` with that
    /// `margin` over the next document should answer nothing.
    pub fn abstains(&self, nearest: f32, margin: f32) -> bool {
        let credit = (self.margin_weight * margin.max(0.0)).min(MAX_CREDIT * self.threshold);
        nearest - credit > self.threshold
    }

    /// True when the nearest chunk at `nearest` is answer enough that
    /// window evidence need not be measured ([`CLEARLY_NEAR`]).
    pub fn clearly_answers(&self, nearest: f32) -> bool {
        nearest <= CLEARLY_NEAR * self.threshold
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_margin_lifts_a_near_miss_but_never_past_the_cap() {
        let rule = Abstention { threshold: 0.5, margin_weight: 1.5 };
        assert!(!rule.abstains(0.5, 0.0));
        assert!(rule.abstains(0.55, 0.0), "no margin: the distance decides");
        assert!(!rule.abstains(0.55, 0.04), "0.55 - 1.5 x 0.04 = 0.49");
        assert!(rule.abstains(0.66, 1.0), "credit capped at 0.3 x 0.5 = 0.15");
        assert!(!rule.abstains(0.64, 1.0));
        assert!(Abstention::distance(0.5).abstains(0.55, 1.0));
    }

    #[test]
    fn only_a_chunk_well_within_the_threshold_is_clear_without_windows() {
        let rule = Abstention::distance(0.5);
        assert!(rule.clearly_answers(0.4));
        assert!(!rule.clearly_answers(0.41), "0.41 > 0.8 x 0.5: the windows decide");
        assert!(!rule.clearly_answers(0.6));
    }
}
