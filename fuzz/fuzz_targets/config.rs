//! A config file: problems are messages, never a panic, and never raw control characters.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (_, messages) = strata::config::parse(&text, "fuzz");
    for m in messages {
        assert!(!m.contains('\u{1b}'), "{m:?}");
    }
});
