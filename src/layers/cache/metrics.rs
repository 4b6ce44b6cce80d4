//! The page cache on `/metrics`: the /proc/meminfo and /proc/vmstat fields
//! its figures come from, under node_exporter's meminfo and vmstat names,
//! and each watched file's residency under strata's own.

use super::meminfo::MemInfo;
use super::model::{MEMINFO_USED, VMSTAT_USED};
use super::source::{CacheFile, FileResidency};
use super::vmstat::VmStat;
use crate::layers::metric::{Family, Field, MetricType, Sink, Text, count, put_fields};

const fn meminfo(name: Text, key: Text) -> Family {
    Family::new(name, key, "bytes", "/proc/meminfo, kB × 1024").node_exporter(true)
}

/// node_exporter's family of each key of [`MEMINFO_USED`], in its order:
/// `(file)` becomes `_file`, the unit `_bytes`.
pub static MEMINFO_FAMILIES: [(&str, Family); MEMINFO_USED.len()] = [
    (
        "Buffers",
        meminfo(
            "node_memory_Buffers_bytes",
            "Memory information field Buffers_bytes.",
        ),
    ),
    (
        "Cached",
        meminfo(
            "node_memory_Cached_bytes",
            "Memory information field Cached_bytes.",
        ),
    ),
    (
        "Shmem",
        meminfo(
            "node_memory_Shmem_bytes",
            "Memory information field Shmem_bytes.",
        ),
    ),
    (
        "Dirty",
        meminfo(
            "node_memory_Dirty_bytes",
            "Memory information field Dirty_bytes.",
        ),
    ),
    (
        "Writeback",
        meminfo(
            "node_memory_Writeback_bytes",
            "Memory information field Writeback_bytes.",
        ),
    ),
    (
        "Active(file)",
        meminfo(
            "node_memory_Active_file_bytes",
            "Memory information field Active_file_bytes.",
        ),
    ),
    (
        "Inactive(file)",
        meminfo(
            "node_memory_Inactive_file_bytes",
            "Memory information field Inactive_file_bytes.",
        ),
    ),
    (
        "MemAvailable",
        meminfo(
            "node_memory_MemAvailable_bytes",
            "Memory information field MemAvailable_bytes.",
        ),
    ),
    (
        "MemTotal",
        meminfo(
            "node_memory_MemTotal_bytes",
            "Memory information field MemTotal_bytes.",
        ),
    ),
];

const fn vmstat(name: Text, help: Text) -> Family {
    Family::new(name, help, "", "/proc/vmstat")
        .kind(MetricType::Untyped)
        .node_exporter(true)
}

/// node_exporter's family of each field of [`VMSTAT_USED`], in its order.
pub static VMSTAT_FAMILIES: [(&str, Family); VMSTAT_USED.len()] = [
    (
        "pgpgin",
        vmstat(
            "node_vmstat_pgpgin",
            "/proc/vmstat information field pgpgin.",
        ),
    ),
    (
        "pgpgout",
        vmstat(
            "node_vmstat_pgpgout",
            "/proc/vmstat information field pgpgout.",
        ),
    ),
    (
        "pgmajfault",
        vmstat(
            "node_vmstat_pgmajfault",
            "/proc/vmstat information field pgmajfault.",
        ),
    ),
    (
        "workingset_refault_file",
        vmstat(
            "node_vmstat_workingset_refault_file",
            "/proc/vmstat information field workingset_refault_file.",
        ),
    ),
    (
        "workingset_refault",
        vmstat(
            "node_vmstat_workingset_refault",
            "/proc/vmstat information field workingset_refault.",
        ),
    ),
];

const fn file(name: Text, help: Text, source: Text) -> Family {
    Family::new(name, help, "bytes", source).labels(&["file"])
}

/// A watched file (`--cache-files`), as cachestat(2), mincore or a node's
/// fincore measured it; its page counts as bytes.
pub static FILE_FIELDS: [Field<(FileResidency, u64)>; 4] = [
    Field {
        family: file(
            "strata_cache_file_size_bytes",
            "Size of a watched file.",
            "stat(2)",
        ),
        get: |(f, _)| count(f.size_bytes),
    },
    Field {
        family: file(
            "strata_cache_file_resident_bytes",
            "Bytes of a watched file in the page cache.",
            "cachestat(2), mincore(2) or fincore",
        ),
        get: |(f, page)| count(f.pages.cached.saturating_mul(*page)),
    },
    Field {
        family: file(
            "strata_cache_file_dirty_bytes",
            "Bytes of a watched file dirty in the page cache.",
            "cachestat(2)",
        ),
        get: |(f, page)| f.pages.dirty.and_then(|d| count(d.saturating_mul(*page))),
    },
    Field {
        family: file(
            "strata_cache_file_writeback_bytes",
            "Bytes of a watched file under writeback.",
            "cachestat(2)",
        ),
        get: |(f, page)| {
            f.pages
                .writeback
                .and_then(|d| count(d.saturating_mul(*page)))
        },
    },
];

/// Every family of the layer.
pub fn families() -> impl Iterator<Item = &'static Family> {
    MEMINFO_FAMILIES
        .iter()
        .chain(&VMSTAT_FAMILIES)
        .map(|(_, f)| f)
        .chain(FILE_FIELDS.iter().map(|f| &f.family))
}

pub fn expose(
    meminfo: &MemInfo,
    vm: &VmStat,
    files: &[CacheFile],
    page_size: u64,
    sink: &mut dyn Sink,
) {
    for (key, family) in &MEMINFO_FAMILIES {
        if let Some(v) = meminfo.kb(key).and_then(|kb| count(kb.checked_mul(1024)?)) {
            sink.put(family, &[], v);
        }
    }
    for (key, family) in &VMSTAT_FAMILIES {
        if let Some(v) = vm.get(key).and_then(count) {
            sink.put(family, &[], v);
        }
    }
    let mut seen = std::collections::HashSet::new();
    for f in files {
        // A file two patterns match is listed once per pattern.
        if let Ok(r) = &f.result
            && seen.insert(f.path.as_str())
        {
            put_fields(&FILE_FIELDS, &(*r, page_size), &[&f.path], sink);
        }
    }
}
