//! Any bytes as a recording (and the first bytes again as its journal):
//! the player returns, with what it could read and why it stopped.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let split = data.first().map_or(0, |b| usize::from(*b)).min(data.len());
    let (journal, segment) = data.split_at(split);
    let _ = strata::recording::session::Player::read_bytes(segment, Some(journal));
    let _ = strata::recording::session::Player::read_bytes(data, None);
});
