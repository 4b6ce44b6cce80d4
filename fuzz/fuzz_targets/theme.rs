//! A theme file: an error, never a panic, and nothing of the file reaches
//! a terminal raw, in the error or in the theme's name.
#![no_main]

use libfuzzer_sys::fuzz_target;
use strata::core::text::is_unsafe;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match strata::theme::Theme::parse(&text, "fuzz") {
        Ok(theme) => assert!(!theme.name.contains(is_unsafe), "{:?}", theme.name),
        Err(e) => assert!(!e.to_string().contains(is_unsafe), "{e}"),
    }
});
