//! The `mpc` section → [`MpcSetup`]: control rate, deadline, [`ControllerSettings`], noise, and the
//! coordinate names of the controls.

use crate::ad::{Function, Sx};
use crate::mpc::{ContactSchedule, ControllerSettings, GaitBlend, Library, Tracking};

use super::error::{invalid, shape, ConfigError};
use super::ocp_build::vector;
use super::problem::{ModelSource, Problem};
use super::schema::{ContactScheduleSpec, MpcSpec, Numbers};
use super::tree::join_index;

/// Default number of closed-loop ticks of `fesdj mpc`.
pub const DEFAULT_STEPS: usize = 50;

/// Everything a receding-horizon run needs besides the OCP.
#[derive(Clone, Debug, PartialEq)]
pub struct MpcSetup {
    /// Control rate (Hz).
    pub rate_hz: f64,
    /// Control period `1 / rate_hz` (the plant step of a closed-loop run).
    pub dt: f64,
    /// Command rate of the node (Hz, ≥ `rate_hz`; `mpc.command_rate_hz`).
    pub command_rate_hz: f64,
    /// Closed-loop ticks.
    pub steps: usize,
    /// Wall-time budget of every solve, seconds (`mpc.deadline_s`: a solve that needs longer
    /// misses its deadline and is not used).
    pub solve_budget_s: f64,
    /// Budget of the start-up solve before the first tick (`mpc.startup_deadline_s`; `None`:
    /// no start-up solve).
    pub startup_budget_s: Option<f64>,
    /// Controller settings (actuated coordinates and effort limits filled in).
    pub settings: ControllerSettings,
    /// Measurement noise per state entry (empty: none).
    pub noise_std: Vec<f64>,
    /// Noise seed.
    pub seed: u64,
    /// Warm starts simulate their last interval (`mpc.tail_simulation`).
    pub tail_simulation: bool,
    /// Deepest measured penetration projected away before planning (`mpc.max_penetration`).
    pub max_penetration: f64,
    /// The imposed contact schedule (`mpc.contact_schedule`), if any.
    pub contact_schedule: Option<ContactSchedule>,
    /// The gait library (`mpc.gait_library`), checked against the problem.
    pub gait_library: Option<Library>,
    /// The constant base velocity command (`mpc.base_velocity`).
    pub base_velocity: Option<[f64; 3]>,
    /// The base's `x, y, yaw` coordinates (a `floating_zyx` root), if any.
    pub base_coordinates: Option<[usize; 3]>,
}

fn positive(field: &str, x: f64) -> Result<f64, ConfigError> {
    if x.is_finite() && x > 0.0 {
        Ok(x)
    } else {
        Err(invalid(field, format!("must be finite and > 0, got {x}")))
    }
}

/// [`vector`] with every entry finite (noise levels and effort limits cannot be infinite).
fn numbers(field: &str, n: &Numbers, len: usize) -> Result<Vec<f64>, ConfigError> {
    let v = vector(field, n, len)?;
    if let Some(i) = v.iter().position(|x| !x.is_finite()) {
        return Err(invalid(join_index(field, i), "must be finite"));
    }
    Ok(v)
}

impl Problem {
    /// The `mpc` section with its defaults resolved against the model and the OCP (which must
    /// exist: `horizon` and `ocp`).
    pub fn mpc_setup(&self) -> Result<MpcSetup, ConfigError> {
        let spec = self.config.mpc.clone().unwrap_or_default();
        let MpcSpec {
            rate_hz,
            steps,
            deadline_s,
            startup_deadline_s,
            warm_sigma0,
            cold_sigma0,
            shift,
            warm_duals,
            warm_retries,
            tail_simulation,
            max_penetration,
            tracking,
            command_rate_hz,
            accept_comp_residual,
            active_set_free_intervals,
            active_set_free_last_intervals,
            gait_schedule_from,
            contact_penalty_weight,
            contact_schedule,
            gait_library,
            base_velocity,
            actuated,
            effort_limit,
            fallback,
            noise,
            plant: _,
            backup: _,
        } = spec;
        let ocp = self.ocp()?;
        if ocp.ocp.periodic.is_some() {
            return Err(invalid(
                "ocp.periodic",
                "an MPC starts every plan at the measured state; periodicity is for `fesdj solve` \
                 and the gait library",
            ));
        }
        let sym = self.symbols();
        let (n_q, n_u) = (sym.n_q(), sym.n_u());
        let rate_hz = match rate_hz {
            Some(r) => positive("mpc.rate_hz", r)?,
            None => ocp.options.n_intervals as f64 / ocp.options.t_final,
        };
        let dt = 1.0 / rate_hz;
        let steps = steps.unwrap_or(DEFAULT_STEPS);
        let deadline_s = match deadline_s {
            Some(d) => positive("mpc.deadline_s", d)?,
            None => dt,
        };
        let defaults = ControllerSettings::default();
        let actuated = match actuated {
            Some(names) => {
                if names.len() != n_u {
                    return Err(shape(
                        "mpc.actuated",
                        format!("one coordinate name per control ({n_u})"),
                        names.len().to_string(),
                    ));
                }
                names
                    .iter()
                    .enumerate()
                    .map(|(i, n)| {
                        sym.q.iter().position(|q| q == n).ok_or_else(|| {
                            invalid(
                                join_index("mpc.actuated", i),
                                format!("'{n}' is not a coordinate (coordinates: {:?})", sym.q),
                            )
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()?
            }
            None => self.derived_actuation()?,
        };
        let effort_limit = match effort_limit {
            Some(l) => {
                let l = numbers("mpc.effort_limit", &l, n_u)?;
                if let Some(i) = l.iter().position(|x| *x <= 0.0) {
                    return Err(invalid(join_index("mpc.effort_limit", i), "must be > 0"));
                }
                l
            }
            None => match &ocp.ocp.u_bounds {
                Some(b) => {
                    let l: Vec<f64> = (0..n_u)
                        .map(|i| (-b.lb[i]).min(b.ub[i]))
                        .map(|x| if x > 0.0 { x } else { f64::INFINITY })
                        .collect();
                    if l.iter().all(|x| x.is_infinite()) {
                        Vec::new()
                    } else {
                        l
                    }
                }
                None => Vec::new(),
            },
        };
        if gait_schedule_from.is_some() {
            if gait_library.is_none() {
                return Err(invalid(
                    "mpc.gait_schedule_from",
                    "imposes the gait library's schedule: needs mpc.gait_library",
                ));
            }
            if contact_schedule.is_some() {
                return Err(invalid(
                    "mpc.gait_schedule_from",
                    "and mpc.contact_schedule both impose a contact schedule: give one",
                ));
            }
        }
        let settings = ControllerSettings {
            warm_sigma0: warm_sigma0.unwrap_or(defaults.warm_sigma0),
            cold_sigma0: cold_sigma0.unwrap_or(defaults.cold_sigma0),
            shift: shift.unwrap_or(defaults.shift),
            warm_duals: warm_duals.unwrap_or(defaults.warm_duals),
            warm_retries: warm_retries.unwrap_or(defaults.warm_retries),
            accept_comp_residual: accept_comp_residual.unwrap_or(defaults.accept_comp_residual),
            active_set_free_intervals: active_set_free_intervals
                .unwrap_or(defaults.active_set_free_intervals),
            active_set_free_last_intervals: active_set_free_last_intervals
                .unwrap_or(defaults.active_set_free_last_intervals),
            gait_schedule_from,
            contact_penalty_weight: match contact_penalty_weight {
                Some(w) => positive("mpc.contact_penalty_weight", w)?,
                None => defaults.contact_penalty_weight,
            },
            actuated,
            effort_limit,
            fallback: fallback.unwrap_or(defaults.fallback),
            tracking: match tracking {
                Some(t) => {
                    let kp = numbers("mpc.tracking.kp", &t.kp, n_u)?;
                    let kd = numbers("mpc.tracking.kd", &t.kd, n_u)?;
                    Some(Tracking { kp, kd })
                }
                None => None,
            },
        };
        let command_rate_hz = match command_rate_hz {
            Some(r) => {
                let r = positive("mpc.command_rate_hz", r)?;
                if r < rate_hz {
                    return Err(invalid(
                        "mpc.command_rate_hz",
                        format!("must be ≥ mpc.rate_hz ({rate_hz}), got {r}"),
                    ));
                }
                r
            }
            None => rate_hz,
        };
        settings.validate(n_q, n_u).map_err(|e| match e {
            crate::mpc::MpcError::Settings { field, why } => invalid(format!("mpc.{field}"), why),
            other => invalid("mpc", other.to_string()),
        })?;
        let (noise_std, seed) = match noise {
            Some(n) => (numbers("mpc.noise.std", &n.std, 2 * n_q)?, n.seed),
            None => (Vec::new(), 0),
        };
        if let Some(i) = noise_std.iter().position(|x| *x < 0.0) {
            return Err(invalid(join_index("mpc.noise.std", i), "must be ≥ 0"));
        }
        Ok(MpcSetup {
            rate_hz,
            dt,
            command_rate_hz,
            steps,
            solve_budget_s: deadline_s,
            startup_budget_s: match startup_deadline_s {
                Some(d) => Some(positive("mpc.startup_deadline_s", d)?),
                None => None,
            },
            settings,
            noise_std,
            seed,
            tail_simulation: tail_simulation.unwrap_or(false),
            max_penetration: match max_penetration {
                Some(m) => positive("mpc.max_penetration", m)?,
                None => 0.01,
            },
            contact_schedule: match contact_schedule {
                Some(c) => Some(self.contact_schedule(&c)?),
                None => None,
            },
            gait_library: match gait_library {
                Some(f) => Some(self.gait_library(&f)?),
                None => None,
            },
            base_velocity: match base_velocity {
                Some(v) => match v.iter().position(|x| !x.is_finite()) {
                    Some(i) => {
                        return Err(invalid(
                            join_index("mpc.base_velocity", i),
                            "must be finite",
                        ))
                    }
                    None => Some(v),
                },
                None => None,
            },
            base_coordinates: self.base_coordinates(),
        })
    }

    /// The base's `x, y, yaw` among the coordinates (`root_x`, `root_y`, `root_yaw` of a
    /// `floating_zyx` root), if the model has them.
    fn base_coordinates(&self) -> Option<[usize; 3]> {
        let q = &self.symbols().q;
        let at = |n: &str| q.iter().position(|c| c == n);
        Some([at("root_x")?, at("root_y")?, at("root_yaw")?])
    }

    /// `mpc.gait_library`: the data file of `fesdj gaits`, relative to the problem file.
    fn gait_library(&self, file: &str) -> Result<Library, ConfigError> {
        let field = "mpc.gait_library";
        let dir = self.file.parent().unwrap_or(std::path::Path::new("."));
        let path = dir.join(file);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| invalid(field, format!("cannot read {}: {e}", path.display())))?;
        let lib: Library = serde_json::from_str(&text).map_err(|e| {
            invalid(
                field,
                format!("{}: not a gait library: {e}", path.display()),
            )
        })?;
        let sym = self.symbols();
        let names: Vec<String> = sym.q.iter().chain(&sym.v).cloned().collect();
        let Some(base) = self.base_coordinates() else {
            return Err(invalid(
                field,
                "needs a `floating_zyx` base (coordinates root_x, root_y, root_yaw)",
            ));
        };
        GaitBlend::new(&lib, &names, base)
            .map_err(|e| invalid(field, format!("{}: {e}", path.display())))?;
        Ok(lib)
    }

    /// `mpc.contact_schedule` against the model's contact names.
    fn contact_schedule(&self, spec: &ContactScheduleSpec) -> Result<ContactSchedule, ConfigError> {
        let names = self.contact_names();
        let mut swing = vec![None; names.len()];
        for (name, [a, b]) in &spec.swing {
            let field = format!("mpc.contact_schedule.swing.{name}");
            let Some(l) = names.iter().position(|n| n == name) else {
                return Err(invalid(
                    field,
                    format!("not a contact (contacts: {names:?})"),
                ));
            };
            ContactSchedule::window(*a, *b).map_err(|why| invalid(field, why))?;
            swing[l] = Some((*a, *b));
        }
        positive("mpc.contact_schedule.period", spec.period)?;
        ContactSchedule::new(spec.period, swing)
            .map_err(|e| invalid("mpc.contact_schedule", e.to_string()))
    }

    /// The coordinate each control drives: the actuated joints of a robot, or for an
    /// expression model the single non-zero row of each column of `B_u(q_0)`.
    fn derived_actuation(&self) -> Result<Vec<usize>, ConfigError> {
        if let ModelSource::Robot(r) = &self.model {
            return Ok(r.actuated.clone());
        }
        let model = self.cls_model()?;
        let (n_q, n_u) = (model.n_q(), model.n_u());
        if n_u == 0 {
            return Ok(Vec::new());
        }
        let fesdj = |source| ConfigError::Fesdj {
            field: "model".into(),
            source,
        };
        let qs = Sx::sym_vec("q", n_q);
        let b = model.input_matrix(&qs).map_err(fesdj)?;
        let f = Function::new("b_u", &[&qs], &[&b]).map_err(|e| fesdj(e.into()))?;
        let mut out = vec![0.0; b.len()];
        f.eval(
            &[&self.config.initial.q],
            &mut [&mut out],
            &mut f.workspace(),
        )
        .map_err(|e| fesdj(e.into()))?;
        (0..n_u)
            .map(|i| {
                let col = &out[i * n_q..(i + 1) * n_q];
                let nz: Vec<usize> = (0..n_q).filter(|&j| col[j].abs() > 1e-12).collect();
                match nz.as_slice() {
                    [j] => Ok(*j),
                    _ => Err(invalid(
                        "mpc.actuated",
                        format!(
                            "control {i} drives {} coordinates; name the one for the fallback law \
                             (mpc.actuated: [..])",
                            nz.len()
                        ),
                    )),
                }
            })
            .collect()
    }
}
