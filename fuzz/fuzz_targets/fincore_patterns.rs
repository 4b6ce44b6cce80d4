//! File patterns (`--cache-files`, the config's) as a node's fincore run
//! gets them: whatever they hold, the run's script is one line, its code
//! is that of a harmless pattern, and each pattern is only an octal word
//! that reads back as itself (a NUL, which no path holds, left out).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::time::Duration;
use strata::link::Protocol;
use strata::layers::node::{FINCORE_EVERY, NodeProtocol};

/// The script's octal words, in order.
fn words(body: &str) -> Vec<&str> {
    let Some((_, rest)) = body.split_once("for E in ") else {
        panic!("no patterns' loop: {body}");
    };
    let Some((words, _)) = rest.split_once("; do P=") else {
        panic!("no loop body: {body}");
    };
    words.split(' ').collect()
}

fn decode(word: &str) -> Vec<u8> {
    let inner = word
        .strip_prefix('\'')
        .and_then(|w| w.strip_suffix('\''))
        .unwrap_or_else(|| panic!("not in single quotes: {word}"));
    inner
        .split('\\')
        .skip(1)
        .map(|o| {
            assert!(o.len() == 3, "not \\ooo: {word}");
            u8::from_str_radix(o, 8).unwrap_or_else(|_| panic!("not octal: {word}"))
        })
        .collect()
}

fn body(patterns: &[String]) -> String {
    let proto = NodeProtocol::new(patterns, Duration::from_secs(1), FINCORE_EVERY);
    let side = proto.side().expect("patterns give a fincore run");
    side.body.into_owned()
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let patterns: Vec<String> = text.split('\u{1}').map(String::from).collect();
    let script = body(&patterns);
    assert!(!script.contains('\n'), "more than one line");
    let found = words(&script);
    assert_eq!(found.len(), patterns.len());
    for (word, pattern) in found.iter().zip(&patterns) {
        let want: Vec<u8> = pattern.bytes().filter(|b| *b != 0).collect();
        assert_eq!(decode(word), want);
    }
    let harmless: Vec<String> = (0..patterns.len()).map(|i| format!("p{i}")).collect();
    let plain = body(&harmless);
    assert_eq!(
        script.replacen(&found.join(" "), "W", 1),
        plain.replacen(&words(&plain).join(" "), "W", 1),
        "the code changed with the patterns"
    );
});
