//! What a report holds: sections with their published-vs-ours comparisons, verdicts, figures
//! and tables. Everything here is serialised into `results.json`, and the HTML page is drawn
//! from the same values, so every number on the page is a field of `results.json`.

use crate::verdict::Verdict;
use serde::Serialize;

/// One input of a section and where it came from.
#[derive(Clone, Debug, Serialize)]
pub struct Input {
    /// What the input is used for (`routing table`, `packet trace`, …).
    pub what: String,
    /// Path or generator, and its origin (`RIPE RIS rrc00 …`, `embedded synthetic …`).
    pub origin: String,
}

impl Input {
    /// An input.
    pub fn new(what: impl Into<String>, origin: impl Into<String>) -> Self {
        Input {
            what: what.into(),
            origin: origin.into(),
        }
    }
}

/// One row of a [`Comparison`]: a published number and ours for the same thing.
#[derive(Clone, Debug, Serialize)]
pub struct CmpRow {
    /// What the row is (`poptrie18`, `hpc4 miss rate`, …).
    pub label: String,
    /// The paper's number, if it publishes one.
    pub published: Option<f64>,
    /// Ours.
    pub ours: Option<f64>,
    /// `ours / published` when both exist and published ≠ 0.
    pub ratio: Option<f64>,
    /// Every round's value of ours when it was timed in interleaved rounds (`ours` is then
    /// their median); empty for a quantity measured once (memory, counts).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rounds: Vec<f64>,
}

impl CmpRow {
    /// A row; the ratio is computed.
    pub fn new(label: impl Into<String>, published: Option<f64>, ours: Option<f64>) -> Self {
        let ratio = match (published, ours) {
            (Some(p), Some(o)) if p != 0.0 && p.is_finite() && o.is_finite() => Some(o / p),
            _ => None,
        };
        CmpRow {
            label: label.into(),
            published,
            ours,
            ratio,
            rounds: Vec::new(),
        }
    }

    /// A row of a timed quantity: `ours` is the median of `rounds` (one value per
    /// interleaved round, in round order), and the verdict compares the rounds' spread, not
    /// one number. Rows of one comparison with the same number of rounds are paired by round
    /// (see [`crate::verdict`]), so round `r` of every such row must come from the same
    /// interleaved round. No rounds (the quantity was not measured) gives `ours = None`.
    pub fn timed(label: impl Into<String>, published: Option<f64>, rounds: Vec<f64>) -> Self {
        let rounds: Vec<f64> = rounds.into_iter().filter(|v| v.is_finite()).collect();
        let mut row = CmpRow::new(label, published, crate::verdict::median(&rounds));
        row.rounds = rounds;
        row
    }
}

/// The paper's numbers for one metric beside ours, with a verdict.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    /// Identifier, unique in the report (`lpm-variants-mlps`).
    pub id: String,
    /// Title (`Lookup rate of the Poptrie variants, random traffic`).
    pub title: String,
    /// Where the published numbers are (`DIGEST.md §004, variant table`).
    pub source: String,
    /// What the reference column is: `paper` (published numbers) or a model (`Che's
    /// approximation`) or data set the paper's claim is checked against.
    pub reference: String,
    /// The metric and its unit (`Mlps`, `miss rate`).
    pub metric: String,
    /// Rows.
    pub rows: Vec<CmpRow>,
    /// Verdict computed from the rows.
    pub verdict: Verdict,
    /// How the verdict was computed.
    #[serde(skip)]
    rule: crate::verdict::Rule,
}

/// A claim of the paper checked against our numbers without a published table (e.g. "ZL-RED is
/// fairer than SRED"): the verdict's reason names the numbers it used.
#[derive(Clone, Debug, Serialize)]
pub struct Check {
    /// The claim, in one sentence.
    pub claim: String,
    /// Verdict.
    pub verdict: Verdict,
}

/// A cell of a [`Table`].
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum Cell {
    /// A number.
    Num(f64),
    /// Text.
    Text(String),
    /// Nothing.
    Empty,
}

impl From<f64> for Cell {
    fn from(v: f64) -> Self {
        Cell::Num(v)
    }
}
impl From<Option<f64>> for Cell {
    fn from(v: Option<f64>) -> Self {
        v.map_or(Cell::Empty, Cell::Num)
    }
}
impl From<&str> for Cell {
    fn from(v: &str) -> Self {
        Cell::Text(v.into())
    }
}
impl From<String> for Cell {
    fn from(v: String) -> Self {
        Cell::Text(v)
    }
}

/// A table of our numbers (no published counterpart, or more columns than a comparison).
#[derive(Clone, Debug, Serialize)]
pub struct Table {
    /// Identifier, unique in the report.
    pub id: String,
    /// Title.
    pub title: String,
    /// Column headers.
    pub columns: Vec<String>,
    /// Rows of cells, one per column.
    pub rows: Vec<Vec<Cell>>,
}

/// One line of a line chart.
#[derive(Clone, Debug, Serialize)]
pub struct Series {
    /// Legend.
    pub name: String,
    /// Points (x, y), in x order.
    pub points: Vec<[f64; 2]>,
    /// Drawn dashed (a reference curve: paper, model, bound).
    pub reference: bool,
}

/// One group of bars (a colour) of a bar chart: a value per category.
#[derive(Clone, Debug, Serialize)]
pub struct BarSeries {
    /// Legend.
    pub name: String,
    /// One value per category (`None`: no bar).
    pub values: Vec<Option<f64>>,
}

/// Five-number summary of a distribution (percentiles).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct BoxStat {
    /// 5th percentile (lower whisker).
    pub p5: f64,
    /// 25th percentile.
    pub p25: f64,
    /// Median.
    pub p50: f64,
    /// 75th percentile.
    pub p75: f64,
    /// 95th percentile (upper whisker).
    pub p95: f64,
}

/// One colour of a box plot: a box per category.
#[derive(Clone, Debug, Serialize)]
pub struct BoxSeries {
    /// Legend.
    pub name: String,
    /// One box per category (`None`: no data there).
    pub boxes: Vec<Option<BoxStat>>,
}

/// The data of a figure.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Plot {
    /// Line chart.
    Lines {
        /// Lines.
        series: Vec<Series>,
        /// Logarithmic x axis.
        log_x: bool,
        /// Logarithmic y axis.
        log_y: bool,
    },
    /// Grouped bar chart.
    Bars {
        /// Categories along x.
        categories: Vec<String>,
        /// Bar groups.
        series: Vec<BarSeries>,
    },
    /// Box plot (whiskers p5–p95, box p25–p75, line at the median).
    Boxes {
        /// Categories along x.
        categories: Vec<String>,
        /// Box groups.
        series: Vec<BoxSeries>,
    },
}

/// A figure: its data (also written as `DIR/<id>.csv`) and axis labels.
#[derive(Clone, Debug, Serialize)]
pub struct Figure {
    /// Identifier, unique in the report; the CSV file name.
    pub id: String,
    /// Title.
    pub title: String,
    /// The paper's figure it corresponds to (`paper 000 fig. 2`), or `beyond the paper`.
    pub paper_ref: String,
    /// X axis label.
    pub x_label: String,
    /// Y axis label.
    pub y_label: String,
    /// The data.
    pub plot: Plot,
}

/// What a section's run function returns.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Body {
    /// Inputs with their origin.
    pub inputs: Vec<Input>,
    /// Published vs ours.
    pub comparisons: Vec<Comparison>,
    /// Claims checked.
    pub checks: Vec<Check>,
    /// Figures.
    pub figures: Vec<Figure>,
    /// Tables of ours only.
    pub tables: Vec<Table>,
    /// Remarks: how the run differs from the paper's setup, what was scaled down.
    pub notes: Vec<String>,
    /// Equivalent single commands of the experiments run (for a reader who wants one part).
    pub commands: Vec<String>,
    /// The raw results of the library experiments, as they serialise.
    pub raw: serde_json::Map<String, serde_json::Value>,
}

impl Body {
    /// Stores the raw result of an experiment under `key`.
    pub fn raw(&mut self, key: &str, v: &impl Serialize) {
        let v = serde_json::to_value(v).unwrap_or_else(|e| serde_json::json!(e.to_string()));
        self.raw.insert(key.into(), v);
    }

    /// Draws the spread of every comparison timed in interleaved rounds: one figure
    /// `<comparison id>-rounds` per such comparison (unless the section drew one under that
    /// id), a box per timed row — whiskers at the lowest and highest round, box at the
    /// quartiles, line at the median — so a reader sees how far apart the rounds are before
    /// reading the verdict.
    pub fn add_round_figures(&mut self) {
        for c in &self.comparisons {
            let id = format!("{}-rounds", c.id);
            let timed: Vec<&CmpRow> = c.rows.iter().filter(|r| r.rounds.len() > 1).collect();
            if timed.is_empty() || self.figures.iter().any(|f| f.id == id) {
                continue;
            }
            let boxes = timed.iter().map(|r| Some(spread(&r.rounds))).collect();
            self.figures.push(Figure::new(
                &id,
                &format!("{}: every round", c.title),
                &c.source,
                "",
                &format!(
                    "{} — whiskers: lowest and highest round; box: quartiles; line: median",
                    c.metric
                ),
                Plot::Boxes {
                    categories: timed.iter().map(|r| r.label.clone()).collect(),
                    series: vec![BoxSeries {
                        name: format!("ours, {} rounds", timed[0].rounds.len()),
                        boxes,
                    }],
                },
            ));
        }
    }
}

/// Min, quartiles, median and max of `v` (non-empty) as a [`BoxStat`] (nearest rank).
fn spread(v: &[f64]) -> BoxStat {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let at = |q: usize| s[((s.len() - 1) * q + 50) / 100];
    BoxStat {
        p5: s[0],
        p25: at(25),
        p50: at(50),
        p75: at(75),
        p95: s[s.len() - 1],
    }
}

/// A section of the report, as run.
#[derive(Clone, Debug, Serialize)]
pub struct Section {
    /// Identifier (`lpm`, `cache`, …): what `--only` takes.
    pub id: String,
    /// Title.
    pub title: String,
    /// The paper.
    pub paper: String,
    /// The paper's claim in one or two sentences.
    pub claim: String,
    /// The command that reruns this section alone.
    pub command: String,
    /// Wall-clock seconds the section took.
    pub seconds: f64,
    /// Set when the section failed; the body is then empty.
    pub error: Option<String>,
    /// What it produced.
    #[serde(flatten)]
    pub body: Body,
}

impl Comparison {
    /// A comparison judged by `rule` (see [`crate::verdict::judge`]).
    pub fn new(
        id: &str,
        title: &str,
        source: &str,
        metric: &str,
        rows: Vec<CmpRow>,
        rule: crate::verdict::Rule,
    ) -> Self {
        let verdict = crate::verdict::judge(&rows, rule, "paper");
        Comparison {
            id: id.into(),
            title: title.into(),
            source: source.into(),
            reference: "paper".into(),
            metric: metric.into(),
            rows,
            verdict,
            rule,
        }
    }
}

impl Comparison {
    /// Names the reference column when it is not the paper (a model, a data set).
    pub fn against(mut self, reference: &str) -> Self {
        self.reference = reference.into();
        self.verdict = crate::verdict::judge(&self.rows, self.rule, reference);
        self
    }
}

impl Check {
    /// A claim and whether it holds (`why` names the numbers).
    pub fn new(claim: &str, holds: bool, why: impl Into<String>) -> Self {
        Check {
            claim: claim.into(),
            verdict: Verdict::claim(holds, why),
        }
    }
}

impl Series {
    /// A measured line.
    pub fn new(name: impl Into<String>, points: Vec<[f64; 2]>) -> Self {
        Series {
            name: name.into(),
            points,
            reference: false,
        }
    }
    /// A reference line (paper, model, bound), drawn dashed.
    pub fn reference(name: impl Into<String>, points: Vec<[f64; 2]>) -> Self {
        Series {
            reference: true,
            ..Series::new(name, points)
        }
    }
}

impl Figure {
    /// A figure.
    pub fn new(
        id: &str,
        title: &str,
        paper_ref: &str,
        x_label: &str,
        y_label: &str,
        plot: Plot,
    ) -> Self {
        Figure {
            id: id.into(),
            title: title.into(),
            paper_ref: paper_ref.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            plot,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::Rule;

    #[test]
    fn timed_comparisons_get_a_figure_of_their_rounds() {
        let mut b = Body::default();
        b.comparisons.push(Comparison::new(
            "x-rate",
            "Rate",
            "paper",
            "Mlps",
            vec![
                CmpRow::timed("a", Some(2.0), vec![5.0, 1.0, 3.0, 4.0, 2.0]),
                CmpRow::timed("b", Some(1.0), vec![1.0, 1.5, 1.2]),
                CmpRow::new("c", Some(1.0), Some(1.0)),
            ],
            Rule::Ordering { tie: 0.03 },
        ));
        b.comparisons.push(Comparison::new(
            "x-mib",
            "Memory",
            "paper",
            "MiB",
            vec![CmpRow::new("a", Some(1.0), Some(1.0))],
            Rule::Values {
                rel_tol: 0.25,
                tie: 0.05,
            },
        ));
        b.add_round_figures();
        b.add_round_figures(); // idempotent: the id is taken
        assert_eq!(
            b.figures.len(),
            1,
            "only the timed comparison is drawn, once"
        );
        let f = &b.figures[0];
        assert_eq!(f.id, "x-rate-rounds");
        let Plot::Boxes { categories, series } = &f.plot else {
            panic!("a box plot");
        };
        assert_eq!(categories, &["a", "b"]);
        let a = series[0].boxes[0].expect("row a drawn");
        assert_eq!(
            (a.p5, a.p25, a.p50, a.p75, a.p95),
            (1.0, 2.0, 3.0, 4.0, 5.0)
        );
        let b1 = series[0].boxes[1].expect("row b drawn");
        assert_eq!((b1.p5, b1.p50, b1.p95), (1.0, 1.2, 1.5));
    }
}
