//! An imposed periodic contact schedule **[ours]**: the fixed-schedule variant of a
//! controller, the baseline against which contact-implicit planning is compared (issue 27's
//! push recovery). Each listed contact swings (normal force fixed to 0) during one window of
//! every period and stands (gap fixed to 0) otherwise; unlisted contacts stay free, so the
//! optimiser chooses them as usual (formulation §4.8, "imposed contact schedule").
//!
//! The clock is the controller's state time, the one a [`PeriodicReference`](super::PeriodicReference)
//! uses, so a schedule written with a gait reference of the same period stays in phase with it.
//! Element `n` of control interval `k` of a solve at state time `t` takes the schedule at its
//! nominal end `t + (k + (n + 1)/N_FE) T/N`.

use crate::fesdj::{FesdjError, FesdjProblem};

use super::error::MpcError;

/// Impose on `problem` the contact state `contact(ℓ, τ)` (`Some(true)` standing, `Some(false)`
/// swinging, `None` free) at the nominal end `τ = t0 + (k + (n + 1)/N_FE) h` of element `n` of
/// every control interval `k ≥ from` of a grid that starts at `t0` with intervals of `h`; the
/// pairs of the earlier intervals are left free. No allocation.
pub(super) fn impose_at_element_ends(
    problem: &mut FesdjProblem,
    t0: f64,
    h: f64,
    from: usize,
    mut contact: impl FnMut(usize, f64) -> Option<bool>,
) -> Result<(), FesdjError> {
    let n_fe = problem.options().n_fe.max(1) as f64;
    problem.set_contact_schedule(|k, n, l| {
        if k < from {
            return None;
        }
        contact(l, t0 + (k as f64 + (n as f64 + 1.0) / n_fe) * h)
    })
}

/// Swing windows per contact, as fractions of the period.
#[derive(Clone, Debug, PartialEq)]
pub struct ContactSchedule {
    period: f64,
    /// Per contact: `(start, length)` of its swing window (fractions of the period, start in
    /// `[0, 1)`, length in `(0, 1)`), `None` when the schedule leaves the contact free.
    swing: Vec<Option<(f64, f64)>>,
}

impl ContactSchedule {
    /// A schedule of `period` seconds; `swing[ℓ] = Some((start, end))` makes contact `ℓ`
    /// swing from `start` to `end` (fractions of the period, `end` may wrap past 1: `(0.9,
    /// 0.1)` swings over the period boundary; `start == end`: never, the contact always
    /// stands).
    pub fn new(period: f64, swing: Vec<Option<(f64, f64)>>) -> Result<ContactSchedule, MpcError> {
        if !(period.is_finite() && period > 0.0) {
            return Err(MpcError::Settings {
                field: "contact_schedule.period".into(),
                why: format!("must be finite and > 0, got {period}"),
            });
        }
        let mut windows = Vec::with_capacity(swing.len());
        for (l, w) in swing.into_iter().enumerate() {
            windows.push(match w {
                None => None,
                Some((a, b)) => Some(Self::window(a, b).map_err(|why| MpcError::Settings {
                    field: format!("contact_schedule.swing[{l}]"),
                    why,
                })?),
            });
        }
        Ok(ContactSchedule {
            period,
            swing: windows,
        })
    }

    /// `(start, length)` of the swing window `[a, b]` (fractions of the period), or why it is
    /// not one.
    pub fn window(a: f64, b: f64) -> Result<(f64, f64), String> {
        let ok = |x: f64| x.is_finite() && (0.0..=1.0).contains(&x);
        if !(ok(a) && ok(b)) || (b - a).abs() == 1.0 {
            return Err(format!(
                "start and end must be fractions of the period in [0, 1], less than a whole \
                 period apart, got [{a}, {b}]"
            ));
        }
        Ok((a.rem_euclid(1.0), (b - a).rem_euclid(1.0)))
    }

    /// Number of contacts the schedule was written for.
    pub fn n_contacts(&self) -> usize {
        self.swing.len()
    }

    /// Whether contact `l` is closed at time `t`: `Some(true)` standing, `Some(false)`
    /// swinging, `None` free (not listed).
    pub fn in_contact(&self, l: usize, t: f64) -> Option<bool> {
        let (start, len) = (*self.swing.get(l)?)?;
        let phase = (t / self.period).rem_euclid(1.0);
        Some((phase - start).rem_euclid(1.0) >= len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_wrap_and_unlisted_contacts_are_free() {
        // Contact 0 swings during [0.25, 0.5) of a 1.2 s period, contact 1 over the wrap
        // [0.9, 0.1), contact 2 is free.
        let s = ContactSchedule::new(
            1.2,
            vec![Some((0.25, 0.5)), Some((0.9, 0.1)), None, Some((0.3, 0.3))],
        )
        .unwrap();
        let at = |l, phase: f64| s.in_contact(l, phase * 1.2);
        assert_eq!(at(0, 0.1), Some(true));
        assert_eq!(at(0, 0.3), Some(false));
        assert_eq!(at(0, 0.49), Some(false));
        assert_eq!(at(0, 0.51), Some(true));
        assert_eq!(at(0, 1.3), Some(false)); // one period later
        assert_eq!(at(1, 0.95), Some(false));
        assert_eq!(at(1, 0.05), Some(false));
        assert_eq!(at(1, 0.5), Some(true));
        assert_eq!(at(2, 0.3), None);
        // an empty window: always standing
        for phase in [0.0, 0.3, 0.31, 0.99] {
            assert_eq!(at(3, phase), Some(true));
        }
        assert_eq!(at(4, 0.3), None);
    }

    #[test]
    fn bad_windows_are_refused_with_the_field() {
        let e = ContactSchedule::new(0.0, vec![]).unwrap_err().to_string();
        assert!(e.contains("contact_schedule.period"), "{e}");
        let e = ContactSchedule::new(1.0, vec![None, Some((0.0, 1.0))])
            .unwrap_err()
            .to_string();
        assert!(e.contains("contact_schedule.swing[1]"), "{e}");
        let e = ContactSchedule::new(1.0, vec![Some((0.2, 1.5))])
            .unwrap_err()
            .to_string();
        assert!(e.contains("swing[0]"), "{e}");
    }
}
