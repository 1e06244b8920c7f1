//! A primal start for one transcription from the solution of another of the same model and
//! horizon **[ours]**: how a FESD-J controller without a warm start of its own starts from
//! its time-stepping backup's verified plan ([`Controller::set_backup`](super::Controller::set_backup)).

use crate::fesdj::{FrictionIndex, Layout};

/// Whether [`seed_from`] can map `src` onto `dst`: the same coordinates, number of control
/// intervals, controls per interval and contacts per stage.
pub(crate) fn compatible(dst: &Layout, src: &Layout) -> bool {
    let contacts = |l: &Layout| l.stages().next().map(|s| s.lambda_n.len());
    dst.n_q == src.n_q
        && dst.n_intervals() == src.n_intervals()
        && (0..dst.n_intervals()).all(|k| dst.u(k).len() == src.u(k).len())
        && contacts(dst) == contacts(src)
}

/// Write into `out` (length `dst.n_w`, holding `dst`'s initial guess) a primal point of `dst`
/// from the solution `w` of `src` (see [`compatible`]): the controls of every interval; the
/// states at every stage and element boundary of `dst` linear in time between `src`'s interval
/// ends (on `dst`'s nominal grid); the normal forces, lifted gaps and friction variables of
/// every stage of `dst` from the last stage of `src`'s last element in the same interval — in
/// `src_impulses` mode (time stepping, §4.7: the stage's algebraic variables are impulses over
/// the step `h̄`) its forces and the friction forces and margins divided by `h̄`. Step sizes,
/// impulse blocks and everything else keep the guess. Nothing is allocated.
pub(crate) fn seed_from(
    dst: &Layout,
    src: &Layout,
    w: &[f64],
    src_impulses: bool,
    out: &mut [f64],
) {
    for (&d, &s) in dst.x0_q.iter().zip(&src.x0_q) {
        out[d] = w[s];
    }
    for (&d, &s) in dst.x0_v.iter().zip(&src.x0_v) {
        out[d] = w[s];
    }
    let force = if src_impulses {
        1.0 / src.h_nominal
    } else {
        1.0
    };
    for k in 0..dst.n_intervals() {
        for (&d, &s) in dst.u(k).iter().zip(src.u(k)) {
            out[d] = w[s];
        }
        let (q_a, v_a) = src.pre_impact(k, 0);
        let (q_b, v_b) = src.interval_end(k);
        let lerp = |out: &mut [f64], d: &[usize], a: &[usize], b: &[usize], tau: f64| {
            for ((&d, &a), &b) in d.iter().zip(a).zip(b) {
                out[d] = w[a] + tau * (w[b] - w[a]);
            }
        };
        let Some(last) = src.element(k, src.n_fe(k) - 1).stages.last() else {
            continue;
        };
        let n_fe = dst.n_fe(k);
        for n in 0..n_fe {
            let e = dst.element(k, n);
            let tau0 = n as f64 / n_fe as f64;
            lerp(out, &e.q0, q_a, q_b, tau0);
            lerp(out, &e.v0, v_a, v_b, tau0);
            for (j, st) in e.stages.iter().enumerate() {
                let tau = (n as f64 + dst.c[j]) / n_fe as f64;
                lerp(out, &st.q, q_a, q_b, tau);
                lerp(out, &st.v, v_a, v_b, tau);
                for (&d, &s) in st.lambda_n.iter().zip(&last.lambda_n) {
                    out[d] = w[s] * force;
                }
                for (&d, &s) in st.y_gap.iter().zip(&last.y_gap) {
                    out[d] = w[s];
                }
                for (fd, fs) in st.friction.iter().zip(&last.friction) {
                    seed_friction(fd, fs, w, force, out);
                }
            }
            if let Some(r) = &e.right {
                let tau = (n + 1) as f64 / n_fe as f64;
                lerp(out, &r.q, q_a, q_b, tau);
                lerp(out, &r.v, v_a, v_b, tau);
            }
        }
    }
}

/// One contact's friction variables of the same model: forces and the friction-cone margin
/// scaled by `force`, the velocity-level multipliers copied.
fn seed_friction(dst: &FrictionIndex, src: &FrictionIndex, w: &[f64], force: f64, out: &mut [f64]) {
    match (dst, src) {
        (
            FrictionIndex::Polyhedral {
                lambda_d,
                gamma_d,
                beta_d,
                delta_d,
            },
            FrictionIndex::Polyhedral {
                lambda_d: s_lambda,
                gamma_d: s_gamma,
                beta_d: s_beta,
                delta_d: s_delta,
            },
        ) => {
            for (&d, &s) in lambda_d.iter().zip(s_lambda) {
                out[d] = w[s] * force;
            }
            out[*gamma_d] = w[*s_gamma];
            out[*beta_d] = w[*s_beta] * force;
            for (&d, &s) in delta_d.iter().zip(s_delta) {
                out[d] = w[s];
            }
        }
        (
            FrictionIndex::Conic {
                lambda_t,
                gamma,
                beta,
                ..
            },
            FrictionIndex::Conic {
                lambda_t: s_lambda,
                gamma: s_gamma,
                beta: s_beta,
                ..
            },
        ) => {
            for (&d, &s) in lambda_t.iter().zip(s_lambda) {
                out[d] = w[s] * force;
            }
            out[*gamma] = w[*s_gamma];
            out[*beta] = w[*s_beta] * force;
        }
        _ => {}
    }
}
