//! A process's /proc/PID/stat, io and cmdline, a node's awk lines, and the
//! table over readings of them: the second reading is the first with its
//! digits shifted, so that counters move both ways. Every figure of the
//! model is finite and never negative, and a role has a label.
#![no_main]

use libfuzzer_sys::fuzz_target;
use strata::layers::procs::{model, node, pid, role, table};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = pid::parse_io(&text, "fuzz");
    let (argv0, _) = pid::parse_cmdline(data);
    let stat = pid::parse_stat(&text, "fuzz");
    let (r, _) = role::classify(&argv0, stat.as_ref().map_or("", |s| s.comm.as_str()));
    assert!(!r.label().contains('\n'));
    let shifted: String = text
        .chars()
        .map(|c| match c {
            '0'..='8' => char::from(c as u8 + 1),
            '9' => '0',
            c => c,
        })
        .collect();
    let mut mirror = node::NodeMirror::default();
    let mut t = table::ProcTable::default();
    for (k, body) in [text.as_ref(), shifted.as_str()].into_iter().enumerate() {
        let _ = mirror.apply(body, "fuzz");
        let s = t.update(1000 + 100 * k as u64, 0, mirror.seen());
        if let Some(tick) = model::tick(&s) {
            let rows = tick.procs.iter().map(|p| &p.figures);
            for f in std::iter::once(&tick.all).chain(rows) {
                for v in f.0.iter().flatten() {
                    assert!(v.is_finite() && *v >= 0.0, "{v}");
                }
            }
        }
    }
});
