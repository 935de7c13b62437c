//! The XDP program: loading it, filling its maps and attaching it (aya), reading its
//! counters; and the host addresses it passes to the kernel.

pub(super) use imp::{attach, read, Counts, Loaded};

use crate::port::afpacket::read_mac;

/// The host's own addresses (`getifaddrs`): IPv4 in network byte order, IPv6 as bytes.
pub fn local_addresses() -> (Vec<[u8; 4]>, Vec<[u8; 16]>) {
    let (mut v4, mut v6) = (Vec::new(), Vec::new());
    let mut ifa: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs allocates a list we free below.
    if unsafe { libc::getifaddrs(&mut ifa) } != 0 {
        return (v4, v6);
    }
    let mut p = ifa;
    while !p.is_null() {
        // SAFETY: a node of the list getifaddrs returned.
        let a = unsafe { (*p).ifa_addr };
        if !a.is_null() {
            // SAFETY: ifa_addr points to a sockaddr of the family it names.
            unsafe {
                match (*a).sa_family as i32 {
                    libc::AF_INET => v4.push(
                        (*(a as *const libc::sockaddr_in))
                            .sin_addr
                            .s_addr
                            .to_ne_bytes(),
                    ),
                    libc::AF_INET6 => {
                        v6.push((*(a as *const libc::sockaddr_in6)).sin6_addr.s6_addr)
                    }
                    _ => {}
                }
            }
        }
        // SAFETY: as above.
        p = unsafe { (*p).ifa_next };
    }
    // SAFETY: the list came from getifaddrs and is freed once.
    unsafe { libc::freeifaddrs(ifa) };
    (v4, v6)
}

/// The interface MAC of `iface` (for the router's source MAC), if it has one.
pub fn iface_mac(iface: &str) -> Option<[u8; 6]> {
    read_mac(iface)
}

#[cfg(pktlab_xdp)]
mod imp {
    //! Loading and attaching the XDP program with aya.
    use super::super::AfXdpError;
    use super::local_addresses;
    use aya::maps::{HashMap, MapData, PerCpuArray, XskMap};
    use aya::programs::{Xdp, XdpFlags};
    use aya::Ebpf;
    use std::os::fd::{AsRawFd, OwnedFd};

    /// The object `build.rs` compiled.
    /// (8-byte aligned: the ELF parser reads it in place.)
    static OBJECT: &[u8] =
        aya::include_bytes_aligned!(concat!(env!("OUT_DIR"), "/xdp_redirect.bpf.o"));

    /// The loaded program (detached when dropped).
    pub struct Loaded(#[allow(dead_code)] Ebpf);
    /// The program's verdict counters.
    pub struct Counts(PerCpuArray<MapData, u64>);

    fn err(port: &str, what: &'static str, e: impl std::fmt::Display) -> AfXdpError {
        let mut s = e.to_string().replace('\n', " ");
        if s.contains("Operation not permitted") || s.contains("EPERM") {
            s.push_str(" (needs CAP_BPF and CAP_NET_ADMIN: run as root)");
        }
        AfXdpError::Xdp {
            port: port.to_string(),
            what,
            err: s,
        }
    }

    /// Loads the program, fills its maps (this socket on `queue`, the host's addresses) and
    /// attaches it to `ifindex`: driver mode if `drv` (and the driver can), else generic.
    /// Returns where it runs.
    pub fn attach(
        port: &str,
        ifindex: u32,
        queue: u32,
        drv: bool,
        sock: &OwnedFd,
    ) -> Result<(Loaded, Counts, &'static str), AfXdpError> {
        let mut bpf =
            Ebpf::load(OBJECT).map_err(|e| err(port, "cannot load the XDP program", e))?;
        {
            let m = bpf.map_mut("xsks").expect("the object has the xsks map");
            let mut xsks = XskMap::try_from(m).map_err(|e| err(port, "xsks map", e))?;
            xsks.set(queue, sock.as_raw_fd(), 0)
                .map_err(|e| err(port, "cannot put the socket in the XSKMAP", e))?;
        }
        let (v4, v6) = local_addresses();
        {
            let m = bpf
                .map_mut("local4")
                .expect("the object has the local4 map");
            let mut l4: HashMap<_, u32, u8> =
                HashMap::try_from(m).map_err(|e| err(port, "local4 map", e))?;
            for a in v4 {
                l4.insert(u32::from_ne_bytes(a), 1, 0)
                    .map_err(|e| err(port, "local4 map", e))?;
            }
        }
        {
            let m = bpf
                .map_mut("local6")
                .expect("the object has the local6 map");
            let mut l6: HashMap<_, [u8; 16], u8> =
                HashMap::try_from(m).map_err(|e| err(port, "local6 map", e))?;
            for a in v6 {
                l6.insert(a, 1, 0).map_err(|e| err(port, "local6 map", e))?;
            }
        }
        let counts = bpf
            .take_map("counts")
            .expect("the object has the counts map");
        let counts = PerCpuArray::try_from(counts).map_err(|e| err(port, "counts map", e))?;
        let p: &mut Xdp = bpf
            .program_mut("pktlab_xdp")
            .expect("the object has pktlab_xdp")
            .try_into()
            .map_err(|e| err(port, "program type", e))?;
        p.load()
            .map_err(|e| err(port, "the kernel refused the XDP program", e))?;
        let native = if drv {
            p.attach_to_if_index(ifindex, XdpFlags::DRV_MODE).ok()
        } else {
            None
        };
        let where_ = match native {
            Some(_) => "drv",
            None => {
                p.attach_to_if_index(ifindex, XdpFlags::SKB_MODE)
                    .map_err(|e| err(port, "cannot attach XDP (driver and generic mode)", e))?;
                "skb"
            }
        };
        Ok((Loaded(bpf), Counts(counts), where_))
    }

    /// Sums the per-CPU verdict counters.
    pub fn read(c: &Counts) -> [u64; 3] {
        let mut out = [0u64; 3];
        for (i, o) in out.iter_mut().enumerate() {
            if let Ok(v) = c.0.get(&(i as u32), 0) {
                *o = v.iter().sum();
            }
        }
        out
    }
}

#[cfg(not(pktlab_xdp))]
mod imp {
    //! This build has no XDP program (build.rs could not compile it).
    use super::super::AfXdpError;
    use std::os::fd::OwnedFd;

    /// Why (`build.rs`'s one line).
    const WHY: &str = include_str!(concat!(env!("OUT_DIR"), "/xdp_redirect.why"));

    /// Never built.
    pub struct Loaded;
    /// Never built.
    pub struct Counts;

    /// Always the one-line error saying why.
    pub fn attach(
        port: &str,
        _: u32,
        _: u32,
        _: bool,
        _: &OwnedFd,
    ) -> Result<(Loaded, Counts, &'static str), AfXdpError> {
        Err(AfXdpError::Unavailable(
            port.to_string(),
            WHY.trim().to_string(),
        ))
    }

    /// Nothing to read.
    pub fn read(_: &Counts) -> [u64; 3] {
        [0; 3]
    }
}
