//! /proc/uptime text.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = strata::core::uptime::parse_uptime_cs(&text, "fuzz");
});
