//! Outcome of a solve: [`Status`], per-iteration statistics and phase timers ([`Info`]).

use serde::Serialize;

/// How a solve ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub enum Status {
    /// Converged to the requested tolerances.
    Solved,
    /// Converged to the acceptable tolerances only.
    Acceptable,
    /// The problem appears locally infeasible (restoration converged to a non-zero violation).
    Infeasible,
    /// Iteration limit reached.
    MaxIterations,
    /// Wall-clock limit reached.
    MaxTime,
    /// The restoration phase could not find a point acceptable to the filter.
    RestorationFailed,
    /// Linear algebra failure (NaN, inertia correction exhausted).
    NumericalError,
    /// A callback failed or returned a non-finite value at the starting point.
    EvaluationError,
    /// The iterates grew beyond `diverging_iterates_tol`.
    Diverging,
    /// MPCC homotopy: the last NLP succeeded but `max_i min(G_i, H_i)` stayed above the
    /// complementarity tolerance.
    ComplementarityNotMet,
    /// Stopped by an early-exit hook (internal use by the restoration phase).
    UserStop,
    /// MPCC homotopy with `warm_iteration_budget`: a warm start's relaxed NLP stopped at its
    /// iteration budget on an iterate that meets the constraint tolerance (`constr_viol_tol`)
    /// and the complementarity stop test (`comp_tol`): feasible, not optimal.
    FeasibleBudget,
}

impl Status {
    /// True for [`Status::Solved`], [`Status::Acceptable`] and [`Status::FeasibleBudget`].
    pub fn is_success(self) -> bool {
        matches!(
            self,
            Status::Solved | Status::Acceptable | Status::FeasibleBudget
        )
    }
}

/// Statistics of one iteration (values of the scaled problem unless noted).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct IterStats {
    /// Iteration number.
    pub iter: usize,
    /// Unscaled objective.
    pub objective: f64,
    /// Unscaled constraint violation (max norm).
    pub inf_pr: f64,
    /// Scaled dual infeasibility (max norm).
    pub inf_du: f64,
    /// Complementarity (max norm, μ = 0).
    pub complementarity: f64,
    /// Barrier parameter.
    pub mu: f64,
    /// Norm of the primal step (max norm).
    pub step_norm: f64,
    /// Primal step size.
    pub alpha_pr: f64,
    /// Dual step size.
    pub alpha_du: f64,
    /// Primal (Hessian) regularisation δ_w.
    pub regularization: f64,
    /// Number of line-search trials.
    pub ls_trials: usize,
    /// True if the iteration was produced by the restoration phase.
    pub restoration: bool,
}

/// Wall-clock time per phase, in seconds.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Timers {
    /// Whole solve.
    pub total: f64,
    /// Function and derivative evaluations.
    pub evaluation: f64,
    /// KKT assembly, factorisation and solves.
    pub linear_algebra: f64,
    /// Of `linear_algebra`: assembly and factorisation of the KKT matrix, every inertia
    /// correction's retry included.
    pub factorization: f64,
    /// Of `linear_algebra`: the search direction's KKT solves with iterative refinement.
    pub kkt_solve: f64,
    /// Line search (excluding evaluations).
    pub line_search: f64,
    /// Restoration phase (included in the others too).
    pub restoration: f64,
}

impl Timers {
    /// Add `other`'s phases (evaluation, linear algebra with its factorisation and KKT-solve
    /// parts, line search) to these; `total` and `restoration` are the caller's to book.
    pub fn add_phases(&mut self, other: &Timers) {
        self.evaluation += other.evaluation;
        self.linear_algebra += other.linear_algebra;
        self.factorization += other.factorization;
        self.kkt_solve += other.kkt_solve;
        self.line_search += other.line_search;
    }
}

/// Result summary and statistics of a solve.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Info {
    /// Iterations taken (restoration iterations included).
    pub iterations: usize,
    /// Iterations spent in the restoration phase.
    pub restoration_iterations: usize,
    /// Unscaled objective at the final point.
    pub objective: f64,
    /// Unscaled max constraint violation at the final point.
    pub constr_violation: f64,
    /// Unscaled max dual infeasibility at the final point.
    pub dual_infeasibility: f64,
    /// Unscaled max complementarity at the final point.
    pub complementarity: f64,
    /// Final barrier parameter.
    pub mu: f64,
    /// Number of KKT factorisations.
    pub factorizations: usize,
    /// Number of objective (or constraint) evaluations.
    pub evaluations: usize,
    /// Phase timers.
    pub timers: Timers,
    /// Per-iteration statistics (capacity reserved up front; recording never allocates).
    pub history: Vec<IterStats>,
}

impl Info {
    pub(crate) fn reset(&mut self) {
        let mut h = std::mem::take(&mut self.history);
        h.clear();
        *self = Info {
            history: h,
            ..Info::default()
        };
    }
    pub(crate) fn record(&mut self, s: IterStats) {
        if self.history.len() < self.history.capacity() {
            self.history.push(s);
        }
    }
}
