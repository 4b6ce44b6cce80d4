//! Sizes as the user writes them: `--rotate-size` and the config's
//! `history_memory`.

/// A size in bytes, or with k, M, G (powers of 1024).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let (num, mult) = match s.char_indices().last() {
        Some((i, 'k' | 'K')) => (&s[..i], 1u64 << 10),
        Some((i, 'm' | 'M')) => (&s[..i], 1 << 20),
        Some((i, 'g' | 'G')) => (&s[..i], 1 << 30),
        _ => (s, 1),
    };
    num.parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(mult))
        .filter(|n| *n >= 1 << 14)
        .ok_or_else(|| format!("{s:?} is not a size of at least 16k (e.g. 100M, 2G)"))
}
