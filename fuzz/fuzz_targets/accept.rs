//! A scraper's Accept header, as `/metrics` reads it: any text chooses
//! one of the two formats, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use strata::metrics::encode::Format;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let f = Format::negotiate(Some(&text));
    assert!(matches!(f, Format::OpenMetrics | Format::Text));
});
