//! The `ocp`, `horizon` and `simulation` sections → [`Ocp`] + [`FesdjOptions`].

use std::rc::Rc;

use crate::ad::Sx;
use crate::config::expr::Expr;
use crate::fesdj::ocp::{Constraint, Periodic};
use crate::fesdj::{
    transcribe, Bounds, ClsModel, FesdjOptions, Layout, LsqTracking, Ocp, Transcription,
};
use crate::mpc::PeriodicReference;

use super::error::{invalid, shape, ConfigError};
use super::problem::{ModelSource, Problem};
use super::schema::{
    BoxSpec, ConstraintSpec, Numbers, OcpSpec, PeriodicSpec, StartSpec, TrackingCost,
};
use super::symbols::{Scope, Symbols};
use super::tree::{join_index, join_key};

/// An OCP ready to transcribe: the problem, the options (horizon applied) and the LSQ state
/// reference of every interval (parameters of the MPCC, see [`OcpSetup::transcribe`]).
pub struct OcpSetup {
    /// The problem.
    pub ocp: Ocp,
    /// The options (`n_intervals = horizon.N`, `t_final = horizon.T`).
    pub options: FesdjOptions,
    /// `x_ref_k` per interval (LSQ tracking only).
    pub x_ref: Option<Vec<Vec<f64>>>,
    /// `ocp.x_ref_period`: the periodic reference, and whether it also sets the terminal
    /// reference (no explicit `x_ref_T`).
    pub periodic: Option<(PeriodicReference, bool)>,
    /// `ocp.start`: the controls fixed in the first solve (intervals `0, 1, …`) and σ₀ of the
    /// second (see [`StartSpec`](super::schema::StartSpec)).
    pub start: Option<(Vec<Vec<f64>>, f64)>,
}

impl OcpSetup {
    /// Transcribe and write the per-interval references into the default parameters `p0`.
    pub fn transcribe(&self) -> Result<Transcription, ConfigError> {
        let mut mpcc =
            transcribe(&self.ocp, &self.options).map_err(|source| ConfigError::Fesdj {
                field: "ocp".into(),
                source,
            })?;
        self.apply_references(&mut mpcc);
        Ok(mpcc)
    }

    /// Write `x_ref` into `mpcc.p0` (indices from the layout).
    pub fn apply_references(&self, mpcc: &mut Transcription) {
        self.write_references(&mpcc.layout, &mut mpcc.p0);
    }

    /// Write `x_ref` into a parameter vector laid out by `layout` (e.g. the parameters of a
    /// problem object built from [`OcpSetup::ocp`] and [`OcpSetup::options`]).
    pub fn write_references(&self, layout: &Layout, p: &mut [f64]) {
        if let Some(refs) = &self.x_ref {
            for (k, r) in refs.iter().enumerate() {
                if let Some(idx) = layout.params.x_ref.get(k) {
                    for (&i, &x) in idx.iter().zip(r) {
                        if let Some(slot) = p.get_mut(i) {
                            *slot = x;
                        }
                    }
                }
            }
        }
    }
}

/// One simulation step problem (`N = 1` over `T_sim / N_sim`) and the controls of every step.
pub struct SimulationSetup {
    /// The step problem; its `u_bounds` fix the control to the first step's `controls[0]`
    /// (change the bounds of the control variables for the other steps).
    pub ocp: Ocp,
    /// Options of one step (`n_intervals = 1`, `t_final = T_sim / N_sim`).
    pub options: FesdjOptions,
    /// Number of steps `N_sim`.
    pub n_steps: usize,
    /// The control of every step (`N_sim` vectors of `n_u`).
    pub controls: Vec<Vec<f64>>,
    /// `simulation.max_speed`, one per coordinate.
    pub speed_limits: Option<Vec<f64>>,
    /// `simulation.fallback_substeps` (≥ 2).
    pub fallback_substeps: Option<usize>,
}

/// One number for all `len` entries or a list of exactly `len`; NaN is rejected (infinite
/// entries are allowed: bounds).
pub(super) fn vector(field: &str, n: &Numbers, len: usize) -> Result<Vec<f64>, ConfigError> {
    let v = match n {
        Numbers::One(x) => vec![*x; len],
        Numbers::List(l) if l.len() == len => l.clone(),
        Numbers::List(l) => {
            return Err(shape(
                field,
                format!("{len} entries (or one number for all)"),
                l.len().to_string(),
            ))
        }
    };
    if let Some(i) = v.iter().position(|x| x.is_nan()) {
        return Err(invalid(join_index(field, i), "is NaN"));
    }
    Ok(v)
}

fn box_bounds(field: &str, b: &BoxSpec, n: usize) -> Result<(Vec<f64>, Vec<f64>), ConfigError> {
    if b.abs.is_some() && (b.lb.is_some() || b.ub.is_some()) {
        return Err(invalid(field, "give `abs` or `lb`/`ub`, not both"));
    }
    if let Some(a) = &b.abs {
        let a = vector(&join_key(field, "abs"), a, n)?;
        if let Some(i) = a.iter().position(|x| *x < 0.0) {
            return Err(invalid(
                join_index(&join_key(field, "abs"), i),
                "must be ≥ 0",
            ));
        }
        return Ok((a.iter().map(|x| -x).collect(), a));
    }
    let lb = match &b.lb {
        Some(l) => vector(&join_key(field, "lb"), l, n)?,
        None => vec![f64::NEG_INFINITY; n],
    };
    let ub = match &b.ub {
        Some(u) => vector(&join_key(field, "ub"), u, n)?,
        None => vec![f64::INFINITY; n],
    };
    if let Some(i) = (0..n).find(|&i| lb[i] > ub[i]) {
        return Err(invalid(
            format!("{field}[{i}]"),
            format!("needs lb ≤ ub, got [{}, {}]", lb[i], ub[i]),
        ));
    }
    Ok((lb, ub))
}

/// The checked `ocp.start` of a horizon of `n` intervals with `n_u` controls.
fn staged_start(st: &StartSpec, n: usize, n_u: usize) -> Result<(Vec<Vec<f64>>, f64), ConfigError> {
    let field = "ocp.start.fixed_controls";
    if st.fixed_controls.is_empty() || st.fixed_controls.len() > n {
        return Err(invalid(
            field,
            format!(
                "needs 1 to horizon.N = {n} controls, got {}",
                st.fixed_controls.len()
            ),
        ));
    }
    let mut fixed = Vec::with_capacity(st.fixed_controls.len());
    for (k, u) in st.fixed_controls.iter().enumerate() {
        let f = join_index(field, k);
        let u = vector(&f, u, n_u)?;
        if u.iter().any(|x| !x.is_finite()) {
            return Err(invalid(f, "must be finite"));
        }
        fixed.push(u);
    }
    let s = st.release_sigma0;
    if !(s.is_finite() && s > 0.0) {
        return Err(invalid(
            "ocp.start.release_sigma0",
            format!("must be finite and > 0, got {s}"),
        ));
    }
    Ok((fixed, s))
}

/// Intersect a configured box with model limits; `None` when everything is unbounded.
fn merge(
    field: &str,
    spec: Option<&BoxSpec>,
    limits: Option<&(Vec<f64>, Vec<f64>)>,
    n: usize,
) -> Result<Option<Bounds>, ConfigError> {
    let (mut lb, mut ub) = match spec {
        Some(b) => box_bounds(field, b, n)?,
        None => (vec![f64::NEG_INFINITY; n], vec![f64::INFINITY; n]),
    };
    if let Some((l, u)) = limits {
        for i in 0..n {
            lb[i] = lb[i].max(l[i]);
            ub[i] = ub[i].min(u[i]);
            if lb[i] > ub[i] {
                return Err(invalid(
                    format!("{field}[{i}]"),
                    "the box and the URDF limits do not intersect",
                ));
            }
        }
    }
    if lb.iter().chain(&ub).all(|x| x.is_infinite()) {
        return Ok(None);
    }
    Ok(Some(Bounds::new(lb, ub)))
}

fn constraint_exprs(
    sym: &Symbols,
    field: &str,
    c: &ConstraintSpec,
    scope: Scope,
    default_lb: f64,
) -> Result<(Vec<Expr>, Bounds), ConfigError> {
    let g =
        c.g.iter()
            .enumerate()
            .map(|(i, t)| sym.parse_str(&join_index(&join_key(field, "g"), i), t, scope))
            .collect::<Result<Vec<_>, _>>()?;
    let n = g.len();
    // Neither bound: `[default_lb, 0]`; one bound: the other side is open.
    let (lb, ub) = match (&c.lb, &c.ub) {
        (None, None) => (vec![default_lb; n], vec![0.0; n]),
        (Some(l), None) => (
            vector(&join_key(field, "lb"), l, n)?,
            vec![f64::INFINITY; n],
        ),
        (None, Some(u)) => (
            vec![f64::NEG_INFINITY; n],
            vector(&join_key(field, "ub"), u, n)?,
        ),
        (Some(l), Some(u)) => (
            vector(&join_key(field, "lb"), l, n)?,
            vector(&join_key(field, "ub"), u, n)?,
        ),
    };
    if let Some(i) = (0..n).find(|&i| lb[i] > ub[i]) {
        return Err(invalid(format!("{field}[{i}]"), "needs lb ≤ ub"));
    }
    Ok((g, Bounds::new(lb, ub)))
}

/// State references of the intervals and at the end.
struct Refs {
    /// At the interval ends.
    per: Vec<Vec<f64>>,
    /// At `T`.
    last: Vec<f64>,
    /// Given as waypoints (time-varying).
    waypoints: bool,
    /// `x_ref_period` given.
    periodic: Option<PeriodicReference>,
}

/// Quadrature tracking data: weights and constant references.
struct Quadratic {
    qw: Vec<f64>,
    rw: Vec<f64>,
    xr: Vec<f64>,
    ur: Vec<f64>,
}

/// State references at the interval ends `t_k = (k+1) T / N` (linear between waypoints).
fn references(spec: &OcpSpec, n_x: usize, t: f64, n: usize) -> Result<Refs, ConfigError> {
    let field = "ocp.x_ref";
    let Some(items) = &spec.x_ref else {
        let zero = vec![0.0; n_x];
        if spec.x_ref_times.is_some() {
            return Err(invalid(
                "ocp.x_ref_times",
                "given without `x_ref` waypoints",
            ));
        }
        if spec.x_ref_period.is_some() {
            return Err(invalid(
                "ocp.x_ref_period",
                "given without `x_ref` waypoints",
            ));
        }
        return Ok(Refs {
            per: vec![zero.clone(); n],
            last: zero,
            waypoints: false,
            periodic: None,
        });
    };
    let constant = items.iter().all(|i| matches!(i, Numbers::One(_)));
    if constant {
        let x: Vec<f64> = items
            .iter()
            .map(|i| match i {
                Numbers::One(x) => *x,
                Numbers::List(_) => 0.0,
            })
            .collect();
        let x = vector(field, &Numbers::List(x), n_x)?;
        for (f, given) in [
            ("ocp.x_ref_times", spec.x_ref_times.is_some()),
            ("ocp.x_ref_period", spec.x_ref_period.is_some()),
        ] {
            if given {
                return Err(invalid(f, "needs waypoints (a list of states) in `x_ref`"));
            }
        }
        return Ok(Refs {
            per: vec![x.clone(); n],
            last: x,
            waypoints: false,
            periodic: None,
        });
    }
    let mut wps = Vec::new();
    for (i, it) in items.iter().enumerate() {
        match it {
            Numbers::List(_) => wps.push(vector(&join_index(field, i), it, n_x)?),
            Numbers::One(_) => {
                return Err(shape(
                    field,
                    "one state or a list of waypoint states",
                    "a mix",
                ))
            }
        }
    }
    let times = match &spec.x_ref_times {
        Some(ts) if ts.len() != wps.len() => {
            return Err(shape(
                "ocp.x_ref_times",
                format!("{} times", wps.len()),
                ts.len().to_string(),
            ))
        }
        Some(ts) => {
            if ts.windows(2).any(|w| w[0] >= w[1]) || ts.iter().any(|x| !x.is_finite()) {
                return Err(invalid("ocp.x_ref_times", "must be finite and increasing"));
            }
            ts.clone()
        }
        // A period: equally spaced over [0, period); else over [0, T] (one waypoint: at T).
        None => match (spec.x_ref_period, wps.len()) {
            (Some(p), m) => (0..m).map(|i| p * i as f64 / m as f64).collect(),
            (None, 1) => vec![t],
            (None, m) => (0..m).map(|i| t * i as f64 / (m - 1) as f64).collect(),
        },
    };
    if let Some(period) = spec.x_ref_period {
        let r = PeriodicReference::new(period, times, wps).map_err(|e| match e {
            crate::mpc::MpcError::BadInput { what, why } if what == "times" => {
                invalid("ocp.x_ref_times", why)
            }
            crate::mpc::MpcError::BadInput { why, .. } => invalid("ocp.x_ref_period", why),
            other => invalid("ocp.x_ref_period", other.to_string()),
        })?;
        let at = |s: f64| -> Vec<f64> {
            let mut x = vec![0.0; n_x];
            r.at(s, &mut x);
            x
        };
        return Ok(Refs {
            per: (0..n).map(|k| at(t * (k + 1) as f64 / n as f64)).collect(),
            last: at(t),
            waypoints: true,
            periodic: Some(r),
        });
    }
    let at = |s: f64| -> Vec<f64> {
        let last = wps.len() - 1;
        if s <= times[0] {
            return wps[0].clone();
        }
        if s >= times[last] {
            return wps[last].clone();
        }
        let k = times.windows(2).position(|w| s <= w[1]).unwrap_or(last - 1);
        let a = (s - times[k]) / (times[k + 1] - times[k]);
        (0..n_x)
            .map(|i| (1.0 - a) * wps[k][i] + a * wps[k + 1][i])
            .collect()
    };
    let per: Vec<Vec<f64>> = (0..n).map(|k| at(t * (k + 1) as f64 / n as f64)).collect();
    Ok(Refs {
        per,
        last: at(t),
        waypoints: true,
        periodic: None,
    })
}

impl Problem {
    /// The FESD-J options built from the file, and the per-contact guesses against its
    /// contacts (errors name `fesdj`).
    fn check_fesdj(&self, options: &FesdjOptions) -> Result<(), ConfigError> {
        options
            .validate()
            .and_then(|()| {
                options
                    .initial_guess
                    .check_contacts(self.contact_names().len())
            })
            .map_err(|source| ConfigError::Fesdj {
                field: "fesdj".into(),
                source,
            })
    }

    /// The OCP of the `ocp` and `horizon` sections.
    pub fn ocp(&self) -> Result<OcpSetup, ConfigError> {
        let Some(h) = &self.config.horizon else {
            return Err(invalid(
                "horizon",
                "missing: an OCP needs `horizon: {T: .., N: ..}`",
            ));
        };
        if !(h.t.is_finite() && h.t > 0.0) {
            return Err(invalid(
                "horizon.T",
                format!("must be finite and > 0, got {}", h.t),
            ));
        }
        if h.n == 0 {
            return Err(invalid("horizon.N", "must be at least 1"));
        }
        let options = FesdjOptions {
            n_intervals: h.n,
            t_final: h.t,
            ..self.config.fesdj.clone()
        };
        self.check_fesdj(&options)?;
        let spec = self.config.ocp.clone().unwrap_or_default();
        let sym = Rc::new(self.symbols().clone());
        let (n_q, n_u) = (sym.n_q(), sym.n_u());
        let n_x = 2 * n_q;
        let mut ocp = Ocp::new(self.cls_model()?, self.x0());
        let (q_lim, u_lim) = match &self.model {
            ModelSource::Robot(r) => (Some(&r.q_limits), Some(&r.u_limits)),
            ModelSource::Expressions(_) => (None, None),
        };
        ocp.q_bounds = merge("ocp.bounds.q", spec.bounds.q.as_ref(), q_lim, n_q)?;
        ocp.v_bounds = merge("ocp.bounds.v", spec.bounds.v.as_ref(), None, n_q)?;
        ocp.u_bounds = merge("ocp.bounds.u", spec.bounds.u.as_ref(), u_lim, n_u)?;
        let weight = |f: &str, w: &Option<Numbers>, n: usize| match w {
            Some(w) => vector(f, w, n),
            None => Ok(vec![0.0; n]),
        };
        let qw = weight("ocp.Q", &spec.q_weight, n_x)?;
        let rw = weight("ocp.R", &spec.r_weight, n_u)?;
        let qt = weight("ocp.Q_T", &spec.q_terminal, n_x)?;
        let Refs {
            per,
            last,
            waypoints,
            periodic,
        } = references(&spec, n_x, h.t, h.n)?;
        let periodic = periodic.map(|r| (r, spec.x_ref_terminal.is_none()));
        let u_ref = match &spec.u_ref {
            Some(u) => vector("ocp.u_ref", u, n_u)?,
            None => vec![0.0; n_u],
        };
        let x_ref_t = match &spec.x_ref_terminal {
            Some(x) => vector("ocp.x_ref_T", &Numbers::List(x.clone()), n_x)?,
            None => last,
        };
        let tracked = qw.iter().chain(&rw).chain(&qt).any(|w| *w != 0.0);
        for (f, w) in [("ocp.Q", &qw), ("ocp.R", &rw), ("ocp.Q_T", &qt)] {
            if let Some(i) = w.iter().position(|x| *x < 0.0 || !x.is_finite()) {
                return Err(invalid(join_index(f, i), "weights must be finite and ≥ 0"));
            }
        }
        let mut x_ref = None;
        let mut stage_q: Option<Quadratic> = None;
        let mut term_q: Option<(Vec<f64>, Vec<f64>)> = None;
        if tracked {
            match spec.tracking {
                TrackingCost::Lsq => {
                    ocp.lsq = Some(LsqTracking {
                        q_weight: qw,
                        r_weight: rw,
                        q_terminal: qt,
                        x_ref: per[0].clone(),
                        u_ref,
                        x_ref_terminal: x_ref_t,
                    });
                    x_ref = Some(per);
                }
                TrackingCost::Quadrature if waypoints => {
                    return Err(invalid(
                        "ocp.x_ref",
                        "waypoint references need `tracking: lsq` (quadrature tracks a constant reference)",
                    ));
                }
                TrackingCost::Quadrature => {
                    stage_q = Some(Quadratic {
                        qw,
                        rw,
                        xr: per[0].clone(),
                        ur: u_ref,
                    });
                    term_q = Some((qt, x_ref_t));
                }
            }
        }
        let lag = match &spec.lagrange {
            Some(t) => Some(sym.parse_str("ocp.lagrange", t, Scope::QVU)?),
            None => None,
        };
        let may = match &spec.mayer {
            Some(t) => Some(sym.parse_str("ocp.mayer", t, Scope::QV)?),
            None => None,
        };
        let path_g = match &spec.path {
            Some(c) => Some(constraint_exprs(
                &sym,
                "ocp.path",
                c,
                Scope::QVU,
                f64::NEG_INFINITY,
            )?),
            None => None,
        };
        let term_g = match &spec.terminal {
            Some(c) => Some(constraint_exprs(&sym, "ocp.terminal", c, Scope::QV, 0.0)?),
            None => None,
        };
        // The contact symbols (`gap_<c>`, `slip_<c>`) of a robot model, computed from the
        // model where an expression uses them.
        let uses = lag.iter().chain(&may).any(|e| sym.uses_contacts(e))
            || path_g
                .iter()
                .chain(&term_g)
                .any(|(g, _)| g.iter().any(|e| sym.uses_contacts(e)));
        let terms = Rc::new(ContactTerms(if uses {
            Some(self.cls_model()?)
        } else {
            None
        }));
        if lag.is_some() || stage_q.is_some() {
            let (s, ct) = (Rc::clone(&sym), Rc::clone(&terms));
            ocp.lagrange = Some(Box::new(move |q: &[Sx], v: &[Sx], u: &[Sx]| {
                let mut l = match &lag {
                    Some(e) => e.eval(&ct.env(&s, q, v, Some(u))),
                    None => Sx::constant(0.0),
                };
                if let Some(c) = &stage_q {
                    l += wsq(&c.qw, q.iter().chain(v), &c.xr) + wsq(&c.rw, u.iter(), &c.ur);
                }
                l
            }));
        }
        if may.is_some() || term_q.is_some() {
            let (s, ct) = (Rc::clone(&sym), Rc::clone(&terms));
            ocp.mayer = Some(Box::new(move |q: &[Sx], v: &[Sx]| {
                let mut l = match &may {
                    Some(e) => e.eval(&ct.env(&s, q, v, None)),
                    None => Sx::constant(0.0),
                };
                if let Some((qt, xt)) = &term_q {
                    l += wsq(qt, q.iter().chain(v), xt);
                }
                l
            }));
        }
        if let Some((g, bounds)) = path_g {
            let (s, ct) = (Rc::clone(&sym), Rc::clone(&terms));
            ocp.path = Some(Constraint {
                fun: Box::new(move |q: &[Sx], v: &[Sx], u: &[Sx]| {
                    let env = ct.env(&s, q, v, Some(u));
                    g.iter().map(|e| e.eval(&env)).collect()
                }),
                bounds,
            });
        }
        if let Some((g, bounds)) = term_g {
            let (s, ct) = (Rc::clone(&sym), Rc::clone(&terms));
            ocp.terminal = Some(Constraint {
                fun: Box::new(move |q: &[Sx], v: &[Sx]| {
                    let env = ct.env(&s, q, v, None);
                    g.iter().map(|e| e.eval(&env)).collect()
                }),
                bounds,
            });
        }
        if let Some(p) = &spec.periodic {
            ocp.periodic = Some(periodic_of(&sym, p)?);
        }
        ocp.validate().map_err(|source| ConfigError::Fesdj {
            field: "ocp".into(),
            source,
        })?;
        if periodic.is_some() && x_ref.is_none() {
            return Err(invalid(
                "ocp.x_ref_period",
                "a periodic reference needs LSQ tracking (`tracking: lsq` and nonzero weights)",
            ));
        }
        let start = match &spec.start {
            Some(st) => Some(staged_start(st, h.n, n_u)?),
            None => None,
        };
        Ok(OcpSetup {
            ocp,
            options,
            x_ref,
            periodic,
            start,
        })
    }

    /// The simulation step problem of the `simulation` section.
    pub fn simulation(&self) -> Result<SimulationSetup, ConfigError> {
        let Some(s) = &self.config.simulation else {
            return Err(invalid(
                "simulation",
                "missing: `simulation: {T_sim: .., N_sim: ..}`",
            ));
        };
        if !(s.t_sim.is_finite() && s.t_sim > 0.0) {
            return Err(invalid(
                "simulation.T_sim",
                format!("must be finite and > 0, got {}", s.t_sim),
            ));
        }
        if s.n_sim == 0 {
            return Err(invalid("simulation.N_sim", "must be at least 1"));
        }
        let options = FesdjOptions {
            n_intervals: 1,
            t_final: s.t_sim / s.n_sim as f64,
            ..self.config.fesdj.clone()
        };
        self.check_fesdj(&options)?;
        let n_u = self.symbols().n_u();
        let controls = match &s.u {
            None => vec![vec![0.0; n_u]; s.n_sim],
            Some(items) if items.iter().all(|i| matches!(i, Numbers::One(_))) => {
                let u: Vec<f64> = items
                    .iter()
                    .map(|i| if let Numbers::One(x) = i { *x } else { 0.0 })
                    .collect();
                vec![vector("simulation.u", &Numbers::List(u), n_u)?; s.n_sim]
            }
            // A list holding one vector (`[[u_1, u_2]]`) is that vector for every step.
            Some(items) if items.len() == 1 => {
                vec![vector(&join_index("simulation.u", 0), &items[0], n_u)?; s.n_sim]
            }
            Some(items) => {
                if items.len() != s.n_sim {
                    return Err(shape(
                        "simulation.u",
                        format!(
                            "one control vector (`[u_1, ..]` or `[[u_1, ..]]`), or N_sim = {} of \
                             them",
                            s.n_sim
                        ),
                        format!("{} vectors", items.len()),
                    ));
                }
                items
                    .iter()
                    .enumerate()
                    .map(|(k, it)| vector(&join_index("simulation.u", k), it, n_u))
                    .collect::<Result<Vec<_>, _>>()?
            }
        };
        let speed_limits = match &s.max_speed {
            None => None,
            Some(m) => {
                let l = vector("simulation.max_speed", m, self.symbols().n_q())?;
                if let Some(bad) = l.iter().find(|x| x.is_nan() || **x <= 0.0) {
                    return Err(invalid(
                        "simulation.max_speed",
                        format!("every bound must be > 0 (.inf: none), got {bad}"),
                    ));
                }
                Some(l)
            }
        };
        if let Some(n) = s.fallback_substeps.filter(|&n| n < 2) {
            return Err(invalid(
                "simulation.fallback_substeps",
                format!("must be at least 2, got {n}"),
            ));
        }
        let mut ocp = Ocp::new(self.cls_model()?, self.x0());
        if n_u > 0 {
            ocp.u_bounds = Some(Bounds::new(controls[0].clone(), controls[0].clone()));
        }
        Ok(SimulationSetup {
            ocp,
            options,
            n_steps: s.n_sim,
            controls,
            speed_limits,
            fallback_substeps: s.fallback_substeps,
        })
    }
}

/// `Σ_i w_i (x_i − r_i)²`.
fn wsq<'a>(w: &[f64], x: impl Iterator<Item = &'a Sx>, r: &[f64]) -> Sx {
    let mut acc = Sx::constant(0.0);
    for ((wi, xi), ri) in w.iter().zip(x).zip(r) {
        if *wi != 0.0 {
            let d = *xi - *ri;
            acc += d * d * *wi;
        }
    }
    acc
}

/// `ocp.periodic` by index (§10.9); errors name the entry.
fn periodic_of(sym: &Symbols, spec: &PeriodicSpec) -> Result<Periodic, ConfigError> {
    let n_x = 2 * sym.n_q();
    let state = |field: String, name: &str| -> Result<usize, ConfigError> {
        sym.q
            .iter()
            .chain(&sym.v)
            .position(|n| n == name)
            .ok_or_else(|| {
                invalid(
                    &field,
                    format!("'{name}' is not a coordinate or velocity name"),
                )
            })
    };
    let mut free = vec![true; n_x];
    for (i, name) in spec.fixed.iter().enumerate() {
        free[state(format!("ocp.periodic.fixed[{i}]"), name)?] = false;
    }
    let mut shift = vec![0.0; n_x];
    for (name, &s) in &spec.shift {
        let field = format!("ocp.periodic.shift.{name}");
        if !s.is_finite() {
            return Err(invalid(&field, format!("must be finite, got {s}")));
        }
        shift[state(field, name)?] = s;
    }
    let mut rotations = Vec::with_capacity(spec.rotate.len());
    for (r, rot) in spec.rotate.iter().enumerate() {
        let a = state(format!("ocp.periodic.rotate[{r}].x"), &rot.x)?;
        let b = state(format!("ocp.periodic.rotate[{r}].y"), &rot.y)?;
        if !rot.angle.is_finite() {
            return Err(invalid(
                format!("ocp.periodic.rotate[{r}].angle"),
                format!("must be finite, got {}", rot.angle),
            ));
        }
        rotations.push((a, b, rot.angle));
    }
    Ok(Periodic {
        shift,
        free,
        rotations,
    })
}

/// The model behind the contact symbols of the OCP expressions (none when no expression uses
/// them).
struct ContactTerms(Option<ClsModel>);

impl ContactTerms {
    /// The evaluation environment of `sym` at `(q, v, u)`, with `gap_<c> = f_c(q)` and
    /// `slip_<c> = ‖J_tᵀ v‖²` (0 for a frictionless contact) when a model is present. A model
    /// error (not expected for our own sizes) leaves NaN, which the solver reports.
    fn env(&self, sym: &Symbols, q: &[Sx], v: &[Sx], u: Option<&[Sx]>) -> Vec<Sx> {
        let Some(model) = &self.0 else {
            return sym.env(q, Some(v), u);
        };
        let n_q = q.len();
        let nan = Sx::constant(f64::NAN);
        let gaps = model.gaps(q).unwrap_or_else(|_| vec![nan; model.n_c()]);
        let slips: Vec<Sx> = (0..model.n_c())
            .map(|c| match model.tangent_jacobian(q, c) {
                Ok(jt) => (0..jt.len() / n_q.max(1)).fold(Sx::constant(0.0), |acc, t| {
                    let vt = (0..n_q).fold(Sx::constant(0.0), |a, i| a + jt[i + n_q * t] * v[i]);
                    acc + vt * vt
                }),
                Err(_) => nan,
            })
            .collect();
        sym.env_with_contacts(q, Some(v), u, &gaps, &slips)
    }
}
