//! The three figures Exadata users compute by hand from their cells' I/O
//! rates (shared fixture `exadata/ciops-all-summary.txt`): the share of
//! reads served by flash, the share of writes absorbed by flash, and the
//! I/O rate per hard disk.
//!
//! One function serves both sources of rates: the cells' /proc/diskstats
//! (r/s and w/s summed over the DISK and FLASH device groups) and CellCLI's
//! `CD_IO_RQ_{R,W}_{SM,LG}_SEC` (summed over the CD_ and FD_ cell disks).
//!
//! IOPS per disk is the hard-disk group's reads plus writes over the number
//! of hard disks; flash I/O is left out. That is how the shared fixture's
//! figure comes about: (213 + 6814) / 84 = 83.65, printed as 83, where
//! counting flash too would give 6089.

use crate::layers::col::cols;

/// One of the three figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ShareCol {
    WritePctToFlash,
    ReadPctFromFlash,
    IopsPerDisk,
}

/// What a share column holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShareColKind {
    /// Percent of the requests one way.
    Pct,
    /// Requests per second per hard disk.
    OpsPerDisk,
}

cols! {
    /// As the users' summary script heads them, in the order it prints them.
    pub const SHARE_COLS: [ShareCol, ShareColKind] = [
        (WritePctToFlash, "WRITE_PCT_to_FLASH", "write_pct_to_flash", Pct),
        (ReadPctFromFlash, "READ_PCT_from_FLASH", "read_pct_from_flash", Pct),
        (IopsPerDisk, "IOPS_PER_DISK", "iops_per_disk", OpsPerDisk),
    ];
}

/// `None` is unknown, shown as "–": no I/O that way, no hard disk, or an
/// input rate that is itself unknown.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Shares {
    pub read_pct_from_flash: Option<f64>,
    pub write_pct_to_flash: Option<f64>,
    pub iops_per_disk: Option<f64>,
}

/// A rate that can enter a sum: finite and not negative. An unknown rate
/// is passed in as NaN and makes the figures it enters unknown.
fn rate(x: f64) -> Option<f64> {
    (x.is_finite() && x >= 0.0).then_some(x)
}

fn pct_of(part: f64, other: f64) -> Option<f64> {
    let (part, other) = (rate(part)?, rate(other)?);
    let total = part + other;
    (total > 0.0 && total.is_finite()).then(|| part / total * 100.0)
}

impl Shares {
    /// From the requests per second of each group, summed over whatever
    /// was sampled (one cell or all of them). `hard_disks` is the number of
    /// hard disks the disk rates were summed over.
    pub fn from_iops(
        flash_read: f64,
        disk_read: f64,
        flash_write: f64,
        disk_write: f64,
        hard_disks: usize,
    ) -> Shares {
        let per_disk = match (rate(disk_read), rate(disk_write)) {
            (Some(r), Some(w)) if hard_disks > 0 => {
                Some((r + w) / hard_disks as f64).filter(|x| x.is_finite())
            }
            _ => None,
        };
        Shares {
            read_pct_from_flash: pct_of(flash_read, disk_read),
            write_pct_to_flash: pct_of(flash_write, disk_write),
            iops_per_disk: per_disk,
        }
    }

    /// As [`Shares::from_iops`], with unknown rates as `None`.
    pub fn from_known_iops(
        flash_read: Option<f64>,
        disk_read: Option<f64>,
        flash_write: Option<f64>,
        disk_write: Option<f64>,
        hard_disks: usize,
    ) -> Shares {
        let nan = |x: Option<f64>| x.unwrap_or(f64::NAN);
        Shares::from_iops(
            nan(flash_read),
            nan(disk_read),
            nan(flash_write),
            nan(disk_write),
            hard_disks,
        )
    }

    pub fn get(&self, col: ShareCol) -> Option<f64> {
        match col {
            ShareCol::WritePctToFlash => self.write_pct_to_flash,
            ShareCol::ReadPctFromFlash => self.read_pct_from_flash,
            ShareCol::IopsPerDisk => self.iops_per_disk,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn denominators_of_zero_are_unknown() {
        let s = Shares::from_iops(0.0, 0.0, 0.0, 0.0, 0);
        assert_eq!(s, Shares::default());
        // all reads from flash, no hard disk at all (an Extreme Flash cell)
        let s = Shares::from_iops(100.0, 0.0, 10.0, 0.0, 0);
        assert_eq!(s.read_pct_from_flash, Some(100.0));
        assert_eq!(s.write_pct_to_flash, Some(100.0));
        assert_eq!(s.iops_per_disk, None);
    }

    #[test]
    fn bad_inputs_are_unknown_not_nan_or_negative() {
        let s = Shares::from_iops(-1.0, 5.0, f64::NAN, 5.0, 2);
        assert_eq!(s.read_pct_from_flash, None);
        assert_eq!(s.write_pct_to_flash, None);
        assert_eq!(s.iops_per_disk, Some(5.0));
        let s = Shares::from_iops(1.0, f64::INFINITY, 1.0, 1.0, 2);
        assert_eq!((s.read_pct_from_flash, s.iops_per_disk), (None, None));
        let s = Shares::from_known_iops(Some(3.0), Some(1.0), None, Some(0.0), 1);
        assert_eq!(s.read_pct_from_flash, Some(75.0));
        assert_eq!(s.write_pct_to_flash, None);
        assert_eq!(s.iops_per_disk, Some(1.0));
    }

    #[test]
    fn the_table_is_in_enum_order() {
        for (i, d) in SHARE_COLS.iter().enumerate() {
            assert_eq!(d.col as usize, i);
        }
    }
}
