//! The transcribed problem in the standard MPCC form of §5.1:
//!
//! `min f(w, p)  s.t.  lbw ≤ w ≤ ubw,  lbg ≤ g(w, p) ≤ ubg,  0 ≤ G(w, p) ⊥ H(w, p) ≥ 0`.
//!
//! Everything is symbolic ([`Sx`]); [`Transcription::compile`] gives numeric [`Function`]s. Every
//! complementarity member `G_i`, `H_i` is a variable with lower bound 0, a sum of such variables,
//! or (Lp mode only) `1 − α` / `n_s − Σα` with `α ∈ [0, 1]`, so nonnegativity is implied by the
//! variable bounds and is **not** repeated in `g` (§5.1, §7 item 5).

use crate::ad::{Function, Sx};
use crate::solver::ad_nlp::{AdComplementarity, AdNlp, HessianApproximation, NlpBounds};

use super::error::FesdjError;
use super::layout::Layout;

/// Which equation of the spec a constraint row implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RowKind {
    /// (16) `q_{n,0} − q_n = 0`.
    PositionJunction,
    /// (17a) `M(q_{n,0})(v_{n,0} − v_n) − J_n Λ_n − J_t Λ_t (or D Λ_d) = 0`.
    ImpulseVelocity,
    /// `v_{n,0} − v_n = 0` where there is no impulse block (`no_initial_impacts`, time stepping).
    VelocityContinuity,
    /// Left-boundary gap lifting `Y_n − f_c(q_{n,0}) = 0` without impulse block
    /// (`initial_element_gap`).
    LeftGap,
    /// Gap lifting at impulse level `Y − f_c(q_{n,0}) = 0` (§2.5).
    ImpulseGap,
    /// (A.2) `Υ_+ − Υ_− − J_nᵀ(v_{n,0} + ε_r v_n) = 0`.
    NormalVelocityA2,
    /// (11-poly) `B_d − (μΛ_n − eᵀΛ_d) = 0`.
    ImpulseFrictionBeta,
    /// (11-poly) `Δ_d − (Dᵀ v_{n,0} + Γ_d e) = 0`; or (11d) `−J_tᵀv⁺ − 2ΓΛ_t = 0`; or (11')
    /// `μΛ_n J_tᵀv⁺ + ΘΛ_t = 0`.
    ImpulseFrictionDirection,
    /// (11e) `B − ((μΛ_n)² − ‖Λ_t‖²) = 0`.
    ImpulseFrictionCone,
    /// `J_tᵀ v_{n,0} − (P_vt − N_vt) = 0` (§2.5, Abs/Lp).
    ImpulseTangentialVelocity,
    /// Stage equation for `q` (12a) in integral form `Σ_r C_{r,j} q_{n,r} − h v_{n,j} = 0`.
    StagePosition,
    /// Stage equation for `v` (12b) in integral form `Σ_r C_{r,j} v_{n,r} − h F_v = 0` (or
    /// `− h z_v`).
    StageVelocity,
    /// Lifted dynamics (3) `M z_v − (f_v + B_u u + J_n λ_n + J_t λ_t) = 0`.
    LiftedDynamics,
    /// Gap lifting at a stage `y_{n,j} − f_c(q_{n,j}) = 0` (§3.4).
    StageGap,
    /// (8b) lifted `β_d − (μλ_n − eᵀλ_d) = 0`.
    StageFrictionBeta,
    /// (8a) lifted `δ_d − (Dᵀv + γ_d e) = 0`; or (5a) / (5') direction equation.
    StageFrictionDirection,
    /// (5b) `β − ((μλ_n)² − ‖λ_t‖²) = 0`.
    StageFrictionCone,
    /// (14) `J_tᵀ v − ξ_+ + ξ_− = 0`.
    StageTangentialVelocity,
    /// Right boundary (integral form) `x_{n+1} − Σ_r D_r x_{n,r} = 0` for `q`.
    RightBoundaryPosition,
    /// The same for `v`.
    RightBoundaryVelocity,
    /// Right-boundary gap `y_{n,n_s+1} − f_c(q_{n+1}) = 0` (§3.7.4 [spec]).
    RightBoundaryGap,
    /// (24) `J_tᵀ(q_{n+1}) v_{n+1} − ξ_{+,n+1} + ξ_{−,n+1} = 0`.
    RightBoundaryTangentialVelocity,
    /// (18) `f_c(q_{n,0} + ε_c h_n v_{n,0}) ≥ 0` (or without `h_n` for `fixed_eps_cls`).
    ExtraGap,
    /// (26) `tanh(η_n/ε_η)(h_n − h_{n−1}) = 0` (`step_equilibration = direct`).
    StepEquilibration,
    /// (15) `Σ_n h_{k,n} − T/N = 0`.
    ClockSum,
    /// Path constraint `g_path` (§4.4).
    Path,
    /// Terminal constraint `g_T` (§4.4).
    Terminal,
    /// Periodicity `x_i(T) − (A x(0))_i − s_i = 0` (§10.9).
    Periodic,
}

/// Where a constraint row comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowInfo {
    /// The equation.
    pub kind: RowKind,
    /// Control interval `k` (`None` for terminal rows).
    pub interval: Option<usize>,
    /// Finite element `n` inside the interval (`None` for interval-level rows).
    pub element: Option<usize>,
    /// Point `j` (0 = left boundary, `1..=n_s` stages, `n_s + 1` right boundary).
    pub point: Option<usize>,
    /// Contact `ℓ`.
    pub contact: Option<usize>,
    /// Component inside the block (coordinate, tangent direction, …).
    pub component: usize,
}

/// Which family a complementarity pair belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PairKind {
    /// (A.2) `Λ_n ⊥ Y + Υ_+ + Υ_−`.
    ImpulseNormal,
    /// (A.2) `Υ_+ ⊥ Υ_−`.
    ImpulseNormalVelocity,
    /// (11-poly) `Δ_d ⊥ Λ_d`.
    ImpulseFrictionEdge,
    /// (11f)/(11'): `Γ ⊥ B` (or `Θ ⊥ B`), (11-poly) `Γ_d ⊥ B_d`.
    ImpulseFrictionCone,
    /// Abs `P_vt ⊥ N_vt`; Lp `A_vt ⊥ P_vt`, `1 − A_vt ⊥ N_vt`.
    ImpulseTangentialVelocity,
    /// Contact cross complementarity (20) (contains (13a)).
    ContactCross,
    /// Polyhedral `λ_d ∘ δ_d` cross complementarity (contains (8a)).
    PolyhedralEdgeCross,
    /// Polyhedral `β_d · γ_d` cross complementarity (contains (8b)).
    PolyhedralConeCross,
    /// Conic `β · γ` (21) (contains (13d)); slip-rate `β · ϑ`.
    ConicCross,
    /// Abs `ξ_+ ∘ ξ_−` (22) (contains (14b) and (25)); Lp `α ∘ ξ_+`, `(1 − α) ∘ ξ_−`.
    TangentialVelocityCross,
    /// Time stepping: stage-wise (13a).
    StageContact,
    /// Time stepping: stage-wise (8a), (8b), (13d) or (14b).
    StageFriction,
}

/// Where a complementarity pair comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairInfo {
    /// The family.
    pub kind: PairKind,
    /// Control interval `k`.
    pub interval: usize,
    /// Finite element `n`.
    pub element: usize,
    /// Contact `ℓ`.
    pub contact: usize,
    /// Discontinuous-member point `j` (`None` when summed over the element).
    pub j: Option<usize>,
    /// Continuous-member point `j'` (`None` when summed).
    pub j2: Option<usize>,
    /// Component (tangent direction or polyhedral edge).
    pub component: usize,
}

/// A switch indicator `η_n` of §3.8 at an interior grid point (diagnostics, `direct` and
/// `l2_relaxed*` step equilibration).
#[derive(Clone, Copy, Debug)]
pub struct SwitchIndicator {
    /// Control interval `k`.
    pub interval: usize,
    /// Grid point `n ≥ 1` inside the interval (between elements `n − 1` and `n`).
    pub element: usize,
    /// `η_n` (P-30).
    pub eta: Sx,
}

/// The FESD-J MPCC (§5.1) with its layout.
pub struct Transcription {
    /// Variables (free symbols), ordered as [`Layout`] describes.
    pub w: Vec<Sx>,
    /// Lower variable bounds.
    pub lbw: Vec<f64>,
    /// Upper variable bounds.
    pub ubw: Vec<f64>,
    /// Initial guess (§5.9; nosnoc defaults unless [`InitialGuess`](super::InitialGuess) says
    /// otherwise).
    pub w0: Vec<f64>,
    /// Parameters (LSQ references; empty without LSQ tracking). The initial state is **not**
    /// a parameter: it is the variable block `layout.x0_*`, fixed by equal bounds (§4.2),
    /// changed with [`Transcription::set_initial_state`].
    pub p: Vec<Sx>,
    /// Default parameter values.
    pub p0: Vec<f64>,
    /// Objective.
    pub f: Sx,
    /// Constraints.
    pub g: Vec<Sx>,
    /// Lower constraint bounds.
    pub lbg: Vec<f64>,
    /// Upper constraint bounds.
    pub ubg: Vec<f64>,
    /// Origin of every constraint row.
    pub g_info: Vec<RowInfo>,
    /// Complementarity members `G`.
    pub comp_g: Vec<Sx>,
    /// Complementarity members `H`.
    pub comp_h: Vec<Sx>,
    /// Origin of every pair.
    pub comp_info: Vec<PairInfo>,
    /// Switch indicators `η_n` at the interior grid points (§3.8).
    pub switch_indicators: Vec<SwitchIndicator>,
    /// The variable layout.
    pub layout: Layout,
}

/// Numeric functions of a [`Transcription`]: all take inputs `(w, p)`.
#[derive(Clone, Debug)]
pub struct MpccFunctions {
    /// `f(w, p)` (one output of length 1).
    pub f: Function,
    /// `g(w, p)`.
    pub g: Function,
    /// `G(w, p)`.
    pub comp_g: Function,
    /// `H(w, p)`.
    pub comp_h: Function,
}

/// Values of a [`Transcription`] at a point.
#[derive(Clone, Debug, PartialEq)]
pub struct MpccValues {
    /// Objective.
    pub f: f64,
    /// Constraints.
    pub g: Vec<f64>,
    /// `G`.
    pub comp_g: Vec<f64>,
    /// `H`.
    pub comp_h: Vec<f64>,
}

impl MpccValues {
    /// Complementarity residual `r_⊥ = max_i G_i H_i` (§5.5; 0 without pairs).
    pub fn comp_residual(&self) -> f64 {
        self.comp_g
            .iter()
            .zip(&self.comp_h)
            .map(|(a, b)| a * b)
            .fold(0.0, f64::max)
    }
}

impl Transcription {
    /// Number of variables.
    pub fn n_w(&self) -> usize {
        self.w.len()
    }
    /// Number of constraint rows.
    pub fn n_g(&self) -> usize {
        self.g.len()
    }
    /// Number of complementarity pairs.
    pub fn n_comp(&self) -> usize {
        self.comp_g.len()
    }

    /// Set the initial state `x_0 = (q_0, v_0)`: the bounds (and initial guess) of the
    /// initial-state variables (§4.2, §4.8).
    pub fn set_initial_state(&mut self, x0: &[f64]) -> Result<(), FesdjError> {
        let n_q = self.layout.n_q;
        if x0.len() != 2 * n_q {
            return Err(FesdjError::Dimension {
                what: "x0".into(),
                expected: 2 * n_q,
                got: x0.len(),
            });
        }
        let idx: Vec<usize> = self
            .layout
            .x0_q
            .iter()
            .chain(&self.layout.x0_v)
            .copied()
            .collect();
        for (&i, &x) in idx.iter().zip(x0) {
            self.lbw[i] = x;
            self.ubw[i] = x;
            self.w0[i] = x;
        }
        Ok(())
    }

    /// The compiled NLP (this MPCC's bounds, start point `w0`) and its complementarity pairs:
    /// the callbacks every solver of it sees (ours, the IPOPT baseline, the benchmarks).
    pub fn nlp(&self) -> Result<(AdNlp, AdComplementarity), FesdjError> {
        self.nlp_with(HessianApproximation::Exact)
    }

    /// [`Transcription::nlp`] with the given Hessian of the Lagrangian.
    pub fn nlp_with(
        &self,
        hessian: HessianApproximation,
    ) -> Result<(AdNlp, AdComplementarity), FesdjError> {
        let fns = self.compile()?;
        let nlp = AdNlp::with_hessian(
            fns.f,
            fns.g,
            NlpBounds {
                x_l: self.lbw.clone(),
                x_u: self.ubw.clone(),
                g_l: self.lbg.clone(),
                g_u: self.ubg.clone(),
                x0: self.w0.clone(),
            },
            hessian,
        )?;
        let comp = AdComplementarity::new(&fns.comp_g, &fns.comp_h)?;
        Ok((nlp, comp))
    }

    /// `w0` with every variable fixed by its bounds (the initial state) at that bound.
    pub fn start_point(&self) -> Vec<f64> {
        let mut x0 = self.w0.clone();
        for (i, xi) in x0.iter_mut().enumerate() {
            if self.lbw[i] == self.ubw[i] {
                *xi = self.lbw[i];
            }
        }
        x0
    }

    /// Compile `f`, `g`, `G`, `H` as functions of `(w, p)`.
    pub fn compile(&self) -> Result<MpccFunctions, FesdjError> {
        let inputs: [&[Sx]; 2] = [&self.w, &self.p];
        Ok(MpccFunctions {
            f: Function::new("mpcc_f", &inputs, &[&[self.f]])?,
            g: Function::new("mpcc_g", &inputs, &[&self.g])?,
            comp_g: Function::new("mpcc_G", &inputs, &[&self.comp_g])?,
            comp_h: Function::new("mpcc_H", &inputs, &[&self.comp_h])?,
        })
    }

    /// Evaluate `f`, `g`, `G`, `H` at `(w, p)` (compiles first; for repeated evaluation use
    /// [`Transcription::compile`]).
    pub fn evaluate(&self, w: &[f64], p: &[f64]) -> Result<MpccValues, FesdjError> {
        self.compile()?.evaluate(w, p)
    }
}

impl MpccFunctions {
    /// Evaluate all four functions.
    pub fn evaluate(&self, w: &[f64], p: &[f64]) -> Result<MpccValues, FesdjError> {
        let run = |f: &Function| -> Result<Vec<f64>, FesdjError> {
            let mut out = vec![0.0; f.size_out(0)];
            f.eval(&[w, p], &mut [&mut out], &mut f.workspace())?;
            Ok(out)
        };
        Ok(MpccValues {
            f: run(&self.f)?.first().copied().unwrap_or(0.0),
            g: run(&self.g)?,
            comp_g: run(&self.comp_g)?,
            comp_h: run(&self.comp_h)?,
        })
    }
}
