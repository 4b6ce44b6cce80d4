//! The small sysfs files of an interface: speed, duplex, operstate, uevent.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = strata::layers::nics::net_sysfs::parse_speed_mbps(&text);
    let _ = strata::layers::nics::net_sysfs::parse_duplex(&text);
    let _ = strata::layers::nics::net_sysfs::parse_operstate(&text);
    let _ = strata::layers::nics::net_sysfs::uevent_value(&text, "DEVTYPE");
});
