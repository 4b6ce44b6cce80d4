//! cellcli's output: LIST METRICCURRENT, LIST CELLDISK and the whole report.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = strata::layers::cells::cellcli::parse_metriccurrent(&text, "fuzz");
    let _ = strata::layers::cells::cellcli::parse_celldisk(&text, "fuzz");
    let _ = strata::layers::cells::cellcli::parse_cellcli_report(&text);
});
