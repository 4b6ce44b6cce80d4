//! /proc/vmstat text.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = strata::layers::cache::vmstat::VMSTAT.parse(&text, "fuzz");
});
