//! The NFS client's counters on `/metrics`: each mount's block of
//! /proc/self/mountstats under node_exporter's mountstats names and labels
//! (export, protocol, mountaddr; operation for the per-op lines), so
//! nfsiostat's figures are `rate()`s of them: `ops/s` of a mount is the
//! rate of its transport's sends, `kB/s` of READ the rate of its received
//! bytes, `avg RTT (ms)` the rate of response time over that of requests.

use super::mountstats::{NfsCounters, RpcOpCounters};
use super::source::NfsMount;
use crate::layers::metric::{Family, Field, Sink, Text, count, ms, put_fields};

const MOUNT: &[&str] = &["export", "protocol", "mountaddr"];
const OP: &[&str] = &["export", "protocol", "mountaddr", "operation"];

const fn counter(
    name: Text,
    help: Text,
    unit: Text,
    labels: &'static [Text],
    source: Text,
) -> Family {
    Family::new(name, help, unit, source)
        .counter()
        .labels(labels)
        .node_exporter(true)
}

/// A mount's own counters: its age and its `bytes:` line.
pub static MOUNT_FIELDS: [Field<NfsCounters>; 9] = [
    Field {
        family: counter(
            "node_mountstats_nfs_age_seconds_total",
            "The age of the NFS mount in seconds.",
            "seconds",
            MOUNT,
            "mountstats `age:`",
        ),
        get: |c| count(c.age_s),
    },
    Field {
        family: counter(
            "node_mountstats_nfs_read_bytes_total",
            "Number of bytes read using the read() syscall.",
            "bytes",
            MOUNT,
            "mountstats `bytes:` 1",
        ),
        get: |c| count(c.bytes.normal_read),
    },
    Field {
        family: counter(
            "node_mountstats_nfs_write_bytes_total",
            "Number of bytes written using the write() syscall.",
            "bytes",
            MOUNT,
            "mountstats `bytes:` 2",
        ),
        get: |c| count(c.bytes.normal_write),
    },
    Field {
        family: counter(
            "node_mountstats_nfs_direct_read_bytes_total",
            "Number of bytes read using the read() syscall in O_DIRECT mode.",
            "bytes",
            MOUNT,
            "mountstats `bytes:` 3",
        ),
        get: |c| count(c.bytes.direct_read),
    },
    Field {
        family: counter(
            "node_mountstats_nfs_direct_write_bytes_total",
            "Number of bytes written using the write() syscall in O_DIRECT mode.",
            "bytes",
            MOUNT,
            "mountstats `bytes:` 4",
        ),
        get: |c| count(c.bytes.direct_write),
    },
    Field {
        family: counter(
            "node_mountstats_nfs_total_read_bytes_total",
            "Number of bytes read from the NFS server, in total.",
            "bytes",
            MOUNT,
            "mountstats `bytes:` 5",
        ),
        get: |c| count(c.bytes.server_read),
    },
    Field {
        family: counter(
            "node_mountstats_nfs_total_write_bytes_total",
            "Number of bytes written to the NFS server, in total.",
            "bytes",
            MOUNT,
            "mountstats `bytes:` 6",
        ),
        get: |c| count(c.bytes.server_write),
    },
    Field {
        family: counter(
            "node_mountstats_nfs_read_pages_total",
            "Number of pages read directly via mmap()'d files.",
            "",
            MOUNT,
            "mountstats `bytes:` 7",
        ),
        get: |c| count(c.bytes.read_pages),
    },
    Field {
        family: counter(
            "node_mountstats_nfs_write_pages_total",
            "Number of pages written directly via mmap()'d files.",
            "",
            MOUNT,
            "mountstats `bytes:` 8",
        ),
        get: |c| count(c.bytes.write_pages),
    },
];

/// A mount's sends and backlog over its transports (nfsiostat sums them
/// too): node_exporter labels each transport by its index, strata sums
/// them so that a mount's `ops/s` is one rate.
pub static XPRT_FIELDS: [Field<NfsCounters>; 2] = [
    Field {
        family: Family {
            node_exporter: false,
            ..counter(
                "strata_nfs_transport_sends_total",
                "RPC requests sent for this mount, over all its transports (nfsiostat's ops/s).",
                "",
                MOUNT,
                "mountstats `xprt:` sends, summed",
            )
        },
        get: |c| xprt_sum(c, |x| x.sends),
    },
    Field {
        family: Family {
            node_exporter: false,
            ..counter(
                "strata_nfs_transport_backlog_queue_total",
                "Backlog queue lengths summed over every send, over all the mount's transports (nfsiostat's avg backlog).",
                "",
                MOUNT,
                "mountstats `xprt:` bklog_u, summed",
            )
        },
        get: |c| xprt_sum(c, |x| x.bklog_u),
    },
];

fn xprt_sum(c: &NfsCounters, f: fn(&super::mountstats::XprtCounters) -> u64) -> Option<f64> {
    if c.xprts.is_empty() {
        return None;
    }
    let mut sum = 0u64;
    for x in &c.xprts {
        sum = sum.checked_add(f(x.counters.as_ref()?))?;
    }
    count(sum)
}

/// One line of `per-op statistics`.
pub static OP_FIELDS: [Field<RpcOpCounters>; 8] = [
    Field {
        family: counter(
            "node_mountstats_nfs_operations_requests_total",
            "Number of requests performed for a given operation.",
            "",
            OP,
            "mountstats per-op 1",
        ),
        get: |o| count(o.ops),
    },
    Field {
        family: counter(
            "node_mountstats_nfs_operations_transmissions_total",
            "Number of times an actual RPC request has been transmitted for a given operation.",
            "",
            OP,
            "mountstats per-op 2",
        ),
        get: |o| count(o.ntrans),
    },
    Field {
        family: counter(
            "node_mountstats_nfs_operations_major_timeouts_total",
            "Number of times a request has had a major timeout for a given operation.",
            "",
            OP,
            "mountstats per-op 3",
        ),
        get: |o| count(o.timeouts),
    },
    Field {
        family: counter(
            "node_mountstats_nfs_operations_sent_bytes_total",
            "Number of bytes sent for a given operation, including RPC headers and payload.",
            "bytes",
            OP,
            "mountstats per-op 4",
        ),
        get: |o| count(o.bytes_sent),
    },
    Field {
        family: counter(
            "node_mountstats_nfs_operations_received_bytes_total",
            "Number of bytes received for a given operation, including RPC headers and payload.",
            "bytes",
            OP,
            "mountstats per-op 5",
        ),
        get: |o| count(o.bytes_recv),
    },
    Field {
        family: counter(
            "node_mountstats_nfs_operations_queue_time_seconds_total",
            "Duration all requests spent queued for transmission for a given operation before they were sent, in seconds.",
            "seconds",
            OP,
            "mountstats per-op 6 / 1000",
        ),
        get: |o| ms(o.queue_ms),
    },
    Field {
        family: counter(
            "node_mountstats_nfs_operations_response_time_seconds_total",
            "Duration all requests took to get a reply back after a request for a given operation was transmitted, in seconds.",
            "seconds",
            OP,
            "mountstats per-op 7 / 1000",
        ),
        get: |o| ms(o.rtt_ms),
    },
    Field {
        family: counter(
            "node_mountstats_nfs_operations_request_time_seconds_total",
            "Duration all requests took from when a request was enqueued to when it was completely handled for a given operation, in seconds.",
            "seconds",
            OP,
            "mountstats per-op 8 / 1000",
        ),
        get: |o| ms(o.execute_ms),
    },
];

/// Every family of the layer.
pub fn families() -> impl Iterator<Item = &'static Family> {
    MOUNT_FIELDS
        .iter()
        .chain(&XPRT_FIELDS)
        .map(|f| &f.family)
        .chain(OP_FIELDS.iter().map(|f| &f.family))
}

/// Every mount's series: a superblock once, however many mount points
/// show it (node_exporter skips the duplicates too).
pub fn expose(mounts: &[NfsMount], sink: &mut dyn Sink) {
    let mut seen = std::collections::HashSet::new();
    for m in mounts {
        let c = &m.counters;
        // The first transport's protocol, as node_exporter labels it;
        // the `proto=` option where no transport line was read.
        let protocol = c
            .xprts
            .first()
            .map(|x| x.proto.as_str())
            .or_else(|| c.opt("proto"))
            .unwrap_or("");
        let addr = c.opt("addr").unwrap_or("");
        // One export mounted twice from one address (two superblocks)
        // would give two series of one name and labels: the first is
        // kept, as node_exporter keeps it.
        if !seen.insert((m.export.as_str(), protocol, addr)) {
            continue;
        }
        let labels = [m.export.as_str(), protocol, addr];
        put_fields(&MOUNT_FIELDS, c, &labels, sink);
        put_fields(&XPRT_FIELDS, c, &labels, sink);
        // An operation the mount never performed has no series: NFSv3's
        // 22 and v4's 60-odd are mostly never used by a database, and
        // their zeros were most of a fleet's exposition.
        for op in c.ops.iter().filter(|o| o.ops > 0 || o.ntrans > 0) {
            put_fields(
                &OP_FIELDS,
                op,
                &[m.export.as_str(), protocol, addr, &op.name],
                sink,
            );
        }
    }
}
