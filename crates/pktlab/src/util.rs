//! Small deterministic helpers shared across pktlab: hashing (including [`FastHasher`], the
//! non-SipHash hasher for maps keyed by prefixes, addresses or ids) and pseudo-random
//! generators.
//!
//! These are deliberately tiny and fully specified so that other implementations (the C
//! reference Poptrie, scripts) can reproduce pktlab's inputs bit for bit.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// Marks the branch that calls it as rarely taken, so that the compiler keeps a real (well
/// predicted) branch there instead of computing both arms and selecting — e.g. to keep a
/// division off a hot path's critical chain when the condition almost never holds. The
/// `#[cold]`-function form of `std::hint::cold_path` (stable only since Rust 1.95; the
/// MSRV is 1.88).
#[inline]
#[cold]
pub fn cold_path() {}

/// On-CPU time (user + system) of the calling thread, nanoseconds
/// (`CLOCK_THREAD_CPUTIME_ID`: a system call, not the vDSO — read it per batch, not per packet).
pub fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec for clock_gettime to write.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// On-CPU time (user + system) of this process so far, seconds (`getrusage(RUSAGE_SELF)`).
pub fn process_cpu_seconds() -> f64 {
    // SAFETY: rusage is plain old data; all-zero is a valid value.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage fills the struct it is given.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// The most bytes of escaped input [`quote`] puts in a message.
pub const QUOTE_MAX: usize = 80;

/// Offending input quoted for a one-line message, the one way pktlab's readers do it: the
/// text escaped as `{:?}` escapes a string (bytes that are not UTF-8 as `\xNN`), at most
/// [`QUOTE_MAX`] bytes of it, with `…` after the closing quote when the input was cut. So a
/// message stays one short line whatever the input (a megabyte "token", binary garbage).
pub fn quote(input: impl AsRef<[u8]>) -> String {
    let mut out = String::with_capacity(QUOTE_MAX + 8);
    out.push('"');
    let mut cut = false;
    let mut used = 0;
    let mut push = |out: &mut String, e: &str| {
        if used + e.len() > QUOTE_MAX {
            return false;
        }
        used += e.len();
        out.push_str(e);
        true
    };
    'all: for chunk in input.as_ref().utf8_chunks() {
        for c in chunk.valid().chars() {
            let e: String = if c == '\'' {
                "'".into()
            } else {
                c.escape_debug().collect()
            };
            if !push(&mut out, &e) {
                cut = true;
                break 'all;
            }
        }
        for b in chunk.invalid() {
            if !push(&mut out, &format!("\\x{b:02x}")) {
                cut = true;
                break 'all;
            }
        }
    }
    out.push('"');
    if cut {
        out.push('…');
    }
    out
}

/// The splitmix64 finaliser (Steele, Lea & Flood): add the golden gamma, then three
/// xor-shift/multiply rounds. Used by the `hash:N` next-hop scheme.
#[inline]
pub fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A fast, deterministic hasher for maps keyed by prefixes, addresses, flow keys or ids: each
/// written word is folded in with a rotate-xor-multiply step, and [`splitmix64`] finalises.
/// Not resistant to hash flooding — for keys that come from local files or simulations, where
/// SipHash would only cost time on hot paths.
#[derive(Default, Clone, Copy, Debug)]
pub struct FastHasher(u64);

impl FastHasher {
    #[inline]
    fn mix(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(23) ^ v).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

impl Hasher for FastHasher {
    #[inline]
    fn finish(&self) -> u64 {
        splitmix64(self.0)
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.mix(u64::from_le_bytes(w));
        }
    }
    #[inline]
    fn write_u8(&mut self, v: u8) {
        self.mix(v as u64);
    }
    #[inline]
    fn write_u16(&mut self, v: u16) {
        self.mix(v as u64);
    }
    #[inline]
    fn write_u32(&mut self, v: u32) {
        self.mix(v as u64);
    }
    #[inline]
    fn write_u64(&mut self, v: u64) {
        self.mix(v);
    }
    #[inline]
    fn write_u128(&mut self, v: u128) {
        self.mix((v >> 64) as u64);
        self.mix(v as u64);
    }
    #[inline]
    fn write_usize(&mut self, v: usize) {
        self.mix(v as u64);
    }
}

/// A `HashMap` with [`FastHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;
/// A `HashSet` with [`FastHasher`].
pub type FastSet<K> = HashSet<K, BuildHasherDefault<FastHasher>>;

/// Marsaglia's xorshift64 generator (13, 7, 17): tiny state, good enough for benchmark
/// traffic; the seed must be non-zero (zero is replaced by a fixed constant).
#[derive(Clone, Debug)]
pub struct XorShift64(u64);

impl XorShift64 {
    /// Seeds the generator; a zero seed is mapped to a fixed non-zero constant.
    pub fn new(seed: u64) -> Self {
        XorShift64(if seed == 0 {
            0x9E37_79B9_7F4A_7C15
        } else {
            seed
        })
    }

    /// The next 64-bit value.
    #[inline(always)]
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

/// Marsaglia's xor128 generator ("Xorshift RNGs", 2003), the generator of the Poptrie paper's
/// benchmark harness. Stream 0 starts from Marsaglia's published state
/// (123456789, 362436069, 521288629, 88675123), so pktlab's `random` traffic is the same
/// address sequence the reference harness looks up; other streams perturb that state.
#[derive(Clone, Debug)]
pub struct Xor128 {
    s: [u32; 4],
}

impl Xor128 {
    /// Stream `k`: 0 = Marsaglia's published seed; others derived with splitmix64.
    pub fn new(k: u64) -> Self {
        let mut s = [123_456_789, 362_436_069, 521_288_629, 88_675_123];
        if k != 0 {
            for (i, w) in s.iter_mut().enumerate() {
                let r = splitmix64(k.wrapping_mul(4).wrapping_add(i as u64)) as u32;
                *w ^= r;
                if *w == 0 {
                    *w = 1;
                }
            }
        }
        Xor128 { s }
    }

    /// The next 32-bit value.
    #[inline(always)]
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u32 {
        let [x, y, z, w] = self.s;
        let t = x ^ (x << 11);
        let nw = w ^ (w >> 19) ^ (t ^ (t >> 8));
        self.s = [y, z, w, nw];
        nw
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The thread clock advances with this thread's work (10 ms of it within seconds of wall
    /// time), and the process clock counts at least that much.
    #[test]
    fn cpu_clocks_count_work() {
        let (t0, p0) = (thread_cpu_ns(), process_cpu_seconds());
        let start = std::time::Instant::now();
        let mut x = 1u64;
        while thread_cpu_ns() < t0 + 10_000_000 {
            for _ in 0..1000 {
                x = splitmix64(x);
            }
            assert!(start.elapsed().as_secs() < 20, "thread clock stuck at {t0}");
        }
        std::hint::black_box(x);
        let p1 = process_cpu_seconds();
        assert!(p1 >= p0 + 0.009, "process clock {p0} -> {p1}");
    }

    #[test]
    fn quote_escapes_and_bounds() {
        assert_eq!(quote("x/8"), "\"x/8\"");
        assert_eq!(quote("a\"b\n'"), format!("{:?}", "a\"b\n'"));
        assert_eq!(quote(b"\xff\x00ok"), "\"\\xff\\0ok\"");
        let long = "y".repeat(1 << 20);
        let q = quote(&long);
        assert_eq!(q, format!("\"{}\"…", "y".repeat(QUOTE_MAX)));
        // Escapes count in the bound; a cut never splits a character or an escape.
        let q = quote(vec![1u8; 1000]);
        assert!(q.len() <= QUOTE_MAX + 5 && q.ends_with("\"…"), "{q}");
        assert!(q.trim_end_matches("\"…").ends_with("\\u{1}"), "{q}");
        let q = quote("é".repeat(100));
        assert!(q.len() <= QUOTE_MAX + 5 && q.ends_with("é\"…"), "{q}");
    }

    #[test]
    fn splitmix64_known_values() {
        // Reference values of the splitmix64 generator seeded with 0 (first outputs are
        // splitmix64(0), splitmix64(gamma), ...), as published with the algorithm.
        assert_eq!(splitmix64(0), 0xE220_A839_7B1D_CDAF);
        assert_eq!(splitmix64(0x9E37_79B9_7F4A_7C15), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn xor128_matches_marsaglia() {
        // First outputs of Marsaglia's xor128 from his published seed.
        let mut r = Xor128::new(0);
        assert_eq!(r.next(), 3_701_687_786);
        assert_eq!(r.next(), 458_299_110);
        assert_ne!(Xor128::new(1).next(), Xor128::new(0).next());
    }

    #[test]
    fn xorshift_is_deterministic_and_nonzero() {
        let mut a = XorShift64::new(1);
        let mut b = XorShift64::new(1);
        for _ in 0..100 {
            let x = a.next();
            assert_eq!(x, b.next());
            assert_ne!(x, 0);
        }
        assert_ne!(XorShift64::new(0).next(), 0);
    }
}

/// SplitMix64 as a generator (state advanced by the golden gamma, output finalised by
/// [`splitmix64`]): the seeded RNG of the simulators (`netsim`, `aqm`). Any seed is valid.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// Seeds the generator.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The next 64-bit value.
    #[inline(always)]
    pub fn next_u64(&mut self) -> u64 {
        let z = self.0;
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        splitmix64(z)
    }

    /// A uniform double in [0, 1) (53 random bits).
    #[inline(always)]
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// Defines a module's error type whose cases are one-line messages naming the input or the
/// parameter (`Invalid`), convertible from the `String`/`&str` messages the module builds.
macro_rules! message_error {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
        pub enum $name {
            /// The input or parameter is invalid; the message names it.
            #[error("{0}")]
            Invalid(String),
        }

        impl From<String> for $name {
            fn from(msg: String) -> Self {
                $name::Invalid(msg)
            }
        }

        impl From<&str> for $name {
            fn from(msg: &str) -> Self {
                $name::Invalid(msg.to_string())
            }
        }
    };
}
pub(crate) use message_error;

/// FNV-1a (64-bit) over the little-endian bytes of `u64` words: a stable digest of a run's
/// outputs, so tests can pin "bit-identical" against a value computed once.
#[derive(Clone, Copy, Debug)]
pub struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv1a {
    /// Feeds `x`'s eight bytes, least significant first.
    pub fn eat(&mut self, x: u64) {
        for b in x.to_le_bytes() {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }
    /// The digest so far.
    pub fn finish(&self) -> u64 {
        self.0
    }
}
