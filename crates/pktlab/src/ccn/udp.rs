//! UDP faces for the live CCN router, consumer and producer (paper 003 §4: Cefore's faces are
//! UDP sockets). Batched socket I/O with Linux `recvmmsg` / `sendmmsg`: one system call moves up
//! to a batch of datagrams, into and out of buffers allocated once at construction, so the data
//! path allocates nothing per packet.
//!
//! A socket is shared by one [`RxBatch`] (what was received) and one [`TxBatch`] (what is queued
//! to send), kept apart so that a forwarder can read a received packet while it queues replies.
//! Sockets are blocking for sends (a full socket buffer applies back-pressure) and receive with
//! `MSG_DONTWAIT`; [`wait_readable`] sleeps until a socket has data.

use std::io;
use std::mem::{size_of, zeroed};
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6, UdpSocket};
use std::os::fd::{AsRawFd, FromRawFd};

/// Largest datagram accepted (Cefore's CefC_Max_Length is 65535; 9000 covers jumbo frames and
/// every Data pktlab's producer sends).
pub const MAX_DATAGRAM: usize = 9000;

/// A peer address packed for cheap comparison: IPv4 as IPv4-mapped IPv6.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct PeerKey {
    /// Address bits.
    pub ip: u128,
    /// Port.
    pub port: u16,
}

impl PeerKey {
    /// The key of a socket address.
    pub fn of(a: SocketAddr) -> PeerKey {
        match a {
            SocketAddr::V4(v) => PeerKey {
                ip: u128::from(v.ip().to_ipv6_mapped()),
                port: v.port(),
            },
            SocketAddr::V6(v) => PeerKey {
                ip: u128::from(*v.ip()),
                port: v.port(),
            },
        }
    }

    /// Back to a socket address.
    pub fn addr(self) -> SocketAddr {
        let v6 = Ipv6Addr::from(self.ip);
        match v6.to_ipv4_mapped() {
            Some(v4) => SocketAddr::V4(SocketAddrV4::new(v4, self.port)),
            None => SocketAddr::V6(SocketAddrV6::new(v6, self.port, 0, 0)),
        }
    }
}

fn sockaddr_to_key(s: &libc::sockaddr_storage) -> Option<PeerKey> {
    match s.ss_family as i32 {
        libc::AF_INET => {
            // SAFETY: the family says the storage holds a sockaddr_in, which is smaller than
            // and alignment-compatible with sockaddr_storage.
            let a = unsafe { &*(s as *const _ as *const libc::sockaddr_in) };
            let ip = Ipv4Addr::from(u32::from_be(a.sin_addr.s_addr));
            Some(PeerKey {
                ip: u128::from(ip.to_ipv6_mapped()),
                port: u16::from_be(a.sin_port),
            })
        }
        libc::AF_INET6 => {
            // SAFETY: as above, for sockaddr_in6.
            let a = unsafe { &*(s as *const _ as *const libc::sockaddr_in6) };
            Some(PeerKey {
                ip: u128::from_be_bytes(a.sin6_addr.s6_addr),
                port: u16::from_be(a.sin6_port),
            })
        }
        _ => None,
    }
}

/// Writes `a` into `s`; returns the address length.
fn addr_to_sockaddr(a: SocketAddr, s: &mut libc::sockaddr_storage) -> libc::socklen_t {
    match a {
        SocketAddr::V4(v) => {
            // SAFETY: sockaddr_storage is large and aligned enough for sockaddr_in.
            let o = unsafe { &mut *(s as *mut _ as *mut libc::sockaddr_in) };
            o.sin_family = libc::AF_INET as libc::sa_family_t;
            o.sin_port = v.port().to_be();
            o.sin_addr = libc::in_addr {
                s_addr: u32::from(*v.ip()).to_be(),
            };
            size_of::<libc::sockaddr_in>() as libc::socklen_t
        }
        SocketAddr::V6(v) => {
            // SAFETY: as above, for sockaddr_in6.
            let o = unsafe { &mut *(s as *mut _ as *mut libc::sockaddr_in6) };
            o.sin6_family = libc::AF_INET6 as libc::sa_family_t;
            o.sin6_port = v.port().to_be();
            o.sin6_addr = libc::in6_addr {
                s6_addr: v.ip().octets(),
            };
            o.sin6_flowinfo = 0;
            o.sin6_scope_id = v.scope_id();
            size_of::<libc::sockaddr_in6>() as libc::socklen_t
        }
    }
}

/// Opens a UDP socket bound to `addr` (port 0 = any) with large kernel buffers;
/// `reuse_port` lets several workers share the address (the kernel spreads peers over them).
pub fn bind(addr: SocketAddr, reuse_port: bool) -> io::Result<UdpSocket> {
    let fam = if addr.is_ipv4() {
        libc::AF_INET
    } else {
        libc::AF_INET6
    };
    // SAFETY: plain socket(2) call; the descriptor is owned by the UdpSocket below.
    let fd = unsafe { libc::socket(fam, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fd is a fresh socket we own.
    let sock = unsafe { UdpSocket::from_raw_fd(fd) };
    let set = |opt: i32, v: i32| {
        // SAFETY: setsockopt with a pointer to a live i32 and its size.
        let r = unsafe {
            libc::setsockopt(
                fd,
                libc::SOL_SOCKET,
                opt,
                &v as *const i32 as *const libc::c_void,
                size_of::<i32>() as libc::socklen_t,
            )
        };
        if r < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(())
        }
    };
    if reuse_port {
        set(libc::SO_REUSEPORT, 1)?;
    }
    // Buffers: best effort (the kernel caps them at net.core.*mem_max).
    let _ = set(libc::SO_RCVBUF, 8 << 20);
    let _ = set(libc::SO_SNDBUF, 8 << 20);
    // SAFETY: zeroed sockaddr_storage is a valid (empty) value.
    let mut ss: libc::sockaddr_storage = unsafe { zeroed() };
    let len = addr_to_sockaddr(addr, &mut ss);
    // SAFETY: ss holds a valid address of length len.
    let r = unsafe { libc::bind(fd, &ss as *const _ as *const libc::sockaddr, len) };
    if r < 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(e.kind(), format!("bind {addr}: {e}")));
    }
    Ok(sock)
}

/// Received datagrams of one `recvmmsg` call.
pub struct RxBatch {
    bufs: Vec<u8>,
    lens: Vec<usize>,
    names: Vec<libc::sockaddr_storage>,
    iovs: Vec<libc::iovec>,
    hdrs: Vec<libc::mmsghdr>,
    n: usize,
    /// Datagrams cut because they exceeded [`MAX_DATAGRAM`].
    pub truncated: u64,
    /// `recvmmsg` calls that returned at least one datagram.
    pub calls: u64,
}

// SAFETY: the raw pointers inside iovs/hdrs point only into this struct's own heap buffers and
// are rebuilt before every use.
unsafe impl Send for RxBatch {}

impl RxBatch {
    /// Room for `batch` datagrams.
    pub fn new(batch: usize) -> RxBatch {
        let batch = batch.max(1);
        RxBatch {
            bufs: vec![0; batch * MAX_DATAGRAM],
            lens: vec![0; batch],
            // SAFETY: all-zero bytes are a valid `sockaddr_storage` (plain C struct).
            names: vec![unsafe { zeroed() }; batch],
            // SAFETY: all-zero bytes are a valid `iovec` (null base, zero length).
            iovs: vec![unsafe { zeroed() }; batch],
            // SAFETY: all-zero bytes are a valid `mmsghdr` (null pointers, zero lengths).
            hdrs: vec![unsafe { zeroed() }; batch],
            n: 0,
            truncated: 0,
            calls: 0,
        }
    }

    /// Receives what is waiting on `sock` (without blocking); returns how many datagrams.
    pub fn recv(&mut self, sock: &UdpSocket) -> io::Result<usize> {
        let b = self.lens.len();
        for i in 0..b {
            self.iovs[i] = libc::iovec {
                iov_base: self.bufs[i * MAX_DATAGRAM..].as_mut_ptr() as *mut libc::c_void,
                iov_len: MAX_DATAGRAM,
            };
            let h = &mut self.hdrs[i].msg_hdr;
            h.msg_name = &mut self.names[i] as *mut _ as *mut libc::c_void;
            h.msg_namelen = size_of::<libc::sockaddr_storage>() as libc::socklen_t;
            h.msg_iov = &mut self.iovs[i];
            h.msg_iovlen = 1;
            h.msg_control = std::ptr::null_mut();
            h.msg_controllen = 0;
            h.msg_flags = 0;
            self.hdrs[i].msg_len = 0;
        }
        // SAFETY: hdrs holds b initialised headers pointing into live buffers of this struct.
        let r = unsafe {
            libc::recvmmsg(
                sock.as_raw_fd(),
                self.hdrs.as_mut_ptr(),
                b as libc::c_uint,
                libc::MSG_DONTWAIT,
                std::ptr::null_mut(),
            )
        };
        if r < 0 {
            self.n = 0;
            let e = io::Error::last_os_error();
            return match e.kind() {
                io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(0),
                // A previous send to a closed port: ignore, like Cefore does.
                io::ErrorKind::ConnectionRefused => Ok(0),
                _ => Err(e),
            };
        }
        self.n = r as usize;
        self.calls += (r > 0) as u64;
        for i in 0..self.n {
            self.lens[i] = self.hdrs[i].msg_len as usize;
            if self.hdrs[i].msg_hdr.msg_flags & libc::MSG_TRUNC != 0 {
                self.truncated += 1;
            }
        }
        Ok(self.n)
    }

    /// Number of datagrams from the last [`recv`](Self::recv).
    pub fn len(&self) -> usize {
        self.n
    }

    /// True when the last receive returned nothing.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Datagram `i` of the last receive and its sender (`None` for an unknown family).
    #[inline]
    pub fn get(&self, i: usize) -> (&[u8], Option<PeerKey>) {
        let len = self.lens[i].min(MAX_DATAGRAM);
        (
            &self.bufs[i * MAX_DATAGRAM..i * MAX_DATAGRAM + len],
            sockaddr_to_key(&self.names[i]),
        )
    }
}

/// Datagrams queued for one `sendmmsg` call.
pub struct TxBatch {
    bufs: Vec<u8>,
    lens: Vec<usize>,
    names: Vec<libc::sockaddr_storage>,
    namelens: Vec<libc::socklen_t>,
    iovs: Vec<libc::iovec>,
    hdrs: Vec<libc::mmsghdr>,
    n: usize,
    /// Datagrams sent.
    pub sent: u64,
    /// Datagrams the kernel refused (counted, not retried).
    pub send_errors: u64,
    /// `sendmmsg` calls.
    pub calls: u64,
}

// SAFETY: as for RxBatch.
unsafe impl Send for TxBatch {}

impl TxBatch {
    /// Room for `batch` datagrams.
    pub fn new(batch: usize) -> TxBatch {
        let batch = batch.max(1);
        TxBatch {
            bufs: vec![0; batch * MAX_DATAGRAM],
            lens: vec![0; batch],
            // SAFETY: all-zero bytes are a valid `sockaddr_storage` (plain C struct).
            names: vec![unsafe { zeroed() }; batch],
            namelens: vec![0; batch],
            // SAFETY: all-zero bytes are a valid `iovec` (null base, zero length).
            iovs: vec![unsafe { zeroed() }; batch],
            // SAFETY: all-zero bytes are a valid `mmsghdr` (null pointers, zero lengths).
            hdrs: vec![unsafe { zeroed() }; batch],
            n: 0,
            sent: 0,
            send_errors: 0,
            calls: 0,
        }
    }

    /// Queued datagrams.
    pub fn len(&self) -> usize {
        self.n
    }

    /// True when nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// True when another datagram does not fit.
    pub fn is_full(&self) -> bool {
        self.n == self.lens.len()
    }

    /// Queues `bytes` (cut to [`MAX_DATAGRAM`]) for `to`; the caller flushes when
    /// [`is_full`](Self::is_full).
    #[inline]
    pub fn push(&mut self, to: SocketAddr, bytes: &[u8]) {
        debug_assert!(!self.is_full());
        let i = self.n;
        let len = bytes.len().min(MAX_DATAGRAM);
        self.bufs[i * MAX_DATAGRAM..i * MAX_DATAGRAM + len].copy_from_slice(&bytes[..len]);
        self.lens[i] = len;
        self.namelens[i] = addr_to_sockaddr(to, &mut self.names[i]);
        self.n += 1;
    }

    /// Sends everything queued on `sock`; returns how many datagrams went out.
    pub fn flush(&mut self, sock: &UdpSocket) -> io::Result<usize> {
        let n = self.n;
        for i in 0..n {
            self.iovs[i] = libc::iovec {
                iov_base: self.bufs[i * MAX_DATAGRAM..].as_mut_ptr() as *mut libc::c_void,
                iov_len: self.lens[i],
            };
            let h = &mut self.hdrs[i].msg_hdr;
            h.msg_name = &mut self.names[i] as *mut _ as *mut libc::c_void;
            h.msg_namelen = self.namelens[i];
            h.msg_iov = &mut self.iovs[i];
            h.msg_iovlen = 1;
            h.msg_control = std::ptr::null_mut();
            h.msg_controllen = 0;
            h.msg_flags = 0;
        }
        let mut done = 0;
        while done < n {
            // SAFETY: hdrs[done..n] are initialised and point into live buffers of this struct.
            let r = unsafe {
                libc::sendmmsg(
                    sock.as_raw_fd(),
                    self.hdrs[done..].as_mut_ptr(),
                    (n - done) as libc::c_uint,
                    0,
                )
            };
            if r < 0 {
                let e = io::Error::last_os_error();
                match e.kind() {
                    io::ErrorKind::Interrupted => continue,
                    // The first datagram failed (e.g. ICMP port unreachable reported back):
                    // count it and go on with the rest.
                    io::ErrorKind::ConnectionRefused | io::ErrorKind::WouldBlock => {
                        self.send_errors += 1;
                        done += 1;
                    }
                    _ => {
                        self.n = 0;
                        return Err(e);
                    }
                }
            } else {
                self.calls += 1;
                done += r as usize;
                self.sent += r as u64;
            }
        }
        self.n = 0;
        Ok(n)
    }
}

/// Sleeps until one of `socks` is readable or `timeout_ms` passes; returns true if readable.
pub fn wait_readable(socks: &[&UdpSocket], timeout_ms: i32) -> bool {
    let mut fds = [libc::pollfd {
        fd: -1,
        events: 0,
        revents: 0,
    }; 4];
    let n = socks.len().min(4);
    for (f, s) in fds.iter_mut().zip(socks) {
        f.fd = s.as_raw_fd();
        f.events = libc::POLLIN;
    }
    // SAFETY: fds[..n] are valid pollfd entries.
    let r = unsafe { libc::poll(fds.as_mut_ptr(), n as libc::nfds_t, timeout_ms) };
    r > 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_round_trip_on_loopback() {
        let a = bind("127.0.0.1:0".parse().unwrap(), false).unwrap();
        let b = bind("127.0.0.1:0".parse().unwrap(), false).unwrap();
        let (aa, ba) = (a.local_addr().unwrap(), b.local_addr().unwrap());
        let mut tx = TxBatch::new(8);
        for i in 0..8u8 {
            tx.push(ba, &[i; 100]);
        }
        assert!(tx.is_full());
        assert_eq!(tx.flush(&a).unwrap(), 8);
        let mut rx = RxBatch::new(4);
        let mut got = Vec::new();
        for _ in 0..100 {
            if got.len() == 8 {
                break;
            }
            wait_readable(&[&b], 100);
            rx.recv(&b).unwrap();
            for i in 0..rx.len() {
                let (d, from) = rx.get(i);
                assert_eq!(from.unwrap().addr(), aa);
                assert_eq!(d.len(), 100);
                got.push(d[0]);
            }
        }
        assert_eq!(got, (0..8).collect::<Vec<u8>>());
        assert_eq!(rx.recv(&b).unwrap(), 0, "nothing left, no blocking");
        let k = PeerKey::of("[::1]:5".parse().unwrap());
        assert_eq!(k.addr(), "[::1]:5".parse().unwrap());
    }
}
