use super::*;

/// A driver queue and a device queue over the same shared memory.
fn pair(size: u16, buf_len: u32) -> (MemTable, DriverQueue, DeviceQueue) {
    let (dl, al, ul) = ring_bytes(size);
    let rings = dl + al.next_multiple_of(64) + ul.next_multiple_of(64);
    let total = rings + size as u64 * buf_len as u64;
    let (mem, _f) = MemTable::create(total, false).unwrap();
    let base = mem.descs()[0].gpa;
    let (d, a, u) = (base, base + dl, base + dl + al.next_multiple_of(64));
    let find = |x, l| mem.uva(x, l);
    let r1 = RingAddrs::new(size as u32, d, a, u, find).unwrap();
    let r2 = RingAddrs::new(size as u32, d, a, u, find).unwrap();
    let bufs = mem.gpa(base + rings, buf_len).unwrap();
    let drv = DriverQueue::new(r1, bufs, base + rings, buf_len);
    let dev = DeviceQueue::new(r2, 0);
    (mem, drv, dev)
}

/// The bytes of the driver-readable chain `h`, as the device reads them.
fn read(mem: &MemTable, dev: &DeviceQueue, h: u16) -> Vec<u8> {
    let mut got = Vec::new();
    dev.walk(mem, h, false, |p, l| {
        let mut b = vec![0; l as usize];
        // SAFETY: walk hands out checked ranges.
        unsafe { copy_from_shared(&mut b, p) };
        got.extend(b);
        Ok(())
    })
    .unwrap();
    got
}

#[test]
fn driver_to_device_and_back() {
    let (mem, mut drv, mut dev) = pair(8, 256);
    for k in 0..5u8 {
        assert!(drv.give(false, |p, cap| {
            let data = [k; 20];
            assert!(cap >= 20);
            // SAFETY: p..p+cap is the descriptor's buffer.
            unsafe { copy_to_shared(p, &data) };
            20
        }));
    }
    assert!(!drv.publish(), "the device asked for no notifications");
    assert_eq!(dev.pending(), 5);
    for k in 0..5u8 {
        let h = dev.pop();
        let got = read(&mem, &dev, h);
        assert_eq!(got, vec![k; 20]);
        // Device-writable expected, but the driver gave read-only buffers.
        assert_eq!(dev.walk(&mem, h, true, |_, _| Ok(())), Err(ChainError::Bad));
        dev.push_used(h, 0);
    }
    assert!(!dev.publish(), "the driver asked for no interrupts");
    assert_eq!(drv.free(), 3);
    let (n, bad) = drv.reclaim(64, |_, _| {});
    assert_eq!((n, bad), (5, 0));
    assert_eq!(drv.free(), 8);
    assert_eq!(dev.last_avail(), 5);
}

#[test]
fn bad_heads_and_rings_are_refused() {
    let (mem, mut drv, mut dev) = pair(4, 64);
    assert_eq!(
        dev.walk(&mem, 9, false, |_, _| Ok(())),
        Err(ChainError::Bad)
    );
    // A descriptor pointing outside the shared memory.
    drv.ring.write_desc(
        0,
        Desc {
            addr: 16,
            len: 64,
            flags: 0,
            next: 0,
        },
    );
    assert_eq!(
        dev.walk(&mem, 0, false, |_, _| Ok(())),
        Err(ChainError::Bad)
    );
    // A loop: 1 -> 1.
    let gpa = mem.descs()[0].gpa;
    drv.ring.write_desc(
        1,
        Desc {
            addr: gpa,
            len: 8,
            flags: F_NEXT,
            next: 1,
        },
    );
    assert_eq!(
        dev.walk(&mem, 1, false, |_, _| Ok(())),
        Err(ChainError::Bad)
    );
    // Used ids the driver never gave (out of range, or not in flight).
    dev.push_used(9, 0);
    dev.push_used(2, 0);
    dev.publish();
    let (n, bad) = drv.reclaim(8, |_, _| panic!("no buffer was given"));
    assert_eq!((n, bad), (2, 2));
    assert_eq!(drv.free(), 4);
    let find = |x, l| mem.uva(x, l);
    assert!(matches!(
        RingAddrs::new(6, gpa, gpa, gpa, find),
        Err(VirtqError::BadSize(6))
    ));
    assert!(matches!(
        RingAddrs::new(4, 0x10, gpa, gpa, find),
        Err(VirtqError::RingOutside("descriptor", 0x10))
    ));
}

#[test]
fn flow_hash_separates_flows_and_ignores_non_ip() {
    let mut f = vec![0u8; 60];
    f[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
    f[14] = 0x45;
    f[23] = 17;
    f[26..30].copy_from_slice(&[10, 0, 0, 1]);
    f[30..34].copy_from_slice(&[10, 0, 0, 2]);
    f[34..36].copy_from_slice(&1000u16.to_be_bytes());
    let a = flow_hash(&f);
    f[34..36].copy_from_slice(&1001u16.to_be_bytes());
    let b = flow_hash(&f);
    assert_ne!(a, b);
    assert_ne!(a, 0);
    f[12..14].copy_from_slice(&0x88b5u16.to_be_bytes());
    assert_eq!(flow_hash(&f), 0);
}

#[test]
fn prefetch_is_only_a_hint() {
    let (mem, mut drv, mut dev) = pair(8, 256);
    for k in 0..3u8 {
        assert!(drv.give(false, |p, _| {
            // SAFETY: p..p+cap is the descriptor's buffer.
            unsafe { copy_to_shared(p, &[k; 100]) };
            100
        }));
    }
    drv.publish();
    // More than pending, for reading and for writing: nothing is taken or changed.
    dev.prefetch(&mem, 8, false);
    dev.prefetch(&mem, 8, true);
    assert_eq!((dev.pending(), dev.last_avail()), (3, 0));
    let h = dev.pop();
    let got = read(&mem, &dev, h);
    assert_eq!(got, vec![0u8; 100]);
    // A made-up head in the ring is skipped by the prefetch and refused by walk.
    let slot = dev.last_avail();
    dev.ring.avail_ring(slot).store(200, Ordering::Relaxed);
    dev.prefetch(&mem, 2, false);
    assert_eq!(dev.pending(), 2);
    assert_eq!(
        dev.walk(&mem, 200, false, |_, _| Ok(())),
        Err(ChainError::Bad)
    );
}

/// Descriptors and used elements are read field by field at VIRTIO's little-endian offsets
/// (addr 0..8, len 8..12, flags 12..14, next 14..16; used id 0..4, len 4..8), whatever the
/// width of the loads.
#[test]
fn descriptor_and_used_layouts_are_virtio_s() {
    let (_mem, drv, dev) = pair(8, 64);
    for i in 0..8u16 {
        let raw: [u8; 16] = std::array::from_fn(|k| {
            (i as u8).wrapping_mul(31) ^ (k as u8).wrapping_mul(17).wrapping_add(3)
        });
        // SAFETY: i < 8 = size: inside the descriptor table.
        unsafe { std::ptr::write_volatile(drv.ring.desc.add(16 * i as usize).cast(), raw) };
        let d = dev.ring.read_desc(i);
        assert_eq!(d.addr, u64::from_le_bytes(raw[0..8].try_into().unwrap()));
        assert_eq!(d.len, u32::from_le_bytes(raw[8..12].try_into().unwrap()));
        assert_eq!(d.flags, u16::from_le_bytes(raw[12..14].try_into().unwrap()));
        assert_eq!(d.next, u16::from_le_bytes(raw[14..16].try_into().unwrap()));
        let back = Desc {
            addr: d.addr ^ 1,
            ..d
        };
        drv.ring.write_desc(i, back);
        assert_eq!(dev.ring.read_desc(i), back);
    }
    for slot in 0..16u16 {
        let (id, len) = (
            0x0102_0304u32.wrapping_mul(slot as u32 + 1),
            0xA0B0_C0D0 ^ slot as u32,
        );
        dev.ring.write_used(slot, id, len);
        let off = 4 + 8 * (slot & 7) as usize;
        // SAFETY: inside the used ring of 8 entries.
        let raw: [u8; 8] = unsafe { std::ptr::read_volatile(dev.ring.used.add(off).cast()) };
        assert_eq!(raw[0..4], id.to_le_bytes());
        assert_eq!(raw[4..8], len.to_le_bytes());
        assert_eq!(drv.ring.read_used(slot), (id, len));
    }
}

/// `has_pending` answers from the index last read while it covers a chain, reads again when
/// it does not, and never claims a chain the driver has not published.
#[test]
fn has_pending_rereads_only_when_the_seen_chains_run_out() {
    let (_mem, mut drv, mut dev) = pair(8, 64);
    assert!(!dev.has_pending());
    let give = |drv: &mut DriverQueue, n: usize| {
        for _ in 0..n {
            assert!(drv.give(false, |_, _| 1));
        }
        drv.publish();
    };
    give(&mut drv, 2);
    assert!(dev.has_pending(), "published chains are seen");
    dev.pop();
    // Published but not yet seen: the cached index still covers one chain.
    give(&mut drv, 3);
    assert!(dev.has_pending());
    dev.pop();
    // The cached chains are used up: read again, and find the three new ones.
    assert!(dev.has_pending());
    for _ in 0..3 {
        dev.pop();
    }
    assert!(!dev.has_pending(), "all five taken");
    dev.unpop(2);
    assert!(dev.has_pending(), "chains put back are available again");
    assert_eq!(dev.pending(), 2);
}

/// A prefetch for writing (PREFETCHW where the CPU has it) neither faults on addresses
/// outside any mapping nor changes the bytes it brings in.
#[test]
fn prefetch_for_writing_is_only_a_hint() {
    #[cfg(target_arch = "x86_64")]
    let w = has_prefetchw();
    #[cfg(not(target_arch = "x86_64"))]
    let w = false;
    for p in [std::ptr::null(), 8 as *const u8, usize::MAX as *const u8] {
        prefetch_line(p, w);
        prefetch_line(p, false);
    }
    let buf = [7u8; 256];
    for off in (0..256).step_by(64) {
        prefetch_line(buf[off..].as_ptr(), w);
    }
    assert_eq!(buf, [7u8; 256]);
}
