//! The self-contained HTML page: inline CSS, inline SVG figures, no script, no font, no image
//! and no link outside the page (only `#section` anchors). Every number printed comes from the
//! [`Report`] that is also written to `results.json`.

use crate::model::{Cell, Check, Comparison, Figure, Section, Table};
use crate::verdict::{Kind, Verdict};
use crate::{plot, Report, Scale};
use std::fmt::Write;

/// Escapes text for HTML element content and attribute values.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// A number as shown on the page: about four significant digits, thousands unseparated
/// (so that the text can be searched for in `results.json`'s rounding-free values).
pub fn num(v: f64) -> String {
    if !v.is_finite() {
        return "–".into();
    }
    let a = v.abs();
    if a == 0.0 {
        "0".into()
    } else if a >= 1000.0 {
        format!("{v:.0}")
    } else if a >= 100.0 {
        format!("{v:.1}")
    } else if a >= 10.0 {
        format!("{v:.2}")
    } else if a >= 1.0 {
        format!("{v:.3}")
    } else if a >= 0.001 {
        format!("{v:.4}")
    } else {
        format!("{v:.2e}")
    }
}

fn opt(v: Option<f64>) -> String {
    v.map_or_else(|| "–".into(), num)
}

const CSS: &str = r#"
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:0;color:#1d232b;background:#f4f5f7;line-height:1.45}
main{max-width:1460px;margin:0 auto;padding:18px 28px 40px}
h1{font-size:1.7em;margin:.4em 0 .2em}h2{font-size:1.35em;margin:0 0 .3em;border-bottom:2px solid #d5dae1;padding-bottom:.2em}
h3{font-size:1.05em;margin:1.2em 0 .4em}
section{background:#fff;border:1px solid #dde1e6;border-radius:8px;padding:16px 22px;margin:18px 0}
.mode{padding:8px 12px;border-radius:6px;background:#fff6d6;border:1px solid #e8d48a;display:inline-block}
.mode.full{background:#e6f4ea;border-color:#a7d3b4}
table{border-collapse:collapse;margin:.4em 0 .8em;font-size:.92em}
th,td{border:1px solid #dde1e6;padding:3px 8px;text-align:right;vertical-align:top}
th{background:#eef1f4;font-weight:600}td:first-child,th:first-child{text-align:left}
table.facts td{text-align:left}
.claim{border-left:4px solid #8aa4c8;margin:.5em 0;padding:.3em .9em;background:#f2f6fb}
.paper{color:#556;margin:.1em 0}
code{background:#eef1f4;padding:1px 5px;border-radius:4px;font-size:.92em}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:.85em;font-weight:600;color:#fff;white-space:nowrap}
.reproduced{background:#2e7d32}.same_ordering{background:#1565c0}.differs{background:#c62828}.tie_within_noise{background:#ef8f00}.no_reference{background:#757575}
.unmeasured{color:#8a8f96;font-style:italic}
.why{color:#333;font-size:.93em}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(600px,1fr));gap:4px 30px;align-items:start}
.figs{display:grid;grid-template-columns:repeat(auto-fill,minmax(620px,1fr));gap:12px 24px;align-items:start}
figure{margin:6px 0 10px}
figure svg{border:1px solid #e3e6ea;border-radius:4px;background:#fff;width:100%;height:auto}
figcaption{font-size:.85em;color:#445}
details{margin:.3em 0}summary{cursor:pointer;font-weight:600}
.err{color:#b71c1c;font-weight:600}
ul.notes li{margin:.2em 0}
.small{font-size:.88em;color:#556}
nav table td{text-align:left}
"#;

fn badge(v: &Verdict) -> String {
    let cls = serde_json::to_value(v.kind)
        .ok()
        .and_then(|x| x.as_str().map(String::from))
        .unwrap_or_default();
    format!(r#"<span class="badge {cls}">{}</span>"#, v.kind.label())
}

fn comparison(o: &mut String, c: &Comparison) {
    o.push_str("<div>");
    let _ = write!(
        o,
        "<h3>{}</h3><p class=\"small\">Reference: {} · metric: {}</p><table><tr><th></th><th>{r}</th><th>ours</th><th>ours / {r}</th></tr>",
        esc(&c.title),
        esc(&c.source),
        esc(&c.metric),
        r = esc(&c.reference)
    );
    for r in &c.rows {
        let _ = write!(
            o,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&r.label),
            opt(r.published),
            ours_cell(r),
            r.ratio.map_or_else(|| "–".into(), |x| format!("{x:.2}"))
        );
    }
    let _ = write!(
        o,
        "</table><p>{} <span class=\"why\">{}</span></p></div>",
        badge(&c.verdict),
        esc(&c.verdict.why)
    );
}

/// Our cell of a comparison row: the median with the rounds' min–max, or a grey "not
/// measured" when a published number has nothing of ours beside it (never a 0).
fn ours_cell(r: &crate::model::CmpRow) -> String {
    match r.ours {
        None if r.published.is_some() => "<span class=\"unmeasured\">not measured</span>".into(),
        None => "–".into(),
        Some(v) if r.rounds.len() > 1 => {
            let (a, b) = r
                .rounds
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
                    (a.min(x), b.max(x))
                });
            format!(
                "{} <span class=\"small\">({}–{}, {} rounds)</span>",
                num(v),
                num(a),
                num(b),
                r.rounds.len()
            )
        }
        Some(v) => num(v),
    }
}

fn checks(o: &mut String, cs: &[Check]) {
    if cs.is_empty() {
        return;
    }
    o.push_str(
        "<h3>Claims checked</h3><table><tr><th>claim</th><th>verdict</th><th>because</th></tr>",
    );
    for c in cs {
        let _ = write!(
            o,
            "<tr><td>{}</td><td>{}</td><td style=\"text-align:left\">{}</td></tr>",
            esc(&c.claim),
            badge(&c.verdict),
            esc(&c.verdict.why)
        );
    }
    o.push_str("</table>");
}

fn table(o: &mut String, t: &Table) {
    let _ = write!(
        o,
        "<details><summary>{} ({} rows)</summary><table><tr>",
        esc(&t.title),
        t.rows.len()
    );
    for c in &t.columns {
        let _ = write!(o, "<th>{}</th>", esc(c));
    }
    o.push_str("</tr>");
    for r in &t.rows {
        o.push_str("<tr>");
        for c in r {
            let s = match c {
                Cell::Num(v) => num(*v),
                Cell::Text(s) => esc(s),
                Cell::Empty => "–".into(),
            };
            let _ = write!(o, "<td>{s}</td>");
        }
        o.push_str("</tr>");
    }
    o.push_str("</table></details>");
}

fn figure(o: &mut String, f: &Figure) {
    let svg = plot::svg(f).unwrap_or_else(|e| {
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"400\" height=\"40\"><text x=\"4\" y=\"24\">plot failed: {}</text></svg>",
            esc(&e)
        )
    });
    let _ = write!(
        o,
        "<figure id=\"fig-{id}\">{svg}<figcaption><b>{id}</b> — {} ({}). Data: <code>{id}.csv</code>, <code>results.json</code> figure <code>{id}</code>.</figcaption></figure>",
        esc(&f.title),
        esc(&f.paper_ref),
        id = esc(&f.id),
    );
}

fn section(o: &mut String, s: &Section) {
    let _ = write!(
        o,
        "<section id=\"{}\"><h2>{}</h2><p class=\"paper\">{}</p><div class=\"claim\"><b>The paper's claim.</b> {}</div>",
        esc(&s.id),
        esc(&s.title),
        esc(&s.paper),
        esc(&s.claim)
    );
    let _ = write!(
        o,
        "<p>Rerun this section alone: <code>{}</code> <span class=\"small\">({} s here)</span></p>",
        esc(&s.command),
        num(s.seconds)
    );
    if let Some(e) = &s.error {
        let _ = write!(
            o,
            "<p class=\"err\">This section failed: {}</p></section>",
            esc(e)
        );
        return;
    }
    let b = &s.body;
    if !b.inputs.is_empty() {
        o.push_str("<p><b>Inputs</b></p><ul>");
        for i in &b.inputs {
            let _ = write!(o, "<li>{}: {}</li>", esc(&i.what), esc(&i.origin));
        }
        o.push_str("</ul>");
    }
    if !b.figures.is_empty() {
        o.push_str("<div class=\"figs\">");
        for f in &b.figures {
            figure(o, f);
        }
        o.push_str("</div>");
    }
    if !b.comparisons.is_empty() {
        o.push_str("<div class=\"grid\">");
        for c in &b.comparisons {
            comparison(o, c);
        }
        o.push_str("</div>");
    }
    checks(o, &b.checks);
    if !b.tables.is_empty() {
        o.push_str("<h3>Our numbers in full</h3>");
        for t in &b.tables {
            table(o, t);
        }
    }
    if !b.notes.is_empty() {
        o.push_str("<h3>Notes</h3><ul class=\"notes\">");
        for n in &b.notes {
            let _ = write!(o, "<li>{}</li>", esc(n));
        }
        o.push_str("</ul>");
    }
    if !b.commands.is_empty() {
        o.push_str("<h3>The same experiments one by one</h3><ul class=\"small\">");
        for c in &b.commands {
            let _ = write!(o, "<li><code>{}</code></li>", esc(c));
        }
        o.push_str("</ul>");
    }
    o.push_str("</section>");
}

/// Every verdict of a section (comparisons, then checks).
pub fn verdicts(s: &Section) -> Vec<&Verdict> {
    s.body
        .comparisons
        .iter()
        .map(|c| &c.verdict)
        .chain(s.body.checks.iter().map(|c| &c.verdict))
        .collect()
}

fn load(l: Option<[f64; 3]>) -> String {
    l.map_or_else(
        || "unknown".into(),
        |l| format!("{:.2}, {:.2}, {:.2}", l[0], l[1], l[2]),
    )
}

/// The page.
pub fn page(r: &Report) -> String {
    let mut o = String::new();
    let _ = write!(
        o,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\"><title>pktlab reproduce</title><style>{CSS}</style></head><body><main>"
    );
    o.push_str("<h1>pktlab: five papers' tables and figures, ours beside the published ones</h1>");
    if r.scale == Scale::Tiny {
        o.push_str("<p class=\"mode\"><b>Tiny run</b> (test scale): the numbers below only show that the report is complete, they mean nothing.</p>");
    } else if r.scale == Scale::Quick {
        o.push_str("<p class=\"mode\"><b>Quick run</b> (<code>--quick</code>): smaller tables and traces, fewer seeds, shorter simulated time — numbers are indicative; run without <code>--quick</code> for the full sizes.</p>");
    } else {
        o.push_str("<p class=\"mode full\"><b>Full run</b>: the sizes of <code>docs/results/*.md</code>.</p>");
    }
    let m = &r.machine;
    let _ = write!(
        o,
        "<table class=\"facts\"><tr><th>CPU</th><td>{} ({})</td></tr><tr><th>cores</th><td>{}</td></tr><tr><th>kernel</th><td>{}</td></tr><tr><th>date (UTC)</th><td>{}</td></tr><tr><th>load average at start / end</th><td>{} / {}</td></tr><tr><th>pktlab</th><td>{} at commit <code>{}</code> ({} build)</td></tr><tr><th>inputs</th><td>{}</td></tr><tr><th>command</th><td><code>{}</code></td></tr><tr><th>total time</th><td>{} s</td></tr></table>",
        esc(&m.cpu_model),
        esc(&m.caches),
        m.cores,
        esc(&m.kernel),
        esc(&m.date),
        load(m.load_start),
        load(m.load_end),
        esc(&m.pktlab_version),
        esc(&m.git_commit),
        esc(&m.profile),
        match &r.data {
            Some(d) => format!("real tables and traces from <code>{}</code> where a section uses them", esc(d)),
            None => "embedded synthetic inputs (no <code>--data</code>)".into(),
        },
        esc(&r.command),
        num(r.seconds)
    );
    o.push_str("<p class=\"small\"><code>pktlab</code> is <code>cargo run --release --</code> from the repository root. Every number on this page is a field of <code>results.json</code> beside it; every figure's data is also in <code>&lt;figure id&gt;.csv</code>. Verdicts: <span class=\"badge reproduced\">reproduced</span> within tolerance or claim holds, <span class=\"badge same_ordering\">same ordering</span> the numbers differ but every ranking the paper shows holds, <span class=\"badge tie_within_noise\">tie within noise</span> no ranking is inverted but for at least one pair the paper ranks ours are within 10 % (the median of the per-round ratios of two series timed in the same interleaved rounds) or no exact test separates them at p &lt; 0.05 (the signed-rank test on the per-round ratios of paired series, the rank-sum test over the rounds otherwise; Holm-corrected over the comparison's pairs), <span class=\"badge differs\">differs</span> a ranking is inverted beyond noise (at least 10 % apart, and the test at p &lt; 0.05) or the claim fails (the reason says which), ours <span class=\"unmeasured\">not measured</span> a quantity this size or input does not produce (never compared), <span class=\"badge no_reference\">no reference</span> nothing published to compare.</p>");
    o.push_str("<nav><h3>Sections</h3><table><tr><th>section</th><th>paper</th><th>verdicts</th><th>figures</th><th>seconds</th></tr>");
    for s in &r.sections {
        let v = verdicts(s);
        let mut badges = String::new();
        for k in Kind::ALL {
            let n = v.iter().filter(|x| x.kind == k).count();
            if n > 0 {
                let _ = write!(
                    badges,
                    "{} ×{n} ",
                    badge(&Verdict {
                        kind: k,
                        why: String::new()
                    })
                );
            }
        }
        if s.error.is_some() {
            badges = "<span class=\"err\">failed</span>".into();
        }
        let _ = write!(
            o,
            "<tr><td><a href=\"#{id}\">{}</a></td><td>{}</td><td>{badges}</td><td>{}</td><td>{}</td></tr>",
            esc(&s.title),
            esc(&s.paper),
            s.body.figures.len(),
            num(s.seconds),
            id = esc(&s.id),
        );
    }
    o.push_str("</table></nav>");
    for s in &r.sections {
        section(&mut o, s);
    }
    o.push_str("<p class=\"small\">Generated by <code>pktlab reproduce</code>. Self-contained: no script, no web font, no external image or stylesheet.</p></main></body></html>\n");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_escaping() {
        assert_eq!(num(240.52), "240.5");
        assert_eq!(num(0.2263), "0.2263");
        assert_eq!(num(1042325.0), "1042325");
        assert_eq!(num(1.23456), "1.235");
        assert_eq!(num(f64::NAN), "–");
        assert_eq!(
            esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
