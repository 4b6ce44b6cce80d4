//! A config file: problems are messages, never a panic, and nothing of the
//! file reaches a terminal raw, in a message or in a host, user or label.
#![no_main]

use libfuzzer_sys::fuzz_target;
use strata::core::text::is_unsafe;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (config, messages) = strata::config::parse(&text, "fuzz");
    for m in messages {
        assert!(!m.contains(is_unsafe), "{m:?}");
    }
    for e in config.cells.iter().chain(&config.nodes) {
        let named = [Some(&e.host), e.user.as_ref(), e.label.as_ref()];
        for s in named.into_iter().flatten() {
            assert!(!s.contains(is_unsafe), "{e:?}");
        }
    }
});
