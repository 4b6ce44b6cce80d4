//! The layers of the storage path, each one a unit: [`LAYERS`] is the one
//! registry that the CLI's panel names, `strata batch`, `strata export`,
//! the live samplers and the footer read, so a new layer is a folder and a
//! line there rather than a new arm in each of them.
//!
//! This module sits above the shared parse, source and model pieces and
//! below config, app and ui: a layer's folder holds what does not need the
//! whole app (parsers, source, model, batch report). Its app state and view
//! still take `&App` and so stay in app/ and ui/ until they take a state of
//! their own (docs/adding-a-layer.md).

pub mod cache;
pub mod cells;
pub mod col;
pub mod cpu;
pub mod disks;
pub mod dnfs;
pub mod host;
pub mod layer;
pub mod metric;
pub mod nfs;
pub mod nics;
pub mod node;
pub mod procs;
pub mod report;
pub mod tick;

use crate::core::error::SourceError;

/// A layer, as the CLI names it (`strata batch nics`, `export --panel nics`).
/// The variants' order is the order batch, export and summary list them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum LayerId {
    Disks,
    /// The kernel NFS client's mounts, as nfsiostat.
    Nfs,
    /// The page cache (meminfo, vmstat) and the residency of --cache-files.
    Cache,
    /// nicstat figures per interface; bond warnings in JSON and CSV.
    Nics,
    /// mpstat -P ALL per CPU, sar's run queue, switches, swapping and load, and pressure stalls (cpu, io, memory).
    Cpu,
    /// Who does the I/O: pidstat -d per process (text), with each process's Oracle role and instance and each role's sums (JSON, CSV).
    Procs,
    /// Storage cells over SSH: a line per cell (state, round trip, DISK and FLASH) and one over all cells.
    Cells,
    /// Oracle Direct NFS per database (--db): text as mondnfs prints it (time|iops), JSON and CSV with every figure.
    Dnfs,
}

/// What the rest of strata knows about a layer without knowing its types.
#[derive(Debug)]
pub struct LayerDef {
    pub id: LayerId,
    /// The panel's name on the command line and in export's `panel` column.
    pub name: &'static str,
    /// The tab's title.
    pub title: &'static str,
    /// The layer in a sentence ("the NIC sampler ended").
    pub noun: &'static str,
    /// The footer's keys on the layer's panel.
    pub footer: &'static [(&'static str, &'static str)],
}

/// Every layer, in [`LayerId`] order.
pub const LAYERS: [LayerDef; 8] = [
    LayerDef {
        id: LayerId::Disks,
        name: "disks",
        title: "Disks",
        noun: "disk",
        footer: &[
            ("Enter", "device"),
            ("s/S", "sort"),
            ("r", "reverse"),
            ("/", "filter"),
            ("P", "partitions"),
            ("u", "kB/MB"),
            ("h/l", "columns"),
            ("p", "pause"),
        ],
    },
    LayerDef {
        id: LayerId::Nfs,
        name: "nfs",
        title: "NFS",
        noun: "NFS",
        footer: &[
            ("Enter", "mount"),
            ("s/S", "sort"),
            ("r", "reverse"),
            ("/", "filter"),
            ("p", "pause"),
        ],
    },
    LayerDef {
        id: LayerId::Cache,
        name: "cache",
        title: "Cache",
        noun: "page cache",
        footer: &[
            ("Enter", "file"),
            ("s/S", "sort files"),
            ("r", "reverse"),
            ("/", "filter"),
            ("p", "pause"),
        ],
    },
    LayerDef {
        id: LayerId::Nics,
        name: "nics",
        title: "NICs",
        noun: "NIC",
        footer: &[
            ("Enter", "interface"),
            ("s/S", "sort"),
            ("r", "reverse"),
            ("/", "filter"),
            ("a", "all interfaces"),
            ("p", "pause"),
        ],
    },
    LayerDef {
        id: LayerId::Cpu,
        name: "cpu",
        title: "CPU",
        noun: "CPU",
        footer: &[("p", "pause")],
    },
    LayerDef {
        id: LayerId::Procs,
        name: "procs",
        title: "Procs",
        noun: "process",
        footer: &[
            ("Enter", "processes"),
            ("s/S", "sort"),
            ("r", "reverse"),
            ("/", "filter"),
            ("p", "pause"),
        ],
    },
    LayerDef {
        id: LayerId::Cells,
        name: "cells",
        title: "Cells",
        noun: "cell",
        footer: &[
            ("Enter", "cell"),
            ("s/S", "sort"),
            ("r", "reverse"),
            ("/", "filter"),
            ("p", "pause"),
        ],
    },
    LayerDef {
        id: LayerId::Dnfs,
        name: "dnfs",
        title: "Databases",
        noun: "database",
        footer: &[
            ("Enter", "instance · server · channel"),
            ("Esc", "back"),
            ("p", "pause"),
        ],
    },
];

/// The layers with a tab of their own, in the order the tabs follow the
/// overview (Tab, and the digit keys 2 to 8); the CPU has none yet.
pub const TABS: [LayerId; 7] = [
    LayerId::Disks,
    LayerId::Cache,
    LayerId::Nfs,
    LayerId::Nics,
    LayerId::Cells,
    LayerId::Dnfs,
    LayerId::Procs,
];

impl LayerId {
    /// Every layer, in the order batch, export and summary list them.
    pub const ALL: [LayerId; LAYERS.len()] = {
        let mut all = [LayerId::Disks; LAYERS.len()];
        let mut i = 0;
        while i < all.len() {
            all[i] = LAYERS[i].id;
            i += 1;
        }
        all
    };

    pub fn def(self) -> &'static LayerDef {
        // `LAYERS` is in variant order, which a test below keeps.
        &LAYERS[self as usize]
    }

    /// The panel's name on the command line and in export's `panel` column.
    pub fn name(self) -> &'static str {
        self.def().name
    }
}

/// A layer's source as the live loop runs it: read once per interval on a
/// blocking thread, so it must be `Send`; it keeps what it needs between
/// readings (the sysfs facts, the previous set) itself.
pub trait Sampler: Send + 'static {
    type Sample: Send + 'static;
    fn sample(&mut self, wall_ms: i64) -> Result<Self::Sample, SourceError>;
}

/// A source whose inherent `sample` is its [`Sampler`] (the host layers').
macro_rules! sampler {
    ($source:ty => $sample:ty) => {
        impl $crate::layers::Sampler for $source {
            type Sample = $sample;
            fn sample(
                &mut self,
                wall_ms: i64,
            ) -> Result<$sample, $crate::core::error::SourceError> {
                <$source>::sample(self, wall_ms)
            }
        }
    };
}
pub(crate) use sampler;

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    #[test]
    fn the_registry_is_in_variant_order_and_names_match_the_cli() {
        for (i, id) in LayerId::ALL.iter().enumerate() {
            assert_eq!(LAYERS[i].id, *id);
            assert_eq!(id.def().id, *id);
            let cli = id.to_possible_value().map(|v| v.get_name().to_string());
            assert_eq!(cli.as_deref(), Some(id.name()));
        }
        assert_eq!(LayerId::value_variants(), LayerId::ALL);
    }
}
