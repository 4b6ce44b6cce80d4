//! `/proc/vmstat`: `name value` lines (mm/vmstat.c `vmstat_show`).
//!
//! The set of names changes with the kernel version and configuration
//! (`workingset_refault` became `workingset_refault_anon` and
//! `workingset_refault_file` in 5.9), so every counter is kept and looked
//! up by name. pgpgin and pgpgout are already in kB: the kernel halves the
//! sector counts before printing them.

use super::keyed::{Keyed, KeyedFile};

/// Every counter of one reading of /proc/vmstat.
pub type VmStat = Keyed<u64>;

/// /proc/vmstat: about 180 names on 6.x kernels.
pub const VMSTAT: KeyedFile<u64> = KeyedFile {
    names: "name",
    room: 256,
    line: |line| {
        kernel_line(line)
            .or_else(|| general_line(line))
            .ok_or_else(|| {
                "a name and an unsigned counter, such as \"pgpgin 11069945\"".to_string()
            })
    },
};

/// Any line of a name and a counter, words split on Unicode whitespace.
fn general_line(line: &str) -> Option<(&str, u64)> {
    let mut words = line.split_whitespace();
    match (words.next(), words.next(), words.next()) {
        (Some(name), Some(value), None) => value.parse::<u64>().ok().map(|v| (name, v)),
        _ => None,
    }
}

/// A line as the kernel prints it, `name value` with one space, read
/// without splitting it on Unicode whitespace; anything else (None) is
/// read the general way, which takes every line this takes, the same.
fn kernel_line(line: &str) -> Option<(&str, u64)> {
    let (name, value) = line.split_once(' ')?;
    let plain = !name.is_empty()
        && name.bytes().all(|b| b.is_ascii_graphic())
        && !value.is_empty()
        && value.bytes().all(|b| b.is_ascii_digit());
    if !plain {
        return None;
    }
    Some((name, value.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_names_and_values() {
        let p = VMSTAT.parse(
            "pgpgin 11069945\npgpgout 25229672\nworkingset_refault_file 2260268\n",
            "/proc/vmstat",
        );
        assert!(p.rejected.is_empty());
        let v = VmStat::from_entries(p.items);
        assert_eq!(v.get("pgpgin"), Some(11_069_945));
        assert_eq!(v.get("workingset_refault_file"), Some(2_260_268));
        assert_eq!(v.get("workingset_refault"), None);
    }

    #[test]
    fn bad_lines_are_named_and_the_rest_kept() {
        let text = "pgpgin 1\npgpgout -3\npgmajfault\nnr_dirty 1 2\npgpgin 2\n\nnr_writeback 4\n";
        let p = VMSTAT.parse(text, "/proc/vmstat");
        let lines: Vec<usize> = p.rejected.iter().map(|r| r.line_no).collect();
        assert_eq!(lines, [2, 3, 4, 5]);
        let v = VmStat::from_entries(p.items);
        assert_eq!(v.get("pgpgin"), Some(1));
        assert_eq!(v.get("nr_writeback"), Some(4));
        assert_eq!(v.len(), 2);
    }

    /// Keeping some names rejects the very lines the whole parse rejects
    /// (a kept name's second line too) and keeps the rest of what it kept.
    #[test]
    fn keeping_some_names_rejects_the_same_lines() {
        let text = "pgpgin 1\npgpgout -3\npgmajfault\nnr_dirty 1 2\npgpgin 2\nnr_free 9\n\nnr_free 8\nnr_writeback 4\nnr_a  5\nnr_b\t6\nnr_c 7 \nnr_d +8\nnr_e 99999999999999999999\n\u{a0}nr_f 1\n";
        let all = VMSTAT.parse(text, "/proc/vmstat");
        let some = VMSTAT.parse_keeping(text, "/proc/vmstat", |n| n != "nr_writeback");
        assert_eq!(some.rejected, all.rejected);
        let kept: Vec<_> = all
            .items
            .into_iter()
            .filter(|(n, _)| n != "nr_writeback")
            .collect();
        assert_eq!(some.items, kept);
        assert_eq!(kept.len(), 7);
        // the general way's reading of the lines the kernel does not write
        let v = VmStat::from_entries(some.items);
        let got: Vec<_> = ["nr_a", "nr_b", "nr_c", "nr_d", "nr_e"]
            .map(|n| v.get(n))
            .into();
        assert_eq!(got, [Some(5), Some(6), Some(7), Some(8), None]);
    }
}
