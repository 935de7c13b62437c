//! Which Poptrie to build: the paper's variants, the lookup kernels, the configuration
//! string (`poptrie18-leafvec:avx2`).

use crate::lpm::LpmError;
use std::fmt;
use std::str::FromStr;

/// Which of the paper's three Poptrie variants to build.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Poptrie (basic): one leaf per non-internal slot, no route aggregation.
    Basic,
    /// Basic + leafvec: a leaf only where the next hop changes.
    Leafvec,
    /// Leafvec + route aggregation: the full Poptrie.
    Aggregated,
}

/// Which compiled lookup code a Poptrie runs. The structure is the same for all; only the
/// instructions differ. `Auto` picks the best one the CPU supports, detected once when the
/// Poptrie is made (never per lookup).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kernel {
    /// `popcnt` if the CPU has POPCNT, else `generic`, for the scalar lookup and for batches
    /// of fewer than [`super::SIMD_MIN_BATCH`] addresses; larger batches run the AVX-512 walk
    /// where the CPU has it and runs it clearly faster on the first large table built, timed
    /// once per process and family ([`super::auto_batch`], `poptrie/calibrate.rs`).
    #[default]
    Auto,
    /// Baseline x86-64 (or any other architecture): software population count.
    Generic,
    /// The POPCNT instruction; scalar level-synchronous batch walk.
    Popcnt,
    /// AVX2 batch walk: 8 lookups per vector, gathers for the direct-pointing and node reads.
    Avx2,
    /// AVX-512 batch walk: 16 lookups per vector (with VPOPCNTQ where the CPU has it).
    Avx512,
}

impl Kernel {
    /// Every explicit kernel, from the most portable to the widest.
    pub const ALL: [Kernel; 4] = [
        Kernel::Generic,
        Kernel::Popcnt,
        Kernel::Avx2,
        Kernel::Avx512,
    ];

    /// The name used in algorithm names (`poptrie18@avx2`) and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Kernel::Auto => "auto",
            Kernel::Generic => "generic",
            Kernel::Popcnt => "popcnt",
            Kernel::Avx2 => "avx2",
            Kernel::Avx512 => "avx512",
        }
    }

    /// True if the running CPU can execute this kernel (`Auto` and `Generic` always can).
    pub fn supported(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            match self {
                Kernel::Auto | Kernel::Generic => true,
                Kernel::Popcnt => has!("popcnt"),
                Kernel::Avx2 => has!("popcnt") && has!("avx2") && has!("bmi2"),
                Kernel::Avx512 => {
                    has!("popcnt") && has!("avx512f") && has!("avx512vl") && has!("avx512bw")
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            matches!(self, Kernel::Auto | Kernel::Generic)
        }
    }

    /// `self` if supported and explicit; otherwise the best supported kernel at or below it.
    pub fn resolve(self) -> Kernel {
        let want = if self == Kernel::Auto {
            Kernel::AUTO_PICK
        } else {
            self
        };
        let mut k = want;
        while !k.supported() {
            k = match k {
                Kernel::Avx512 => Kernel::Avx2,
                Kernel::Avx2 => Kernel::Popcnt,
                _ => Kernel::Generic,
            };
        }
        k
    }

    /// What `Auto` tries first (then falls back by [`Kernel::resolve`]).
    const AUTO_PICK: Kernel = Kernel::Popcnt;
}

impl FromStr for Kernel {
    type Err = crate::lpm::LpmError;

    fn from_str(s: &str) -> Result<Self, LpmError> {
        Ok(match s {
            "auto" => Kernel::Auto,
            "generic" => Kernel::Generic,
            "popcnt" => Kernel::Popcnt,
            "avx2" => Kernel::Avx2,
            "avx512" => Kernel::Avx512,
            _ => {
                return Err(format!(
                    "unknown poptrie kernel {s:?} (auto, generic, popcnt, avx2, avx512)"
                )
                .into())
            }
        })
    }
}

/// A Poptrie configuration: direct-pointing bits `s`, variant and lookup kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PoptrieConfig {
    /// Direct-pointing bits (0 = none; the paper evaluates 0, 16 and 18). At most 24.
    pub s: u8,
    /// Which extensions are enabled.
    pub variant: Variant,
    /// Which lookup code runs (named `poptrie18@avx2`; `Auto` is not named).
    pub kernel: Kernel,
}

impl PoptrieConfig {
    /// The largest direct-pointing width accepted (2^24 entries = 64 MiB).
    pub const MAX_S: u8 = 24;

    /// Full Poptrie (leafvec + aggregation) with `s` direct-pointing bits.
    pub fn new(s: u8) -> Self {
        PoptrieConfig {
            s: s.min(Self::MAX_S),
            variant: Variant::Aggregated,
            kernel: Kernel::Auto,
        }
    }

    /// The configuration `s`, `variant` with the automatically chosen kernel.
    pub fn with_variant(s: u8, variant: Variant) -> Self {
        PoptrieConfig {
            variant,
            ..Self::new(s)
        }
    }

    /// The same configuration running `kernel`.
    pub fn with_kernel(self, kernel: Kernel) -> Self {
        PoptrieConfig { kernel, ..self }
    }
}

impl Default for PoptrieConfig {
    /// `poptrie18`, the paper's fastest configuration.
    fn default() -> Self {
        Self::new(18)
    }
}

impl fmt::Display for PoptrieConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let suffix = match self.variant {
            Variant::Basic => "-basic",
            Variant::Leafvec => "-leafvec",
            Variant::Aggregated => "",
        };
        write!(f, "poptrie{}{}", self.s, suffix)?;
        if self.kernel != Kernel::Auto {
            write!(f, "@{}", self.kernel.as_str())?;
        }
        Ok(())
    }
}

impl FromStr for PoptrieConfig {
    type Err = crate::lpm::LpmError;

    /// Parses `poptrie<S>`, `poptrie<S>-basic` or `poptrie<S>-leafvec`, optionally followed by
    /// `@KERNEL` (generic, popcnt, avx2, avx512, auto); a kernel this CPU lacks is an error.
    fn from_str(s: &str) -> Result<Self, LpmError> {
        let (s, kernel) = match s.split_once('@') {
            Some((name, k)) => {
                let k: Kernel = k.parse()?;
                if !k.supported() {
                    return Err(
                        format!("{s}: this CPU cannot run the {} kernel", k.as_str()).into(),
                    );
                }
                (name, k)
            }
            None => (s, Kernel::Auto),
        };
        let rest = s
            .strip_prefix("poptrie")
            .ok_or_else(|| format!("not a poptrie name: {s:?}"))?;
        let (num, variant) = if let Some(n) = rest.strip_suffix("-basic") {
            (n, Variant::Basic)
        } else if let Some(n) = rest.strip_suffix("-leafvec") {
            (n, Variant::Leafvec)
        } else {
            (rest, Variant::Aggregated)
        };
        let bits: u8 = num
            .parse()
            .map_err(|_| format!("bad direct-pointing bits in {s:?}"))?;
        if bits > Self::MAX_S {
            return Err(format!("direct-pointing bits {bits} > {}", Self::MAX_S).into());
        }
        Ok(PoptrieConfig {
            s: bits,
            variant,
            kernel,
        })
    }
}
