//! Size arguments: `1000`, `2^26`, `64K`, `1M`, `2G` (binary multiples: K = 1024).

/// Parses a count such as `2^26`, `64K`, `1M` or `1000000`.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let bad = || format!("bad size {s:?} (examples: 1000, 2^26, 64K, 1M)");
    if let Some((b, e)) = t.split_once('^') {
        let b: u64 = b.parse().map_err(|_| bad())?;
        let e: u32 = e.parse().map_err(|_| bad())?;
        return b.checked_pow(e).ok_or_else(bad);
    }
    let (num, mult) = match t.chars().last() {
        Some('K' | 'k') => (&t[..t.len() - 1], 1u64 << 10),
        Some('M' | 'm') => (&t[..t.len() - 1], 1 << 20),
        Some('G' | 'g') => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    let n: u64 = num.replace('_', "").parse().map_err(|_| bad())?;
    n.checked_mul(mult).ok_or_else(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("2^26"), Ok(1 << 26));
        assert_eq!(parse_size("64K"), Ok(65536));
        assert_eq!(parse_size("1M"), Ok(1 << 20));
        assert_eq!(parse_size("1_000"), Ok(1000));
        assert!(parse_size("x").is_err());
        assert!(parse_size("2^99").is_err());
    }
}
