//! An identity (private key) file's text, decoded as strata decodes it
//! (OpenSSH, PEM or PuTTY): an error, never a panic. Without a passphrase
//! only: an encrypted key stops before its key derivation, whose rounds
//! are the file's to set (a fuzzed one could ask for billions).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = strata::remote::decode_identity(&text, None);
});
