//! The gait library (issue 27, formulation §10.9): for every commanded body velocity
//! `(vₓ, v_y, ω)` of a library file, the periodic OCP of one gait period, solved by our
//! optimiser with no contact schedule and no foot-height profile. The state at `T` equals the
//! state at 0 moved by the travelled distance and turned by the travelled heading; which feet
//! carry the body and when they lift and land is the optimiser's choice.
//!
//! A library file (`config/quadruped_gaits.yaml`) names the problem file of one period, the
//! base coordinates and the commands; [`solve_gait`] solves one command, [`Library`] holds the
//! results that `fesdj gaits` writes, and [`footfall_svg`] draws one gait's footfall diagram.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::ocp::build_ocp;
use super::BuildError;
use crate::config::{ConfigError, Problem};
use crate::fesdj::{FesdjError, Start};
use crate::mpc::base_command::arc;
pub use crate::mpc::gait_library::{Gait, Library};
use crate::solver::Status;

/// Errors of the gait library.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum GaitError {
    /// A file could not be read or written.
    #[error("{file}: {why}")]
    Io {
        /// File.
        file: String,
        /// Why.
        why: String,
    },
    /// The library file is invalid.
    #[error("{file}: {field}: {why}")]
    Spec {
        /// Library file.
        file: String,
        /// Field.
        field: String,
        /// Why.
        why: String,
    },
    /// The problem file is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// Building or solving the OCP failed.
    #[error(transparent)]
    Fesdj(#[from] FesdjError),
    /// Building the OCP failed.
    #[error(transparent)]
    Build(#[from] BuildError),
}

/// Names of the base's planar coordinates in the problem file (`floating_zyx`: `root_x`,
/// `root_y`, `root_yaw`; their velocities are `v_<name>`).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BaseNames {
    /// Forward coordinate.
    pub x: String,
    /// Lateral coordinate.
    pub y: String,
    /// Heading.
    pub yaw: String,
}

impl Default for BaseNames {
    fn default() -> BaseNames {
        BaseNames {
            x: "root_x".into(),
            y: "root_y".into(),
            yaw: "root_yaw".into(),
        }
    }
}

/// A library file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LibrarySpec {
    /// The problem file of one period (relative to the library file): its horizon is the
    /// period, its `ocp.x_ref` the standing reference whose base pose and velocity each command
    /// replaces, its `ocp.periodic.fixed` the components of the start that stay put.
    pub problem: PathBuf,
    /// The library data file written (relative to the library file).
    pub output: PathBuf,
    /// A directory for the footfall diagrams (SVG, one per command; relative to the library
    /// file; default none).
    #[serde(default)]
    pub diagrams: Option<PathBuf>,
    /// Base coordinate names.
    #[serde(default)]
    pub base: BaseNames,
    /// A foot is in stance at a sample when its normal force exceeds this fraction of the mean
    /// normal force per foot (default 0.1).
    #[serde(default = "default_stance_fraction")]
    pub stance_fraction: f64,
    /// A staged solve (default none: one solve from the default guess): see [`StagedSpec`].
    #[serde(default)]
    pub start: Option<StagedSpec>,
    /// Commands `[vₓ, v_y, ω]` in the body frame (m/s, m/s, rad/s).
    pub commands: Vec<[f64; 3]>,
}

/// A staged solve of every gait: first the problem with `overrides` (e.g. `ocp.path=null`
/// without the foot clearance, `solver.hessian=gauss_newton`) from the default guess, then the
/// problem itself from that point with σ₀ = `sigma0`. The two problems must have the same
/// variables.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StagedSpec {
    /// `--set`-style overrides of the first solve.
    pub overrides: Vec<String>,
    /// σ₀ of the second solve.
    pub sigma0: f64,
}

fn default_stance_fraction() -> f64 {
    0.1
}

impl LibrarySpec {
    /// Read and check a library file.
    pub fn load(path: &Path) -> Result<LibrarySpec, GaitError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| GaitError::Io {
            file: file.clone(),
            why: e.to_string(),
        })?;
        let spec: LibrarySpec = serde_saphyr::from_str(&text).map_err(|e| GaitError::Spec {
            file: file.clone(),
            field: "(file)".into(),
            why: e.to_string(),
        })?;
        let bad = |field: String, why: String| GaitError::Spec {
            file: file.clone(),
            field,
            why,
        };
        if spec.commands.is_empty() {
            return Err(bad("commands".into(), "needs at least one command".into()));
        }
        for (i, c) in spec.commands.iter().enumerate() {
            if c.iter().any(|x| !x.is_finite()) {
                return Err(bad(
                    format!("commands[{i}]"),
                    format!("must be finite, got {c:?}"),
                ));
            }
        }
        if let Some(st) = &spec.start {
            if !(st.sigma0.is_finite() && st.sigma0 > 0.0) {
                return Err(bad(
                    "start.sigma0".into(),
                    format!("must be finite and > 0, got {}", st.sigma0),
                ));
            }
        }
        let f = spec.stance_fraction;
        if !(f > 0.0 && f < 1.0) {
            return Err(bad(
                "stance_fraction".into(),
                format!("must be in (0, 1), got {f}"),
            ));
        }
        Ok(spec)
    }
}

/// A 64-bit FNV-1a digest of the settings a library depends on: `inputs` (the problem file's
/// text and its robot's URDF), the library entries that shape the solves and the crate version
/// (hex). Results of an earlier run are reused only under the same key.
pub fn settings_key(inputs: &str, spec: &LibrarySpec) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    };
    feed(inputs.as_bytes());
    let start = spec.start.as_ref().map(|s| (&s.overrides, s.sigma0));
    feed(format!("{:?}|{}|{start:?}", spec.base, spec.stance_fraction).as_bytes());
    feed(env!("CARGO_PKG_VERSION").as_bytes());
    format!("{h:016x}")
}

fn list(v: &[f64]) -> String {
    let items: Vec<String> = v.iter().map(|x| format!("{x:e}")).collect();
    format!("[{}]", items.join(", "))
}

/// The overrides that turn the problem file into the OCP of `cmd`: the periodicity (shift and
/// turn of one period; velocities turned with the heading) and the base's reference along the
/// commanded twist at every interval end. `stand` is the problem file's reference, `q_names`
/// the coordinate names.
pub fn command_overrides(
    problem: &Problem,
    base: &BaseNames,
    stand: &[f64],
    cmd: [f64; 3],
) -> Result<Vec<String>, GaitError> {
    let sym = problem.symbols();
    let n_q = sym.n_q();
    let idx = |name: &str| -> Result<usize, GaitError> {
        sym.q
            .iter()
            .position(|n| n == name)
            .ok_or_else(|| GaitError::Spec {
                file: problem.file.display().to_string(),
                field: "base".into(),
                why: format!("'{name}' is not a coordinate of the problem"),
            })
    };
    let (ix, iy, iyaw) = (idx(&base.x)?, idx(&base.y)?, idx(&base.yaw)?);
    let setup_t = problem.config.horizon.as_ref().map_or(0.0, |h| h.t);
    let n = problem.config.horizon.as_ref().map_or(0, |h| h.n);
    let fixed = problem
        .config
        .ocp
        .as_ref()
        .and_then(|o| o.periodic.as_ref())
        .map(|p| p.fixed.clone())
        .unwrap_or_default();
    let ([x, y, psi], _) = arc(cmd, 0.0, 0.0, 0.0, setup_t);
    let vn = |i: usize| sym.v[i].clone();
    let periodic = format!(
        "ocp.periodic={{fixed: [{}], shift: {{{}: {x:e}, {}: {y:e}, {}: {psi:e}}}, \
         rotate: [{{x: {}, y: {}, angle: {psi:e}}}]}}",
        fixed.join(", "),
        base.x,
        base.y,
        base.yaw,
        vn(ix),
        vn(iy)
    );
    let mut refs = Vec::with_capacity(n + 1);
    for k in 0..=n {
        let t = setup_t * k as f64 / n as f64;
        let ([px, py, pyaw], [vx, vy, _]) = arc(cmd, 0.0, 0.0, 0.0, t);
        let mut r = stand.to_vec();
        r[ix] = px;
        r[iy] = py;
        r[iyaw] = pyaw;
        r[n_q + ix] = vx;
        r[n_q + iy] = vy;
        r[n_q + iyaw] = cmd[2];
        refs.push(list(&r));
    }
    Ok(vec![periodic, format!("ocp.x_ref=[{}]", refs.join(", "))])
}

/// The gait's name from its stance pattern: `stand` (all feet down throughout), `trot`
/// (diagonal pairs), `pace` (lateral pairs), `bound` (front and hind pairs), `walk` (never
/// fewer than three feet down), else `mixed`. Contacts in the order front left, front right,
/// hind left, hind right.
pub fn classify(stance: &[Vec<bool>]) -> &'static str {
    if stance.len() < 2 || stance.iter().any(|s| s.len() != 4) {
        return "mixed";
    }
    let swings: Vec<u8> = stance
        .iter()
        .map(|s| s.iter().fold(0u8, |a, &b| (a << 1) | u8::from(b)))
        .filter(|&p| p != 0b1111)
        .collect();
    if swings.is_empty() {
        return "stand";
    }
    let within = |a: u8, b: u8| swings.iter().all(|&p| p == a || p == b);
    if within(0b1001, 0b0110) {
        "trot"
    } else if within(0b1010, 0b0101) {
        "pace"
    } else if within(0b1100, 0b0011) {
        "bound"
    } else if swings.iter().all(|p| p.count_ones() >= 3) {
        "walk"
    } else {
        "mixed"
    }
}

/// The overrides of every command of `spec` ([`command_overrides`]) from the problem file
/// as loaded (`plain`, no overrides): its standing reference (`ocp.x_ref`) and coordinates.
pub fn library_overrides(
    plain: &Problem,
    spec: &LibrarySpec,
) -> Result<Vec<Vec<String>>, GaitError> {
    let stand = plain
        .ocp()?
        .x_ref
        .and_then(|r| r.into_iter().next())
        .ok_or_else(|| GaitError::Spec {
            file: plain.file.display().to_string(),
            field: "ocp.x_ref".into(),
            why: "the standing reference is missing (LSQ tracking with `x_ref`)".into(),
        })?;
    spec.commands
        .iter()
        .map(|&cmd| command_overrides(plain, &spec.base, &stand, cmd))
        .collect()
}

/// Solve the gait of `cmd` from the problem file with its overrides `sets` (from
/// [`library_overrides`]), staged as `spec.start` says.
pub fn solve_gait(
    problem_path: &Path,
    spec: &LibrarySpec,
    cmd: [f64; 3],
    sets: &[String],
) -> Result<Gait, GaitError> {
    let problem = Problem::load(problem_path, sets)?;
    let mut fp = build_ocp(&problem)?;
    let tol = problem.config.solver.comp_tol;
    let tr = match &spec.start {
        Some(st) => {
            // The first solve's problem has the same variables: its solution is a start point.
            let mut first_sets = sets.to_vec();
            first_sets.extend(st.overrides.iter().cloned());
            let mut f0 = build_ocp(&Problem::load(problem_path, &first_sets)?)?;
            let first = f0.solve(Start::Guess)?;
            let w = f0.solution().map(<[f64]>::to_vec).unwrap_or_default();
            fp.set_sigma0(st.sigma0)?;
            let mut tr = fp.solve(Start::Primal(&w))?;
            tr.solve_time_s += first.solve_time_s;
            tr.nlp_iterations += first.nlp_iterations;
            tr
        }
        _ => fp.solve(Start::Guess)?,
    };
    // The trajectory lists every element's start and end; a state at an interval end and the
    // next interval's start share a time (equal without an impulse): keep the later.
    let mut t: Vec<f64> = Vec::with_capacity(tr.t.len());
    let mut x: Vec<Vec<f64>> = Vec::with_capacity(tr.t.len());
    for ((&ti, q), v) in tr.t.iter().zip(&tr.q).zip(&tr.v) {
        let xi: Vec<f64> = q.iter().chain(v).copied().collect();
        match (t.last(), x.last_mut()) {
            (Some(&tl), Some(xl)) if tl == ti => *xl = xi,
            _ => {
                t.push(ti);
                x.push(xi);
            }
        }
    }
    let stance: Vec<Vec<bool>> = tr
        .stage_forces
        .lambda_n
        .iter()
        .map(|l| {
            let mean = l.iter().sum::<f64>() / l.len().max(1) as f64;
            l.iter().map(|&f| f > spec.stance_fraction * mean).collect()
        })
        .collect();
    let solved = matches!(tr.status, Status::Solved);
    Ok(Gait {
        command: cmd,
        name: classify(&stance).into(),
        status: format!("{:?}", tr.status),
        verified: solved && tr.comp_residual <= tol,
        comp_residual: tr.comp_residual,
        objective: tr.objective,
        iterations: tr.nlp_iterations,
        period: problem.config.horizon.as_ref().map_or(0.0, |h| h.t),
        t,
        x,
        u: tr.u,
        t_force: tr.stage_forces.t,
        lambda_n: tr.stage_forces.lambda_n,
        stance,
    })
}

/// A footfall diagram of one gait (SVG text): one row per contact, a bar where it is in
/// stance, the time axis over one period.
pub fn footfall_svg(gait: &Gait, contacts: &[String]) -> String {
    let (w, row, left, top) = (640.0, 28.0, 90.0, 40.0);
    let n_c = contacts.len();
    let h = top + row * n_c as f64 + 40.0;
    let span = w - left - 20.0;
    let period = gait.period.max(f64::MIN_POSITIVE);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         font-family=\"sans-serif\" font-size=\"13\">\n<rect width=\"100%\" height=\"100%\" \
         fill=\"white\"/>\n<text x=\"{left}\" y=\"22\">{} — command vx {:.2} m/s, vy {:.2} m/s, \
         yaw rate {:.2} rad/s ({})</text>\n",
        gait.name,
        gait.command[0],
        gait.command[1],
        gait.command[2],
        if gait.verified {
            "verified"
        } else {
            "not verified"
        }
    );
    // Sample k covers [t_{k-1}, t_k] (time stepping: one sample per interval at its end).
    let n = gait.t_force.len();
    for (c, name) in contacts.iter().enumerate() {
        let y = top + row * c as f64;
        s.push_str(&format!(
            "<text x=\"8\" y=\"{:.1}\">{name}</text>\n",
            y + row * 0.65
        ));
        for k in 0..n {
            if !gait.stance[k].get(c).copied().unwrap_or(false) {
                continue;
            }
            let t1 = gait.t_force[k];
            let t0 = if k == 0 {
                0.0
            } else {
                gait.t_force[k - 1].min(t1)
            };
            let (x0, x1) = (left + span * t0 / period, left + span * t1 / period);
            s.push_str(&format!(
                "<rect x=\"{x0:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" \
                 fill=\"#333\"/>\n",
                y + 4.0,
                (x1 - x0).max(0.5),
                row - 8.0
            ));
        }
    }
    let yb = top + row * n_c as f64 + 16.0;
    s.push_str(&format!(
        "<line x1=\"{left}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"black\"/>\n\
         <text x=\"{left}\" y=\"{:.1}\">0</text>\n<text x=\"{:.1}\" y=\"{:.1}\" \
         text-anchor=\"end\">{period:.2} s (stance: dark)</text>\n</svg>\n",
        yb - 10.0,
        left + span,
        yb - 10.0,
        yb + 6.0,
        left + span,
        yb + 6.0
    ));
    s
}
