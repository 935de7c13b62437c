//! Cursors into the routing information base (RIB).
//!
//! Every multibit structure in this module (Tree BitMap, SAIL, DXR, DIR-24-8) keeps its routes
//! in a [`Radix`] trie and builds or repairs its lookup structure from it: a [`Cursor`] is a
//! position in that trie at some depth — the radix node there (or [`NIL`] when the trie has
//! no node on that path) plus the next hop *inherited* from the longest route at or above
//! that position. Leaf pushing, prefix expansion and range extraction are all walks of
//! cursors, written once here.

use super::radix::Radix;
use crate::net::Address;

/// "No radix node on this path" (the radix root is node 0, a valid index).
pub(crate) const NIL: u32 = u32::MAX;

/// A position in the RIB: radix node (or [`NIL`]) and the raw next hop of the longest route
/// covering the position (0 = none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Cursor {
    /// Radix node index, or [`NIL`].
    pub(crate) node: u32,
    /// Inherited raw next hop (includes a route ending exactly here).
    pub(crate) nh: u32,
}

impl Cursor {
    /// The root of `rib` (depth 0): inherits the default route, if any.
    pub(crate) fn root<A: Address>(rib: &Radix<A>) -> Self {
        Cursor {
            node: 0,
            nh: rib.node(0).nh,
        }
    }

    /// One bit down, towards child `bit`.
    #[inline]
    pub(crate) fn step<A: Address>(self, rib: &Radix<A>, bit: usize) -> Self {
        if self.node == NIL {
            return self;
        }
        match rib.node(self.node).child[bit] {
            0 => Cursor {
                node: NIL,
                nh: self.nh,
            },
            c => {
                let own = rib.node(c).nh;
                Cursor {
                    node: c,
                    nh: if own != 0 { own } else { self.nh },
                }
            }
        }
    }

    /// Follows `addr` from depth `from` for `bits` bits (positions past the address width
    /// lead nowhere: the cursor becomes [`NIL`] and keeps its next hop).
    pub(crate) fn down<A: Address>(self, rib: &Radix<A>, addr: A, from: u32, bits: u32) -> Self {
        let mut c = self;
        for i in from..from + bits {
            if c.node == NIL {
                break;
            }
            c = if i < A::BITS {
                c.step(rib, addr.bit(i))
            } else {
                Cursor {
                    node: NIL,
                    nh: c.nh,
                }
            };
        }
        c
    }

    /// True when no route more specific than the position exists below it, so every address
    /// under it resolves to [`Cursor::nh`].
    #[inline]
    pub(crate) fn is_flat<A: Address>(self, rib: &Radix<A>) -> bool {
        self.node == NIL || rib.node(self.node).child == [0, 0]
    }

    /// The raw next hop of a route ending exactly at this position (0 = none).
    #[inline]
    pub(crate) fn own<A: Address>(self, rib: &Radix<A>) -> u32 {
        if self.node == NIL {
            0
        } else {
            rib.node(self.node).nh
        }
    }

    /// Appends the `2^levels` cursors `levels` bits below this one, in address order.
    pub(crate) fn expand<A: Address>(self, rib: &Radix<A>, levels: u32, out: &mut Vec<Cursor>) {
        if levels == 0 {
            out.push(self);
        } else if self.node == NIL {
            out.extend(std::iter::repeat_n(self, 1 << levels));
        } else {
            self.step(rib, 0).expand(rib, levels - 1, out);
            self.step(rib, 1).expand(rib, levels - 1, out);
        }
    }

    /// Appends the address ranges under this position (at `depth`, first address `first`)
    /// as `(first address, raw next hop)`, in address order, merging a range into the
    /// previous one of `out` when the next hop is the same.
    pub(crate) fn ranges<A: Address>(
        self,
        rib: &Radix<A>,
        depth: u32,
        first: A,
        out: &mut Vec<(A, u32)>,
    ) {
        if self.is_flat(rib) {
            if out.last().map(|r| r.1) != Some(self.nh) {
                out.push((first, self.nh));
            }
            return;
        }
        // A node with children lies above the last bit, so depth < A::BITS here.
        let upper = first.or(A::mask(depth + 1).and(A::mask(depth).not()));
        self.step(rib, 0).ranges(rib, depth + 1, first, out);
        self.step(rib, 1).ranges(rib, depth + 1, upper, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lpm::Lpm;
    use crate::net::{NextHop, Prefix};

    #[test]
    fn expand_and_ranges_follow_the_trie() {
        let nh = |x| NextHop::new(x).unwrap();
        let mut rib = Radix::<u32>::new();
        rib.insert("10.0.0.0/8".parse::<Prefix<u32>>().unwrap(), nh(1));
        rib.insert("10.128.0.0/9".parse::<Prefix<u32>>().unwrap(), nh(2));
        let top = Cursor::root(&rib).down(&rib, 0x0A00_0000u32, 0, 8);
        assert_eq!(top.nh, 1);
        assert!(!top.is_flat(&rib));
        let mut v = Vec::new();
        top.expand(&rib, 2, &mut v);
        assert_eq!(v.iter().map(|c| c.nh).collect::<Vec<_>>(), [1, 1, 2, 2]);
        assert!(v.iter().all(|c| c.node == NIL), "no radix node at depth 10");
        v.clear();
        top.expand(&rib, 1, &mut v);
        assert!(v[0].node == NIL && v[1].node != NIL && v[1].is_flat(&rib));
        let mut r = Vec::new();
        Cursor::root(&rib).ranges(&rib, 0, 0u32, &mut r);
        assert_eq!(
            r,
            [(0, 0), (0x0A00_0000, 1), (0x0A80_0000, 2), (0x0B00_0000, 0)]
        );
        // Past the address width a cursor leads nowhere but keeps its next hop.
        let deep = Cursor::root(&rib).down(&rib, 0x0A80_0000u32, 0, 40);
        assert_eq!((deep.node, deep.nh), (NIL, 2));
    }
}
