//! Draws a [`Figure`] as an inline SVG with plotters' SVG backend (text as `<text>` elements
//! in a generic sans-serif family: no font file, no external reference), and writes its data
//! as CSV.

use crate::model::{BoxStat, Figure, Plot};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

/// Width and height of every figure, pixels.
pub const SIZE: (u32, u32) = (680, 420);

const COLORS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

fn color(i: usize) -> RGBColor {
    COLORS[i % COLORS.len()]
}

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type DrawResult = Result<(), String>;

fn e<E: std::fmt::Display>(err: E) -> String {
    err.to_string()
}

/// The figure as an `<svg>` element.
pub fn svg(f: &Figure) -> Result<String, String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(e)?;
        match &f.plot {
            Plot::Lines {
                series,
                log_x,
                log_y,
            } => lines(&root, f, series, *log_x, *log_y)?,
            Plot::Bars { categories, series } => {
                let groups: Vec<(String, Vec<Option<f64>>)> = series
                    .iter()
                    .map(|s| (s.name.clone(), s.values.clone()))
                    .collect();
                bars(&root, f, categories, &groups)?
            }
            Plot::Boxes { categories, series } => boxes(&root, f, categories, series)?,
        }
        root.present().map_err(e)?;
    }
    Ok(out)
}

/// Range of `v` padded for drawing; on a log axis only positive values count.
fn range(v: impl Iterator<Item = f64>, log: bool, from_zero: bool) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for x in v.filter(|x| x.is_finite() && (!log || *x > 0.0)) {
        lo = lo.min(x);
        hi = hi.max(x);
    }
    if !lo.is_finite() {
        return if log { (1.0, 10.0) } else { (0.0, 1.0) };
    }
    if log {
        (lo / 1.3, hi * 1.3)
    } else {
        if from_zero && lo > 0.0 {
            lo = 0.0;
        }
        let pad = ((hi - lo) * 0.06).max(hi.abs() * 1e-3).max(1e-9);
        (
            if from_zero && lo == 0.0 {
                0.0
            } else {
                lo - pad
            },
            hi + pad,
        )
    }
}

fn label_num(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        "0".into()
    } else if a >= 1e6 {
        format!("{:.0}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.0}K", v / 1e3)
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.1}")
    } else {
        let s = format!("{v:.4}");
        s.trim_end_matches('0').to_string()
    }
}

fn lines(
    root: &Area<'_>,
    f: &Figure,
    series: &[crate::model::Series],
    log_x: bool,
    log_y: bool,
) -> DrawResult {
    let (x0, x1) = range(
        series.iter().flat_map(|s| s.points.iter().map(|p| p[0])),
        log_x,
        false,
    );
    let (y0, y1) = range(
        series.iter().flat_map(|s| s.points.iter().map(|p| p[1])),
        log_y,
        !log_y,
    );
    let pos = emptiest_corner(series.iter().flat_map(|s| {
        let p: Vec<(f64, f64)> = s
            .points
            .iter()
            .map(|p| (unit(p[0], x0, x1, log_x), unit(p[1], y0, y1, log_y)))
            .collect();
        let segs: Vec<(f64, f64)> = p.windows(2).flat_map(|w| along(w[0], w[1])).collect();
        p.into_iter().chain(segs)
    }));
    let mut b = ChartBuilder::on(root);
    b.caption(&f.title, ("sans-serif", 17))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(64);
    macro_rules! draw {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .x_desc(&f.x_label)
                .y_desc(&f.y_label)
                .x_label_formatter(&|v| label_num(*v))
                .y_label_formatter(&|v| label_num(*v))
                .light_line_style(RGBColor(235, 235, 235))
                .draw()
                .map_err(e)?;
            for (i, s) in series.iter().enumerate() {
                let c = color(i);
                let pts: Vec<(f64, f64)> = s
                    .points
                    .iter()
                    .filter(|p| {
                        p[0].is_finite()
                            && p[1].is_finite()
                            && (!log_x || p[0] > 0.0)
                            && (!log_y || p[1] > 0.0)
                    })
                    .map(|p| (p[0], p[1]))
                    .collect();
                let style = if s.reference {
                    c.stroke_width(1)
                } else {
                    c.stroke_width(2)
                };
                let anno = if s.reference {
                    chart
                        .draw_series(DashedLineSeries::new(pts.clone(), 6, 4, style))
                        .map_err(e)?
                } else {
                    chart
                        .draw_series(LineSeries::new(pts.clone(), style))
                        .map_err(e)?
                };
                anno.label(&s.name).legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2))
                });
                chart
                    .draw_series(pts.iter().map(|&p| Circle::new(p, 2, c.filled())))
                    .map_err(e)?;
            }
            legend(&mut chart, pos.clone())?;
        }};
    }
    match (log_x, log_y) {
        (false, false) => draw!(b.build_cartesian_2d(x0..x1, y0..y1).map_err(e)?),
        (true, false) => draw!(b
            .build_cartesian_2d((x0..x1).log_scale(), y0..y1)
            .map_err(e)?),
        (false, true) => draw!(b
            .build_cartesian_2d(x0..x1, (y0..y1).log_scale())
            .map_err(e)?),
        (true, true) => draw!(b
            .build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())
            .map_err(e)?),
    }
    Ok(())
}

/// A chart with two linear f64 axes.
type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// The category at axis position `v` (categories at 0, 1, …, n−1; `reverse`: the first at
/// the top of a vertical category axis).
fn category(categories: &[String], v: f64, reverse: bool) -> String {
    let i = v.round();
    let n = categories.len();
    if (v - i).abs() > 1e-6 || i < 0.0 || i as usize >= n {
        return String::new();
    }
    let i = if reverse {
        n - 1 - i as usize
    } else {
        i as usize
    };
    categories[i].clone()
}

/// A chart with categories at x = 0, 1, …, n−1 and a linear y axis from `y0` to `y1` (box
/// plots: short category names).
fn categorical<'a, 'b>(
    root: &'a Area<'b>,
    f: &Figure,
    categories: &'a [String],
    y0: f64,
    y1: f64,
) -> Result<Chart<'a, 'b>, String> {
    let n = categories.len().max(1);
    let mut chart = ChartBuilder::on(root)
        .caption(&f.title, ("sans-serif", 17))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(-0.5..(n as f64 - 0.5), y0..y1)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc(&f.x_label)
        .y_desc(&f.y_label)
        .x_labels(n)
        .x_label_formatter(&|v| category(categories, *v, false))
        .y_label_formatter(&|v| label_num(*v))
        .disable_x_mesh()
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(e)?;
    Ok(chart)
}

/// A horizontal chart: categories down the y axis (first at the top, names written
/// horizontally however long), values along x from `x0` to `x1` (bar charts).
fn categorical_h<'a, 'b>(
    root: &'a Area<'b>,
    f: &Figure,
    categories: &'a [String],
    x0: f64,
    x1: f64,
) -> Result<Chart<'a, 'b>, String> {
    let n = categories.len().max(1);
    let long = categories
        .iter()
        .map(|c| c.chars().count())
        .max()
        .unwrap_or(4) as u32;
    let mut chart = ChartBuilder::on(root)
        .caption(&f.title, ("sans-serif", 17))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(30 + 7 * long)
        .build_cartesian_2d(x0..x1, -0.5..(n as f64 - 0.5))
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc(&f.y_label)
        .y_labels(n)
        .y_label_formatter(&|v| category(categories, *v, true))
        .x_label_formatter(&|v| label_num(*v))
        .disable_y_mesh()
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(e)?;
    Ok(chart)
}

/// The corner of the plot area that covers the fewest of `pts` (coordinates scaled to the
/// unit square, y up), where the legend hides the least data. Prefers the upper right.
fn emptiest_corner(pts: impl Iterator<Item = (f64, f64)>) -> SeriesLabelPosition {
    let mut n = [0usize; 4]; // upper right, upper left, lower right, lower left
    for (x, y) in pts.filter(|p| p.0.is_finite() && p.1.is_finite()) {
        let (r, l, u, d) = (x > 0.5, x < 0.5, y > 0.55, y < 0.45);
        for (i, hit) in [r && u, l && u, r && d, l && d].into_iter().enumerate() {
            n[i] += hit as usize;
        }
    }
    let best = (0..4).min_by_key(|&i| (n[i], i)).unwrap_or(0);
    [
        SeriesLabelPosition::UpperRight,
        SeriesLabelPosition::UpperLeft,
        SeriesLabelPosition::LowerRight,
        SeriesLabelPosition::LowerLeft,
    ][best]
        .clone()
}

/// `v` scaled to [0, 1] between `lo` and `hi` (logarithmically on a log axis).
fn unit(v: f64, lo: f64, hi: f64, log: bool) -> f64 {
    if log {
        (v.ln() - lo.ln()) / (hi.ln() - lo.ln())
    } else {
        (v - lo) / (hi - lo)
    }
}

/// Points along the segment from `a` to `b` (for [`emptiest_corner`]).
fn along(a: (f64, f64), b: (f64, f64)) -> impl Iterator<Item = (f64, f64)> {
    (0..=8).map(move |k| {
        let t = k as f64 / 8.0;
        (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t)
    })
}

fn legend<'a, 'b: 'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, SVGBackend<'b>, CT>,
    pos: SeriesLabelPosition,
) -> DrawResult {
    chart
        .configure_series_labels()
        .position(pos)
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(180, 180, 180))
        .label_font(("sans-serif", 12))
        .draw()
        .map_err(|err| err.to_string())
}

fn bars(
    root: &Area<'_>,
    f: &Figure,
    categories: &[String],
    groups: &[(String, Vec<Option<f64>>)],
) -> DrawResult {
    let (y0, y1) = range(
        groups.iter().flat_map(|g| g.1.iter().flatten().copied()),
        false,
        true,
    );
    let mut chart = categorical_h(root, f, categories, y0, y1 * 1.12)?;
    let n = categories.len();
    let pos = emptiest_corner(groups.iter().flat_map(|g| {
        g.1.iter().enumerate().flat_map(move |(i, v)| {
            let y = (n - 1 - i) as f64 / n.max(2).saturating_sub(1) as f64;
            along((0.0, y), (v.unwrap_or(0.0) / (y1 * 1.12), y))
        })
    }));
    let k = groups.len().max(1) as f64;
    let w = 0.8 / k;
    for (gi, (name, vals)) in groups.iter().enumerate() {
        let c = color(gi);
        let rects: Vec<Rectangle<(f64, f64)>> = vals
            .iter()
            .enumerate()
            .filter_map(|(i, v)| {
                let v = (*v)?;
                // First category at the top; first group at the top of its slot.
                let y = (n - 1 - i) as f64 + 0.4 - gi as f64 * w;
                Some(Rectangle::new([(0.0, y), (v, y - w * 0.92)], c.filled()))
            })
            .collect();
        chart
            .draw_series(rects)
            .map_err(e)?
            .label(name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], c.filled()));
    }
    legend(&mut chart, pos)
}

fn boxes(
    root: &Area<'_>,
    f: &Figure,
    categories: &[String],
    series: &[crate::model::BoxSeries],
) -> DrawResult {
    let all = |b: &BoxStat| [b.p5, b.p95];
    let (y0, y1) = range(
        series
            .iter()
            .flat_map(|s| s.boxes.iter().flatten().flat_map(all)),
        false,
        true,
    );
    let mut chart = categorical(root, f, categories, y0, y1 * 1.08)?;
    let nc = categories.len().max(2) - 1;
    let pos = emptiest_corner(series.iter().flat_map(|s| {
        s.boxes.iter().enumerate().flat_map(move |(i, b)| {
            let x = i as f64 / nc as f64;
            b.iter()
                .flat_map(move |b| along((x, b.p5 / (y1 * 1.08)), (x, b.p95 / (y1 * 1.08))))
        })
    }));
    let k = series.len().max(1) as f64;
    let w = 0.8 / k;
    for (si, s) in series.iter().enumerate() {
        let c = color(si);
        let mut shapes: Vec<DynElement<'static, SVGBackend<'_>, (f64, f64)>> = Vec::new();
        for (i, b) in s.boxes.iter().enumerate() {
            let Some(b) = b else { continue };
            let x = i as f64 - 0.4 + si as f64 * w;
            let (l, r, m) = (x + w * 0.1, x + w * 0.9, x + w * 0.5);
            shapes.push(Rectangle::new([(l, b.p25), (r, b.p75)], c.mix(0.35).filled()).into_dyn());
            shapes.push(Rectangle::new([(l, b.p25), (r, b.p75)], c.stroke_width(1)).into_dyn());
            shapes
                .push(PathElement::new(vec![(l, b.p50), (r, b.p50)], c.stroke_width(2)).into_dyn());
            shapes
                .push(PathElement::new(vec![(m, b.p5), (m, b.p25)], c.stroke_width(1)).into_dyn());
            shapes
                .push(PathElement::new(vec![(m, b.p75), (m, b.p95)], c.stroke_width(1)).into_dyn());
            for y in [b.p5, b.p95] {
                shapes.push(
                    PathElement::new(vec![(x + w * 0.3, y), (x + w * 0.7, y)], c.stroke_width(1))
                        .into_dyn(),
                );
            }
        }
        chart
            .draw_series(shapes)
            .map_err(e)?
            .label(&s.name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], c.filled()));
    }
    legend(&mut chart, pos)
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn csv_num(v: Option<f64>) -> String {
    match v {
        Some(x) if x.is_finite() => format!("{x}"),
        _ => String::new(),
    }
}

/// The figure's data as CSV (lines: `series,x,y`; bars: `category,<series…>`; boxes:
/// `category,series,p5,p25,p50,p75,p95`).
pub fn csv(f: &Figure) -> String {
    let mut out = String::new();
    match &f.plot {
        Plot::Lines { series, .. } => {
            out.push_str(&format!(
                "series,{},{}\n",
                csv_field(&f.x_label),
                csv_field(&f.y_label)
            ));
            for s in series {
                for p in &s.points {
                    out.push_str(&format!(
                        "{},{},{}\n",
                        csv_field(&s.name),
                        csv_num(Some(p[0])),
                        csv_num(Some(p[1]))
                    ));
                }
            }
        }
        Plot::Bars { categories, series } => {
            out.push_str("category");
            for s in series {
                out.push_str(&format!(",{}", csv_field(&s.name)));
            }
            out.push('\n');
            for (i, c) in categories.iter().enumerate() {
                out.push_str(&csv_field(c));
                for s in series {
                    out.push_str(&format!(",{}", csv_num(s.values.get(i).copied().flatten())));
                }
                out.push('\n');
            }
        }
        Plot::Boxes { categories, series } => {
            out.push_str("category,series,p5,p25,p50,p75,p95\n");
            for s in series {
                for (c, b) in categories.iter().zip(&s.boxes) {
                    if let Some(b) = b {
                        out.push_str(&format!(
                            "{},{},{},{},{},{},{}\n",
                            csv_field(c),
                            csv_field(&s.name),
                            b.p5,
                            b.p25,
                            b.p50,
                            b.p75,
                            b.p95
                        ));
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BarSeries, BoxSeries, Series};

    fn fig(plot: Plot) -> Figure {
        Figure {
            id: "t".into(),
            title: "T".into(),
            paper_ref: "none".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            plot,
        }
    }

    #[test]
    fn the_legend_goes_where_the_data_is_not() {
        // A rising line fills the lower left and upper right.
        let rising = (0..=10).map(|i| (i as f64 / 10.0, i as f64 / 10.0));
        assert!(matches!(
            emptiest_corner(rising),
            SeriesLabelPosition::UpperLeft
        ));
        let flat_top = (0..=10).map(|i| (i as f64 / 10.0, 0.9));
        assert!(matches!(
            emptiest_corner(flat_top),
            SeriesLabelPosition::LowerRight
        ));
        assert!(matches!(
            emptiest_corner(std::iter::empty()),
            SeriesLabelPosition::UpperRight
        ));
    }

    #[test]
    fn every_kind_draws_an_svg_and_a_csv() {
        let figs = [
            fig(Plot::Lines {
                series: vec![Series {
                    name: "a,b".into(),
                    points: vec![[1.0, 0.5], [10.0, 0.25], [100.0, 0.0]],
                    reference: true,
                }],
                log_x: true,
                log_y: false,
            }),
            fig(Plot::Bars {
                categories: vec!["lru".into(), "hpc4".into()],
                series: vec![BarSeries {
                    name: "ours".into(),
                    values: vec![Some(0.3), None],
                }],
            }),
            fig(Plot::Boxes {
                categories: vec!["/8".into(), "/24".into()],
                series: vec![BoxSeries {
                    name: "poptrie18".into(),
                    boxes: vec![
                        None,
                        Some(BoxStat {
                            p5: 10.0,
                            p25: 12.0,
                            p50: 14.0,
                            p75: 20.0,
                            p95: 40.0,
                        }),
                    ],
                }],
            }),
        ];
        for f in &figs {
            let s = svg(f).unwrap();
            assert!(
                s.starts_with("<svg") && s.trim_end().ends_with("</svg>"),
                "{s}"
            );
            assert!(s.contains(">\nT\n</text>"), "title drawn: {s}");
        }
        assert_eq!(
            csv(&figs[0]),
            "series,x,y\n\"a,b\",1,0.5\n\"a,b\",10,0.25\n\"a,b\",100,0\n"
        );
        assert_eq!(csv(&figs[1]), "category,ours\nlru,0.3\nhpc4,\n");
        assert_eq!(
            csv(&figs[2]),
            "category,series,p5,p25,p50,p75,p95\n/24,poptrie18,10,12,14,20,40\n"
        );
    }
}
