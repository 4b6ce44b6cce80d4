//! /proc/diskstats and /sys/block/DEV/stat text: the parsers return rows
//! and errors, and every pair of parsed devices goes through the model,
//! whose figures keep their bounds (finite, not negative, %util <= 100).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let devs = strata::layers::disks::diskstats::parse_diskstats(&text, "fuzz").items;
    let _ = strata::layers::disks::diskstats::parse_sys_block_stat(&text, "sda", "fuzz");
    let itv = data.first().map_or(100, |b| u64::from(*b));
    for pair in devs.windows(2) {
        let seen = itv % 2 == 0;
        if let Some(d) = strata::layers::disks::model::DiskDelta::between(
            seen.then_some(&pair[0]),
            &pair[1],
            itv,
        ) {
            let r = d.device_rates();
            for v in r.0.iter().flatten() {
                assert!(v.is_finite() && *v >= 0.0, "{v} from {pair:?}");
            }
            let util = r.get(strata::layers::disks::model::DiskCol::Util);
            assert!(util.is_none_or(|u| u <= 100.0), "{util:?}");
        }
    }
});
