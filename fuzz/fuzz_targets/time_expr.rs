//! What a user types as a time: replay's jump (`b 14:58:00`) and export's
//! --from/--to (+SPAN, -SPAN, times, dates).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let around = 1_764_000_000_000;
    let _ = strata::app::session::parse_jump_time(&text, around, 3600);
    let _ = strata::export::window::bound(&text, around, around + 86_400_000);
    let _ = strata::config::parse_duration(&text);
    let _ = strata::config::parse_history(&text);
});
