//! `pktlab aqm sim` honours the CLI contract: one JSON object with the documented fields,
//! one-line errors with exit code 2.

use std::process::Command;

fn pktlab(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_pktlab"))
        .args(args)
        .output()
        .expect("run pktlab")
}

#[test]
fn json_has_the_documented_fields() {
    let o = pktlab(&[
        "aqm",
        "sim",
        "--reno",
        "2",
        "--vegas",
        "2",
        "--duration",
        "3",
        "--warmup",
        "1",
        "--aqm",
        "red",
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    assert!(v["config"]["tcp"]["min_rto_ms"].is_number());
    assert!(v["wall_s"].is_number() && v["events"].is_number());
    let flows = v["flows"].as_array().unwrap();
    assert_eq!(flows.len(), 4);
    for f in flows {
        for k in ["id", "kind", "goodput_mbps", "loss_rate"] {
            assert!(!f[k].is_null(), "flow field {k}");
        }
    }
    for k in [
        "reno_mbps",
        "vegas_mbps",
        "vegas_share",
        "jain",
        "utilization",
        "loss_rate",
        "mean_queue_pkts",
    ] {
        assert!(v["summary"][k].is_number(), "summary field {k}");
    }
}

#[test]
fn errors_are_one_line_exit_2() {
    for args in [
        &["aqm", "sim", "--aqm", "nope"][..],
        &["aqm", "sim", "--warmup", "100", "--duration", "10"][..],
        &["aqm", "sim", "--aqm", "red", "--red-min", "20"][..],
    ] {
        let o = pktlab(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        let last = err.lines().last().unwrap_or("");
        assert!(last.starts_with("pktlab: error: "), "{err}");
        assert!(o.stdout.is_empty());
    }
}

#[test]
fn every_discipline_runs_and_study_writes_json_and_csv() {
    let o = pktlab(&[
        "aqm",
        "sim",
        "--reno",
        "3",
        "--vegas",
        "3",
        "--duration",
        "3",
        "--warmup",
        "1",
        "--buffer",
        "200",
        "--aqm",
        "sred,zlred,choke,drr,fq_codel",
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 5);
    assert!(runs[0]["summary"]["flow_estimate"].is_number());
    assert!(runs[1]["config"]["aqm"]["a"].is_number());
    let dir = std::env::temp_dir().join(format!("pktlab-study-{}", std::process::id()));
    let d = dir.to_str().unwrap();
    let o = pktlab(&[
        "aqm",
        "study",
        "fig7",
        "--conns",
        "4",
        "--a",
        "1,2",
        "--seeds",
        "2",
        "--duration",
        "3",
        "--warmup",
        "1",
        "--threads",
        "2",
        "--out",
        d,
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    // sred (a ignored) + zlred a = 1, 2.
    assert_eq!(v["rows"].as_array().unwrap().len(), 3);
    assert_eq!(v["runs"].as_array().unwrap().len(), 6);
    assert!(v["rows"][2]["jain"]["mean"].is_number());
    let csv = std::fs::read_to_string(dir.join("fig7.csv")).unwrap();
    assert_eq!(csv.lines().count(), 4);
    assert!(dir.join("fig7.json").exists());
    let _ = std::fs::remove_dir_all(&dir);
    // Bad parameters are one-line errors.
    for args in [
        &["aqm", "sim", "--aqm", "zlred", "--zl-a", "0.5"][..],
        &["aqm", "sim", "--aqm", "sred", "--zombies", "0"][..],
        &["aqm", "study", "fig9"][..],
    ] {
        let o = pktlab(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
    }
}
