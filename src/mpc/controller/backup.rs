//! The backup controller of a [`Controller`] (**[ours]**, formulation §4.8 "Backup
//! controller"): a second controller of the same model that plans first on every tick and whose
//! verified plan is in charge when this one's solve is not.

use std::time::{Duration, Instant};

use super::Controller;
use crate::mpc::counters::{Planner, TickStats};
use crate::mpc::error::MpcError;
use crate::mpc::plan::PlanSource;
use crate::mpc::seed;

impl Controller {
    /// Plan with a backup controller too **[ours]**: on every tick `backup` solves first,
    /// from the same measured state and within the tick's budget, and this controller's solve
    /// gets what is left of the budget. When this controller's solve is not verified and the
    /// backup's is, the backup's plan is in charge ([`Controller::plan`],
    /// [`Controller::control`], [`Controller::command`]); when neither is fresh, this
    /// controller's previous plan, then the backup's, then the fallback law. Typically the
    /// backup plans the same model with time stepping (`fesdj.use_fesd: false`), which
    /// converges in a few iterations, under a FESD-J controller. It must control the same
    /// model (coordinates, controls, contacts) and have no backup itself; its base velocity
    /// command and references follow this controller's.
    pub fn set_backup(&mut self, backup: Controller) -> Result<(), MpcError> {
        let why = if backup.backup.is_some() {
            Some("a backup controller cannot have a backup itself".to_string())
        } else if (backup.n_q, backup.current.n_u, backup.current.n_c)
            != (self.n_q, self.current.n_u, self.current.n_c)
        {
            Some(format!(
                "it has {} coordinates, {} controls and {} contacts, the controller {}, {} and {}",
                backup.n_q,
                backup.current.n_u,
                backup.current.n_c,
                self.n_q,
                self.current.n_u,
                self.current.n_c
            ))
        } else {
            None
        };
        if let Some(why) = why {
            return Err(MpcError::Settings {
                field: "backup".into(),
                why,
            });
        }
        self.seed = if seed::compatible(self.problem.layout(), backup.problem.layout()) {
            self.problem.guess().to_vec()
        } else {
            Vec::new()
        };
        self.backup = Some(Box::new(backup));
        self.serving_backup = false;
        Ok(())
    }

    /// The backup's solve, then this controller's with the rest of `budget`; decides whose
    /// plan is in charge.
    pub(super) fn solve_with_backup(
        &mut self,
        b: &mut Controller,
        budget: Duration,
    ) -> Result<(), MpcError> {
        let start = Instant::now();
        let (q, v) = self.x.split_at(self.n_q);
        b.set_state(self.t_state, q, v)?;
        b.solve(budget)?;
        // The backup's whole call (its tail simulation included); the primary stops at its
        // budget only after the iteration that crosses it, so it gets a share of the rest.
        let spent = start.elapsed();
        let rest = budget
            .saturating_sub(spent)
            .mul_f64(PRIMARY_SHARE)
            .max(MIN_PRIMARY_BUDGET);
        // Without a warm start of its own, start from the backup's fresh plan.
        let mut seeded = false;
        if let (false, PlanSource::Fresh, false, Some(w)) = (
            self.warm,
            b.current.source,
            self.seed.is_empty(),
            b.problem.solution(),
        ) {
            self.seed.copy_from_slice(self.problem.guess());
            let impulses = !b.problem.options().use_fesd;
            let (dst, src) = (self.problem.layout(), b.problem.layout());
            seed::seed_from(dst, src, w, impulses, &mut self.seed);
            seeded = true;
        }
        self.solve_own(rest, Some(b.current.source), seeded)?;
        let own = self.current.source;
        self.serving_backup = own != PlanSource::Fresh
            && (b.current.source == PlanSource::Fresh
                || (own == PlanSource::Fallback && b.current.source == PlanSource::Previous));
        if self.serving_backup {
            self.counters.backup_plans += 1;
        }
        let mine = self.own_tick_stats();
        self.last_tick = TickStats {
            solve_time_s: start.elapsed().as_secs_f64(),
            nlp_iterations: mine.nlp_iterations + b.last_tick.nlp_iterations,
            homotopy_steps: mine.homotopy_steps,
            planner: if self.serving_backup {
                Planner::Backup
            } else {
                Planner::Primary
            },
            backup_nlp_iterations: b.last_tick.nlp_iterations,
        };
        Ok(())
    }
}

/// With a backup, the share of what is left of the tick's budget after the backup's solve
/// that this controller's solve gets: an interior-point method checks its wall-time limit
/// after each iteration, so it overruns by up to one iteration (0.5–1 ms on the FESD-J hopper)
/// and the tick's tail simulation follows (0.8: the hopper's ticks at 50 Hz end within their 20 ms).
const PRIMARY_SHARE: f64 = 0.8;

/// The least budget this controller's solve gets after its backup's (a backup that used up
/// the tick leaves this one a last chance of a few iterations from its warm start).
const MIN_PRIMARY_BUDGET: Duration = Duration::from_millis(1);
