//! Plain binary radix trie: the correctness oracle for every LPM structure, and the routing
//! information base (RIB) from which Poptrie builds and updates its lookup structure.
//!
//! One node per bit of every stored prefix, no path compression, no tricks: the longest match
//! is the last route seen while walking the address bits from the root. This is the "Radix
//! tree" row of the Poptrie paper's evaluation (Asai & Ohara, SIGCOMM 2015, §5 / table of
//! extensions) and deliberately obvious, so that faster structures can be tested against it.
//!
//! Nodes live in one arena (`Vec`) and refer to children by index; index 0 is the root, which
//! is never anyone's child, so a child index of 0 means "absent". Removing a route prunes the
//! nodes that no longer lead to any route, so the trie is always minimal: a node without
//! children always carries a route. Poptrie relies on this invariant.

use super::{Lpm, LpmStats};
use crate::net::{Address, NextHop, Prefix};
use std::marker::PhantomData;

/// One trie node: two child indices (0 = none) and the raw next hop of the route ending here
/// (0 = no route).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RadixNode {
    pub(crate) child: [u32; 2],
    pub(crate) nh: u32,
}

/// A binary radix trie mapping prefixes of family `A` to next hops.
#[derive(Clone, Debug)]
pub struct Radix<A: Address> {
    nodes: Vec<RadixNode>,
    free: Vec<u32>,
    routes: usize,
    _family: PhantomData<A>,
}

impl<A: Address> Default for Radix<A> {
    fn default() -> Self {
        Self::new()
    }
}

impl<A: Address> Radix<A> {
    /// An empty trie (just the root).
    pub fn new() -> Self {
        Radix {
            nodes: vec![RadixNode::default()],
            free: Vec::new(),
            routes: 0,
            _family: PhantomData,
        }
    }

    /// Number of routes stored.
    pub fn len(&self) -> usize {
        self.routes
    }

    /// True when no route is stored.
    pub fn is_empty(&self) -> bool {
        self.routes == 0
    }

    /// The next hop stored for exactly this prefix, if any.
    pub fn get(&self, prefix: &Prefix<A>) -> Option<NextHop> {
        let mut n = 0u32;
        for i in 0..prefix.len() as u32 {
            n = self.nodes[n as usize].child[prefix.addr().bit(i)];
            if n == 0 {
                return None;
            }
        }
        NextHop::from_raw(self.nodes[n as usize].nh)
    }

    /// Calls `f` for every stored route, in address order (pre-order walk).
    pub fn for_each(&self, mut f: impl FnMut(Prefix<A>, NextHop)) {
        // Explicit stack of (node, address so far, depth).
        let mut stack = vec![(0u32, A::ZERO, 0u32)];
        while let Some((n, addr, depth)) = stack.pop() {
            let node = self.nodes[n as usize];
            if let Some(nh) = NextHop::from_raw(node.nh) {
                f(Prefix::new_masked(addr, depth as u8), nh);
            }
            // Push the 1-child first so the 0-child is visited first.
            for bit in [1usize, 0] {
                let c = node.child[bit];
                if c != 0 {
                    let a = if bit == 1 {
                        addr.or(A::mask(depth + 1).and(A::mask(depth).not()))
                    } else {
                        addr
                    };
                    stack.push((c, a, depth + 1));
                }
            }
        }
    }

    /// All routes, in address order.
    pub fn routes(&self) -> Vec<(Prefix<A>, NextHop)> {
        let mut v = Vec::with_capacity(self.routes);
        self.for_each(|p, nh| v.push((p, nh)));
        v
    }

    fn alloc(&mut self) -> u32 {
        if let Some(i) = self.free.pop() {
            self.nodes[i as usize] = RadixNode::default();
            i
        } else {
            self.nodes.push(RadixNode::default());
            (self.nodes.len() - 1) as u32
        }
    }

    // ----- read access for structures built from this RIB (Poptrie) -----

    /// The node at index `n`.
    #[inline(always)]
    pub(crate) fn node(&self, n: u32) -> RadixNode {
        self.nodes[n as usize]
    }

    /// If every address under node `n` (reached with inherited next hop `inh`, which already
    /// accounts for `n`'s own route) resolves to the same raw next hop, returns it.
    /// Stops at the first difference.
    pub(crate) fn uniform(&self, n: u32, inh: u32) -> Option<u32> {
        let node = self.nodes[n as usize];
        let mut val: Option<u32> = None;
        for c in node.child {
            let v = if c == 0 {
                inh
            } else {
                let cn = self.nodes[c as usize].nh;
                self.uniform(c, if cn != 0 { cn } else { inh })?
            };
            match val {
                None => val = Some(v),
                Some(x) if x != v => return None,
                _ => {}
            }
        }
        val
    }
}

impl<A: Address> Lpm<A> for Radix<A> {
    fn name(&self) -> String {
        "radix".to_string()
    }

    fn build(&mut self, routes: &[(Prefix<A>, NextHop)]) {
        *self = Radix::new();
        for &(p, nh) in routes {
            self.insert(p, nh);
        }
    }

    fn insert(&mut self, prefix: Prefix<A>, nh: NextHop) -> Option<NextHop> {
        let mut n = 0u32;
        for i in 0..prefix.len() as u32 {
            let b = prefix.addr().bit(i);
            let c = self.nodes[n as usize].child[b];
            n = if c == 0 {
                let c = self.alloc();
                self.nodes[n as usize].child[b] = c;
                c
            } else {
                c
            };
        }
        let old = NextHop::from_raw(self.nodes[n as usize].nh);
        self.nodes[n as usize].nh = nh.get();
        if old.is_none() {
            self.routes += 1;
        }
        old
    }

    fn remove(&mut self, prefix: Prefix<A>) -> Option<NextHop> {
        // Record the path so empty nodes can be pruned bottom-up.
        let mut path = [(0u32, 0usize); 129];
        let mut n = 0u32;
        let len = prefix.len() as usize;
        for (i, slot) in path.iter_mut().enumerate().take(len) {
            let b = prefix.addr().bit(i as u32);
            *slot = (n, b);
            n = self.nodes[n as usize].child[b];
            if n == 0 {
                return None;
            }
        }
        let old = NextHop::from_raw(self.nodes[n as usize].nh)?;
        self.nodes[n as usize].nh = 0;
        self.routes -= 1;
        // Prune: while the current node has no route and no children, unlink it.
        for &(parent, b) in path[..len].iter().rev() {
            let node = self.nodes[n as usize];
            if node.nh != 0 || node.child != [0, 0] {
                break;
            }
            self.nodes[parent as usize].child[b] = 0;
            self.free.push(n);
            n = parent;
        }
        Some(old)
    }

    #[inline]
    fn lookup(&self, addr: A) -> Option<NextHop> {
        let mut n = 0usize;
        let mut best = self.nodes[0].nh;
        for i in 0..A::BITS {
            let c = self.nodes[n].child[addr.bit(i)];
            if c == 0 {
                break;
            }
            n = c as usize;
            let nh = self.nodes[n].nh;
            if nh != 0 {
                best = nh;
            }
        }
        NextHop::from_raw(best)
    }

    fn memory_bytes(&self) -> usize {
        (self.nodes.len() - self.free.len()) * std::mem::size_of::<RadixNode>()
    }

    fn stats(&self) -> LpmStats {
        let live = self.nodes.len() - self.free.len();
        LpmStats {
            prefixes: self.routes,
            internal_nodes: live,
            leaves: self.routes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p4(s: &str) -> Prefix<u32> {
        s.parse().unwrap()
    }
    fn nh(x: u32) -> NextHop {
        NextHop::new(x).unwrap()
    }

    #[test]
    fn longest_match_and_default() {
        let mut r = Radix::<u32>::new();
        assert_eq!(r.lookup(0x0A00_0001), None);
        r.insert(p4("0.0.0.0/0"), nh(1));
        r.insert(p4("10.0.0.0/8"), nh(2));
        r.insert(p4("10.1.0.0/16"), nh(3));
        r.insert(p4("10.1.2.3/32"), nh(4));
        assert_eq!(r.lookup(0x0B00_0000), Some(nh(1)));
        assert_eq!(r.lookup(0x0A02_0000), Some(nh(2)));
        assert_eq!(r.lookup(0x0A01_0203), Some(nh(4)));
        assert_eq!(r.lookup(0x0A01_0204), Some(nh(3)));
        assert_eq!(r.len(), 4);
        assert_eq!(r.insert(p4("10.0.0.0/8"), nh(5)), Some(nh(2)));
        assert_eq!(r.len(), 4);
    }

    #[test]
    fn remove_prunes_to_minimal_trie() {
        let mut r = Radix::<u32>::new();
        let before = r.memory_bytes();
        r.insert(p4("10.1.2.3/32"), nh(4));
        assert_eq!(r.stats().internal_nodes, 33);
        assert_eq!(r.remove(p4("10.1.2.0/24")), None);
        assert_eq!(r.remove(p4("10.1.2.3/32")), Some(nh(4)));
        assert_eq!(r.remove(p4("10.1.2.3/32")), None);
        assert_eq!(r.memory_bytes(), before);
        assert_eq!(r.lookup(0x0A01_0203), None);
        assert!(r.is_empty());
    }

    #[test]
    fn routes_in_address_order_and_uniform() {
        let mut r = Radix::<u32>::new();
        r.insert(p4("128.0.0.0/1"), nh(2));
        r.insert(p4("0.0.0.0/1"), nh(2));
        r.insert(p4("10.0.0.0/8"), nh(3));
        let v = r.routes();
        assert_eq!(
            v.iter().map(|(p, _)| p.to_string()).collect::<Vec<_>>(),
            ["0.0.0.0/1", "10.0.0.0/8", "128.0.0.0/1"]
        );
        assert_eq!(r.uniform(0, 0), None);
        r.insert(p4("10.0.0.0/8"), nh(2));
        assert_eq!(r.uniform(0, 0), Some(2));
        assert_eq!(r.get(&p4("10.0.0.0/8")), Some(nh(2)));
    }
}
