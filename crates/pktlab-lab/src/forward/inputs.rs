//! The inputs of a `forward` run besides the packets: the routing tables and the update
//! stream, each file's [`ReadReport`] kept for the result (and its summary noted through the
//! progress, as every command reports skipped input).

use super::run::Ops;
use super::*;
use pktlab::io::{read_updates_mixed, ReadReport};

/// Routes of one family for the run.
pub(super) type Routes<A> = Vec<(Prefix<A>, NextHop)>;

/// Notes `r`'s one-line summary (skips with the first position, duplicates, truncation) if
/// it has one — with `family` for one of the two reads of a mixed file — and keeps `r` for
/// the result.
fn keep(
    r: ReadReport,
    family: Option<&str>,
    progress: &dyn Progress,
    reports: &mut Vec<ReadReport>,
) {
    if let Some(s) = r.summary() {
        match family {
            Some(f) => progress.note(&format!("{s} (reading its {f} routes)")),
            None => progress.note(&s),
        }
    }
    reports.push(r);
}

/// The (prefix, next hop) pairs of `r`.
fn pairs<A: Address>(r: &[pktlab::io::Route<A>]) -> Routes<A> {
    r.iter().map(|r| (r.prefix, r.nexthop)).collect()
}

/// One table file: its IPv4 routes, or its IPv6 routes, or both when it has both (a mixed
/// file is read once per family, and both reads' reports are kept).
fn load_file(
    p: &std::path::Path,
    scheme: &NextHopScheme,
    progress: &dyn Progress,
    reports: &mut Vec<ReadReport>,
) -> Result<(Routes<u32>, Routes<u128>), String> {
    let v6 = |p| read_table::<u128>(p, scheme).map_err(|e| e.to_string());
    match read_table::<u32>(p, scheme) {
        Ok(t) if !t.routes.is_empty() && t.report.other_family == 0 => {
            let v4 = pairs(&t.routes);
            keep(t.report, None, progress, reports);
            Ok((v4, Vec::new()))
        }
        Ok(t) if !t.routes.is_empty() => {
            let t6 = v6(p)?;
            keep(t.report, Some("IPv4"), progress, reports);
            if !t6.routes.is_empty() || t6.report.skipped > 0 {
                keep(t6.report, Some("IPv6"), progress, reports);
            }
            Ok((pairs(&t.routes), pairs(&t6.routes)))
        }
        // No IPv4 route (an IPv6 table, or nothing usable as IPv4): the IPv6 read decides.
        _ => {
            let t6 = v6(p)?;
            if t6.routes.is_empty() {
                return Err(format!(
                    "--table: {}: no IPv4 or IPv6 routes (a table needs at least one)",
                    p.display()
                ));
            }
            let r6 = pairs(&t6.routes);
            keep(t6.report, None, progress, reports);
            Ok((Vec::new(), r6))
        }
    }
}

/// The run's routes (IPv4, IPv6): the synthetic tables, or every `--table` file.
pub(super) fn load_tables(
    cfg: &ForwardConfig,
    progress: &dyn Progress,
    reports: &mut Vec<ReadReport>,
) -> Result<(Routes<u32>, Routes<u128>), String> {
    match &cfg.table {
        TableSpec::Synthetic(n4, n6) => {
            let f4 = synthetic_table::<u32>(*n4, cfg.seed, &cfg.nexthops);
            let f6 = synthetic_table::<u128>(*n6, cfg.seed, &cfg.nexthops);
            Ok((
                f4.into_iter().map(|r| (r.prefix, r.nexthop)).collect(),
                f6.into_iter().map(|r| (r.prefix, r.nexthop)).collect(),
            ))
        }
        TableSpec::Files(paths) => {
            let (mut v4, mut v6) = (Vec::new(), Vec::new());
            for p in paths {
                let (a, b) = load_file(p, &cfg.nexthops, progress, reports)?;
                v4.extend(a);
                v6.extend(b);
            }
            Ok((v4, v6))
        }
    }
}

/// Route operations of an update stream.
pub(super) fn ops<A: Address>(u: &[Update<A>]) -> Vec<Op<A>> {
    u.iter()
        .map(|u| match *u {
            Update::Announce(p, nh) => Op::Insert(p, nh),
            Update::Withdraw(p) => Op::Remove(p),
        })
        .collect()
}

/// The update stream as route operations (IPv4, IPv6), read in one pass whatever the mix of
/// families, and the number of lines skipped.
pub(super) fn load_ops(
    cfg: &ForwardConfig,
    progress: &dyn Progress,
    reports: &mut Vec<ReadReport>,
) -> Result<(Ops, u64), String> {
    let Some(p) = &cfg.updates else {
        return Ok(((Vec::new(), Vec::new()), 0));
    };
    let scheme = match cfg.nexthops {
        NextHopScheme::Asn(_) => NextHopScheme::Hash(16),
        s => s,
    };
    let (u4, u6, report) = read_updates_mixed(p, &scheme).map_err(|e| e.to_string())?;
    let skipped = report.skipped;
    keep(report, None, progress, reports);
    Ok(((ops(&u4), ops(&u6)), skipped))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Event;
    use std::sync::Mutex;

    fn temp(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("pktlab-fwd-in-{}-{name}", std::process::id()))
    }

    /// Fails on the old loader: the `/33` line and the garbage vanished without a note, the
    /// IPv6 half of the update file was dropped and the IPv6 routes of the mixed table too.
    #[test]
    fn skipped_lines_are_reported_and_both_families_load() {
        let (t, u) = (temp("t.txt"), temp("u.txt"));
        std::fs::write(&t, "10.0.0.0/8 1\n1.2.3.0/33 2\n2001:db8::/32 3\n").unwrap();
        let mut up = String::new();
        for i in 0..10u32 {
            up.push_str(&format!(
                "A 11.{i}.0.0/16 1\nA 2001:db8:{i:x}::/48 2\ngarbage {i}\n"
            ));
        }
        std::fs::write(&u, up).unwrap();
        let cfg = ForwardConfig {
            table: TableSpec::Files(vec![t.clone()]),
            nexthops: NextHopScheme::File,
            updates: Some(u.clone()),
            ..ForwardConfig::default()
        };
        let notes = Mutex::new(Vec::new());
        let p = |e: Event<'_>| {
            if let Event::Note(m) = e {
                notes.lock().unwrap().push(m.to_string());
            }
        };
        let mut reports = Vec::new();
        let (v4, v6) = load_tables(&cfg, &p, &mut reports).unwrap();
        let ((o4, o6), skipped) = load_ops(&cfg, &p, &mut reports).unwrap();
        let _ = (std::fs::remove_file(&t), std::fs::remove_file(&u));
        assert_eq!((v4.len(), v6.len()), (1, 1));
        assert_eq!((o4.len(), o6.len(), skipped), (10, 10, 10));
        let notes = notes.into_inner().unwrap();
        let tn = t.display().to_string();
        assert!(
            notes.iter().any(|n| n.starts_with(&format!(
                "{tn}: skipped 1 unparsable lines (first: {tn}:2: prefix length 33"
            ))),
            "{notes:?}"
        );
        let un = u.display().to_string();
        assert!(
            notes.iter().any(|n| n.starts_with(&format!(
                "{un}: skipped 10 unparsable lines (first: {un}:3:"
            ))),
            "{notes:?}"
        );
        // The reports carried into the JSON result: the table's IPv4 read and the updates.
        assert_eq!(reports.len(), 3, "{reports:?}");
        assert_eq!(reports[0].skipped, 1);
        assert_eq!(reports[2].skipped, 10);
        assert_eq!(
            reports[2].first_errors[0],
            format!("{un}:3: expected 'A' or 'W', found \"garbage\"")
        );
    }
}
