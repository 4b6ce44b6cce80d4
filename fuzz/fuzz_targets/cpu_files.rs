//! /proc/stat, /proc/loadavg and /proc/pressure/* text, and the CPU
//! model over two readings of it: the second is the first with its digits
//! shifted, so that counters move both ways.
#![no_main]

use libfuzzer_sys::fuzz_target;
use strata::layers::cpu::{loadavg, model, pressure, stat};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = loadavg::parse_loadavg(&text, "fuzz");
    let _ = pressure::parse_psi(&text, "fuzz");
    let Ok(a) = stat::parse_stat(&text, "fuzz") else {
        return;
    };
    let shifted: String = text
        .chars()
        .map(|c| match c {
            '0'..='8' => char::from(c as u8 + 1),
            '9' => '0',
            c => c,
        })
        .collect();
    if let Ok(b) = stat::parse_stat(&shifted, "fuzz") {
        for t in [model::cpu_table(&a, &b), model::cpu_table(&b, &a)] {
            for f in std::iter::once(&t.all).chain(t.cpus.iter().map(|r| &r.figures)) {
                for v in f.0.iter().flatten() {
                    assert!(v.is_finite() && (0.0..=100.0 + 1e-9).contains(v), "{v}");
                }
            }
        }
    }
});
