//! Branch-free compaction of a batch into lists: the worker's miss list, its forward/drop
//! split. Whether a packet is kept is data (a flow-cache hit, a route), so a branch on it
//! mispredicts about once in two packets on mixed traffic; instead every value is written at
//! the end of the list, which grows only if the value is kept.
//!
//! The end is never past the number of values offered before, so a list of the batch's
//! length holds every write; [`Compact::put`] relies on that instead of checking each
//! index (two instructions per packet and list in the worker's loops).

/// A list being filled at the front of `out` (see the module header).
pub(crate) struct Compact<'a, T> {
    out: &'a mut [T],
    k: usize,
}

impl<'a, T: Copy> Compact<'a, T> {
    /// An empty list over `out`, which must have room for every value offered.
    #[inline(always)]
    pub(crate) fn new(out: &'a mut [T]) -> Self {
        Compact { out, k: 0 }
    }

    /// Writes `v` at the end of the list; the list keeps it (grows by one) only if `keep`.
    ///
    /// # Safety
    /// At most `out.len()` calls on one `Compact` (the end is ≤ the number of earlier calls,
    /// so with fewer than `out.len()` earlier calls it is in bounds).
    #[inline(always)]
    pub(crate) unsafe fn put(&mut self, v: T, keep: bool) {
        debug_assert!(self.k < self.out.len(), "more values than room");
        // SAFETY: k ≤ the calls before this one < out.len() (the caller's contract).
        unsafe { *self.out.get_unchecked_mut(self.k) = v };
        self.k += keep as usize;
    }

    /// Values kept so far (they are `out[..len]`, in the order offered).
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.k
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The list is the kept values in order (the oracle: `filter`), and a full-length
        /// offer fits.
        #[test]
        fn keeps_what_filter_keeps(items in proptest::collection::vec((any::<u32>(), any::<bool>()), 0..300)) {
            let mut out = vec![0u32; items.len()];
            let mut c = Compact::new(&mut out);
            for &(v, keep) in &items {
                // SAFETY: one call per item, `out.len() == items.len()`.
                unsafe { c.put(v, keep) };
            }
            let k = c.len();
            let want: Vec<u32> = items.iter().filter(|x| x.1).map(|x| x.0).collect();
            prop_assert_eq!(&out[..k], &want[..]);
        }
    }

    /// A write past the room is caught in a debug build (the contract's check): three kept
    /// values offered to a list of two.
    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "more values than room")]
    fn overflow_is_caught_in_debug_builds() {
        let mut out = [0u8; 2];
        let mut c = Compact::new(&mut out);
        for v in 0..3 {
            // SAFETY: not met on the third call, on purpose: the debug assertion (this test's
            // subject) panics before the write.
            unsafe { c.put(v, true) };
        }
    }
}
