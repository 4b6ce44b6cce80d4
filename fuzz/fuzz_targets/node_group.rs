//! A node group file (and a cell group file, read alike): problems are
//! messages, never a panic, and nothing of the file reaches a terminal
//! raw, in a message or in a host, user or label.
#![no_main]

use libfuzzer_sys::fuzz_target;
use strata::core::text::is_unsafe;
use strata::link::target::{NodeTarget, parse_host_group, parse_node_group};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (nodes, errors) = parse_node_group(&text, "oracle");
    for e in &errors {
        assert!(!e.contains(is_unsafe), "{e:?}");
    }
    for n in &nodes {
        assert!(!n.label().contains(is_unsafe), "{n:?}");
        if let NodeTarget::Remote(t) = n {
            assert!(!t.host.is_empty() && !(t.host.clone() + &t.user).contains(is_unsafe), "{t:?}");
        }
    }
    let (cells, errors) = parse_host_group(&text, "celladmin");
    for e in &errors {
        assert!(!e.contains(is_unsafe), "{e:?}");
    }
    for t in &cells {
        assert!(!(t.label.clone() + &t.host + &t.user).contains(is_unsafe), "{t:?}");
    }
});
