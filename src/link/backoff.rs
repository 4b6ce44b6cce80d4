//! Reconnecting without hammering: a capped exponential wait with jitter,
//! shared by the SSH hosts and the database sources.

use std::time::Duration;

/// The wait before reconnect attempt `failures` (1 for the first): the
/// doubled base, capped, then drawn between half and all of it so that
/// cells dropped together do not come back together.
pub fn backoff(failures: u32, first: Duration, cap: Duration, random: u64) -> Duration {
    let doubled = first
        .checked_mul(1u32 << failures.saturating_sub(1).min(20))
        .unwrap_or(cap);
    let d = doubled.min(cap);
    let half = d / 2;
    let spread = (d - half).as_micros() as u64;
    let jitter = if spread == 0 {
        0
    } else {
        random % (spread + 1)
    };
    half + Duration::from_micros(jitter)
}

/// xorshift64: enough to spread reconnects.
pub fn next_random(state: &mut u64) -> u64 {
    let mut x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_within_half_and_all_and_stops_at_the_cap() {
        let (first, cap) = (Duration::from_secs(1), Duration::from_secs(30));
        for r in [0u64, 1, 12345, u64::MAX] {
            // attempt n waits between 2^(n-1)/2 and 2^(n-1) seconds, at most 30 s
            for (n, lo, hi) in [
                (1, 500, 1000),
                (2, 1000, 2000),
                (5, 8000, 16000),
                (6, 15000, 30000),
            ] {
                let d = backoff(n, first, cap, r).as_millis();
                assert!((lo..=hi).contains(&d), "attempt {n} random {r}: {d} ms");
            }
            let d = backoff(u32::MAX, first, cap, r).as_millis();
            assert!((15000..=30000).contains(&d), "{d}");
        }
        assert_eq!(backoff(3, Duration::ZERO, cap, 7), Duration::ZERO);
    }
}
