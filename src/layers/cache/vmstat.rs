//! `/proc/vmstat`: `name value` lines (mm/vmstat.c `vmstat_show`).
//!
//! The set of names changes with the kernel version and configuration
//! (`workingset_refault` became `workingset_refault_anon` and
//! `workingset_refault_file` in 5.9), so every counter is kept and looked
//! up by name. pgpgin and pgpgout are already in kB: the kernel halves the
//! sector counts before printing them.

use super::keyed::Keyed;
use crate::parse::Parsed;

/// Every counter of one reading of /proc/vmstat.
pub type VmStat = Keyed<u64>;

/// Parses the whole text of /proc/vmstat into (name, value) pairs. A name
/// seen twice is rejected on its second line.
pub fn parse_vmstat(text: &str, source_name: &str) -> Parsed<(String, u64)> {
    let mut seen = std::collections::HashSet::new();
    Parsed::from_lines(text, source_name, |line| {
        let mut words = line.split_whitespace();
        let parsed = match (words.next(), words.next(), words.next()) {
            (Some(name), Some(value), None) => value.parse::<u64>().ok().map(|v| (name, v)),
            _ => None,
        };
        let (name, v) = parsed.ok_or_else(|| {
            "a name and an unsigned counter, such as \"pgpgin 11069945\"".to_string()
        })?;
        if !seen.insert(name) {
            return Err(format!("each name once, but {name} came again"));
        }
        Ok(Some((name.to_string(), v)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_names_and_values() {
        let p = parse_vmstat(
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
        let p = parse_vmstat(text, "/proc/vmstat");
        let lines: Vec<usize> = p.rejected.iter().map(|r| r.line_no).collect();
        assert_eq!(lines, [2, 3, 4, 5]);
        let v = VmStat::from_entries(p.items);
        assert_eq!(v.get("pgpgin"), Some(1));
        assert_eq!(v.get("nr_writeback"), Some(4));
        assert_eq!(v.len(), 2);
    }
}
