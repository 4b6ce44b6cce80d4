//! What a database node's sampler prints over SSH, cut into pieces at the
//! places the first byte chooses, read as strata reads it: frames, their
//! files, and every host layer's source over those files. The cache source
//! watches patterns, and the same bytes as a fincore run's output (which
//! comes on a channel of its own, for the next sample) go with the first
//! sample, through its parser.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::Arc;
use strata::core::rootfs::{RemoteFiles, RootFs};
use strata::layers::Sampler;
use strata::link::Decoder;

fuzz_target!(|data: &[u8]| {
    let cut = data.first().map_or(1, |b| usize::from(*b).max(1));
    let mut reader = strata::link::frame::FrameReader::new();
    let mut decoder = strata::layers::node::NodeDecoder::default();
    let files = Arc::new(RemoteFiles::default());
    let fs = RootFs::remote(Arc::clone(&files));
    let mut disks = strata::layers::disks::source::DiskSource::new(fs.clone());
    let mut nics = strata::layers::nics::source::NicSource::new(fs.clone());
    let mut nfs = strata::layers::nfs::source::NfsSource::new(fs.clone());
    let patterns = vec!["/u01/*.log".to_string(), "/u02/x.dbf".to_string()];
    let mut cache = strata::layers::cache::source::CacheSource::new(fs, patterns);
    let mut residency = Some(String::from_utf8_lossy(data).into_owned());
    for piece in data.chunks(cut) {
        for frame in reader.push(piece) {
            let Some(mut f) = decoder.decode(frame, 0) else {
                continue;
            };
            f.files.fincore = residency.take();
            let _ = f.put(&files);
            let _ = Sampler::sample(&mut disks, 0);
            let _ = Sampler::sample(&mut nics, 0);
            let _ = Sampler::sample(&mut nfs, 0);
            let _ = Sampler::sample(&mut cache, 0);
        }
    }
});
