//! A flow-cache policy (HPC-4, paper 000) over the user's own flow keys: any hashable key
//! becomes a 64-bit id, and its set comes from the same hash.
use pktlab::flowcache::{Access, Cache, Hpc, Linked, Policy};
use std::hash::{DefaultHasher, Hash, Hasher};

#[derive(Hash)]
struct MyFlow {
    src: [u8; 4],
    dst: [u8; 4],
    port: u16,
}

fn main() {
    let (sets, ways) = (64, 8);
    let mut cache: Cache<Hpc, Linked<u8>> = Cache::new(Hpc::new(4), sets, ways);
    let (mut hits, lookups) = (0u64, 100_000u32);
    for i in 0..lookups {
        // A skewed mix: one of 16 hot flows 3 times out of 4, else one of 4,096.
        let n = if i % 4 == 0 { i % 4096 } else { i % 16 };
        let (src, dst) = ([10, 0, 0, n as u8], [192, 0, 2, (n >> 8) as u8]);
        let mut h = DefaultHasher::new();
        MyFlow { src, dst, port: 80 }.hash(&mut h);
        let id = h.finish();
        // A hit updates the policy's priorities; a miss inserts (evicting per HPC-4).
        if cache.access_insert((id % sets as u64) as usize, id, 0) != Access::Miss {
            hits += 1;
        }
    }
    println!("hit ratio {:.3}", hits as f64 / lookups as f64);
    assert!(hits > lookups as u64 / 2, "the 16 hot flows stay cached");
    assert!(cache.len() <= sets * ways);
}
