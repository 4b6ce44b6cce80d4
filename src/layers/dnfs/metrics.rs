//! A database's Direct NFS on `/metrics`: the running totals strata keeps
//! of gv$dnfs_stats and gv$dnfs_channels ([`super::model::DnfsTotals`]),
//! per instance and per channel (server and path), so that `rate()` of
//! them gives the panel's r/s, w/s and MB/s, and a channel's sends/s.
//! The instance's label is `instance_name` (gv$instance's column), not
//! `instance`: Prometheus owns that one (the scraped target) and renames a
//! scraped `instance` to `exported_instance`.

use super::model::{DnfsTick, InstTotals};
use crate::layers::metric::{Family, Field, Sink, Text, count, put_fields};

const fn inst(name: Text, help: Text, unit: Text, source: Text) -> Family {
    Family::new(name, help, unit, source)
        .counter()
        .labels(&["instance_name"])
}

/// An instance's operations and bytes, summed over its processes.
pub static INST_FIELDS: [Field<InstTotals>; 4] = [
    Field {
        family: inst(
            "strata_dnfs_reads_total",
            "Direct NFS reads of an instance's processes since strata first read the database.",
            "",
            "gv$dnfs_stats NFS_READ, each process's increase",
        ),
        get: |t| count(t.reads),
    },
    Field {
        family: inst(
            "strata_dnfs_writes_total",
            "Direct NFS writes of an instance's processes since strata first read the database.",
            "",
            "gv$dnfs_stats NFS_WRITE, each process's increase",
        ),
        get: |t| count(t.writes),
    },
    Field {
        family: inst(
            "strata_dnfs_read_bytes_total",
            "Bytes read by an instance's processes through Direct NFS since strata first read the database (11.2.0.4+).",
            "bytes",
            "gv$dnfs_stats NFS_READBYTES, each process's increase",
        ),
        get: |t| t.read_bytes.and_then(count),
    },
    Field {
        family: inst(
            "strata_dnfs_written_bytes_total",
            "Bytes written by an instance's processes through Direct NFS since strata first read the database (11.2.0.4+).",
            "bytes",
            "gv$dnfs_stats NFS_WRITEBYTES, each process's increase",
        ),
        get: |t| t.write_bytes.and_then(count),
    },
];

const fn chan(name: Text, help: Text, source: Text) -> Family {
    Family::new(name, help, "", source)
        .counter()
        .labels(&["instance_name", "server", "path"])
}

/// A channel (an instance's processes' channels to one server over one
/// path, summed): its sends and receives, once strata knows whether the
/// view counts them since the last select or in running totals.
pub static CHANNEL_FIELDS: [Field<[u64; 2]>; 2] = [
    Field {
        family: chan(
            "strata_dnfs_channel_sends_total",
            "Direct NFS sends over an instance's channels to a server by one path.",
            "gv$dnfs_channels SENDS",
        ),
        get: |c| count(c[0]),
    },
    Field {
        family: chan(
            "strata_dnfs_channel_receives_total",
            "Direct NFS receives over an instance's channels from a server by one path.",
            "gv$dnfs_channels RECVS",
        ),
        get: |c| count(c[1]),
    },
];

/// Every family of the layer.
pub fn families() -> impl Iterator<Item = &'static Family> {
    INST_FIELDS
        .iter()
        .map(|f| &f.family)
        .chain(CHANNEL_FIELDS.iter().map(|f| &f.family))
}

/// A database's newest tick; `name` gives an instance's name by INST_ID
/// (gv$instance), its number where the listing has not come yet.
pub fn expose(tick: &DnfsTick, name: &dyn Fn(u32) -> String, sink: &mut dyn Sink) {
    for (id, t) in &tick.totals.instances {
        put_fields(&INST_FIELDS, t, &[&name(*id)], sink);
    }
    for ((id, server, path), c) in &tick.totals.channels {
        put_fields(&CHANNEL_FIELDS, c, &[&name(*id), server, path], sink);
    }
}
