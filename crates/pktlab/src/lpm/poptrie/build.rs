//! Building a Poptrie from its RIB (§3.1–3.4) and the incremental update of the nodes on
//! a changed prefix's path (§3.5).

use super::*;

/// Read-only context for building: the RIB and the configuration.
pub(super) struct Builder<'a, A: Address> {
    rib: &'a Radix<A>,
    aggregate: bool,
    leafvec: bool,
}

impl<A: Address> Builder<'_, A> {
    /// Appends the `2^levels` slot descriptors `(radix node or NIL, inherited next hop)` found
    /// `levels` bits below radix node `b` (NIL = outside the trie), in address order.
    pub(super) fn collect(&self, b: u32, inh: u32, levels: u32, out: &mut Vec<(u32, u32)>) {
        if b == NIL {
            out.extend(std::iter::repeat_n((NIL, inh), 1 << levels));
            return;
        }
        if levels == 0 {
            out.push((b, inh));
            return;
        }
        let node = self.rib.node(b);
        for c in node.child {
            if c == 0 {
                out.extend(std::iter::repeat_n((NIL, inh), 1 << (levels - 1)));
            } else {
                let cnh = self.rib.node(c).nh;
                self.collect(c, if cnh != 0 { cnh } else { inh }, levels - 1, out);
            }
        }
    }

    /// Follows `addr` for `bits` bits below radix node `b` (at depth `depth`).
    pub(super) fn descend(
        &self,
        mut b: u32,
        mut inh: u32,
        addr: A,
        depth: u32,
        bits: u32,
    ) -> (u32, u32) {
        for i in depth..depth + bits {
            if b == NIL {
                break;
            }
            let c = self.rib.node(b).child[addr.bit(i)];
            if c == 0 {
                b = NIL;
            } else {
                b = c;
                let nh = self.rib.node(c).nh;
                if nh != 0 {
                    inh = nh;
                }
            }
        }
        (b, inh)
    }

    /// The leaf value of a slot, if the slot must be a leaf: no more-specific route below it,
    /// or (with aggregation) a single next hop over its whole range.
    pub(super) fn leaf_value(&self, b: u32, inh: u32) -> Option<u32> {
        if b == NIL || self.rib.node(b).child == [0, 0] {
            return Some(inh);
        }
        if self.aggregate {
            self.rib.uniform(b, inh)
        } else {
            None
        }
    }

    /// Builds the slot for radix node `b` covering a range of prefix length `depth`.
    pub(super) fn build_slot(&self, t: &mut Tables, b: u32, inh: u32, depth: u32) -> Slot {
        match self.leaf_value(b, inh) {
            Some(v) => Slot::Leaf(v),
            None => Slot::Node(self.build_node(t, b, inh, depth)),
        }
    }

    /// Builds an internal node for radix node `b` at `depth` (the node's stride covers bits
    /// `depth..depth + 6`), recursively.
    pub(super) fn build_node(&self, t: &mut Tables, b: u32, inh: u32, depth: u32) -> Node {
        let mut desc = Vec::with_capacity(64);
        self.collect(b, inh, STRIDE, &mut desc);
        let mut slots = [Slot::Leaf(0); 64];
        for (s, &(bk, ik)) in slots.iter_mut().zip(&desc) {
            *s = self.build_slot(t, bk, ik, depth + STRIDE);
        }
        self.pack(t, &slots)
    }

    /// Stores 64 slots as a node: internal children in one block, leaves in another.
    pub(super) fn pack(&self, t: &mut Tables, slots: &[Slot; 64]) -> Node {
        let mut node = Node::default();
        let mut children = [Node::default(); 64];
        let mut nc = 0;
        let mut leaves = [0u32; 64];
        let mut nl = 0;
        let mut prev: Option<u32> = None;
        for (k, s) in slots.iter().enumerate() {
            match *s {
                Slot::Node(c) => {
                    node.vector |= 1 << k;
                    children[nc] = c;
                    nc += 1;
                }
                Slot::Leaf(v) => {
                    if !self.leafvec || prev != Some(v) {
                        node.leafvec |= 1 << k;
                        leaves[nl] = v;
                        nl += 1;
                        prev = Some(v);
                    }
                }
            }
        }
        if nc > 0 {
            node.base1 = t.nodes.alloc(nc);
            t.nodes.items[node.base1 as usize..node.base1 as usize + nc]
                .copy_from_slice(&children[..nc]);
        }
        if nl > 0 {
            node.base0 = t.leaves.alloc_store(&leaves[..nl]);
        }
        node
    }

    /// Rebuilds, after the RIB changed for prefix `p`, the slot at `depth` on `p`'s path whose
    /// current content is `old`; `b`/`inh` describe the slot in the RIB. Only slots whose
    /// range intersects `p` are rebuilt; other subtrees are kept.
    pub(super) fn update_slot(
        &self,
        t: &mut Tables,
        old: Slot,
        b: u32,
        inh: u32,
        depth: u32,
        p: &Prefix<A>,
    ) -> Slot {
        if let Some(v) = self.leaf_value(b, inh) {
            if let Slot::Node(x) = old {
                free_subtree(t, &x);
            }
            return Slot::Leaf(v);
        }
        let x = match old {
            Slot::Leaf(_) => return Slot::Node(self.build_node(t, b, inh, depth)),
            Slot::Node(x) => x,
        };
        let mut slots = expand(t, &x);
        let plen = p.len() as u32;
        let k0 = p.addr().bits(depth, STRIDE) as usize;
        if plen > depth + STRIDE {
            // The change lies inside one slot: recurse into it.
            let (bk, ik) = self.descend(b, inh, p.addr(), depth, STRIDE);
            slots[k0] = self.update_slot(t, slots[k0], bk, ik, depth + STRIDE, p);
        } else {
            // The prefix covers whole slots k0..k0+n: rebuild each of them.
            let (bp, ip) = self.descend(b, inh, p.addr(), depth, plen - depth);
            let mut desc = Vec::with_capacity(64);
            self.collect(bp, ip, depth + STRIDE - plen, &mut desc);
            for (j, &(bk, ik)) in desc.iter().enumerate() {
                if let Slot::Node(y) = slots[k0 + j] {
                    free_subtree(t, &y);
                }
                slots[k0 + j] = self.build_slot(t, bk, ik, depth + STRIDE);
            }
        }
        release_blocks(t, &x);
        Slot::Node(self.pack(t, &slots))
    }
}

/// Reads a node's 64 slots back (children by value, leaf values resolved).
pub(super) fn expand(t: &Tables, x: &Node) -> [Slot; 64] {
    let mut slots = [Slot::Leaf(0); 64];
    let mut ci = x.base1;
    for (k, s) in slots.iter_mut().enumerate() {
        if x.vector & (1 << k) != 0 {
            *s = Slot::Node(t.nodes.items[ci as usize]);
            ci += 1;
        } else {
            let r = (x.leafvec & upto(k as u32)).count_ones();
            *s = Slot::Leaf(t.leaves.get(x.base0 + r - 1));
        }
    }
    slots
}

/// Returns a node's own child and leaf blocks to the free lists (not its descendants).
pub(super) fn release_blocks(t: &mut Tables, x: &Node) {
    t.nodes.release(x.base1, x.vector.count_ones() as usize);
    t.leaves.release(x.base0, x.leafvec.count_ones() as usize);
}

/// Frees every block below and of node `x`.
pub(super) fn free_subtree(t: &mut Tables, x: &Node) {
    for i in 0..x.vector.count_ones() {
        let c = t.nodes.items[(x.base1 + i) as usize];
        free_subtree(t, &c);
    }
    release_blocks(t, x);
}

impl<A: Address> Poptrie<A> {
    pub(super) fn builder(&self) -> Builder<'_, A> {
        Builder {
            rib: &self.rib,
            aggregate: self.cfg.variant == Variant::Aggregated,
            leafvec: self.cfg.variant != Variant::Basic,
        }
    }

    pub(super) fn decode_dir(t: &Tables, d: u32) -> Slot {
        if d & DIR_LEAF != 0 {
            Slot::Leaf(d & !DIR_LEAF)
        } else {
            Slot::Node(t.nodes.items[d as usize])
        }
    }

    pub(super) fn store_dir(t: &mut Tables, i: usize, old: u32, s: Slot) {
        t.dir[i] = match s {
            Slot::Leaf(v) => {
                if old & DIR_LEAF == 0 {
                    t.nodes.release(old, 1);
                }
                DIR_LEAF | v
            }
            Slot::Node(x) => {
                let idx = if old & DIR_LEAF == 0 {
                    old
                } else {
                    t.nodes.alloc(1)
                };
                t.nodes.items[idx as usize] = x;
                idx
            }
        };
    }

    /// Rebuilds everything from the RIB.
    pub(super) fn rebuild(&mut self) {
        let s = self.cfg.s as u32;
        let mut t = Tables {
            dir: vec![DIR_LEAF; 1 << s],
            nodes: Arena::new(),
            leaves: match self.t.leaves {
                Leaves::Narrow(_) => Leaves::Narrow(Arena::new()),
                Leaves::Wide(_) => Leaves::Wide(Arena::new()),
            },
        };
        let b = self.builder();
        let mut desc = Vec::with_capacity(1 << s);
        b.collect(0, b.rib.node(0).nh, s, &mut desc);
        for (i, &(bk, ik)) in desc.iter().enumerate() {
            let slot = b.build_slot(&mut t, bk, ik, s);
            Self::store_dir(&mut t, i, DIR_LEAF, slot);
        }
        self.t = t;
    }

    /// Brings the lookup structure up to date after the RIB changed for `p`.
    pub(super) fn update(&mut self, p: &Prefix<A>) {
        let s = self.cfg.s as u32;
        let plen = p.len() as u32;
        let b = Builder {
            rib: &self.rib,
            aggregate: self.cfg.variant == Variant::Aggregated,
            leafvec: self.cfg.variant != Variant::Basic,
        };
        let t = &mut self.t;
        let root_nh = b.rib.node(0).nh;
        let first = if s == 0 {
            0
        } else {
            p.addr().bits(0, s) as usize
        };
        if plen <= s {
            let (bp, ip) = b.descend(0, root_nh, p.addr(), 0, plen);
            let mut desc = Vec::with_capacity(1 << (s - plen));
            b.collect(bp, ip, s - plen, &mut desc);
            for (j, &(bk, ik)) in desc.iter().enumerate() {
                let old = t.dir[first + j];
                if let Slot::Node(x) = Self::decode_dir(t, old) {
                    free_subtree(t, &x);
                }
                let slot = b.build_slot(t, bk, ik, s);
                Self::store_dir(t, first + j, old, slot);
            }
        } else {
            let (bs, is) = b.descend(0, root_nh, p.addr(), 0, s);
            let old = t.dir[first];
            let slot = b.update_slot(t, Self::decode_dir(t, old), bs, is, s, p);
            Self::store_dir(t, first, old, slot);
        }
    }
}
