//! The shared time axis: every sampler, host and cells alike, samples at
//! the multiples of the interval on the wall clock, so one column of the
//! screen is the same second in every layer.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The wait from `since_epoch` to the next multiple of `interval`.
pub fn wait_from(interval: Duration, since_epoch: Duration) -> Duration {
    let period = interval.as_nanos().max(1);
    let mut wait = period - since_epoch.as_nanos() % period;
    // A timer may wake a little before the wall clock reaches the boundary
    // it aimed at: a boundary that near is the one just served.
    if wait < period / 10 {
        wait += period;
    }
    Duration::from_nanos(u64::try_from(wait).unwrap_or(u64::MAX))
}

fn since_epoch() -> Duration {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
}

/// The next boundary as a timer instant. Taken afresh from the wall clock
/// each time, so samplers never drift apart.
pub fn next(interval: Duration) -> tokio::time::Instant {
    tokio::time::Instant::now() + wait_from(interval, since_epoch())
}

/// Blocks this thread to the next boundary, for a sampler without a
/// runtime (`strata batch` of one host). The sleep runs on the monotonic
/// clock, which a slewed wall clock can be a little ahead of: woken before
/// the boundary on the wall clock, the reading would be stamped with the
/// second before it, so it sleeps the rest (at most a few such rests).
pub fn sleep_to_next(interval: Duration) {
    let now = since_epoch();
    let target = now + wait_from(interval, now);
    std::thread::sleep(target - now);
    for _ in 0..4 {
        match target.checked_sub(since_epoch()) {
            Some(rest) if !rest.is_zero() => std::thread::sleep(rest),
            _ => break,
        }
    }
}

/// The boundary a sample taken at `wall_ms` belongs to: the nearest
/// multiple of `interval_ms` (a sampler wakes just after its boundary, a
/// frame's time may be a few milliseconds either side of it).
pub fn nearest(wall_ms: i64, interval_ms: i64) -> i64 {
    let iv = interval_ms.max(1);
    (wall_ms + iv / 2).div_euclid(iv) * iv
}

/// Whether a stream of samples (a host's layer, a cell) has closed its
/// first interval. That one runs from whenever the sampler started to the
/// next boundary, a tenth of an interval to 1.1 intervals: shorter than
/// half the run's interval, it is left out wherever figures are printed
/// (batch, export, summary), since a 0.29 s row among 1 s rows would carry
/// the run's highest %util on a handful of requests, and the rows of two
/// hosts with the same time would cover different spans. A short interval
/// later on (after a late sample) is a real one and stays.
#[derive(Debug, Default, Clone, Copy)]
pub struct FirstInterval {
    closed: bool,
}

impl FirstInterval {
    /// Called with each interval the stream closes, `itv_cs` long, in a
    /// run of `interval_ms`: why it is left out, or `None` to report it.
    pub fn left_out(&mut self, itv_cs: u64, interval_ms: i64) -> Option<String> {
        let first = !std::mem::replace(&mut self.closed, true);
        // half the interval in centiseconds is interval_ms / 20
        let short = u128::from(itv_cs) * 20 < u128::try_from(interval_ms).unwrap_or(0);
        (first && short).then(|| {
            format!(
                "a {:.2} s interval left out (shorter than half the {:.2} s interval)",
                itv_cs as f64 / 100.0,
                interval_ms as f64 / 1000.0
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_belongs_to_the_nearest_boundary() {
        assert_eq!(nearest(13_004, 1000), 13_000);
        assert_eq!(nearest(12_996, 1000), 13_000);
        assert_eq!(nearest(13_499, 1000), 13_000);
        assert_eq!(nearest(4_100, 2000), 4_000);
        assert_eq!(nearest(-3, 1000), 0);
        assert_eq!(nearest(7, 0), 7);
    }

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn waits_for_the_next_multiple() {
        // 12.300 s with a 1 s interval: 0.700 s to 13.000.
        assert_eq!(wait_from(ms(1000), ms(12_300)), ms(700));
        // 2 s interval: 13.700 → 14.000.
        assert_eq!(wait_from(ms(2000), ms(13_700)), ms(300));
        assert_eq!(wait_from(ms(250), ms(1_000_100)), ms(150));
    }

    #[test]
    fn a_boundary_just_ahead_was_the_one_served() {
        // Woken 1 ms early for 13.000: the next one is 14.000.
        assert_eq!(wait_from(ms(1000), ms(12_999)), ms(1001));
        // Exactly on a boundary: a whole interval.
        assert_eq!(wait_from(ms(1000), ms(13_000)), ms(1000));
        // 100 ms before, with 1 s: still this boundary.
        assert_eq!(wait_from(ms(1000), ms(12_900)), ms(100));
    }

    #[test]
    fn a_zero_interval_does_not_divide_by_zero() {
        assert!(wait_from(Duration::ZERO, ms(5)) <= Duration::from_nanos(2));
    }

    #[test]
    fn only_a_short_first_interval_is_left_out() {
        let mut f = FirstInterval::default();
        assert_eq!(
            f.left_out(29, 1000).as_deref(),
            Some("a 0.29 s interval left out (shorter than half the 1.00 s interval)")
        );
        // the next short one is real: a sample came late
        assert_eq!(f.left_out(40, 1000), None);
        // half an interval is kept
        assert_eq!(FirstInterval::default().left_out(50, 1000), None);
        assert!(FirstInterval::default().left_out(12, 250).is_some());
        assert_eq!(FirstInterval::default().left_out(13, 250), None);
    }
}
