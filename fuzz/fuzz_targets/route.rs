//! /proc/net/route text, and the interface a local address routes through.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let routes = strata::layers::nics::route::parse_route(&text).items;
    let _ = strata::layers::nics::route::iface_of("192.168.10.5", &routes);
});
