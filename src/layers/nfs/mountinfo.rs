//! `/proc/self/mountinfo` (proc(5)): which superblock each mount shows.
//!
//! ```text
//! 36 35 0:45 / /mnt/nfs rw,relatime shared:1 - nfs4 srv:/export rw,vers=4.2,...
//! (1)(2) (3) (4)  (5)     (6)         (7)   (8) (9)     (10)       (11)
//! ```
//!
//! Field 3 is the device number of the superblock: bind mounts of one
//! export share it. Mount points and sources are escaped as in mountstats
//! (a space is `\040`), so the two files can be matched word for word.

use crate::core::parse::Parsed;

/// The fields of a mountinfo line that identify a mount.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MountInfo {
    pub mount_id: u64,
    /// `st_dev` of the superblock: (major, minor).
    pub dev: (u32, u32),
    pub mount_point: String,
    pub fstype: String,
    /// The mount source: for NFS, the export.
    pub source: String,
}

const EXPECTED: &str =
    "`ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [TAGS] - FSTYPE SOURCE SUPEROPTIONS`";

/// Parses the whole text of a mountinfo file.
pub fn parse_mountinfo(text: &str, source_name: &str) -> Parsed<MountInfo> {
    Parsed::from_lines(text, source_name, |line| {
        parse_line(line)
            .map(Some)
            .ok_or_else(|| EXPECTED.to_string())
    })
}

fn parse_line(line: &str) -> Option<MountInfo> {
    let w: Vec<&str> = line.split_whitespace().collect();
    let mount_id = w.first()?.parse().ok()?;
    w.get(1)?.parse::<u64>().ok()?;
    let (major, minor) = w.get(2)?.split_once(':')?;
    let dev = (major.parse().ok()?, minor.parse().ok()?);
    let mount_point = (*w.get(4)?).to_string();
    // The optional tags end at a lone "-" (field 8).
    let sep = w.iter().skip(6).position(|x| *x == "-")? + 6;
    Some(MountInfo {
        mount_id,
        dev,
        mount_point,
        fstype: (*w.get(sep + 1)?).to_string(),
        source: (*w.get(sep + 2)?).to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_fields_that_identify_a_mount() {
        // proc(5)'s example, then an NFS mount and its bind mount
        let text = "36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw,errors=continue\n\
                    40 22 0:45 / /mnt/nfs rw,relatime shared:7 - nfs4 srv:/export rw,vers=4.2\n\
                    41 22 0:45 /sub /srv/bind\\040x rw,relatime - nfs4 srv:/export rw,vers=4.2\n";
        let p = parse_mountinfo(text, "mi");
        assert!(p.rejected.is_empty(), "{:?}", p.rejected);
        assert_eq!(p.items[0].dev, (98, 0));
        assert_eq!(p.items[0].fstype, "ext3");
        let b = &p.items[2];
        assert_eq!(
            (
                b.mount_id,
                b.dev,
                b.mount_point.as_str(),
                b.fstype.as_str(),
                b.source.as_str()
            ),
            (41, (0, 45), "/srv/bind\\040x", "nfs4", "srv:/export")
        );
    }

    #[test]
    fn rejects_what_it_cannot_read() {
        for bad in [
            "x 1 0:1 / /a rw - nfs s rw",
            "1 1 0-1 / /a rw - nfs s rw",
            "1 1 0:1 / /a rw nfs s rw",
            "1 1 0:1 / /a rw -",
        ] {
            let p = parse_mountinfo(bad, "mi");
            assert_eq!(p.rejected.len(), 1, "{bad}");
        }
    }
}
