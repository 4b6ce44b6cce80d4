//! What a remote sampler prints on its one long-lived SSH channel, for a
//! cell (src/layers/cells/source/remote.rs) or a database node
//! (src/link/sampler.rs). It writes frames, here a cell's:
//!
//! ```text
//! @@C 0                      once per connection: what /sys/block says
//! dev sda
//! rot 1
//! ...
//! @@E 0 812                  the frame's sequence number and body length
//! @@S 1                      then once per interval
//!  1234.56 2345.67           /proc/uptime
//!    8       0 sda 1 2 ...   /proc/diskstats
//! @@E 1 1650
//! ```
//!
//! The body is what the shell captured with `$(...)`, printed with one
//! newline after it; the length in the end marker is `${#body}` in the C
//! locale, so bytes, without that last newline. A frame is accepted only
//! when its header and end marker carry the same sequence number and the
//! body has exactly the announced length: a sampler killed mid-frame, a
//! `cat` that failed halfway or text that slipped in between is rejected,
//! never read as counters. Text outside any frame (a login banner, output
//! of a shell rc file) is skipped and counted.

use crate::core::error::ParseError;

/// A line longer than this (no newline yet) is garbage, not /proc text.
pub const MAX_LINE_BYTES: usize = 64 * 1024;
/// A frame body larger than this is rejected: /proc/diskstats of a cell
/// with a thousand devices is about 150 KiB.
pub const MAX_FRAME_BYTES: usize = 4 * 1024 * 1024;

const STREAM: &str = "sampler stream";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameKind {
    /// `@@C`: what /sys says, once per connection (and again when a
    /// node's set of devices or interfaces changes).
    Classes,
    /// `@@S`: the counters, once per interval.
    Sample,
}

/// One complete, checked frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub kind: FrameKind,
    pub seq: u64,
    /// The body without its last newline.
    pub body: String,
}

struct OpenFrame {
    kind: FrameKind,
    seq: u64,
    /// Stream line of the header, for errors.
    line_no: usize,
    body: Vec<u8>,
    /// Body lines so far: the first one is not preceded by a newline.
    lines: usize,
}

/// Splits the byte stream into lines and lines into frames. It keeps no
/// more than one line and one frame in memory, both bounded.
#[derive(Default)]
pub struct FrameReader {
    partial: Vec<u8>,
    /// Dropping the rest of a line that outgrew MAX_LINE_BYTES.
    overlong: bool,
    open: Option<OpenFrame>,
    line_no: usize,
    skipped: usize,
    /// The last frame's body length: the next is about as long, and
    /// growing a 50 kB body by doubling copies it several times.
    last_len: usize,
}

enum Marker {
    Start(FrameKind, u64),
    End(u64, usize),
}

fn parse_marker(line: &[u8]) -> Option<Marker> {
    let text = std::str::from_utf8(line).ok()?;
    let mut words = text.split(' ');
    let tag = words.next()?;
    let seq = words.next()?.parse::<u64>().ok()?;
    let marker = match tag {
        "@@C" => Marker::Start(FrameKind::Classes, seq),
        "@@S" => Marker::Start(FrameKind::Sample, seq),
        "@@E" => Marker::End(seq, words.next()?.parse::<usize>().ok()?),
        _ => return None,
    };
    words.next().is_none().then_some(marker)
}

impl FrameReader {
    pub fn new() -> Self {
        Self::default()
    }

    /// Lines seen outside any frame so far.
    pub fn skipped_lines(&self) -> usize {
        self.skipped
    }

    /// Feeds bytes as they arrive; returns the frames they complete and
    /// the frames they prove broken.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<Result<Frame, ParseError>> {
        let mut out = Vec::new();
        let mut rest = bytes;
        while !rest.is_empty() {
            let (chunk, ended) = match rest.iter().position(|&b| b == b'\n') {
                Some(i) => (&rest[..i], true),
                None => (rest, false),
            };
            rest = &rest[(chunk.len() + usize::from(ended)).min(rest.len())..];
            // A whole line in what arrived: read where it is, no copy.
            if ended && !self.overlong && self.partial.is_empty() && chunk.len() <= MAX_LINE_BYTES {
                self.line_no += 1;
                self.line(chunk, &mut out);
                continue;
            }
            if !self.overlong {
                if self.partial.len() + chunk.len() > MAX_LINE_BYTES {
                    self.overlong = true;
                    self.partial.clear();
                    if let Some(f) = self.open.take() {
                        out.push(Err(self.error(
                            f.line_no,
                            "@@",
                            format!(
                                "lines shorter than {MAX_LINE_BYTES} bytes in frame {}",
                                f.seq
                            ),
                        )));
                    }
                } else {
                    self.partial.extend_from_slice(chunk);
                }
            }
            if ended {
                self.line_no += 1;
                if self.overlong {
                    self.overlong = false;
                    self.skipped += 1;
                } else {
                    // The buffer goes back for the next line: a node's
                    // frame is a thousand lines a second.
                    let mut line = std::mem::take(&mut self.partial);
                    self.line(&line, &mut out);
                    line.clear();
                    self.partial = line;
                }
            }
        }
        out
    }

    fn error(&self, line_no: usize, line: &str, expected: String) -> ParseError {
        ParseError::new(STREAM, line_no, line, expected)
    }

    fn line(&mut self, line: &[u8], out: &mut Vec<Result<Frame, ParseError>>) {
        if line.starts_with(b"@@") {
            let shown = String::from_utf8_lossy(line).into_owned();
            match parse_marker(line) {
                Some(Marker::Start(kind, seq)) => {
                    if let Some(f) = self.open.take() {
                        out.push(Err(self.error(
                            f.line_no,
                            &shown,
                            format!("the end marker of frame {} before another frame", f.seq),
                        )));
                    }
                    self.open = Some(OpenFrame {
                        kind,
                        seq,
                        line_no: self.line_no,
                        body: Vec::with_capacity(self.last_len),
                        lines: 0,
                    });
                }
                Some(Marker::End(seq, len)) => match self.open.take() {
                    None => out.push(Err(self.error(
                        self.line_no,
                        &shown,
                        "a frame header before an end marker".into(),
                    ))),
                    Some(f) if f.seq != seq => out.push(Err(self.error(
                        self.line_no,
                        &shown,
                        format!("the end marker of frame {}", f.seq),
                    ))),
                    Some(f) if f.body.len() != len => out.push(Err(self.error(
                        self.line_no,
                        &shown,
                        format!(
                            "{len} bytes in frame {seq} as announced, {} received",
                            f.body.len()
                        ),
                    ))),
                    Some(f) => {
                        self.last_len = f.body.len().min(MAX_FRAME_BYTES);
                        // The length is checked on the bytes; a byte that
                        // is not UTF-8 (a Latin-1 mount point in
                        // mountinfo) becomes U+FFFD in its own line
                        // instead of losing the host's whole sample.
                        let body = match String::from_utf8(f.body) {
                            Ok(body) => body,
                            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
                        };
                        out.push(Ok(Frame {
                            kind: f.kind,
                            seq,
                            body,
                        }));
                    }
                },
                None => {
                    if let Some(f) = self.open.take() {
                        out.push(Err(self.error(
                            self.line_no,
                            &shown,
                            format!("a frame marker such as '@@E {} 120'", f.seq),
                        )));
                    } else {
                        self.skipped += 1;
                    }
                }
            }
            return;
        }
        let Some(f) = self.open.as_mut() else {
            self.skipped += 1;
            return;
        };
        if f.body.len() + line.len() + 1 > MAX_FRAME_BYTES {
            let seq = f.seq;
            let line_no = f.line_no;
            self.open = None;
            out.push(Err(self.error(
                line_no,
                "@@",
                format!("frame {seq} smaller than {MAX_FRAME_BYTES} bytes"),
            )));
            return;
        }
        if f.lines > 0 {
            f.body.push(b'\n');
        }
        f.body.extend_from_slice(line);
        f.lines += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(text: &str) -> Vec<Result<Frame, ParseError>> {
        FrameReader::new().push(text.as_bytes())
    }

    #[test]
    fn a_frame_split_anywhere_reads_the_same() {
        // body: "1.00 2.00" (9) + "\n" (1) + the diskstats line (34) = 44 bytes
        let body = "1.00 2.00\n   8 0 sda 1 2 3 4 5 6 7 8 9 10 11";
        assert_eq!(body.len(), 44);
        let text = format!("motd\n@@S 7\n{body}\n@@E 7 44\n");
        for cut in 0..text.len() {
            let mut r = FrameReader::new();
            let mut got = r.push(&text.as_bytes()[..cut]);
            got.extend(r.push(&text.as_bytes()[cut..]));
            assert_eq!(
                got,
                vec![Ok(Frame {
                    kind: FrameKind::Sample,
                    seq: 7,
                    body: body.to_string()
                })],
                "cut at {cut}"
            );
            assert_eq!(r.skipped_lines(), 1);
        }
    }

    #[test]
    fn a_lost_line_is_a_rejected_frame() {
        // the diskstats line is gone: 9 bytes arrived, 44 announced
        let got = frames("@@S 3\n1.00 2.00\n@@E 3 44\n");
        let e = got[0].as_ref().unwrap_err();
        assert!(e.expected.contains("44 bytes"), "{e}");
        assert_eq!(e.line_no, 3);
    }

    #[test]
    fn a_frame_cut_by_the_next_header_is_rejected_and_the_next_kept() {
        let got = frames("@@S 3\n1.00 2.00\n@@S 4\n1.50 2.00\n@@E 4 9\n");
        assert_eq!(got.len(), 2);
        assert!(got[0].is_err());
        assert_eq!(got[1].as_ref().map(|f| f.seq), Ok(4));
    }

    #[test]
    fn mismatched_sequence_and_stray_markers_are_rejected() {
        assert!(frames("@@S 3\n1.00 2.00\n@@E 4 9\n")[0].is_err());
        assert!(frames("@@E 4 9\n")[0].is_err());
        assert!(frames("@@S 3\n1.00 2.00\n@@X 3 9\n")[0].is_err());
        assert!(frames("@@S 3\n1.00 2.00\n@@E 3 nine\n")[0].is_err());
        assert!(frames("@@S 3\n1.00 2.00\n@@E 3 9 extra\n")[0].is_err());
        // a truncated stream yields nothing, and no error until it resumes
        assert!(frames("@@S 3\n1.00 2.00\n@@E 3").is_empty());
    }

    #[test]
    fn an_empty_body_is_one_empty_line() {
        // printf '@@C 0\n%s\n@@E 0 %d\n' "" 0
        let got = frames("@@C 0\n\n@@E 0 0\n");
        assert_eq!(got[0].as_ref().map(|f| f.body.as_str()), Ok(""));
    }

    #[test]
    fn overlong_lines_and_frames_are_bounded() {
        let mut r = FrameReader::new();
        let mut got = r.push(b"@@S 1\n");
        got.extend(r.push(&vec![b'x'; MAX_LINE_BYTES + 1]));
        got.extend(r.push(b"\n@@S 2\n1.00 2.00\n@@E 2 9\n"));
        assert!(got[0].is_err());
        assert_eq!(got[1].as_ref().map(|f| f.seq), Ok(2));
        assert!(r.partial.is_empty());
    }

    #[test]
    fn a_byte_not_utf8_costs_its_character_not_the_frame() {
        // A Latin-1 "é" in a mount point, the counters beside it intact.
        let got = FrameReader::new().push(b"@@S 1\n/mnt/caf\xe9 nfs\n8 0 sda 1\n@@E 1 23\n");
        assert_eq!(got.len(), 1);
        let body = &got[0].as_ref().unwrap().body;
        assert_eq!(body, "/mnt/caf\u{fffd} nfs\n8 0 sda 1");
        // The length is the bytes': one byte short is still a broken frame.
        let short = FrameReader::new().push(b"@@S 1\n/mnt/caf\xe9\n@@E 1 10\n");
        assert!(short[0].is_err());
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        /// Bodies as the sampler prints them: lines that never start with
        /// "@@" (uptime and diskstats lines start with a digit or a space).
        fn body() -> impl Strategy<Value = String> {
            proptest::collection::vec("[ 0-9a-z.]{0,30}", 1..6).prop_map(|lines| {
                lines
                    .into_iter()
                    .map(|l| format!(" {l}"))
                    .collect::<Vec<_>>()
                    .join("\n")
            })
        }

        fn stream(bodies: &[String]) -> (Vec<Frame>, Vec<u8>) {
            let mut frames = Vec::new();
            let mut text = String::from("banner from a login shell\n");
            for (i, b) in bodies.iter().enumerate() {
                let seq = i as u64 + 1;
                text += &format!("@@S {seq}\n{b}\n@@E {seq} {}\n", b.len());
                frames.push(Frame {
                    kind: FrameKind::Sample,
                    seq,
                    body: b.clone(),
                });
            }
            (frames, text.into_bytes())
        }

        fn feed(bytes: &[u8], chunk: usize) -> Vec<Result<Frame, ParseError>> {
            let mut r = FrameReader::new();
            bytes.chunks(chunk.max(1)).flat_map(|c| r.push(c)).collect()
        }

        proptest! {
            #[test]
            fn any_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..4096), chunk in 1usize..512) {
                for f in feed(&bytes, chunk).into_iter().flatten() {
                    prop_assert!(f.body.len() <= MAX_FRAME_BYTES);
                }
            }

            #[test]
            fn whole_streams_read_back_exactly(bodies in proptest::collection::vec(body(), 1..8), chunk in 1usize..64) {
                let (frames, bytes) = stream(&bodies);
                let got: Vec<Frame> = feed(&bytes, chunk).into_iter().map(|r| r.unwrap()).collect();
                prop_assert_eq!(got, frames);
            }

            /// A cut-out piece of the stream (lost output, a killed
            /// sampler, a truncated read) never yields a frame that was not
            /// sent: every frame accepted is one of the originals.
            #[test]
            fn a_missing_piece_is_never_misread(
                bodies in proptest::collection::vec(body(), 1..8),
                from in any::<proptest::sample::Index>(),
                len in 1usize..200,
                chunk in 1usize..64,
            ) {
                let (frames, bytes) = stream(&bodies);
                let start = from.index(bytes.len());
                let end = (start + len).min(bytes.len());
                let mut cut = bytes[..start].to_vec();
                cut.extend_from_slice(&bytes[end..]);
                for f in feed(&cut, chunk).into_iter().flatten() {
                    prop_assert!(frames.contains(&f), "misread {:?}", f);
                }
            }

            #[test]
            fn a_wrong_count_is_rejected(body in body(), delta in 1usize..5, up in any::<bool>()) {
                let n = if up { body.len() + delta } else { body.len().saturating_sub(delta) };
                prop_assume!(n != body.len());
                let text = format!("@@S 9\n{body}\n@@E 9 {n}\n");
                let got = feed(text.as_bytes(), 7);
                prop_assert_eq!(got.len(), 1);
                prop_assert!(got[0].is_err());
            }
        }
    }
}
