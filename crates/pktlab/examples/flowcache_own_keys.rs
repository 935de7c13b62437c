//! A flow-cache policy (HPC-4, paper 000) over the user's own flow keys: any hashable key
//! becomes a 64-bit id; the set comes from the same hash.
//! Run: `cargo run -p pktlab --example flowcache_own_keys`
use pktlab::flowcache::{Access, Cache, Hpc, Linked, Policy};
use std::hash::{DefaultHasher, Hash, Hasher};

/// The user's key: whatever identifies a flow in their data plane.
#[derive(Hash)]
struct MyFlow {
    src: [u8; 4],
    dst: [u8; 4],
    port: u16,
}

fn main() {
    let (sets, ways) = (64, 8);
    let mut cache: Cache<Hpc, Linked<u8>> = Cache::new(Hpc::new(4), sets, ways);
    let (mut hits, mut lookups) = (0u64, 0u64);
    for i in 0..100_000u32 {
        // A skewed mix: flow i % 16 most of the time, otherwise one of 4,096 flows.
        let n = if i % 4 == 0 { i % 4096 } else { i % 16 };
        let f = MyFlow {
            src: [10, 0, 0, n as u8],
            dst: [192, 0, 2, (n >> 8) as u8],
            port: 80,
        };
        let mut h = DefaultHasher::new();
        f.hash(&mut h);
        let id = h.finish();
        let set = (id % sets as u64) as usize;
        // A hit updates the policy's priorities; a miss inserts (evicting per HPC-4).
        if cache.access_insert(set, id, 0) != Access::Miss {
            hits += 1;
        }
        lookups += 1;
    }
    println!(
        "hit ratio {:.3} over {lookups} lookups",
        hits as f64 / lookups as f64
    );
    assert!(hits > lookups / 2, "the 16 hot flows stay cached");
    assert!(cache.len() <= sets * ways);
}
