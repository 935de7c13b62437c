//! Runs the whole report at the tiny scale and checks what issue 10 asks of it: every figure of
//! every component present in `results.json` and as an `<svg>` in `index.html`, one CSV per
//! figure, and a page that references nothing outside itself.

use pktlab_report::{run, write, Quiet, ReportConfig, Scale};
use std::path::PathBuf;

/// The figures issue 10 lists, by section (every component exists on this branch).
const FIGURES: &[(&str, &[&str])] = &[
    ("lpm", &["lpm-variants", "lpm-prior", "lpm-by-depth"]),
    (
        "cache",
        &["cache-fig2", "cache-fig3", "cache-fig9", "cache-policies"],
    ),
    (
        "aqm",
        &[
            "aqm-fig2",
            "aqm-fig5",
            "aqm-fig5-loss",
            "aqm-fig6",
            "aqm-fig7",
            "aqm-fig8",
        ],
    ),
    (
        "tcp-mixes",
        &[
            "tcp-mixes-cubic-vs-bbr",
            "tcp-mixes-reno-vs-cubic",
            "tcp-mixes-cubic-vs-vegas",
        ],
    ),
    ("zipf-cs", &["zipf-error", "cs-hit-ratio", "cs-rate"]),
    ("ccn-live", &["ccn-live-hit", "ccn-live-rate"]),
    ("forward", &["mbuf-layouts"]),
    ("vhost-live", &["vhost-chain"]),
];

/// Comparison tables (published beside ours) the page must carry.
const COMPARISONS: &[&str] = &[
    "lpm-variants-mlps",
    "lpm-prior-random",
    "lpm-prior-real",
    "cache-table2-miss",
    "cache-fig9",
    "cs-che",
    "mbuf-eivu",
];

/// Where the test writes the report: `$PKTLAB_REPORT_TEST_OUT` if set (kept, for looking at
/// it), else a temporary directory (removed).
fn out_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("PKTLAB_REPORT_TEST_OUT") {
        return PathBuf::from(d);
    }
    let d = std::env::temp_dir().join(format!("pktlab-report-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Every `attr="…"` value in `html`.
fn attr_values<'a>(html: &'a str, attr: &str) -> Vec<&'a str> {
    let pat = format!("{attr}=\"");
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find(&pat) {
        rest = &rest[i + pat.len()..];
        if let Some(j) = rest.find('"') {
            out.push(&rest[..j]);
            rest = &rest[j..];
        }
    }
    out
}

#[test]
fn tiny_report_is_complete_and_self_contained() {
    let dir = out_dir();
    let cfg = ReportConfig {
        scale: Scale::Tiny,
        ..ReportConfig::default()
    };
    let report = run(&cfg, &Quiet).expect("report runs");
    let w = write(&report, &dir).expect("report is written");

    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&w.json).unwrap()).unwrap();
    let html = std::fs::read_to_string(&w.html).unwrap();
    let sections = json["sections"].as_array().expect("sections");
    assert_eq!(sections.len(), FIGURES.len(), "one section per component");
    for (id, figs) in FIGURES {
        let s = sections
            .iter()
            .find(|s| s["id"] == *id)
            .unwrap_or_else(|| panic!("section {id} missing"));
        assert!(s["error"].is_null(), "section {id} failed: {}", s["error"]);
        assert_eq!(
            s["command"],
            format!("pktlab reproduce --quick --only {id}")
        );
        for f in *figs {
            let fj = s["figures"]
                .as_array()
                .unwrap()
                .iter()
                .find(|x| x["id"] == *f)
                .unwrap_or_else(|| panic!("figure {f} missing from results.json"));
            // The figure carries data.
            let n = match fj["plot"]["kind"].as_str().unwrap() {
                "lines" => fj["plot"]["series"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|s| s["points"].as_array().unwrap().len())
                    .sum::<usize>(),
                _ => fj["plot"]["categories"].as_array().unwrap().len(),
            };
            assert!(n > 0, "figure {f} has no data");
            // Drawn inline in the page, and its CSV written.
            let at = html
                .find(&format!("<figure id=\"fig-{f}\"><svg"))
                .unwrap_or_else(|| panic!("figure {f} not drawn as <svg> in index.html"));
            assert!(html[at..].contains("</svg>"));
            let csv = std::fs::read_to_string(dir.join(format!("{f}.csv"))).unwrap();
            assert!(csv.lines().count() >= 2, "{f}.csv is empty");
        }
        // Every section states its claim, inputs and at least one verdict.
        assert!(!s["claim"].as_str().unwrap().is_empty());
        assert!(!s["inputs"].as_array().unwrap().is_empty(), "{id} inputs");
        let verdicts =
            s["comparisons"].as_array().unwrap().len() + s["checks"].as_array().unwrap().len();
        assert!(verdicts > 0, "{id} has no verdict");
    }
    for c in COMPARISONS {
        let found = sections.iter().any(|s| {
            s["comparisons"].as_array().unwrap().iter().any(|x| {
                x["id"] == *c
                    && x["rows"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|r| r["published"].is_number())
            })
        });
        assert!(found, "comparison {c} with a published number missing");
    }
    // Machine facts.
    let m = &json["machine"];
    for k in ["cpu_model", "cores", "date", "pktlab_version", "git_commit"] {
        assert!(!m[k].is_null(), "machine.{k}");
    }

    // Self-contained: no script, no import, no url(), no external src/href.
    let lower = html.to_ascii_lowercase();
    assert!(!lower.contains("<script"), "no script");
    assert!(!lower.contains("@import"), "no @import");
    assert!(!lower.contains("url("), "no url()");
    assert!(!lower.contains("<link"), "no <link>");
    assert!(!lower.contains("<img"), "no <img>");
    assert!(attr_values(&lower, "src").is_empty(), "no src=");
    for h in attr_values(&lower, "href")
        .into_iter()
        .chain(attr_values(&lower, "xlink:href"))
    {
        assert!(h.starts_with('#'), "href to outside the page: {h}");
    }
    // The only absolute URL allowed is the SVG namespace name (not fetched by a browser).
    let stripped = lower.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    assert!(
        !stripped.contains("http://") && !stripped.contains("https://"),
        "absolute URL in page"
    );
    if std::env::var_os("PKTLAB_REPORT_TEST_OUT").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn unknown_section_is_a_one_line_error() {
    let cfg = ReportConfig {
        only: vec!["lpm".into(), "nope".into()],
        ..ReportConfig::default()
    };
    let e = run(&cfg, &Quiet).unwrap_err().to_string();
    assert!(
        e.starts_with("--only nope: unknown section (known: lpm, cache"),
        "{e}"
    );
    assert!(!e.contains('\n'));
}
