//! [`ThpAllocator`] as a program's global allocator: large allocations made inside
//! [`thp::huge_pages`] are advised, those outside are not, and growing, shrinking and zeroed
//! blocks keep their contents.

use pktlab::thp::{self, ThpAllocator};

#[global_allocator]
static ALLOC: ThpAllocator = ThpAllocator;

fn pattern(i: usize) -> u32 {
    (i as u32).wrapping_mul(2_654_435_761)
}

/// One test: the scope counter is global, so parallel tests would see each other's scopes.
#[test]
fn large_tables_inside_the_scope_are_advised_and_keep_their_contents() {
    assert!(thp::installed());
    let n = 4usize << 20; // 16 MiB of u32

    let before = thp::advised_bytes();
    let outside: Vec<u32> = (0..n).map(pattern).collect();
    assert_eq!(thp::advised_bytes(), before, "advised outside the scope");

    // Grown by pushes: every reallocation past 2 MiB moves into fresh, advised memory.
    let mut grown = thp::huge_pages(|| {
        let mut v = Vec::new();
        for i in 0..n {
            v.push(pattern(i));
        }
        v
    });
    let after_grow = thp::advised_bytes();
    assert!(
        // A 16 MiB block holds at least 7 whole, aligned 2 MiB pages wherever it lies.
        after_grow >= before + 7 * thp::HUGE,
        "advised {} bytes for a 16 MiB table",
        after_grow - before
    );
    assert_eq!(grown, outside);

    // Shrunk inside the scope (still >= 2 MiB): the common prefix survives the move.
    thp::huge_pages(|| {
        grown.truncate(n / 2);
        grown.shrink_to_fit();
    });
    assert_eq!(grown.capacity(), n / 2);
    assert_eq!(grown[..], outside[..n / 2]);

    // Zeroed allocations stay zeroed.
    let z = thp::huge_pages(|| vec![0u64; 1 << 20]);
    assert!(thp::advised_bytes() > after_grow);
    assert!(z.iter().all(|&x| x == 0));

    // Small allocations are never advised, even inside the scope.
    let mark = thp::advised_bytes();
    let small = thp::huge_pages(|| vec![7u8; thp::HUGE - 1]);
    assert_eq!(thp::advised_bytes(), mark);
    assert_eq!(small.len(), thp::HUGE - 1);
}
