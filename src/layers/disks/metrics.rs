//! The block devices' counters on `/metrics`: /proc/diskstats field by
//! field, under node_exporter's diskstats names, help and units (sectors
//! as bytes, milliseconds as seconds), so `rate()` of them gives iostat's
//! figures: `r/s` is the rate of reads completed, `rkB/s` of bytes read
//! over 1024, `r_await` the rate of read time over the rate of reads.
//! A cell's disks are the same counters of another machine: the same
//! table gives their `strata_cell_disk_` families.

use super::diskstats::DiskCounters;
use super::source::DiskSample;
use crate::layers::metric::{Family, Field, MetricType, Sink, count, ms, put_fields};

/// Bytes in a sector of /proc/diskstats, whatever the device's own.
const SECTOR: f64 = 512.0;

/// `(type, name after the prefix, help, unit, source, value)` of each
/// field of a device, in /proc/diskstats order: a host's devices under
/// node_exporter's `node_disk_` names, a cell's under `strata_cell_disk_`.
macro_rules! disk_fields {
    ($(($kind:ident, $name:literal, $help:literal, $unit:literal, $source:literal, $get:expr),)*) => {
        /// A host's device, labelled by its name.
        pub static DISK_FIELDS: [Field<DiskCounters>; 17] = [$(Field {
            family: Family::new(concat!("node_disk_", $name), $help, $unit, $source)
                .kind(MetricType::$kind)
                .labels(&["device"])
                .node_exporter(true),
            get: $get,
        },)*];

        /// A cell's device, labelled by its name and its group (DISK or
        /// FLASH, empty for a device in neither).
        pub static CELL_DISK_FIELDS: [Field<DiskCounters>; 17] = [$(Field {
            family: Family::new(
                concat!("strata_cell_disk_", $name),
                concat!("A storage cell's device: ", $help),
                $unit,
                concat!("the cell's ", $source),
            )
            .kind(MetricType::$kind)
            .labels(&["device", "media"]),
            get: $get,
        },)*];
    };
}

disk_fields! {
    (Counter, "reads_completed_total", "The total number of reads completed successfully.", "", "/proc/diskstats field 4", |d| count(d.rd_ios)),
    (Counter, "reads_merged_total", "The total number of reads merged.", "", "/proc/diskstats field 5", |d| count(d.rd_merges)),
    (Counter, "read_bytes_total", "The total number of bytes read successfully.", "bytes", "/proc/diskstats field 6 × 512", |d| count(d.rd_sectors).map(|s| s * SECTOR)),
    (Counter, "read_time_seconds_total", "The total number of seconds spent by all reads.", "seconds", "/proc/diskstats field 7 / 1000", |d| ms(d.rd_ticks.into())),
    (Counter, "writes_completed_total", "The total number of writes completed successfully.", "", "/proc/diskstats field 8", |d| count(d.wr_ios)),
    (Counter, "writes_merged_total", "The number of writes merged.", "", "/proc/diskstats field 9", |d| count(d.wr_merges)),
    (Counter, "written_bytes_total", "The total number of bytes written successfully.", "bytes", "/proc/diskstats field 10 × 512", |d| count(d.wr_sectors).map(|s| s * SECTOR)),
    (Counter, "write_time_seconds_total", "This is the total number of seconds spent by all writes.", "seconds", "/proc/diskstats field 11 / 1000", |d| ms(d.wr_ticks.into())),
    (Gauge, "io_now", "The number of I/Os currently in progress.", "", "/proc/diskstats field 12", |d| count(d.ios_pgr.into())),
    (Counter, "io_time_seconds_total", "Total seconds spent doing I/Os.", "seconds", "/proc/diskstats field 13 / 1000", |d| ms(d.tot_ticks.into())),
    (Counter, "io_time_weighted_seconds_total", "The weighted # of seconds spent doing I/Os.", "seconds", "/proc/diskstats field 14 / 1000", |d| ms(d.rq_ticks.into())),
    (Counter, "discards_completed_total", "The total number of discards completed successfully.", "", "/proc/diskstats field 15 (kernel 4.18+)", |d| discarded(d).and_then(|x| count(x.ios))),
    (Counter, "discards_merged_total", "The total number of discards merged.", "", "/proc/diskstats field 16 (kernel 4.18+)", |d| discarded(d).and_then(|x| count(x.merges))),
    (Counter, "discarded_sectors_total", "The total number of sectors discarded successfully.", "", "/proc/diskstats field 17 (kernel 4.18+)", |d| discarded(d).and_then(|x| count(x.sectors))),
    (Counter, "discard_time_seconds_total", "This is the total number of seconds spent by all discards.", "seconds", "/proc/diskstats field 18 / 1000 (kernel 4.18+)", |d| discarded(d).and_then(|x| ms(x.ticks.into()))),
    (Counter, "flush_requests_total", "The total number of flush requests completed successfully", "", "/proc/diskstats field 19 (kernel 5.5+)", |d| flushed(d).and_then(|x| count(x.ios))),
    (Counter, "flush_requests_time_seconds_total", "This is the total number of seconds spent by all flush requests.", "seconds", "/proc/diskstats field 20 / 1000 (kernel 5.5+)", |d| flushed(d).and_then(|x| ms(x.ticks.into()))),
}

/// A device's discard counters, once it has discarded: a device that
/// never did (most of a database's) has no discard series, rather than
/// four series of zeros each (an absent series is 0 in a `sum`).
fn discarded(d: &DiskCounters) -> Option<super::diskstats::DiscardCounters> {
    d.discard.filter(|x| x.ios > 0)
}

/// A device's flush counters, once it has flushed (as [`discarded`]).
fn flushed(d: &DiskCounters) -> Option<super::diskstats::FlushCounters> {
    d.flush.filter(|x| x.ios > 0)
}

/// Every device that has done I/O since boot (iostat hides the others,
/// and a host's hundreds of idle loop devices would be series of zeros).
pub fn used(devices: &[DiskCounters]) -> impl Iterator<Item = &DiskCounters> {
    devices.iter().filter(|d| !d.never_used())
}

/// Which devices a host's total counts: 1 for a whole physical disk with
/// nothing built on it (what the overview's total and `iostat -g` sum),
/// 0 for a partition, a dm or md device, or one whose /sys was not read.
/// `sum(rate(node_disk_…[1m]) * on (node, device) strata_disk_counted)` is
/// the host's total without counting an I/O twice.
pub static DISK_COUNTED: Family = Family::new(
    "strata_disk_counted",
    "1 for a device the host's totals count (a whole physical disk with nothing built on it), 0 for the others.",
    "",
    "/sys/block: partition, slaves, rotational, driver",
)
.labels(&["device", "class"]);

/// Every family of a host's devices.
pub fn families() -> impl Iterator<Item = &'static Family> {
    DISK_FIELDS.iter().map(|f| &f.family).chain([&DISK_COUNTED])
}

pub fn expose(sample: &DiskSample, sink: &mut dyn Sink) {
    for d in used(&sample.devices) {
        put_fields(&DISK_FIELDS, d, &[&d.name], sink);
        let info = sample.catalogue.get(&d.name);
        let class = info.map_or("unknown", |i| i.class.label());
        let counted = info.is_some_and(|i| i.counts_in_totals());
        sink.put(
            &DISK_COUNTED,
            &[&d.name, class],
            if counted { 1.0 } else { 0.0 },
        );
    }
}
