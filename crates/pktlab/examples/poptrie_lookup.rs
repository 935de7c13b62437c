//! A Poptrie built from a list of prefixes, then looked up with `std::net` addresses.
use pktlab::lpm::{Lpm, Poptrie, PoptrieConfig};
use pktlab::net::{NextHop, Prefix};
use std::net::Ipv4Addr;

fn main() {
    // (prefix, next hop): the default route and three nested routes.
    let table = [
        ("0.0.0.0/0", 1),
        ("10.0.0.0/8", 2),
        ("10.1.0.0/16", 3),
        ("10.1.2.0/24", 4),
    ];
    let routes: Vec<(Prefix<u32>, NextHop)> = table
        .iter()
        .map(|&(p, nh)| {
            (
                p.parse().expect("a prefix"),
                NextHop::new(nh).expect("not 0"),
            )
        })
        .collect();
    let mut fib = Poptrie::<u32>::new(PoptrieConfig::default());
    fib.build(&routes);
    let queries = [
        ("10.1.2.3", 4),
        ("10.1.9.9", 3),
        ("10.200.0.1", 2),
        ("192.0.2.1", 1),
    ];
    for (addr, want) in queries {
        let ip: Ipv4Addr = addr.parse().expect("an address");
        let nh = fib.lookup_ip(ip).map(NextHop::get);
        println!("{ip:<12} -> next hop {nh:?}");
        assert_eq!(nh, Some(want), "longest match of {ip}");
    }
}
