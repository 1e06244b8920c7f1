//! The iteration log (IPOPT-like columns).

use super::state::Ipm;
use crate::solver::status::IterStats;
use std::io::Write;

impl Ipm {
    pub(super) fn log_header(&mut self) {
        let prefix = self.log_prefix;
        if let Some(w) = self.log.as_mut() {
            let _ = writeln!(
                w,
                "{prefix}iter    objective    inf_pr   inf_du   compl  lg(mu)  ||d||  lg(rg) alpha_du alpha_pr  ls  kkt_res"
            );
        }
    }

    /// Record the values at the current point in the history and print a log line.
    pub(super) fn log_iteration(&mut self, iter: usize, pr: f64, du: f64, co: f64) {
        let objective = self.f / self.obj_scale;
        if iter == 0 || self.info.history.is_empty() {
            self.info.record(IterStats {
                iter,
                mu: self.mu,
                restoration: self.is_restoration,
                ..IterStats::default()
            });
        }
        let Some(last) = self.info.history.last_mut() else {
            return;
        };
        last.objective = objective;
        last.inf_pr = pr;
        last.inf_du = du;
        last.complementarity = co;
        let st = *last;
        let prefix = self.log_prefix;
        if let Some(w) = self.log.as_mut() {
            let lg = |v: f64| {
                if v > 0.0 {
                    v.log10()
                } else {
                    f64::NEG_INFINITY
                }
            };
            let rg = if st.regularization > 0.0 {
                format_args!("{:6.1}", lg(st.regularization)).to_string()
            } else {
                "     -".to_string()
            };
            let _ = writeln!(
                w,
                "{prefix}{:4}{} {:+.7e} {:.2e} {:.2e} {:.1e} {:5.1} {:.1e} {} {:.2e} {:.2e} {:3} {:.1e}",
                iter,
                if self.is_restoration { "r" } else { " " },
                objective,
                pr,
                du,
                co,
                lg(self.mu),
                st.step_norm,
                rg,
                st.alpha_du,
                st.alpha_pr,
                st.ls_trials,
                self.kkt_residual
            );
        }
    }
}
