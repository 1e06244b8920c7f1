//! SVG plots of FESD-J trajectories (plotters, SVG backend only, no font libraries): positions,
//! velocities, controls, contact forces and impulses, each panel with the detected switch times
//! as vertical lines.
//!
//! The input is the trajectory in the `OUT.json` contract of `fesdj simulate` / `fesdj solve`
//! (`t`, `q`, `v`, `t_u`, `u`, `stage_forces {t, lambda_n, lambda_t}`, `impacts [{t, contact,
//! Lambda_n}]`, `switch_times`), read through [`PlotData::from_json`], so plotting does not
//! depend on how the trajectory was computed.

use std::path::Path;

use plotters::prelude::*;
use serde_json::Value;
use thiserror::Error;

/// Errors of plotting.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum PlotError {
    /// A field of the trajectory document is missing or malformed.
    #[error("trajectory field `{0}` is missing or malformed")]
    Field(String),
    /// The SVG could not be drawn or written.
    #[error("cannot draw {file}: {why}")]
    Draw {
        /// Output file.
        file: String,
        /// The backend's message.
        why: String,
    },
}

/// The series of a trajectory that are plotted.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlotData {
    /// Grid times (pre/post-impact samples share a time, so jumps are vertical).
    pub t: Vec<f64>,
    /// Positions per sample.
    pub q: Vec<Vec<f64>>,
    /// Velocities per sample.
    pub v: Vec<Vec<f64>>,
    /// Start times of the control intervals.
    pub t_u: Vec<f64>,
    /// Controls per interval.
    pub u: Vec<Vec<f64>>,
    /// Stage times of the contact forces.
    pub t_force: Vec<f64>,
    /// Normal forces per stage sample.
    pub lambda_n: Vec<Vec<f64>>,
    /// Tangential forces per stage sample.
    pub lambda_t: Vec<Vec<f64>>,
    /// Impacts `(t, contact, Λ_n)`.
    pub impacts: Vec<(f64, usize, f64)>,
    /// Switch times.
    pub switch_times: Vec<f64>,
    /// End time (the last control interval ends here).
    pub t_end: f64,
    /// Further panels after the standard ones: title and named curves of `(t, y)` points
    /// (e.g. the solve times of `fesdj mpc`).
    pub extra_panels: Vec<(String, Vec<Series>)>,
}

/// A named curve of `(t, y)` points.
pub type Series = (String, Vec<(f64, f64)>);

/// Names of the plotted quantities.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlotLabels {
    /// Title.
    pub title: String,
    /// Coordinate names.
    pub q: Vec<String>,
    /// Velocity names.
    pub v: Vec<String>,
    /// Control names.
    pub u: Vec<String>,
    /// Contact names.
    pub contacts: Vec<String>,
}

fn numbers(v: &Value, field: &str) -> Result<Vec<f64>, PlotError> {
    v.as_array()
        .ok_or_else(|| PlotError::Field(field.into()))?
        .iter()
        .map(|x| x.as_f64().ok_or_else(|| PlotError::Field(field.into())))
        .collect()
}

fn rows(v: &Value, field: &str) -> Result<Vec<Vec<f64>>, PlotError> {
    v.as_array()
        .ok_or_else(|| PlotError::Field(field.into()))?
        .iter()
        .map(|r| numbers(r, field))
        .collect()
}

fn opt_rows(doc: &Value, path: &[&str]) -> Result<Vec<Vec<f64>>, PlotError> {
    let mut v = doc;
    for p in path {
        match v.get(*p) {
            Some(x) => v = x,
            None => return Ok(Vec::new()),
        }
    }
    rows(v, &path.join("."))
}

impl PlotData {
    /// Read the plotted series from a trajectory document (`t`, `q`, `v` required; the rest
    /// optional).
    pub fn from_json(doc: &Value) -> Result<PlotData, PlotError> {
        let get = |k: &str| doc.get(k).ok_or_else(|| PlotError::Field(k.into()));
        let t = numbers(get("t")?, "t")?;
        let q = rows(get("q")?, "q")?;
        let v = rows(get("v")?, "v")?;
        if q.len() != t.len() || v.len() != t.len() {
            return Err(PlotError::Field("q/v (one sample per time)".into()));
        }
        let t_u = match doc.get("t_u") {
            Some(x) => numbers(x, "t_u")?,
            None => Vec::new(),
        };
        let u = opt_rows(doc, &["u"])?;
        let t_force = match doc.get("stage_forces").and_then(|s| s.get("t")) {
            Some(x) => numbers(x, "stage_forces.t")?,
            None => Vec::new(),
        };
        let lambda_n = opt_rows(doc, &["stage_forces", "lambda_n"])?;
        let lambda_t = opt_rows(doc, &["stage_forces", "lambda_t"])?;
        let mut impacts = Vec::new();
        if let Some(list) = doc.get("impacts").and_then(Value::as_array) {
            for i in list {
                let (Some(ti), Some(c), Some(l)) = (
                    i.get("t").and_then(Value::as_f64),
                    i.get("contact").and_then(Value::as_u64),
                    i.get("Lambda_n").and_then(Value::as_f64),
                ) else {
                    return Err(PlotError::Field("impacts".into()));
                };
                impacts.push((ti, c as usize, l));
            }
        }
        let switch_times = match doc.get("switch_times") {
            Some(x) => numbers(x, "switch_times")?,
            None => Vec::new(),
        };
        let t_end = t.last().copied().unwrap_or(0.0);
        Ok(PlotData {
            t,
            q,
            v,
            t_u,
            u,
            t_force,
            lambda_n,
            lambda_t,
            impacts,
            switch_times,
            t_end,
            extra_panels: Vec::new(),
        })
    }
}

/// One curve: name and points.
type Curve = (String, Vec<(f64, f64)>);

/// One panel: title, curves, stems (impulses).
struct Panel {
    title: String,
    curves: Vec<Curve>,
    stems: Vec<Curve>,
}

fn columns(t: &[f64], rows: &[Vec<f64>], names: &[String], prefix: &str) -> Vec<Curve> {
    let n = rows.first().map_or(0, Vec::len);
    (0..n)
        .map(|i| {
            let name = names
                .get(i)
                .cloned()
                .unwrap_or_else(|| format!("{prefix}{i}"));
            let pts = t
                .iter()
                .zip(rows)
                .filter_map(|(&x, r)| r.get(i).map(|&y| (x, y)))
                .filter(|(x, y)| x.is_finite() && y.is_finite())
                .collect();
            (name, pts)
        })
        .collect()
}

/// Piecewise-constant controls as step curves.
fn steps(d: &PlotData, names: &[String]) -> Vec<Curve> {
    let n = d.u.first().map_or(0, Vec::len);
    (0..n)
        .map(|i| {
            let mut pts = Vec::new();
            for (k, u) in d.u.iter().enumerate() {
                let a = d.t_u.get(k).copied().unwrap_or(0.0);
                let b = d.t_u.get(k + 1).copied().unwrap_or(d.t_end);
                if let Some(&y) = u.get(i) {
                    pts.push((a, y));
                    pts.push((b, y));
                }
            }
            let name = names.get(i).cloned().unwrap_or_else(|| format!("u{i}"));
            (name, pts)
        })
        .collect()
}

fn panels(d: &PlotData, l: &PlotLabels) -> Vec<Panel> {
    let mut out = vec![
        Panel {
            title: "positions q".into(),
            curves: columns(&d.t, &d.q, &l.q, "q"),
            stems: Vec::new(),
        },
        Panel {
            title: "velocities v".into(),
            curves: columns(&d.t, &d.v, &l.v, "v"),
            stems: Vec::new(),
        },
    ];
    if d.u.first().is_some_and(|u| !u.is_empty()) {
        out.push(Panel {
            title: "controls u".into(),
            curves: steps(d, &l.u),
            stems: Vec::new(),
        });
    }
    let n_c = d.lambda_n.first().map_or(0, Vec::len);
    if n_c > 0 || !d.impacts.is_empty() {
        let names: Vec<String> = (0..n_c)
            .map(|c| format!("λn {}", l.contacts.get(c).cloned().unwrap_or(c.to_string())))
            .collect();
        let mut curves = columns(&d.t_force, &d.lambda_n, &names, "λn ");
        curves.extend(columns(&d.t_force, &d.lambda_t, &[], "λt "));
        out.push(Panel {
            title: "contact forces".into(),
            curves,
            stems: Vec::new(),
        });
        let mut stems: Vec<Curve> = Vec::new();
        for &(t, c, lam) in &d.impacts {
            let name = format!("Λn {}", l.contacts.get(c).cloned().unwrap_or(c.to_string()));
            match stems.iter_mut().find(|(n, _)| *n == name) {
                Some((_, pts)) => pts.push((t, lam)),
                None => stems.push((name, vec![(t, lam)])),
            }
        }
        out.push(Panel {
            title: "normal impulses".into(),
            curves: Vec::new(),
            stems,
        });
    }
    for (title, curves) in &d.extra_panels {
        out.push(Panel {
            title: title.clone(),
            curves: curves.clone(),
            stems: Vec::new(),
        });
    }
    out
}

fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for y in values.filter(|y| y.is_finite()) {
        lo = lo.min(y);
        hi = hi.max(y);
    }
    if !lo.is_finite() {
        return (-1.0, 1.0);
    }
    let pad = ((hi - lo) * 0.05).max(1e-9 * (1.0 + hi.abs()));
    if hi - lo < 1e-12 {
        return (lo - 0.5 - pad, hi + 0.5 + pad);
    }
    (lo - pad, hi + pad)
}

/// Draw `data` to the SVG file `path`.
pub fn plot_svg(data: &PlotData, labels: &PlotLabels, path: &Path) -> Result<(), PlotError> {
    let err = |why: String| PlotError::Draw {
        file: path.display().to_string(),
        why,
    };
    let ps = panels(data, labels);
    let height = 40 + 260 * ps.len() as u32;
    let root = SVGBackend::new(path, (1000, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let root = root
        .titled(&labels.title, ("sans-serif", 22))
        .map_err(|e| err(e.to_string()))?;
    let t0 = data.t.first().copied().unwrap_or(0.0);
    let t1 = data.t_end.max(t0 + 1e-9);
    for (area, p) in root.split_evenly((ps.len(), 1)).iter().zip(&ps) {
        let ys = p
            .curves
            .iter()
            .chain(&p.stems)
            .flat_map(|(_, pts)| pts.iter().map(|(_, y)| *y))
            .chain(p.stems.iter().map(|_| 0.0));
        let (y0, y1) = range(ys);
        let mut chart = ChartBuilder::on(area)
            .caption(&p.title, ("sans-serif", 16))
            .margin(8)
            .x_label_area_size(30)
            .y_label_area_size(60)
            .build_cartesian_2d(t0..t1, y0..y1)
            .map_err(|e| err(e.to_string()))?;
        chart
            .configure_mesh()
            .x_desc("t [s]")
            .light_line_style(WHITE)
            .draw()
            .map_err(|e| err(e.to_string()))?;
        let switch_style = RGBColor(90, 90, 90).mix(0.7).stroke_width(1);
        for (i, &ts) in data.switch_times.iter().enumerate() {
            let s = chart
                .draw_series(DashedLineSeries::new(
                    vec![(ts, y0), (ts, y1)],
                    5,
                    4,
                    switch_style,
                ))
                .map_err(|e| err(e.to_string()))?;
            if i == 0 {
                s.label("switch").legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 16, y)], switch_style)
                });
            }
        }
        let mut k = 0;
        for (name, pts) in &p.curves {
            let color = Palette99::pick(k).to_rgba();
            k += 1;
            chart
                .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
                .map_err(|e| err(e.to_string()))?
                .label(name)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color));
        }
        for (name, pts) in &p.stems {
            let color = Palette99::pick(k).to_rgba();
            k += 1;
            for &(x, y) in pts {
                chart
                    .draw_series(LineSeries::new(
                        vec![(x, 0.0), (x, y)],
                        color.stroke_width(2),
                    ))
                    .map_err(|e| err(e.to_string()))?;
            }
            chart
                .draw_series(
                    pts.iter()
                        .map(|&(x, y)| Circle::new((x, y), 4, color.filled())),
                )
                .map_err(|e| err(e.to_string()))?
                .label(name)
                .legend(move |(x, y)| Circle::new((x + 8, y), 4, color.filled()));
        }
        if k > 0 || !data.switch_times.is_empty() {
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK.mix(0.4))
                .position(SeriesLabelPosition::UpperRight)
                .draw()
                .map_err(|e| err(e.to_string()))?;
        }
    }
    root.present().map_err(|e| err(e.to_string()))?;
    Ok(())
}
