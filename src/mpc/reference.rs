//! A periodic state reference **[ours]**: waypoints over one period, repeated for ever, that the
//! controller writes into the LSQ references of its horizon before every solve (a gait of a
//! legged robot: which joint angles and body speeds to aim at, not when the feet touch down —
//! contacts stay the optimiser's choice).
//!
//! The reference at time `s` interpolates linearly between the waypoints at `s mod period`;
//! after the last waypoint it goes back linearly to the first one at `period` later. Interval
//! `k` of a solve at time `t` tracks the reference at `t + (k+1) T/N` (the interval's end, where
//! LSQ tracking puts its term), the terminal term the one at `t + T`.

use crate::fesdj::Layout;

use super::error::MpcError;

/// Waypoints of one period and the parameter slots they are written to.
#[derive(Clone, Debug, PartialEq)]
pub struct PeriodicReference {
    period: f64,
    times: Vec<f64>,
    waypoints: Vec<Vec<f64>>,
    /// Time after the solve's state at which each group of slots is tracked.
    offsets: Vec<f64>,
    /// Parameter indices of each group (one group per interval end, then the terminal one).
    slots: Vec<Vec<usize>>,
}

fn bad(what: &str, why: impl Into<String>) -> MpcError {
    MpcError::BadInput {
        what: what.into(),
        why: why.into(),
    }
}

impl PeriodicReference {
    /// Waypoints (each a state, all of one length) at `times` within `[0, period)`,
    /// increasing. Not yet attached to a problem (see [`PeriodicReference::attach`]).
    pub fn new(
        period: f64,
        times: Vec<f64>,
        waypoints: Vec<Vec<f64>>,
    ) -> Result<PeriodicReference, MpcError> {
        if !(period.is_finite() && period > 0.0) {
            return Err(bad(
                "period",
                format!("must be finite and > 0, got {period}"),
            ));
        }
        if waypoints.is_empty() || times.len() != waypoints.len() {
            return Err(bad(
                "times",
                format!(
                    "one time per waypoint: {} times, {} waypoints",
                    times.len(),
                    waypoints.len()
                ),
            ));
        }
        if times
            .iter()
            .any(|t| !(t.is_finite() && *t >= 0.0 && *t < period))
            || times.windows(2).any(|w| w[0] >= w[1])
        {
            return Err(bad(
                "times",
                format!("must be increasing and within [0, period = {period})"),
            ));
        }
        let n = waypoints[0].len();
        for (i, w) in waypoints.iter().enumerate() {
            if w.len() != n {
                return Err(bad(
                    &format!("waypoints[{i}]"),
                    format!("{} entries, the first waypoint has {n}", w.len()),
                ));
            }
            if let Some(j) = w.iter().position(|x| !x.is_finite()) {
                return Err(bad(&format!("waypoints[{i}][{j}]"), "must be finite"));
            }
        }
        Ok(PeriodicReference {
            period,
            times,
            waypoints,
            offsets: Vec::new(),
            slots: Vec::new(),
        })
    }

    /// The period (s).
    pub fn period(&self) -> f64 {
        self.period
    }

    /// Entries of a waypoint (the state dimension).
    pub fn dim(&self) -> usize {
        self.waypoints[0].len()
    }

    /// The waypoints around time `s` and the weight of the second: the reference is
    /// `(1 − w) waypoints[a] + w waypoints[b]`.
    fn segment(&self, s: f64) -> (usize, usize, f64) {
        let phase = s.rem_euclid(self.period);
        let last = self.times.len() - 1;
        let (a, ta, b, tb) = match self.times.iter().position(|&t| t > phase) {
            Some(0) => (last, self.times[last] - self.period, 0, self.times[0]),
            Some(j) => (j - 1, self.times[j - 1], j, self.times[j]),
            None => (last, self.times[last], 0, self.times[0] + self.period),
        };
        let w = if tb > ta {
            (phase - ta) / (tb - ta)
        } else {
            0.0
        };
        (a, b, w)
    }

    /// Entry `j` of the reference at time `s` (0 beyond the waypoints' length).
    pub fn entry_at(&self, s: f64, j: usize) -> f64 {
        let (a, b, w) = self.segment(s);
        match (self.waypoints[a].get(j), self.waypoints[b].get(j)) {
            (Some(xa), Some(xb)) => (1.0 - w) * xa + w * xb,
            _ => 0.0,
        }
    }

    /// Slot groups attached ([`PeriodicReference::attach`]): one per interval end, then the
    /// terminal one.
    pub fn groups(&self) -> usize {
        self.slots.len()
    }

    /// Group `g`: its time after the solve's state and its parameter slots.
    pub fn group(&self, g: usize) -> (f64, &[usize]) {
        (self.offsets[g], &self.slots[g])
    }

    /// The reference at time `s` into `out` (its first `min(out.len(), dim)` entries).
    pub fn at(&self, s: f64, out: &mut [f64]) {
        let (a, b, w) = self.segment(s);
        for ((o, xa), xb) in out
            .iter_mut()
            .zip(&self.waypoints[a])
            .zip(&self.waypoints[b])
        {
            *o = (1.0 - w) * xa + w * xb;
        }
    }

    /// Write into the LSQ references of `layout`: interval `k` tracks the reference at
    /// `(k+1) t_final / N` after the solve's state, the terminal term the one at `t_final`
    /// (when `terminal`; otherwise the terminal reference is left as it is).
    pub fn attach(
        &mut self,
        layout: &Layout,
        t_final: f64,
        terminal: bool,
    ) -> Result<(), MpcError> {
        let refs = &layout.params.x_ref;
        if refs.is_empty() {
            return Err(bad(
                "reference",
                "the problem has no LSQ state references (`ocp.tracking: lsq` with weights)",
            ));
        }
        let n = refs.len();
        self.offsets.clear();
        self.slots.clear();
        for (k, idx) in refs.iter().enumerate() {
            self.offsets.push(t_final * (k + 1) as f64 / n as f64);
            self.slots.push(idx.clone());
        }
        if terminal {
            self.offsets.push(t_final);
            self.slots.push(layout.params.x_ref_terminal.clone());
        }
        if let Some(s) = self.slots.iter().find(|s| s.len() != self.dim()) {
            return Err(bad(
                "reference",
                format!(
                    "waypoints have {} entries, the problem's references {}",
                    self.dim(),
                    s.len()
                ),
            ));
        }
        Ok(())
    }

    /// Write the references of a solve whose state is at time `t` into the parameter vector
    /// `p` (no allocation). Slots beyond `p` are skipped.
    pub fn write(&self, t: f64, p: &mut [f64]) {
        for (&dt, idx) in self.offsets.iter().zip(&self.slots) {
            let (a, b, w) = self.segment(t + dt);
            for ((&slot, xa), xb) in idx.iter().zip(&self.waypoints[a]).zip(&self.waypoints[b]) {
                if let Some(x) = p.get_mut(slot) {
                    *x = (1.0 - w) * xa + w * xb;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolates_and_wraps_around() {
        // Two waypoints of one entry at 0.1 (value 1) and 0.3 (value 3), period 0.4: from 0.3
        // back to 1 at 0.5 ≡ 0.1.
        let r = PeriodicReference::new(0.4, vec![0.1, 0.3], vec![vec![1.0], vec![3.0]]).unwrap();
        let close = |s: f64, want: f64| {
            let mut x = [0.0];
            r.at(s, &mut x);
            (x[0] - want).abs() < 1e-12
        };
        assert!(close(0.1, 1.0));
        assert!(close(0.2, 2.0));
        assert!(close(0.3, 3.0));
        assert!(close(0.4, 2.0)); // halfway from 3 (0.3) to 1 (0.5)
        assert!(close(0.0, 2.0));
        assert!(close(0.05, 1.5));
        assert!(close(0.45, 1.5));
        assert!(close(-0.35, 1.5));
        assert!(close(10.2, 2.0));
    }

    #[test]
    fn rejects_bad_waypoints() {
        assert!(PeriodicReference::new(0.0, vec![0.0], vec![vec![1.0]]).is_err());
        assert!(PeriodicReference::new(1.0, vec![1.0], vec![vec![1.0]]).is_err());
        assert!(PeriodicReference::new(1.0, vec![0.5, 0.2], vec![vec![1.0], vec![2.0]]).is_err());
        assert!(PeriodicReference::new(1.0, vec![0.0], vec![vec![f64::NAN]]).is_err());
        assert!(PeriodicReference::new(1.0, vec![0.0, 0.5], vec![vec![1.0], vec![]]).is_err());
    }
}
