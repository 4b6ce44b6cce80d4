//! Text from outside strata (a node's stderr, a host name in a group file,
//! a disk's name, a marker label) made safe to print: the one rule every
//! printer uses, the terminal's screen, batch's stderr and stdout alike.

use std::borrow::Cow;
use std::fmt::Write;

/// What replaces a character that must not reach a terminal.
pub const REPLACEMENT: char = '?';

/// Whether `c` would act on a terminal or on the text around it rather
/// than show: a C0 or C1 control (ESC starts a sequence, U+009B is a CSI
/// by itself, BS and CR overwrite), and the invisible format characters
/// that reorder or hide text (U+202E turns the rest of a line around, so a
/// label that holds one lines its neighbours up wrongly), and the line and
/// paragraph separators some terminals break lines at.
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{00AD}'
                | '\u{061C}'
                | '\u{180E}'
                | '\u{200B}'..='\u{200F}'
                | '\u{2028}'..='\u{202E}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{206F}'
                | '\u{FEFF}'
                | '\u{FFF9}'..='\u{FFFB}'
        )
}

/// `s` with every [`is_unsafe`] character written as [`REPLACEMENT`];
/// borrowed when there is none, which is nearly always.
pub fn printable(s: &str) -> Cow<'_, str> {
    if s.chars().any(is_unsafe) {
        s.chars()
            .map(|c| if is_unsafe(c) { REPLACEMENT } else { c })
            .collect::<String>()
            .into()
    } else {
        s.into()
    }
}

/// Bytes a peer sent as printable text of at most `max` bytes (invalid
/// UTF-8 as U+FFFD, trailing blanks dropped), with how many bytes were
/// left out said at its end.
pub fn printable_bytes(bytes: &[u8], max: usize) -> String {
    let kept = bytes.len().min(max);
    let text = String::from_utf8_lossy(&bytes[..kept]);
    let mut out = printable(text.trim_end()).into_owned();
    if kept < bytes.len() {
        let _ = write!(out, " … ({} more bytes not shown)", bytes.len() - kept);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_controls_and_bidi_print_as_question_marks() {
        let attack = "fatal: \u{1b}]0;EXITPWN\u{7}\u{1b}[2J\u{0}\u{8}\u{7f}\u{9b}31m";
        assert_eq!(printable(attack), "fatal: ?]0;EXITPWN??[2J????31m");
        assert_eq!(printable("cel\u{202e}10"), "cel?10");
        assert_eq!(printable("a\u{2066}b\u{200b}c\u{feff}"), "a?b?c?");
        assert_eq!(printable("a\nb\tc\rd"), "a?b?c?d");
        // Text that needs nothing is not copied.
        assert!(matches!(
            printable("exa1db01 · 2.5 MB/s ü"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn a_flood_is_cut_and_says_how_much_is_left_out() {
        let flood = vec![b'x'; 53 << 20];
        let s = printable_bytes(&flood, 2048);
        assert!(s.starts_with(&"x".repeat(2048)), "{}", &s[..40]);
        assert!(
            s.ends_with(" … (55572480 more bytes not shown)"),
            "{}",
            &s[2040..]
        );
        assert_eq!(printable_bytes(b"ok\xff\x1b[2J\n", 100), "ok\u{fffd}?[2J");
    }
}
