//! Small-sample statistics that keep evaluation honest.

/// Wilson score interval (95 %) for `k` successes in `n` trials.
pub fn wilson(k: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let z = 1.959_963_984_540_054_f64;
    let (n, p) = (n as f64, k as f64 / n as f64);
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * ((p * (1.0 - p) / n) + z * z / (4.0 * n * n)).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// Exact two-sided sign test: the probability, under "no difference", of a
/// split of the `wins + losses` discordant pairs at least this uneven.
pub fn sign_test(wins: usize, losses: usize) -> f64 {
    let n = wins + losses;
    if n == 0 {
        return 1.0;
    }
    let k = wins.min(losses);
    // P(X <= k) for X ~ Binomial(n, 1/2), computed in log space.
    let ln_half_n = n as f64 * 0.5f64.ln();
    let mut ln_choose = 0.0; // ln C(n, 0)
    let mut tail = 0.0;
    for i in 0..=k {
        if i > 0 {
            ln_choose += ((n - i + 1) as f64).ln() - (i as f64).ln();
        }
        tail += (ln_choose + ln_half_n).exp();
    }
    (2.0 * tail).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_test_matches_known_values() {
        // +18/-3: the seed's example, p = 0.0015.
        assert!((sign_test(18, 3) - 0.00149).abs() < 1e-4, "{}", sign_test(18, 3));
        assert_eq!(sign_test(5, 5), 1.0);
        assert!((sign_test(0, 6) - 0.03125).abs() < 1e-9);
    }

    #[test]
    fn wilson_brackets_the_proportion() {
        let (lo, hi) = wilson(30, 40);
        assert!(lo < 0.75 && 0.75 < hi);
        assert!((lo - 0.5981).abs() < 1e-3 && (hi - 0.8581).abs() < 1e-3, "{lo} {hi}");
        assert_eq!(wilson(0, 0), (0.0, 1.0));
    }
}
