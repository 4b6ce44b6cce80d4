//! A storage cell's devices on `/metrics`: its /proc/diskstats through the
//! disks layer's table of fields, under `strata_cell_disk_` names, each
//! labelled with the group Exadata users know it by (DISK, FLASH). A
//! group's figures are `sum by (cell, media)` of the rates.

use super::cell_metrics::Media;
use super::model::media_of_device;
use crate::layers::disks::metrics::{CELL_DISK_FIELDS, used};
use crate::layers::disks::source::DiskSample;
use crate::layers::metric::{Family, Sink, put_fields};

/// Every family of the layer.
pub fn families() -> impl Iterator<Item = &'static Family> {
    CELL_DISK_FIELDS.iter().map(|f| &f.family)
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
