//! A cell that reboots while strata watches: its clock and counters go
//! back. The sample after the reboot only sets a new baseline (no figure,
//! not a spike), and the one after it gives the same figures as a cell
//! watched from its boot on.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{cell_target, sample};
use strata::app::cells::CellView;
use strata::layers::cells::model::GroupCol;
use strata::layers::disks::source::DiskSample;

/// The fixture host's sample `k`, as read `secs` after a (re)boot.
fn after_boot(k: u64, secs: u64) -> DiskSample {
    let mut s = sample(k);
    s.uptime_cs = secs * 100;
    s
}

fn r_per_s(cell: &CellView) -> Option<f64> {
    cell.groups
        .as_ref()
        .and_then(|g| g.disk.as_ref())
        .and_then(|d| d.get(GroupCol::RPerS))
}

#[test]
fn a_reboot_sets_a_new_baseline_instead_of_a_spike() {
    let mut cell = CellView::new(cell_target("cel01"), 60);
    cell.ingest(sample(40));
    cell.ingest(sample(41));
    let before = r_per_s(&cell).expect("figures before the reboot");
    assert!(before > 0.0);

    // Rebooted: 30 s after boot, counters from the fixture's second 1
    // (lower than second 41's on every device).
    cell.ingest(after_boot(1, 30));
    assert!(cell.groups.is_none(), "no figure across a reboot");

    cell.ingest(after_boot(2, 31));
    let after = r_per_s(&cell).expect("figures again one interval later");

    // The same second 1 → 2 on a cell watched from boot.
    let mut fresh = CellView::new(cell_target("cel02"), 60);
    fresh.ingest(after_boot(1, 30));
    fresh.ingest(after_boot(2, 31));
    assert_eq!(Some(after), r_per_s(&fresh));
    // And that is the fixture's own rate for second 2, not a jump from
    // second 41's counters down to second 2's.
    assert!(after > 0.0 && after < before * 2.0, "{after} vs {before}");
}
