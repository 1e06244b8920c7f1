//! The variable layout of the FESD-J MPCC: which entry of `w` is which quantity.
//!
//! The transcriber is the only place that assigns indices; everybody else (solver, simulator,
//! MPC, output) asks the [`Layout`]. Variables are ordered by (control interval, finite
//! element, stage) — initial state, then per interval the control, then per element its step
//! size, impulse block, boundary state, stage blocks and right boundary — so that every
//! constraint of element `n` touches only elements `n − 1` and `n` and the KKT matrix is almost
//! block-banded (§7 item 27).

use crate::ad::Sx;

/// Friction variables of one contact at one point (stage or impulse level).
///
/// At impulse level the same fields hold the upper-case quantities (`Λ_d, Γ_d, B_d, Δ_d` or
/// `Λ_t, Γ/Θ, B, P_vt, N_vt, A_vt`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum FrictionIndex {
    /// Frictionless contact (`μ = 0`): no variables.
    #[default]
    None,
    /// Polyhedral model (8) / (11-poly).
    Polyhedral {
        /// `λ_d` (`n_d = 2 n_t`, ≥ 0).
        lambda_d: Vec<usize>,
        /// `γ_d` (≥ 0).
        gamma_d: usize,
        /// `β_d = μλ_n − eᵀλ_d` lifted (≥ 0).
        beta_d: usize,
        /// `δ_d = Dᵀv + γ_d e` lifted (`n_d`, ≥ 0).
        delta_d: Vec<usize>,
    },
    /// Conic model (5) / (5') / (11) / (11').
    Conic {
        /// `λ_t` (`n_t`, free).
        lambda_t: Vec<usize>,
        /// `γ` of (5) or the slip rate `ϑ` of (5') (≥ 0).
        gamma: usize,
        /// `β` (≥ 0).
        beta: usize,
        /// `ξ_+` (`p_vt`, `n_t`, ≥ 0; empty for `plain`).
        p_vt: Vec<usize>,
        /// `ξ_−` (`n_vt`, `n_t`, ≥ 0; empty for `plain`).
        n_vt: Vec<usize>,
        /// `α_vt ∈ [0, 1]` (`n_t`; only for `lp`).
        alpha_vt: Vec<usize>,
    },
}

/// The impulse block of §2.5 at the left boundary `t_n` of an element.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImpulseIndex {
    /// Normal impulses `Λ_n` (`n_c`, ≥ 0).
    pub lambda_n: Vec<usize>,
    /// Lifted gaps `Y = f_c(q_{n,0})` (`n_c`, ≥ 0).
    pub y_gap: Vec<usize>,
    /// `Υ_+` (`P_vn`, `n_c`, ≥ 0) of (A.2).
    pub p_vn: Vec<usize>,
    /// `Υ_−` (`N_vn`, `n_c`, ≥ 0) of (A.2).
    pub n_vn: Vec<usize>,
    /// Friction impulse variables per contact.
    pub friction: Vec<FrictionIndex>,
}

/// Variables of one RK stage point `(n, j)`, `j = 1..n_s`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StageIndex {
    /// `q_{n,j}`.
    pub q: Vec<usize>,
    /// `v_{n,j}`.
    pub v: Vec<usize>,
    /// Lifted accelerations `z_{v,n,j}` (3) (empty unless `lift_velocity_state`).
    pub z_v: Vec<usize>,
    /// Normal forces `λ_{n,n,j}` (`n_c`, ≥ 0); impulses over the step in time stepping (§4.7).
    pub lambda_n: Vec<usize>,
    /// Lifted gaps `y_{n,j} = f_c(q_{n,j})` (`n_c`, ≥ 0).
    pub y_gap: Vec<usize>,
    /// Friction variables per contact.
    pub friction: Vec<FrictionIndex>,
}

/// The right boundary point `j = n_s + 1` of an element when `c_{n_s} ≠ 1` (§3.7.4).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RightBoundaryIndex {
    /// `q_{n+1}` (pre-impact position at `t_{n+1}`).
    pub q: Vec<usize>,
    /// `v_{n+1}` (pre-impact velocity at `t_{n+1}`).
    pub v: Vec<usize>,
    /// Right-boundary gaps `y_{n,n_s+1} = f_c(q_{n+1})` (`n_c`, ≥ 0).
    pub y_gap: Vec<usize>,
    /// `ξ_{+,n+1}` per contact (empty unless conic Abs/Lp with friction) (24)–(25).
    pub p_vt: Vec<Vec<usize>>,
    /// `ξ_{−,n+1}` per contact.
    pub n_vt: Vec<Vec<usize>>,
}

/// Variables of one finite element.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ElementIndex {
    /// `h_{k,n}`; `None` when the grid is fixed (time stepping or `γ_h = 0`).
    pub h: Option<usize>,
    /// The impulse block at `t_n`; `None` at `n = 0` with `no_initial_impacts` and in time
    /// stepping.
    pub impulse: Option<ImpulseIndex>,
    /// Left-boundary gaps `Y_n = f_c(q_{n,0})` (`n_c`, ≥ 0) of an element without impulse
    /// block under FESD (`no_initial_impacts` with `initial_element_gap`); empty otherwise.
    /// With `share_left_gap`, after another element they are that element's end-point gaps
    /// (its last stage's at `c = 1`, else its right boundary's), `f_c` of the same position by
    /// (16) **[ours]**; otherwise, and at the horizon's first element, lifted variables of
    /// their own (`left_gap_own`).
    pub left_gap: Vec<usize>,
    /// `left_gap` are variables of this element, defined by the row `Y_n − f_c(q_{n,0}) = 0`.
    pub left_gap_own: bool,
    /// `q_{n,0}` (position at `t_n^+`).
    pub q0: Vec<usize>,
    /// `v_{n,0}` (post-impact velocity at `t_n^+`).
    pub v0: Vec<usize>,
    /// Stage points `j = 1..n_s` (index `j − 1`).
    pub stages: Vec<StageIndex>,
    /// Right boundary point (Gauss–Legendre).
    pub right: Option<RightBoundaryIndex>,
}

/// Variables of one control interval.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IntervalIndex {
    /// Piecewise-constant control `û_k`.
    pub u: Vec<usize>,
    /// The finite elements.
    pub elements: Vec<ElementIndex>,
}

/// Indices of the parameter vector `p`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParamLayout {
    /// State references `x^ref_k = (q, v)` per interval (LSQ tracking, §4.3).
    pub x_ref: Vec<Vec<usize>>,
    /// Control references `u^ref_k` per interval.
    pub u_ref: Vec<Vec<usize>>,
    /// Terminal state reference `x^ref_T`.
    pub x_ref_terminal: Vec<usize>,
}

/// The complete variable layout (see the module docs for the order).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Layout {
    /// Total number of variables `n_w`.
    pub n_w: usize,
    /// `n_q`.
    pub n_q: usize,
    /// Number of stages `n_s`.
    pub n_s: usize,
    /// RK nodes `c`.
    pub c: Vec<f64>,
    /// Initial position `q_0` (fixed by its bounds; see [`Transcription::set_initial_state`](super::Transcription::set_initial_state)).
    pub x0_q: Vec<usize>,
    /// Initial velocity `v_0`.
    pub x0_v: Vec<usize>,
    /// The control intervals.
    pub intervals: Vec<IntervalIndex>,
    /// The step `h̄` used where the grid is fixed, and the nominal step otherwise.
    pub h_nominal: f64,
    /// Parameter indices.
    pub params: ParamLayout,
    /// Transcribed with `share_left_gap`: [`Layout::interval_variables`] lists no
    /// left-boundary gaps.
    pub shared_left_gap: bool,
}

impl Layout {
    /// Every variable index of control interval `k`, in allocation order (the order the
    /// MPC shift and warm starts copy intervals in).
    pub fn interval_variables(&self, k: usize) -> Vec<usize> {
        fn fr(f: &FrictionIndex, out: &mut Vec<usize>) {
            match f {
                FrictionIndex::None => {}
                FrictionIndex::Polyhedral {
                    lambda_d,
                    gamma_d,
                    beta_d,
                    delta_d,
                } => {
                    out.extend(lambda_d);
                    out.extend([*gamma_d, *beta_d]);
                    out.extend(delta_d);
                }
                FrictionIndex::Conic {
                    lambda_t,
                    gamma,
                    beta,
                    p_vt,
                    n_vt,
                    alpha_vt,
                } => {
                    out.extend(lambda_t);
                    out.extend([*gamma, *beta]);
                    for v in [p_vt, n_vt, alpha_vt] {
                        out.extend(v);
                    }
                }
            }
        }
        let iv = &self.intervals[k];
        let mut out = iv.u.clone();
        for e in &iv.elements {
            out.extend(e.h);
            if let Some(imp) = &e.impulse {
                for v in [&imp.lambda_n, &imp.y_gap, &imp.p_vn, &imp.n_vn] {
                    out.extend(v);
                }
                for f in &imp.friction {
                    fr(f, &mut out);
                }
            }
            // Own left-boundary gaps only where every interval has them (without
            // `share_left_gap`): with it only the horizon's first element has its own, and the
            // lists of all intervals keep one structure.
            if e.left_gap_own && !self.shared_left_gap {
                out.extend(&e.left_gap);
            }
            out.extend(&e.q0);
            out.extend(&e.v0);
            for s in &e.stages {
                for v in [&s.q, &s.v, &s.z_v, &s.lambda_n, &s.y_gap] {
                    out.extend(v);
                }
                for f in &s.friction {
                    fr(f, &mut out);
                }
            }
            if let Some(r) = &e.right {
                for v in [&r.q, &r.v, &r.y_gap] {
                    out.extend(v);
                }
                for v in r.p_vt.iter().chain(&r.n_vt) {
                    out.extend(v);
                }
            }
        }
        out
    }
    /// Number of control intervals `N`.
    pub fn n_intervals(&self) -> usize {
        self.intervals.len()
    }
    /// Number of finite elements of interval `k`.
    pub fn n_fe(&self, k: usize) -> usize {
        self.intervals[k].elements.len()
    }
    /// The element `(k, n)`.
    pub fn element(&self, k: usize, n: usize) -> &ElementIndex {
        &self.intervals[k].elements[n]
    }
    /// Index of `h_{k,n}` (`None` on a fixed grid).
    pub fn h(&self, k: usize, n: usize) -> Option<usize> {
        self.element(k, n).h
    }
    /// Indices of `û_k`.
    pub fn u(&self, k: usize) -> &[usize] {
        &self.intervals[k].u
    }
    /// Every element in chain order.
    pub fn elements(&self) -> impl Iterator<Item = &ElementIndex> {
        self.intervals.iter().flat_map(|iv| iv.elements.iter())
    }
    /// Every stage point `(k, n, j)` in chain order.
    pub fn stages(&self) -> impl Iterator<Item = &StageIndex> {
        self.elements().flat_map(|e| e.stages.iter())
    }
    /// Every impulse block in chain order.
    pub fn impulses(&self) -> impl Iterator<Item = &ImpulseIndex> {
        self.elements().filter_map(|e| e.impulse.as_ref())
    }
    /// The impulse block at `t_{k,n}`, if there is one.
    pub fn impulse(&self, k: usize, n: usize) -> Option<&ImpulseIndex> {
        self.element(k, n).impulse.as_ref()
    }
    /// Stage `j ∈ 1..=n_s` of element `(k, n)`.
    pub fn stage(&self, k: usize, n: usize, j: usize) -> &StageIndex {
        &self.element(k, n).stages[j - 1]
    }
    /// `q` at point `j` of element `(k, n)`: `j = 0` the left boundary `q_{n,0}`, `1..=n_s` the
    /// stages, `n_s + 1` the right boundary (Gauss–Legendre only; `None` otherwise).
    pub fn q(&self, k: usize, n: usize, j: usize) -> Option<&[usize]> {
        let e = self.element(k, n);
        match j {
            0 => Some(&e.q0),
            j if j <= self.n_s => Some(&e.stages[j - 1].q),
            j if j == self.n_s + 1 => e.right.as_ref().map(|r| r.q.as_slice()),
            _ => None,
        }
    }
    /// `v` at point `j` of element `(k, n)` (as [`Layout::q`]).
    pub fn v(&self, k: usize, n: usize, j: usize) -> Option<&[usize]> {
        let e = self.element(k, n);
        match j {
            0 => Some(&e.v0),
            j if j <= self.n_s => Some(&e.stages[j - 1].v),
            j if j == self.n_s + 1 => e.right.as_ref().map(|r| r.v.as_slice()),
            _ => None,
        }
    }
    /// State `(q, v)` at the end of element `(k, n)`, i.e. the pre-impact state at `t_{n+1}^-`:
    /// the right boundary if there is one, else the last stage (`c_{n_s} = 1`).
    pub fn element_end(&self, k: usize, n: usize) -> (&[usize], &[usize]) {
        let e = self.element(k, n);
        match &e.right {
            Some(r) => (&r.q, &r.v),
            None => {
                let s = &e.stages[self.n_s - 1];
                (&s.q, &s.v)
            }
        }
    }
    /// Gap variables at the end of element `(k, n)` (where [`Layout::element_end`] is): the
    /// right boundary's if there is one, else the last stage's.
    pub fn element_end_gap(&self, k: usize, n: usize) -> &[usize] {
        let e = self.element(k, n);
        match &e.right {
            Some(r) => &r.y_gap,
            None => &e.stages[self.n_s - 1].y_gap,
        }
    }
    /// Pre-impact state `(q_n, v_n)` of element `(k, n)`: the end of the previous element of
    /// the chain, or the initial state for `(0, 0)` (§4.2: all elements form one chain).
    pub fn pre_impact(&self, k: usize, n: usize) -> (&[usize], &[usize]) {
        if n > 0 {
            self.element_end(k, n - 1)
        } else if k > 0 {
            self.element_end(k - 1, self.n_fe(k - 1) - 1)
        } else {
            (&self.x0_q, &self.x0_v)
        }
    }
    /// State at the end of control interval `k` (`s_{k+1}`).
    pub fn interval_end(&self, k: usize) -> (&[usize], &[usize]) {
        self.element_end(k, self.n_fe(k) - 1)
    }
    /// The final state `x(T)`.
    pub fn final_state(&self) -> (&[usize], &[usize]) {
        self.interval_end(self.n_intervals() - 1)
    }
    /// Step sizes `h_{k,n}` of all elements in chain order, read from `w` (or `h̄` on a fixed
    /// grid).
    pub fn step_sizes(&self, w: &[f64]) -> Vec<f64> {
        self.intervals
            .iter()
            .flat_map(|iv| iv.elements.iter())
            .map(|e| e.h.map_or(self.h_nominal, |i| w[i]))
            .collect()
    }
    /// Grid times `t_0 = 0, t_1, …, t_end = T` of all element boundaries in chain order.
    pub fn grid_times(&self, w: &[f64]) -> Vec<f64> {
        let mut t = vec![0.0];
        let mut acc = 0.0;
        for h in self.step_sizes(w) {
            acc += h;
            t.push(acc);
        }
        t
    }
    /// Time of point `j` (0 = left boundary, stages, `n_s + 1` = right end) of element `(k, n)`.
    pub fn point_time(&self, w: &[f64], k: usize, n: usize, j: usize) -> f64 {
        let flat: usize = self.intervals[..k]
            .iter()
            .map(|i| i.elements.len())
            .sum::<usize>()
            + n;
        let t = self.grid_times(w);
        let h = t[flat + 1] - t[flat];
        let c = match j {
            0 => 0.0,
            j if j <= self.n_s => self.c[j - 1],
            _ => 1.0,
        };
        t[flat] + c * h
    }
}

/// Allocates variables: symbols, bounds and initial values, in order.
#[derive(Debug, Default)]
pub(crate) struct VarBuilder {
    pub w: Vec<Sx>,
    pub lbw: Vec<f64>,
    pub ubw: Vec<f64>,
    pub w0: Vec<f64>,
}

impl VarBuilder {
    /// `n` new variables named `name_0 …` with the given bounds and initial value.
    pub fn add(&mut self, name: &str, n: usize, lb: f64, ub: f64, init: f64) -> Vec<usize> {
        (0..n)
            .map(|i| self.add_one(&format!("{name}_{i}"), lb, ub, init))
            .collect()
    }
    /// One new variable.
    pub fn add_one(&mut self, name: &str, lb: f64, ub: f64, init: f64) -> usize {
        let i = self.w.len();
        self.w.push(Sx::sym(name));
        self.lbw.push(lb);
        self.ubw.push(ub);
        self.w0.push(init);
        i
    }
    /// Variables with per-entry bounds and initial values.
    pub fn add_vec(&mut self, name: &str, lb: &[f64], ub: &[f64], init: &[f64]) -> Vec<usize> {
        (0..init.len())
            .map(|i| self.add_one(&format!("{name}_{i}"), lb[i], ub[i], init[i]))
            .collect()
    }
    /// The symbols at `idx`.
    pub fn sx(&self, idx: &[usize]) -> Vec<Sx> {
        idx.iter().map(|&i| self.w[i]).collect()
    }
}
