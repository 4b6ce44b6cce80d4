//! A web config file (`--web-config`, the exporter-toolkit's YAML): a
//! problem is a message, never a panic, and nothing of the file reaches
//! a terminal raw in it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use strata::core::text::is_unsafe;
use strata::serve::config::{parse, rate_limit, tls_options};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match parse(&text) {
        Err(e) => assert!(!e.contains(is_unsafe), "{e:?}"),
        Ok(file) => {
            if let Some(r) = &file.rate_limit {
                if let Err(e) = rate_limit(r) {
                    assert!(!e.contains(is_unsafe), "{e:?}");
                }
            }
            if let Some(t) = &file.tls_server_config {
                if let Err(e) = tls_options(t) {
                    assert!(!e.contains(is_unsafe), "{e:?}");
                }
            }
        }
    }
});
