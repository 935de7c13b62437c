//! Forwarding Information Base — longest name-prefix match (RFC 8569 §2.4.4): routes are name
//! prefixes (whole segments); a lookup hashes every prefix of the Interest's name once and probes
//! from the longest down. The table is built at setup; lookups do not allocate.

use super::tlv::{prefix_hashes, EMPTY_NAME_HASH, MAX_SEGMENTS};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Identity hasher for keys that are already well-mixed 64-bit hashes.
#[derive(Default, Clone, Copy, Debug)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | b as u64;
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// Name-prefix routes to faces.
#[derive(Clone, Debug, Default)]
pub struct Fib {
    routes: HashMap<u64, u16, BuildHasherDefault<IdHasher>>,
}

impl Fib {
    /// An empty FIB.
    pub fn new() -> Fib {
        Fib::default()
    }

    /// Adds (or replaces) a route for the name prefix `name` (a validated name value; empty =
    /// default route).
    pub fn add(&mut self, name: &[u8], face: u16) {
        let mut h = [0u64; MAX_SEGMENTS];
        let n = prefix_hashes(name, &mut h);
        let key = if n == 0 { EMPTY_NAME_HASH } else { h[n - 1] };
        self.routes.insert(key, face);
    }

    /// Number of routes.
    pub fn len(&self) -> usize {
        self.routes.len()
    }

    /// True without routes.
    pub fn is_empty(&self) -> bool {
        self.routes.is_empty()
    }

    /// Longest-prefix match given the name's prefix hashes (from
    /// [`prefix_hashes`]).
    #[inline]
    pub fn lookup_hashes(&self, hashes: &[u64]) -> Option<u16> {
        hashes
            .iter()
            .rev()
            .find_map(|h| self.routes.get(h).copied())
            .or_else(|| self.routes.get(&EMPTY_NAME_HASH).copied())
    }

    /// Longest-prefix match for a validated name value.
    pub fn lookup(&self, name: &[u8]) -> Option<u16> {
        let mut h = [0u64; MAX_SEGMENTS];
        let n = prefix_hashes(name, &mut h);
        self.lookup_hashes(&h[..n])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ccn::tlv::name_from_uri;

    #[test]
    fn longest_prefix_wins() {
        let mut f = Fib::new();
        let mut n = Vec::new();
        for (uri, face) in [("/a", 1), ("/a/b", 2), ("/c/d/e", 3)] {
            name_from_uri(uri, &mut n);
            f.add(&n, face);
        }
        let look = |f: &Fib, u: &str| {
            let mut n = Vec::new();
            name_from_uri(u, &mut n);
            f.lookup(&n)
        };
        assert_eq!(look(&f, "/a/b/c"), Some(2));
        assert_eq!(look(&f, "/a/x"), Some(1));
        assert_eq!(look(&f, "/c/d"), None);
        assert_eq!(look(&f, "/c/d/e/f"), Some(3));
        name_from_uri("/", &mut n);
        f.add(&n, 9);
        assert_eq!(look(&f, "/z"), Some(9));
    }
}
