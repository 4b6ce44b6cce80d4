//! A storage cell's devices on `/metrics`: its /proc/diskstats through the
//! disks layer's table of fields, under `strata_cell_disk_` names, each
//! labelled with the group Exadata users know it by (DISK, FLASH). A
//! group's figures are `sum by (cell, media)` of the rates.

use super::cell_metrics::{
    CellDiskCol, CellDiskFigures, CellSummary, FlashCacheCol, FlashCacheFigures, Media,
};
use super::model::media_of_device;
use crate::layers::disks::metrics::{CELL_DISK_FIELDS, used};
use crate::layers::disks::source::DiskSample;
use crate::layers::metric::{Family, Field, Sink, Text, put_fields};

const MIB: f64 = 1024.0 * 1024.0;

const fn cellsrv(name: Text, help: Text, unit: Text, source: Text) -> Family {
    Family::new(name, help, unit, source).labels(&["celldisk", "media"])
}

/// A cell disk's figures as cellsrv reports them (`list metriccurrent`):
/// rates over cellsrv's own last minute, so gauges, not counters.
pub static CELLSRV_DISK_FIELDS: [Field<CellDiskFigures>; 6] = [
    Field {
        family: cellsrv(
            "strata_cellsrv_disk_reads_per_second",
            "Read requests a second of a cell disk, as cellsrv measured them over its last minute.",
            "",
            "CellCLI CD_IO_RQ_R_SM_SEC + CD_IO_RQ_R_LG_SEC",
        ),
        get: |f| f.get(CellDiskCol::RPerS),
    },
    Field {
        family: cellsrv(
            "strata_cellsrv_disk_writes_per_second",
            "Write requests a second of a cell disk, as cellsrv measured them over its last minute.",
            "",
            "CellCLI CD_IO_RQ_W_SM_SEC + CD_IO_RQ_W_LG_SEC",
        ),
        get: |f| f.get(CellDiskCol::WPerS),
    },
    Field {
        family: cellsrv(
            "strata_cellsrv_disk_read_bytes_per_second",
            "Bytes read a second from a cell disk, as cellsrv measured them over its last minute.",
            "",
            "CellCLI CD_IO_BY_R_SM_SEC + CD_IO_BY_R_LG_SEC, MB × 2^20",
        ),
        get: |f| f.get(CellDiskCol::RMbPerS).map(|v| v * MIB),
    },
    Field {
        family: cellsrv(
            "strata_cellsrv_disk_written_bytes_per_second",
            "Bytes written a second to a cell disk, as cellsrv measured them over its last minute.",
            "",
            "CellCLI CD_IO_BY_W_SM_SEC + CD_IO_BY_W_LG_SEC, MB × 2^20",
        ),
        get: |f| f.get(CellDiskCol::WMbPerS).map(|v| v * MIB),
    },
    Field {
        family: cellsrv(
            "strata_cellsrv_disk_read_await_seconds",
            "Average wait of a cell disk's reads, as cellsrv measured it over its last minute.",
            "seconds",
            "CellCLI CD_IO_TM_R_SM_RQ, CD_IO_TM_R_LG_RQ in seconds",
        ),
        get: |f| f.get(CellDiskCol::RAwait).map(|ms| ms / 1000.0),
    },
    Field {
        family: cellsrv(
            "strata_cellsrv_disk_write_await_seconds",
            "Average wait of a cell disk's writes, as cellsrv measured it over its last minute.",
            "seconds",
            "CellCLI CD_IO_TM_W_SM_RQ, CD_IO_TM_W_LG_RQ in seconds",
        ),
        get: |f| f.get(CellDiskCol::WAwait).map(|ms| ms / 1000.0),
    },
];

const fn flash(name: Text, help: Text, source: Text) -> Family {
    Family::new(name, help, "", source)
}

/// A cell's flash cache, as cellsrv reports it.
pub static CELLSRV_FLASH_CACHE_FIELDS: [Field<FlashCacheFigures>; 3] = [
    Field {
        family: flash(
            "strata_cellsrv_flash_cache_hit_ratio",
            "Share of a cell's flash cache reads that hit, over cellsrv's last minute.",
            "CellCLI FC_IO_RQ_R_SEC / (FC_IO_RQ_R_SEC + FC_IO_RQ_R_MISS_SEC)",
        ),
        get: |f| f.get(FlashCacheCol::HitPct).map(|p| p / 100.0),
    },
    Field {
        family: flash(
            "strata_cellsrv_flash_cache_reads_per_second",
            "Read requests a second the flash cache served, over cellsrv's last minute.",
            "CellCLI FC_IO_RQ_R_SEC",
        ),
        get: |f| f.get(FlashCacheCol::RPerS),
    },
    Field {
        family: flash(
            "strata_cellsrv_flash_cache_read_misses_per_second",
            "Read requests a second that missed the flash cache, over cellsrv's last minute.",
            "CellCLI FC_IO_RQ_R_MISS_SEC",
        ),
        get: |f| f.get(FlashCacheCol::RMissPerS),
    },
];

/// A cell's newest CellCLI report.
pub fn expose_cellsrv(summary: &CellSummary, sink: &mut dyn Sink) {
    for d in &summary.disks {
        put_fields(
            &CELLSRV_DISK_FIELDS,
            &d.figures,
            &[&d.name, media_label(Some(d.media))],
            sink,
        );
    }
    put_fields(
        &CELLSRV_FLASH_CACHE_FIELDS,
        &summary.totals.flash_cache(),
        &[],
        sink,
    );
}

fn media_label(m: Option<Media>) -> &'static str {
    match m {
        Some(Media::Disk) => "DISK",
        Some(Media::Flash) => "FLASH",
        Some(Media::Other) | None => "",
    }
}

/// Every family of the layer.
pub fn families() -> impl Iterator<Item = &'static Family> {
    CELL_DISK_FIELDS
        .iter()
        .map(|f| &f.family)
        .chain(CELLSRV_DISK_FIELDS.iter().map(|f| &f.family))
        .chain(CELLSRV_FLASH_CACHE_FIELDS.iter().map(|f| &f.family))
}

/// A cell's sample: `sink` puts the cell's own label first.
pub fn expose(sample: &DiskSample, sink: &mut dyn Sink) {
    for d in used(&sample.devices) {
        let media = match sample
            .catalogue
            .get(&d.name)
            .and_then(|i| media_of_device(i))
        {
            Some(Media::Disk) => "DISK",
            Some(Media::Flash) => "FLASH",
            Some(Media::Other) | None => "",
        };
        put_fields(&CELL_DISK_FIELDS, d, &[&d.name, media], sink);
    }
}
