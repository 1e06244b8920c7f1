//! The per-family table of a benchmark run: solved counts, median times and time ratios,
//! objective agreement, the stationarity verdicts of ours (formulation §10.8), from the
//! results' records; as Markdown and JSON.

use std::collections::BTreeMap;

use serde::Serialize;

use super::record::{Record, IPOPT_BRF0, IPOPT_DEFAULT, OBJ_FLOOR, OBJ_RTOL, OURS};

/// One row of the table (a family, or all problems).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Row {
    /// Family (or `all`).
    pub family: String,
    /// Problems.
    pub problems: usize,
    /// Solved by ours.
    pub ours_solved: usize,
    /// Solved by IPOPT with bound_relax_factor 0 (None: not run).
    pub ipopt_brf0_solved: Option<usize>,
    /// Solved by IPOPT with its defaults (None: not run).
    pub ipopt_default_solved: Option<usize>,
    /// Median of ours' time over problems ours solved, seconds.
    pub ours_median_time_s: Option<f64>,
    /// Median time ratio ours / IPOPT (brf 0) over problems both solved.
    pub median_time_ratio: Option<f64>,
    /// Problems both solved (ours and IPOPT brf 0).
    pub both_solved: usize,
    /// Of those, objectives within 1e-4 relative.
    pub objective_agree: usize,
    /// Of those, ours lower beyond the tolerance.
    pub objective_ours_lower: usize,
    /// Of those, ours higher beyond the tolerance.
    pub objective_ours_higher: usize,
    /// Problems ours solved with a certified B-stationary point (verdict `S` or `B`).
    pub ours_b_certified: usize,
    /// Verdicts of ours' certificate over the problems ours solved (`unchecked` for results
    /// without one).
    pub ours_verdicts: BTreeMap<String, usize>,
    /// Branch-NLP steps of the certificate that ours kept (lower objective).
    pub ours_descent_kept: usize,
    /// Problems ours solved whose result is its second homotopy path's (lower objective, or
    /// solved where the first path was not).
    pub ours_second_path_kept: usize,
}

/// The per-family table.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Table {
    /// One row per family, sorted by name.
    pub families: Vec<Row>,
    /// All problems.
    pub total: Row,
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    v.retain(|x| x.is_finite());
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    })
}

impl Row {
    fn new(family: &str, recs: &[&Record]) -> Row {
        let mut by_problem: BTreeMap<&str, BTreeMap<&str, &Record>> = BTreeMap::new();
        for r in recs {
            by_problem
                .entry(r.problem.as_str())
                .or_default()
                .insert(r.solver.as_str(), r);
        }
        let solved = |s: &str| {
            let ran = by_problem.values().any(|m| m.contains_key(s));
            ran.then(|| {
                by_problem
                    .values()
                    .filter(|m| m.get(s).is_some_and(|r| r.solved))
                    .count()
            })
        };
        let mut ratios = Vec::new();
        let mut ours_times = Vec::new();
        let mut verdicts: BTreeMap<String, usize> = BTreeMap::new();
        let (mut b_cert, mut kept, mut second) = (0, 0, 0);
        let (mut both, mut agree, mut lower, mut higher) = (0, 0, 0, 0);
        for m in by_problem.values() {
            let ours = m.get(OURS).filter(|r| r.solved);
            if let Some(o) = ours {
                ours_times.push(o.time_s);
                let v = if o.stationarity.is_empty() {
                    "unchecked"
                } else {
                    o.stationarity.as_str()
                };
                *verdicts.entry(v.to_string()).or_default() += 1;
                if matches!(v, "S" | "B") {
                    b_cert += 1;
                }
                if o.second_path["kept"].as_bool() == Some(true) {
                    second += 1;
                }
            }
            if m.get(OURS)
                .is_some_and(|r| r.descent["kept"].as_bool() == Some(true))
            {
                kept += 1;
            }
            if let (Some(o), Some(i)) = (ours, m.get(IPOPT_BRF0).filter(|r| r.solved)) {
                both += 1;
                if i.time_s > 0.0 {
                    ratios.push(o.time_s / i.time_s);
                }
                let tol = OBJ_RTOL * i.objective.abs().max(OBJ_FLOOR);
                if (o.objective - i.objective).abs() <= tol {
                    agree += 1;
                } else if o.objective < i.objective {
                    lower += 1;
                } else {
                    higher += 1;
                }
            }
        }
        Row {
            family: family.to_string(),
            problems: by_problem.len(),
            ours_solved: solved(OURS).unwrap_or(0),
            ipopt_brf0_solved: solved(IPOPT_BRF0),
            ipopt_default_solved: solved(IPOPT_DEFAULT),
            ours_median_time_s: median(ours_times),
            median_time_ratio: median(ratios),
            both_solved: both,
            objective_agree: agree,
            objective_ours_lower: lower,
            objective_ours_higher: higher,
            ours_b_certified: b_cert,
            ours_verdicts: verdicts,
            ours_descent_kept: kept,
            ours_second_path_kept: second,
        }
    }
}

/// Order of the verdicts in the Markdown table.
const ORDER: [&str; 7] = ["S", "B", "M", "C", "weak", "unknown", "unchecked"];

impl Table {
    /// The table of `records` (one per problem and solver; a later record of the same pair
    /// replaces an earlier one).
    pub fn new(records: &[Record]) -> Table {
        let mut latest: BTreeMap<(&str, &str), &Record> = BTreeMap::new();
        for r in records {
            latest.insert((r.problem.as_str(), r.solver.as_str()), r);
        }
        let all: Vec<&Record> = latest.values().copied().collect();
        let mut fams: BTreeMap<&str, Vec<&Record>> = BTreeMap::new();
        for r in &all {
            fams.entry(r.family.as_str()).or_default().push(r);
        }
        Table {
            families: fams.iter().map(|(f, rs)| Row::new(f, rs)).collect(),
            total: Row::new("all", &all),
        }
    }

    /// The table as Markdown.
    pub fn markdown(&self) -> String {
        let pct = |k: usize, n: usize| {
            if n == 0 {
                "–".to_string()
            } else {
                format!("{k} ({:.0} %)", 100.0 * k as f64 / n as f64)
            }
        };
        let opt = |k: Option<usize>, n: usize| k.map_or("–".to_string(), |k| pct(k, n));
        let num = |x: Option<f64>, d: usize| x.map_or("–".to_string(), |x| format!("{x:.d$}"));
        let mut s = String::from(
            "| family | problems | ours solved | IPOPT brf=0 solved | IPOPT default solved | \
             ours median time s | median time ours/IPOPT | objectives agree / ours lower / ours higher | \
             ours certified B (of solved) | ours verdicts | descent steps kept | second path kept |\n\
             |---|---:|---:|---:|---:|---:|---:|---|---:|---|---:|---:|\n",
        );
        for r in self.families.iter().chain(std::iter::once(&self.total)) {
            let name = if r.family == "all" {
                "**all**".to_string()
            } else {
                r.family.clone()
            };
            let verdicts = if r.ours_verdicts.is_empty() {
                "–".to_string()
            } else {
                ORDER
                    .iter()
                    .filter_map(|v| r.ours_verdicts.get(*v).map(|k| format!("{v} {k}")))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            s += &format!(
                "| {name} | {} | {} | {} | {} | {} | {} | {} | {} | {verdicts} | {} | {} |\n",
                r.problems,
                pct(r.ours_solved, r.problems),
                opt(r.ipopt_brf0_solved, r.problems),
                opt(r.ipopt_default_solved, r.problems),
                num(r.ours_median_time_s, 3),
                num(r.median_time_ratio, 3),
                if r.both_solved == 0 {
                    "–".to_string()
                } else {
                    format!(
                        "{} / {} / {} of {}",
                        r.objective_agree,
                        r.objective_ours_lower,
                        r.objective_ours_higher,
                        r.both_solved
                    )
                },
                pct(r.ours_b_certified, r.ours_solved),
                r.ours_descent_kept,
                r.ours_second_path_kept,
            );
        }
        s
    }
}
