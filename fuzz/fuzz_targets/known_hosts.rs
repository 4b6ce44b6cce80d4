//! A known_hosts file, checked for a host and a fixed key.
#![no_main]

use libfuzzer_sys::fuzz_target;

/// A host key the fuzzed text may or may not name.
const KEY: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOBmI2bLSqnAfmrDBjY+6yycUylxcjJxUy1ivy2LbaBW";

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = strata::remote::hostkey::known_algorithms(&text, "cel01", 22);
    let _ = strata::remote::hostkey::known_algorithms(&text, "127.0.0.8", 2222);
    if let Ok(key) = russh::keys::PublicKey::from_openssh(KEY) {
        let _ = strata::remote::hostkey::check(&text, "cel01", 22, &key);
        let _ =
            strata::remote::hostkey::check(&text, "[127.0.0.8]:2222", 2222, &key);
    }
});
