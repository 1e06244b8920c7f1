//! A gait library as the tracking reference of a commanded base velocity **[ours]** (issue 27,
//! formulation §10.9): the data file that `fesdj gaits` writes ([`Library`]), and
//! [`GaitBlend`], which the controller writes into the LSQ references of its horizon before
//! every solve: for the command in force, the two library gaits that bracket it on its dominant
//! axis (forward, lateral or yaw rate, each normalised by the library's range on that axis),
//! blended linearly, at the controller's clock. Every gait is shifted in phase so that the
//! stance of the first contact is centred at phase 0, so that blended gaits step together. The
//! base's `x, y, yaw` and their rates are not written: they follow the command
//! ([`BaseCommandReference`](super::BaseCommandReference)). Contacts stay the optimiser's
//! choice: the gait gives joint angles and body motion to aim at, not when feet touch down —
//! unless the controller imposes the gait's own stance pattern on the later intervals of its
//! horizon ([`GaitBlend::schedule_gait`], [`GaitBlend::in_contact`]; `mpc.gait_schedule_from`).

use serde::{Deserialize, Serialize};

use crate::fesdj::Layout;

use super::error::MpcError;
use super::reference::PeriodicReference;

/// One solved gait of the library.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct Gait {
    /// The command `[vₓ, v_y, ω]`.
    pub command: [f64; 3],
    /// The gait's name from its footfall pattern.
    pub name: String,
    /// Solver status.
    pub status: String,
    /// `true` when the solve met the complementarity tolerance and its status is solved.
    pub verified: bool,
    /// Final complementarity residual.
    pub comp_residual: f64,
    /// Objective.
    pub objective: f64,
    /// IPM iterations.
    pub iterations: usize,
    /// Period `T` (s).
    pub period: f64,
    /// Sample times of `x` (interval ends, `0..=T`).
    pub t: Vec<f64>,
    /// States `(q, v)` at `t`, in the frame of the start (base at the origin, heading 0).
    pub x: Vec<Vec<f64>>,
    /// Controls per interval.
    pub u: Vec<Vec<f64>>,
    /// Sample times of the contact forces.
    pub t_force: Vec<f64>,
    /// Normal forces per sample and contact.
    pub lambda_n: Vec<Vec<f64>>,
    /// Stance per sample and contact.
    pub stance: Vec<Vec<bool>>,
}

/// The library data file.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct Library {
    /// The problem file's name.
    pub problem: String,
    /// The key of the settings the library was made with.
    pub key: String,
    /// Contact names.
    pub contacts: Vec<String>,
    /// State component names (`q` then `v`).
    pub state_names: Vec<String>,
    /// The gaits, in the order of the commands.
    pub gaits: Vec<Gait>,
}

fn bad(what: &str, why: impl Into<String>) -> MpcError {
    MpcError::BadInput {
        what: what.into(),
        why: why.into(),
    }
}

/// The phase (samples to rotate by) that centres the first contact's stance at 0: the circular
/// mean of its normal force over the period.
fn phase_shift(g: &Gait, n: usize) -> usize {
    let (mut c, mut s) = (0.0, 0.0);
    for (t, l) in g.t_force.iter().zip(&g.lambda_n) {
        let a = std::f64::consts::TAU * t / g.period;
        let f = l.first().copied().unwrap_or(0.0);
        c += f * a.cos();
        s += f * a.sin();
    }
    if c.hypot(s) < 1e-12 {
        return 0;
    }
    let frac = s.atan2(c).rem_euclid(std::f64::consts::TAU) / std::f64::consts::TAU;
    ((frac * n as f64).round() as usize) % n
}

/// The blend of a library's gaits for a commanded base velocity (see the module).
#[derive(Clone, Debug, PartialEq)]
pub struct GaitBlend {
    gaits: Vec<KeptGait>,
    /// Per axis, `(command value, gait)` sorted by value; standing is on every axis.
    axes: [Vec<(f64, usize)>; 3],
    /// Largest |value| per axis (1 where the axis has no gait).
    ranges: [f64; 3],
    /// State entries not written (the base's x, y, yaw and their rates).
    skip: Vec<bool>,
}

/// One gait of the blend: its reference (phase-shifted), its command, and its stance pattern
/// in the same phase (`stance[s][ℓ]`: contact `ℓ` carries load at the sample `s` intervals
/// after phase 0), empty when it imposes nothing (the file gives none, or every contact stays
/// loaded throughout: standing).
#[derive(Clone, Debug, PartialEq)]
struct KeptGait {
    reference: PeriodicReference,
    command: [f64; 3],
    stance: Vec<Vec<bool>>,
}

impl GaitBlend {
    /// The blend of `library` for a problem with state names `state_names`, the base's planar
    /// coordinates at `base = [x, y, yaw]` (indices into `q`). Gaits that are not verified, or
    /// whose command moves along more than one axis, are left out.
    pub fn new(
        library: &Library,
        state_names: &[String],
        base: [usize; 3],
    ) -> Result<GaitBlend, MpcError> {
        if library.state_names != state_names {
            return Err(bad(
                "gait library",
                format!(
                    "its state names {:?} are not the problem's {:?}",
                    library.state_names, state_names
                ),
            ));
        }
        let n_q = state_names.len() / 2;
        let mut skip = vec![false; state_names.len()];
        for &b in &base {
            if b >= n_q {
                return Err(bad(
                    "gait library",
                    format!("base index {b} beyond n_q = {n_q}"),
                ));
            }
            skip[b] = true;
            skip[n_q + b] = true;
        }
        let mut gaits = Vec::new();
        let mut axes: [Vec<(f64, usize)>; 3] = Default::default();
        for (i, g) in library.gaits.iter().enumerate() {
            let moving = g.command.iter().filter(|c| **c != 0.0).count();
            if !g.verified || moving > 1 {
                continue;
            }
            let n = g.x.len().saturating_sub(1);
            if n == 0 || g.x.iter().any(|x| x.len() != state_names.len()) {
                return Err(bad(
                    &format!("gait library: gaits[{i}].x"),
                    format!("needs at least 2 states of {} entries", state_names.len()),
                ));
            }
            if g.t_force.len() != g.lambda_n.len() {
                return Err(bad(
                    &format!("gait library: gaits[{i}].lambda_n"),
                    "one entry per t_force",
                ));
            }
            let m = phase_shift(g, n);
            let times: Vec<f64> = (0..n).map(|k| g.period * k as f64 / n as f64).collect();
            let waypoints: Vec<Vec<f64>> = (0..n).map(|k| g.x[(k + m) % n].clone()).collect();
            let r = PeriodicReference::new(g.period, times, waypoints)
                .map_err(|e| bad(&format!("gait library: gaits[{i}]"), e.to_string()))?;
            // `stance[j]` is the sample at the end of interval j, time (j + 1) T / n of the
            // unshifted gait; sample s of the shifted one is at s T / n, i.e. (s + m) T / n.
            let n_c = library.contacts.len();
            if !g.stance.is_empty()
                && (g.stance.len() != n || g.stance.iter().any(|s| s.len() != n_c))
            {
                return Err(bad(
                    &format!("gait library: gaits[{i}].stance"),
                    format!("needs {n} samples of {n_c} contacts (or none)"),
                ));
            }
            let swings = g.stance.iter().any(|s| s.iter().any(|&c| !c));
            let stance = if swings {
                (0..n)
                    .map(|s| g.stance[(s + m + n - 1) % n].clone())
                    .collect()
            } else {
                Vec::new()
            };
            let j = gaits.len();
            gaits.push(KeptGait {
                reference: r,
                command: g.command,
                stance,
            });
            for (a, axis) in axes.iter_mut().enumerate() {
                if moving == 0 || g.command[a] != 0.0 {
                    axis.push((g.command[a], j));
                }
            }
        }
        if gaits.is_empty() {
            return Err(bad("gait library", "no verified single-axis gait"));
        }
        let mut ranges = [1.0; 3];
        for (a, axis) in axes.iter_mut().enumerate() {
            axis.sort_by(|x, y| x.0.total_cmp(&y.0));
            let r = axis.iter().map(|x| x.0.abs()).fold(0.0, f64::max);
            if r > 0.0 {
                ranges[a] = r;
            }
        }
        Ok(GaitBlend {
            gaits,
            axes,
            ranges,
            skip,
        })
    }

    /// Attach to the LSQ references of `layout` (a horizon of `t_final`; the terminal
    /// reference too when the problem has one).
    pub fn attach(&mut self, layout: &Layout, t_final: f64) -> Result<(), MpcError> {
        let terminal = !layout.params.x_ref_terminal.is_empty();
        for g in &mut self.gaits {
            g.reference.attach(layout, t_final, terminal)?;
        }
        Ok(())
    }

    /// The two gaits and the weight of the second for the command `cmd` (clamped to the
    /// library's range on its dominant axis).
    pub fn pick(&self, cmd: [f64; 3]) -> (usize, usize, f64) {
        let mut axis = None;
        let mut best = 0.0;
        for (a, (c, r)) in cmd.iter().zip(&self.ranges).enumerate() {
            let n = c.abs() / r;
            if n > best && !self.axes[a].is_empty() {
                best = n;
                axis = Some(a);
            }
        }
        let a = axis.unwrap_or(0);
        let list = &self.axes[a];
        let v = if axis.is_some() { cmd[a] } else { 0.0 };
        let Some(&(v0, g0)) = list.first() else {
            return (0, 0, 0.0);
        };
        if v <= v0 {
            return (g0, g0, 0.0);
        }
        for w in list.windows(2) {
            let ((va, ga), (vb, gb)) = (w[0], w[1]);
            if v <= vb {
                let beta = if vb > va { (v - va) / (vb - va) } else { 0.0 };
                return (ga, gb, beta);
            }
        }
        let (_, gl) = list[list.len() - 1];
        (gl, gl, 0.0)
    }

    /// The gait whose stance pattern a command steps with: of the two gaits blended for `cmd`
    /// ([`GaitBlend::pick`]) the one with the larger command (normalised by the library's
    /// ranges), since the blend moves only by stepping; `None` when that gait keeps every
    /// contact loaded throughout (standing) or its file gives no stance pattern.
    pub fn schedule_gait(&self, cmd: [f64; 3]) -> Option<usize> {
        let (a, b, beta) = self.pick(cmd);
        let speed = |g: usize| -> f64 {
            self.gaits[g]
                .command
                .iter()
                .zip(&self.ranges)
                .map(|(c, r)| (c / r).abs())
                .sum()
        };
        let g = match (beta > 0.0, beta < 1.0) {
            (true, true) if speed(a) > speed(b) => a,
            (true, _) => b,
            _ => a,
        };
        (!self.gaits[g].stance.is_empty()).then_some(g)
    }

    /// Whether gait `g` ([`GaitBlend::schedule_gait`]) has contact `l` loaded at time `t` of
    /// the controller's clock (the sample nearest `t`; `None` for a contact or gait the file
    /// does not describe, or a gait that imposes nothing).
    pub fn in_contact(&self, g: usize, t: f64, l: usize) -> Option<bool> {
        let gait = self.gaits.get(g)?;
        let (st, n) = (&gait.stance, gait.stance.len());
        if n == 0 {
            return None;
        }
        let s = (t / gait.reference.period() * n as f64)
            .round()
            .rem_euclid(n as f64) as usize;
        st.get(s.min(n - 1))?.get(l).copied()
    }

    /// Write the blended references for a solve whose state is at time `t` under the command
    /// `cmd` into `p` (no allocation); the skipped entries keep their values.
    pub fn write(&self, t: f64, cmd: [f64; 3], p: &mut [f64]) {
        let (a, b, beta) = self.pick(cmd);
        let (ga, gb) = (&self.gaits[a].reference, &self.gaits[b].reference);
        for g in 0..ga.groups() {
            let (dt, slots) = ga.group(g);
            for (j, &slot) in slots.iter().enumerate() {
                if self.skip[j] {
                    continue;
                }
                let va = ga.entry_at(t + dt, j);
                let vb = gb.entry_at(t + dt, j);
                if let Some(x) = p.get_mut(slot) {
                    *x = (1.0 - beta) * va + beta * vb;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gait(cmd: [f64; 3], value: f64, fl_peak: usize) -> Gait {
        // One state entry pair (q = [a], v = [b]); 4 samples over a period of 0.4; the first
        // contact's force peaks at sample `fl_peak`.
        let x = (0..5)
            .map(|k| vec![value + k as f64, 10.0 * value])
            .collect();
        Gait {
            command: cmd,
            name: "test".into(),
            status: "Solved".into(),
            verified: true,
            comp_residual: 0.0,
            objective: 0.0,
            iterations: 1,
            period: 0.4,
            t: vec![0.0, 0.1, 0.2, 0.3, 0.4],
            x,
            u: vec![],
            t_force: vec![0.1, 0.2, 0.3, 0.4],
            lambda_n: (0..4)
                .map(|k| vec![if (k + 1) % 4 == fl_peak { 1.0 } else { 0.0 }])
                .collect(),
            stance: vec![],
        }
    }

    /// A library of one coordinate `a` and one contact `c`.
    fn library(gaits: Vec<Gait>) -> Library {
        Library {
            problem: String::new(),
            key: String::new(),
            contacts: vec!["c".into()],
            state_names: vec!["a".into(), "v_a".into()],
            gaits,
        }
    }

    #[test]
    fn picks_the_bracketing_gaits_on_the_dominant_axis() {
        let lib = library(vec![
            gait([0.0, 0.0, 0.0], 0.0, 0),
            gait([0.2, 0.0, 0.0], 1.0, 0),
            gait([0.4, 0.0, 0.0], 2.0, 0),
            gait([0.0, 0.0, 0.5], 3.0, 0),
            gait([0.1, 0.0, 0.5], 4.0, 0),
        ]);
        let names = lib.state_names.clone();
        // The base index must be within n_q = 1, so no entry is free of `skip` here; use a
        // blend over `a` only by building it through `new` and checking `pick`.
        let b = GaitBlend::new(&lib, &names, [0, 0, 0]).unwrap();
        assert_eq!(b.pick([0.0, 0.0, 0.0]), (0, 0, 0.0));
        let (a, c, w) = b.pick([0.3, 0.0, 0.1]);
        assert_eq!((a, c), (1, 2));
        assert!((w - 0.5).abs() < 1e-12);
        let (a, c, w) = b.pick([0.1, 0.0, 0.0]);
        assert_eq!((a, c), (0, 1));
        assert!((w - 0.5).abs() < 1e-12);
        // Yaw dominates (0.4 / 0.5 > 0.1 / 0.4): between standing and the turn.
        let (a, c, w) = b.pick([0.1, 0.0, 0.4]);
        assert_eq!((a, c), (0, 3));
        assert!((w - 0.8).abs() < 1e-12);
        // Beyond the range: clamped; backwards with no backward gait: standing.
        assert_eq!(b.pick([1.0, 0.0, 0.0]), (2, 2, 0.0));
        assert_eq!(b.pick([-0.2, 0.0, 0.0]), (0, 0, 0.0));
        // The combined command (0.1, 0, 0.5) is left out: four gaits kept.
        assert_eq!(b.gaits.len(), 4);
    }

    #[test]
    fn the_schedule_is_the_faster_bracketing_gaits_stance_in_its_phase() {
        // One contact; the moving gaits load it only at their force sample 1 (t_force 0.2,
        // stance[1]); standing loads it throughout.
        let with_stance = |cmd: [f64; 3], swings: bool| {
            let mut g = gait(cmd, 0.0, 2);
            g.stance = (0..4).map(|k| vec![!swings || k == 1]).collect();
            g
        };
        let lib = library(vec![
            with_stance([-0.2, 0.0, 0.0], true),
            with_stance([0.0, 0.0, 0.0], false),
            with_stance([0.2, 0.0, 0.0], true),
        ]);
        let names = lib.state_names.clone();
        let b = GaitBlend::new(&lib, &names, [0, 0, 0]).unwrap();
        assert_eq!(b.schedule_gait([0.0, 0.0, 0.0]), None);
        assert_eq!(b.schedule_gait([0.05, 0.0, 0.0]), Some(2));
        assert_eq!(b.schedule_gait([-0.1, 0.0, 0.0]), Some(0));
        assert_eq!(b.schedule_gait([0.9, 0.0, 0.0]), Some(2));
        // The force peak is at t_force[1] = 0.2 = 2/4 of the period, so the gait is shifted
        // by two samples: its stance sample (t 0.2) is at phase 0, and the others swing.
        let m = phase_shift(&lib.gaits[2], 4);
        assert_eq!(m, 2);
        for (t, want) in [
            (0.0, true),
            (0.1, false),
            (0.2, false),
            (0.3, false),
            (0.4, true),
        ] {
            assert_eq!(b.in_contact(2, t, 0), Some(want), "t {t}");
        }
        // Near a sample: the nearest one.
        assert_eq!(b.in_contact(2, 0.04, 0), Some(true));
        assert_eq!(b.in_contact(2, 0.06, 0), Some(false));
        assert_eq!(b.in_contact(2, 0.0, 1), None);
        // A stance pattern of the wrong shape is refused by name.
        let mut bad = lib.clone();
        bad.gaits[0].stance.pop();
        let e = GaitBlend::new(&bad, &names, [0, 0, 0])
            .unwrap_err()
            .to_string();
        assert!(e.contains("gaits[0].stance"), "{e}");
    }

    #[test]
    fn the_phase_centres_the_first_contacts_stance() {
        // The force sits at t = 0.3 (sample 3 of 4, at 3/4 of the period): rotate by 3.
        let g = gait([0.2, 0.0, 0.0], 1.0, 3);
        assert_eq!(phase_shift(&g, 4), 3);
        let g = gait([0.2, 0.0, 0.0], 1.0, 0);
        assert_eq!(phase_shift(&g, 4), 0);
    }

    #[test]
    fn refuses_a_library_of_another_problem() {
        let lib = library(vec![gait([0.0, 0.0, 0.0], 0.0, 0)]);
        let e = GaitBlend::new(&lib, &["b".into(), "v_b".into()], [0, 0, 0]).unwrap_err();
        assert!(e.to_string().contains("state names"), "{e}");
    }
}
