//! What a cell's sampler prints over SSH, cut into pieces at the places the
//! first byte chooses: frames, samples and /sys/block facts.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let cut = data.first().map_or(1, |b| usize::from(*b).max(1));
    let mut reader = strata::link::frame::FrameReader::new();
    for piece in data.chunks(cut) {
        for frame in reader.push(piece).into_iter().flatten() {
            let _ = strata::layers::cells::cell_stream::parse_sample(&frame);
            let _ = strata::layers::cells::cell_stream::parse_sys_block(&frame.body, "fuzz");
        }
    }
});
