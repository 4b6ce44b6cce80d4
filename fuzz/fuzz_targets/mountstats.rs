//! /proc/self/mountstats text (the kernel NFS client's counters).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = strata::layers::nfs::mountstats::parse_mountstats(&text, "fuzz");
});
