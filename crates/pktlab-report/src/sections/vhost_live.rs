//! Section `vhost-live`: paper 001's setting on real virtio rings — pktlab as the virtual
//! switch between CNFs over vhost-user. Always: pktlab's own chain (gen → switch → sink, no
//! privileges) with every packet accounted for. When this process is root and DPDK testpmd is
//! installed: the anchor's loop (one testpmd CNF, its bursts circulating through the switch)
//! with testpmd and pktlab as the switch in interleaved rounds; otherwise the section says why
//! the speed comparison was not run. Runs `pktlab_lab::vhost_chain`.

use crate::model::{BarSeries, Body, BoxSeries, BoxStat, Cell, Check, Figure, Input, Plot, Table};
use crate::verdict::{above, median, Verdict};
use crate::{Ctx, SectionDef};
use pktlab::mbuf::MetaKind;
use pktlab::pipeline::Stages;
use pktlab_lab::vhost_chain::{run_chain, run_loop, testpmd, ChainConfig, LoopResult, Switch};
use pktlab_lab::Result;

/// The section.
pub const SECTION: SectionDef = SectionDef {
    id: "vhost-live",
    title: "The data plane as a virtual switch between CNFs over vhost-user",
    paper: "001 — Message-buffer redesign for cache-efficient CNFs (Yamada, Kawashima et al., NITech): the CNF setting, live",
    claim: "CNFs are bound by virtual network I/O (DPDK vhost-user: about 20 Mpps per flow); a switch that builds compact aggregated metadata at receive and works in large batches forwards faster than one that keeps DPDK's 128-byte mbuf metadata.",
    run,
};

const IO_DPDK: &str = "pktlab io dpdk/32";
const IO_COMPACT: &str = "pktlab io compact-constant/512";

fn pk_switch(stages: Stages, meta: MetaKind, batch: usize) -> Switch {
    Switch::Pktlab {
        stages,
        meta,
        batch,
    }
}

fn run(ctx: &Ctx<'_>) -> Result<Body> {
    let mut b = Body::default();
    // pktlab's own chain: accounting (the rate is the sink's: it shares CPU 0 with gen).
    let chain_secs = ctx.pick(0.2, 0.5, 1.0);
    let mut chain = Vec::new();
    for s in [
        pk_switch(Stages::L3, MetaKind::Dpdk, 32),
        pk_switch(Stages::Full, MetaKind::CompactConst, 512),
    ] {
        chain.push(run_chain(&ChainConfig {
            switch: s,
            seconds: chain_secs,
            frame: 64,
        })?);
    }
    b.inputs.push(Input::new(
        "chain",
        format!("pktlab gen flows (64 B) --tx virtio-user:A → pktlab forward --rx vhost-user:A --tx vhost-user:B (one default route) → pktlab sink --rx virtio-user:B; CNF threads on CPU 0, the switch on CPU 1; {chain_secs} s of sending per switch"),
    ));
    let mut bad = Vec::new();
    for r in &chain {
        let fwd = r.switch_rx.unwrap_or(0) - r.switch_drops.unwrap_or(0);
        if r.switch_rx != Some(r.sent)
            || r.delivered != fwd
            || r.checksum_errors != 0
            || r.ttl.keys().any(|&t| t != 63)
        {
            bad.push(format!(
                "{}: sent {}, switch rx {:?}, forwarded {fwd}, delivered {}, checksum errors {}, TTLs {:?}",
                r.switch, r.sent, r.switch_rx, r.delivered, r.checksum_errors, r.ttl
            ));
        }
    }
    b.checks.push(Check::new(
        "Every packet is accounted for: what the generator sent the switch received, and what it forwarded the sink received, TTL one lower, checksums valid",
        bad.is_empty() && chain.iter().all(|r| r.sent > 0),
        if bad.is_empty() {
            chain
                .iter()
                .map(|r| {
                    format!(
                        "{}: sent {} = switch rx, {} delivered = forwarded, {} counted drops",
                        r.switch,
                        r.sent,
                        r.delivered,
                        r.switch_drops.unwrap_or(0)
                    )
                })
                .collect::<Vec<_>>()
                .join("; ")
        } else {
            bad.join("; ")
        },
    ));
    b.tables.push(Table {
        id: "vhost-chain".into(),
        title: "pktlab's chain (the rate is the sink's, which shares CPU 0 with the generator)"
            .into(),
        columns: [
            "switch",
            "sent",
            "delivered",
            "Mpps at the sink",
            "switch drops",
        ]
        .map(String::from)
        .to_vec(),
        rows: chain
            .iter()
            .map(|r| {
                vec![
                    Cell::from(r.switch.as_str()),
                    Cell::from(r.sent as f64),
                    Cell::from(r.delivered as f64),
                    r.mpps.into(),
                    r.switch_drops.map(|d| d as f64).into(),
                ]
            })
            .collect(),
    });
    b.figures.push(Figure::new(
        "vhost-chain",
        "pktlab's chain: sent and delivered per switch",
        "paper 001 setting, live (accounting)",
        "switch",
        "packets",
        Plot::Bars {
            categories: chain.iter().map(|r| r.switch.clone()).collect(),
            series: vec![
                BarSeries {
                    name: "sent".into(),
                    values: chain.iter().map(|r| Some(r.sent as f64)).collect(),
                },
                BarSeries {
                    name: "delivered".into(),
                    values: chain.iter().map(|r| Some(r.delivered as f64)).collect(),
                },
                BarSeries {
                    name: "switch drops (counted)".into(),
                    values: chain
                        .iter()
                        .map(|r| r.switch_drops.map(|d| d as f64))
                        .collect(),
                },
            ],
        },
    ));
    b.raw("chain", &chain);

    // The anchor's loop: testpmd CNF, testpmd or pktlab as the switch, interleaved rounds.
    let claims = [
        "pktlab --stages io as the switch (DPDK's layout, batch 32: like for like) delivers at least testpmd io's rate",
        "Compact aggregated metadata at batch 512 forwards faster than DPDK's layout at batch 32 on live virtio rings (stages io)",
    ];
    let bin = match testpmd() {
        Ok(bin) => bin,
        Err(why) => {
            for c in claims {
                b.checks.push(Check {
                    claim: c.into(),
                    verdict: Verdict::no_reference(format!("not measured: {why}")),
                });
            }
            b.notes.push(format!("The speed comparison with DPDK testpmd did not run: {why}. It runs as root with Debian's dpdk installed (or TESTPMD set); tools/vhost_side_by_side.sh runs it by hand."));
            return Ok(b);
        }
    };
    // Five rounds at both sizes: the loop is bimodal (vhost.md), and with three rounds a run
    // where one switch stayed in its fast state ranged apart from the other by chance.
    let rounds = ctx.pick(1, 5, 5);
    let seconds = ctx.pick(4, 4, 8);
    let switches = [
        Switch::Testpmd {
            bin: bin.clone(),
            mode: "io",
        },
        pk_switch(Stages::Io, MetaKind::Dpdk, 32),
        pk_switch(Stages::Io, MetaKind::CompactConst, 512),
    ];
    b.inputs.push(Input::new(
        "loop",
        format!("{}: one testpmd CNF with two net_virtio_user ports in io --tx-first on CPU 0 (ANCHORS.md's loop), the switch on CPU 1 forwarding both directions (testpmd's two net_vhost ports in io mode; pktlab forward --duplex --rx vhost-user:A --tx vhost-user:B --stages io), so the CNF's two injected bursts circulate through either switch; the CNF's summed receive rate, median of its per-second samples after 2 s, {seconds} s per run, {rounds} interleaved round(s); the host's cross-CPU round trip (one cache line bounced between CPU 0 and CPU 1, 100 ms) measured just before and just after every run", bin.display()),
    ));
    let labels: Vec<String> = switches.iter().map(Switch::label).collect();
    let mut runs: Vec<Vec<LoopResult>> = vec![Vec::new(); switches.len()];
    ctx.progress.start(
        "vhost-live: loop rounds",
        Some((rounds * switches.len()) as u64),
    );
    for r in 0..rounds {
        for (i, s) in switches.iter().enumerate() {
            match run_loop(s, &bin, seconds) {
                Ok(x) => runs[i].push(x),
                // The machine could not run DPDK (hugepages, EAL): the loop is not measured,
                // and the page says why rather than losing the section.
                Err(e) => {
                    ctx.progress.finish();
                    for c in claims {
                        b.checks.push(Check {
                            claim: c.into(),
                            verdict: Verdict::no_reference(format!(
                                "not measured: the loop with {} failed: {e}",
                                s.label()
                            )),
                        });
                    }
                    return Ok(b);
                }
            }
            ctx.progress.set((r * switches.len() + i + 1) as u64);
        }
    }
    ctx.progress.finish();
    let mpps = |l: &str| -> Vec<f64> {
        labels
            .iter()
            .position(|x| x == l)
            .map(|i| runs[i].iter().map(|r| r.mpps).collect())
            .unwrap_or_default()
    };
    b.checks.push(Check {
        claim: claims[0].into(),
        verdict: above(IO_DPDK, &mpps(IO_DPDK), "testpmd io", &mpps("testpmd io")),
    });
    b.checks.push(Check {
        claim: claims[1].into(),
        verdict: above(IO_COMPACT, &mpps(IO_COMPACT), IO_DPDK, &mpps(IO_DPDK)),
    });
    b.commands.push(
        "tools/vhost_side_by_side.sh 10 5   # the same loop (and the chains) as separate processes"
            .into(),
    );
    b.figures.push(Figure::new(
        "vhost-live-loop",
        "Forwarding rate in the CNF loop by switch (min, median, max over rounds)",
        "paper 001 setting, live (beyond the paper's figures)",
        "switch",
        "Mpps (CNF receive rate)",
        Plot::Boxes {
            categories: labels.clone(),
            series: vec![BoxSeries {
                name: "rounds".into(),
                boxes: labels
                    .iter()
                    .map(|l| {
                        let mut v = mpps(l);
                        v.sort_by(f64::total_cmp);
                        let m = median(&v)?;
                        Some(BoxStat {
                            p5: v[0],
                            p25: v[0],
                            p50: m,
                            p75: v[v.len() - 1],
                            p95: v[v.len() - 1],
                        })
                    })
                    .collect(),
            }],
        },
    ));
    // Every run with the host's cross-CPU round trip beside it: the loop's rate follows that
    // state (vhost.md), so a reader can see which rounds of which switch ran in which.
    let rtt = |v: Option<f64>| v.map_or_else(|| "–".to_string(), |x| format!("{x:.0}"));
    b.tables.push(Table {
        id: "vhost-live-rounds".into(),
        title: "The loop's runs: Mpps, and the host's cross-CPU round trip (CPU 0 ↔ CPU 1, ns) just before / just after each run".into(),
        columns: std::iter::once("round".to_string())
            .chain(labels.iter().flat_map(|l| [format!("{l} Mpps"), format!("{l} round trip, ns")]))
            .collect(),
        rows: (0..rounds)
            .map(|r| {
                std::iter::once(Cell::from((r + 1) as f64))
                    .chain(runs.iter().flat_map(|s| match s.get(r) {
                        Some(x) => [
                            Cell::from(x.mpps),
                            Cell::from(format!("{} / {}", rtt(x.xcpu_ns[0]), rtt(x.xcpu_ns[1]))),
                        ],
                        None => [Cell::Empty, Cell::Empty],
                    }))
                    .collect()
            })
            .collect(),
    });
    b.notes.push("Only --stages io can loop: l3 and full decrement the TTL on every pass and the circulating packets die after 63 trips; docs/results/vhost.md has the full pipeline's cost per packet (cachegrind) and the chains.".into());
    b.raw("loop", &runs);
    Ok(b)
}
