//! `fesdj dynamics`: compare our rigid-body dynamics with a Pinocchio reference file.
//!
//! The reference (layout of `target/reference/dynamics/<robot>.json`, written for a fresh machine
//! by `tools/pinocchio_reference.py`) holds, per variant (`fixed_base`, `floating_base` with a
//! free-flyer root), Pinocchio's joint table and samples of `q, v, a, tau_aba` with the values
//! of `M, nle, gravity_torque, tau_rnea, qdd_aba, com` and frame placements/Jacobians. We map
//! Pinocchio's joint order to ours by joint name (a continuous joint's `[cos θ, sin θ]` becomes
//! `θ`; the free-flyer's quaternion and local twist are ours too), evaluate everything, print
//! the worst absolute and relative error per quantity and variant, and optionally write our
//! values in the same layout (Pinocchio's ordering and conventions) and check a tolerance.
//!
//! Exit codes: 0 success (within tolerance), 1 some error above the tolerance, 2 usage or data
//! error (unreadable file, missing joint, malformed reference).

use crate::model::{
    aba, center_of_mass, crba, forward_kinematics, frame_jacobian, frame_placement, gravity,
    nonlinear_effects, rnea, total_mass_with_world, Data, Model, ModelOptions, ReferenceFrame,
    RootJoint,
};
use serde_json::{json, Map, Value};
use std::path::PathBuf;

/// Arguments of `fesdj dynamics`.
#[derive(clap::Args, Debug, Clone)]
pub struct DynamicsArgs {
    /// URDF file of the robot.
    #[arg(long, value_name = "FILE")]
    pub urdf: PathBuf,
    /// Reference JSON (layout of `target/reference/dynamics/<robot>.json`, `tools/pinocchio_reference.py`).
    #[arg(long, value_name = "REF.json")]
    pub reference: PathBuf,
    /// Write our values, in the reference's layout, to this file.
    #[arg(long, value_name = "OUT.json")]
    pub output: Option<PathBuf>,
    /// Fail (exit 1) if an error exceeds TOL: absolute, or relative for entries above 1 in
    /// magnitude.
    #[arg(long, value_name = "TOL")]
    pub tolerance: Option<f64>,
}

/// Run the command; returns the process exit code (0, 1 or 2, see the module docs).
pub fn run(args: &DynamicsArgs) -> i32 {
    match compare(args) {
        Ok(report) => {
            print!("{}", report.table());
            if let Some(out) = &args.output {
                let text = match serde_json::to_string_pretty(&report.output) {
                    Ok(t) => t,
                    Err(e) => {
                        eprintln!("fesdj dynamics: cannot serialise the output: {e}");
                        return 2;
                    }
                };
                if let Err(e) = std::fs::write(out, text + "\n") {
                    eprintln!("fesdj dynamics: cannot write {}: {e}", out.display());
                    return 2;
                }
            }
            match args.tolerance {
                Some(tol) if report.worst_check().is_nan() || report.worst_check() > tol => {
                    println!(
                        "FAIL: worst error {:.3e} exceeds the tolerance {tol:.3e}",
                        report.worst_check()
                    );
                    1
                }
                Some(tol) => {
                    println!(
                        "OK: worst error {:.3e} within the tolerance {tol:.3e}",
                        report.worst_check()
                    );
                    0
                }
                None => 0,
            }
        }
        Err(e) => {
            eprintln!("fesdj dynamics: {e}");
            2
        }
    }
}

/// Worst errors of one quantity in one variant.
#[derive(Debug, Clone)]
pub struct ErrorStat {
    /// Variant name.
    pub variant: String,
    /// Quantity name.
    pub quantity: String,
    /// Largest `|ours − ref|`.
    pub max_abs: f64,
    /// Largest `|ours − ref| / |ref|` over entries with `|ref| > 1` (0 if none).
    pub max_rel: f64,
    /// Largest `|ours − ref| / max(1, |ref|)` (what the tolerance is checked against).
    pub check: f64,
    /// Number of entries compared.
    pub count: usize,
}

impl ErrorStat {
    fn new(variant: &str, quantity: &str) -> Self {
        ErrorStat {
            variant: variant.to_string(),
            quantity: quantity.to_string(),
            max_abs: 0.0,
            max_rel: 0.0,
            check: 0.0,
            count: 0,
        }
    }

    fn add(&mut self, ours: f64, reference: f64) {
        let e = (ours - reference).abs();
        let e = if e.is_nan() { f64::INFINITY } else { e };
        self.max_abs = self.max_abs.max(e);
        if reference.abs() > 1.0 {
            self.max_rel = self.max_rel.max(e / reference.abs());
        }
        self.check = self.check.max(e / reference.abs().max(1.0));
        self.count += 1;
    }
}

/// The outcome of a comparison: statistics and our values in the reference layout.
#[derive(Debug, Clone)]
pub struct Report {
    /// Per variant and quantity.
    pub stats: Vec<ErrorStat>,
    /// Our values in the layout of the reference file.
    pub output: Value,
}

impl Report {
    /// The largest checked error over everything.
    pub fn worst_check(&self) -> f64 {
        self.stats.iter().map(|s| s.check).fold(0.0, f64::max)
    }

    /// The error table as text.
    pub fn table(&self) -> String {
        let mut s = format!(
            "{:<14} {:<14} {:>7} {:>11} {:>11}\n",
            "variant", "quantity", "entries", "max abs", "max rel"
        );
        for st in &self.stats {
            s += &format!(
                "{:<14} {:<14} {:>7} {:>11.3e} {:>11.3e}\n",
                st.variant, st.quantity, st.count, st.max_abs, st.max_rel
            );
        }
        s
    }
}

fn field<'a>(v: &'a Value, key: &str, ctx: &str) -> Result<&'a Value, String> {
    v.get(key)
        .ok_or_else(|| format!("{ctx}: missing field `{key}`"))
}

fn vec_f64(v: &Value, ctx: &str) -> Result<Vec<f64>, String> {
    v.as_array()
        .ok_or_else(|| format!("{ctx}: expected an array of numbers"))?
        .iter()
        .map(|x| {
            x.as_f64()
                .ok_or_else(|| format!("{ctx}: expected a number"))
        })
        .collect()
}

fn mat_f64(v: &Value, ctx: &str) -> Result<Vec<Vec<f64>>, String> {
    v.as_array()
        .ok_or_else(|| format!("{ctx}: expected a list of rows"))?
        .iter()
        .map(|r| vec_f64(r, ctx))
        .collect()
}

fn usize_field(v: &Value, key: &str, ctx: &str) -> Result<usize, String> {
    field(v, key, ctx)?
        .as_u64()
        .map(|x| x as usize)
        .ok_or_else(|| format!("{ctx}: `{key}` is not a non-negative integer"))
}

/// How one Pinocchio joint maps onto ours.
struct JointMap {
    pin_q: usize,
    pin_nq: usize,
    pin_v: usize,
    nv: usize,
    our_q: usize,
    our_v: usize,
    /// Pinocchio's `[cos θ, sin θ]` for our single angle.
    cos_sin: bool,
}

struct Mapping {
    joints: Vec<JointMap>,
    /// `perm[pinocchio velocity index] = our velocity index`.
    perm: Vec<usize>,
    pin_nq: usize,
}

impl Mapping {
    fn q_to_ours(&self, q: &[f64], nq: usize) -> Vec<f64> {
        let mut out = vec![0.0; nq];
        for j in &self.joints {
            if j.cos_sin {
                out[j.our_q] = q[j.pin_q + 1].atan2(q[j.pin_q]);
            } else {
                out[j.our_q..j.our_q + j.pin_nq].copy_from_slice(&q[j.pin_q..j.pin_q + j.pin_nq]);
            }
        }
        out
    }

    fn v_to_ours(&self, v: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; v.len()];
        for (p, &o) in self.perm.iter().enumerate() {
            out[o] = v[p];
        }
        out
    }

    fn v_to_pin(&self, v: &[f64]) -> Vec<f64> {
        self.perm.iter().map(|&o| v[o]).collect()
    }

    fn q_to_pin(&self, q: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; self.pin_nq];
        for j in &self.joints {
            if j.cos_sin {
                out[j.pin_q] = q[j.our_q].cos();
                out[j.pin_q + 1] = q[j.our_q].sin();
            } else {
                out[j.pin_q..j.pin_q + j.pin_nq].copy_from_slice(&q[j.our_q..j.our_q + j.pin_nq]);
            }
        }
        out
    }
}

fn build_mapping(model: &Model, variant: &Value, ctx: &str) -> Result<Mapping, String> {
    let joints = field(variant, "joints", ctx)?
        .as_array()
        .ok_or_else(|| format!("{ctx}: `joints` is not a list"))?;
    let pin_nq = usize_field(variant, "nq", ctx)?;
    let pin_nv = usize_field(variant, "nv", ctx)?;
    if pin_nv != model.nv {
        return Err(format!(
            "{ctx}: the reference has nv = {pin_nv}, our model has nv = {}",
            model.nv
        ));
    }
    let mut maps = Vec::new();
    let mut perm = vec![usize::MAX; pin_nv];
    for pj in joints {
        let name = field(pj, "name", ctx)?
            .as_str()
            .ok_or_else(|| format!("{ctx}: joint name is not a string"))?;
        let jctx = format!("{ctx}: joint `{name}`");
        let ours = model
            .joint_id(name)
            .map_err(|_| format!("{jctx}: no joint of that name in our model"))?;
        let oj = &model.joints[ours];
        let (pq, pnq) = (
            usize_field(pj, "idx_q", &jctx)?,
            usize_field(pj, "nq", &jctx)?,
        );
        let (pv, pnv) = (
            usize_field(pj, "idx_v", &jctx)?,
            usize_field(pj, "nv", &jctx)?,
        );
        if pnv != oj.nv || pv + pnv > pin_nv || pq + pnq > pin_nq {
            return Err(format!("{jctx}: dimensions do not match ours"));
        }
        let cos_sin = pnq == 2 && pnv == 1;
        if !cos_sin && pnq != oj.nq {
            return Err(format!(
                "{jctx}: nq = {pnq} in the reference, {} here",
                oj.nq
            ));
        }
        for k in 0..pnv {
            perm[pv + k] = oj.idx_v + k;
        }
        maps.push(JointMap {
            pin_q: pq,
            pin_nq: pnq,
            pin_v: pv,
            nv: pnv,
            our_q: oj.idx_q,
            our_v: oj.idx_v,
            cos_sin,
        });
    }
    if perm.contains(&usize::MAX) {
        return Err(format!(
            "{ctx}: the reference joints do not cover all velocities"
        ));
    }
    Ok(Mapping {
        joints: maps,
        perm,
        pin_nq,
    })
}

fn se3_json(x: &crate::model::spatial::Se3<f64>) -> Value {
    json!({ "translation": x.p, "rotation": x.r })
}

fn joint_table(model: &Model, map: &Mapping, pin_joints: &[Value]) -> Vec<Value> {
    let mut out = Vec::new();
    for (jm, pj) in map.joints.iter().zip(pin_joints) {
        let Some(ours) = model
            .joints
            .iter()
            .position(|j| j.idx_v == jm.our_v && j.nv == jm.nv)
        else {
            continue;
        };
        let j = &model.joints[ours];
        let i = &j.inertia;
        let c = if i.m > 0.0 {
            [i.h[0] / i.m, i.h[1] / i.m, i.h[2] / i.m]
        } else {
            [0.0; 3]
        };
        let mut ic = i.io;
        let cc = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
        for a in 0..3 {
            for b in 0..3 {
                let d = if a == b { cc } else { 0.0 };
                ic[a][b] -= i.m * (d - c[a] * c[b]);
            }
        }
        let parent = j
            .parent
            .map(|p| model.joints[p].name.clone())
            .unwrap_or_else(|| "universe".to_string());
        out.push(json!({
            "name": j.name,
            "type": pj.get("type").cloned().unwrap_or(Value::Null),
            "parent": parent,
            "idx_q": jm.pin_q, "nq": jm.pin_nq, "idx_v": jm.pin_v, "nv": jm.nv,
            "placement": se3_json(&j.placement),
            "inertia": { "mass": i.m, "com": c, "inertia_com": ic },
        }));
    }
    out
}

/// Compare our values with the reference file of `args` (what [`run`] does, without printing).
pub fn compare(args: &DynamicsArgs) -> Result<Report, String> {
    let text = std::fs::read_to_string(&args.reference)
        .map_err(|e| format!("{}: {e}", args.reference.display()))?;
    let reference: Value = serde_json::from_str(&text)
        .map_err(|e| format!("{}: not valid JSON: {e}", args.reference.display()))?;
    let urdf =
        std::fs::read_to_string(&args.urdf).map_err(|e| format!("{}: {e}", args.urdf.display()))?;
    let gravity_ref = match reference.get("gravity") {
        Some(g) => vec_f64(g, "gravity")?,
        None => vec![0.0, 0.0, -9.81],
    };
    if gravity_ref.len() != 3 {
        return Err("gravity: expected 3 numbers".to_string());
    }
    let variants = field(&reference, "variants", "reference")?
        .as_object()
        .ok_or_else(|| "reference: `variants` is not an object".to_string())?;
    let mut stats = Vec::new();
    let mut out_variants = Map::new();
    for (vname, variant) in variants {
        let root = match variant.get("root_joint") {
            None | Some(Value::Null) => RootJoint::Fixed,
            Some(Value::String(s)) if s.contains("FreeFlyer") => RootJoint::Floating,
            Some(other) => {
                return Err(format!("variant `{vname}`: unsupported root joint {other}"));
            }
        };
        let options = ModelOptions {
            root,
            gravity: [gravity_ref[0], gravity_ref[1], gravity_ref[2]],
        };
        let model = Model::from_urdf_str(&urdf, &options)
            .map_err(|e| format!("{}: {e}", args.urdf.display()))?;
        for w in &model.warnings {
            eprintln!("warning: {w}");
        }
        let ctx = format!("variant `{vname}`");
        let map = build_mapping(&model, variant, &ctx)?;
        let (vrt, out_variant) = compare_variant(&model, &map, vname, variant, &ctx)?;
        stats.extend(vrt);
        out_variants.insert(vname.clone(), out_variant);
    }
    let output = json!({
        "robot": reference.get("robot").cloned().unwrap_or(Value::Null),
        "source": reference.get("source").cloned().unwrap_or(Value::Null),
        "generator": { "fesdj_mpc": env!("CARGO_PKG_VERSION"), "command": "fesdj dynamics" },
        "gravity": gravity_ref,
        "conventions": reference.get("conventions").cloned().unwrap_or(Value::Null),
        "variants": out_variants,
    });
    Ok(Report { stats, output })
}

const QUANTITIES: [&str; 9] = [
    "M",
    "nle",
    "gravity_torque",
    "tau_rnea",
    "qdd_aba",
    "com",
    "frame_pos",
    "frame_rot",
    "frame_jac",
];

fn compare_variant(
    model: &Model,
    map: &Mapping,
    vname: &str,
    variant: &Value,
    ctx: &str,
) -> Result<(Vec<ErrorStat>, Value), String> {
    let nv = model.nv;
    let mut stats: Vec<ErrorStat> = QUANTITIES
        .iter()
        .map(|q| ErrorStat::new(vname, q))
        .collect();
    let frame_names: Vec<String> = field(variant, "frames", ctx)?
        .as_array()
        .ok_or_else(|| format!("{ctx}: `frames` is not a list"))?
        .iter()
        .map(|f| {
            f.get("name")
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| format!("{ctx}: a frame has no name"))
        })
        .collect::<Result<_, _>>()?;
    let frame_ids = frame_names
        .iter()
        .map(|n| {
            model
                .frame_id(n)
                .map_err(|_| format!("{ctx}: no frame `{n}` in our model"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let samples = field(variant, "samples", ctx)?
        .as_array()
        .ok_or_else(|| format!("{ctx}: `samples` is not a list"))?;
    let mut data = Data::<f64>::new(model);
    let mut jac = vec![0.0; 6 * nv];
    let mut out_samples = Vec::new();
    for (si, s) in samples.iter().enumerate() {
        let sctx = format!("{ctx}: sample {si}");
        let q_pin = vec_f64(field(s, "q", &sctx)?, &sctx)?;
        let v_pin = vec_f64(field(s, "v", &sctx)?, &sctx)?;
        let a_pin = vec_f64(field(s, "a", &sctx)?, &sctx)?;
        let tau_aba_pin = vec_f64(field(s, "tau_aba", &sctx)?, &sctx)?;
        if q_pin.len() != map.pin_nq || [&v_pin, &a_pin, &tau_aba_pin].iter().any(|x| x.len() != nv)
        {
            return Err(format!("{sctx}: q, v, a or tau_aba has the wrong length"));
        }
        let q = map.q_to_ours(&q_pin, model.nq);
        let v = map.v_to_ours(&v_pin);
        let a = map.v_to_ours(&a_pin);
        let tau_aba = map.v_to_ours(&tau_aba_pin);
        let err = |e: crate::model::ModelError| format!("{sctx}: {e}");
        let m = crba(model, &mut data, &q).map_err(err)?.to_vec();
        let m_pin: Vec<Vec<f64>> = (0..nv)
            .map(|r| (0..nv).map(|c| m[map.perm[r] * nv + map.perm[c]]).collect())
            .collect();
        let nle = map.v_to_pin(nonlinear_effects(model, &mut data, &q, &v).map_err(err)?);
        let g = map.v_to_pin(gravity(model, &mut data, &q).map_err(err)?);
        let tau = map.v_to_pin(rnea(model, &mut data, &q, &v, &a).map_err(err)?);
        let qdd = map.v_to_pin(aba(model, &mut data, &q, &v, &tau_aba).map_err(err)?);
        let com = center_of_mass(model, &mut data, &q).map_err(err)?;
        forward_kinematics(model, &mut data, &q).map_err(err)?;
        let ref_m = mat_f64(field(s, "M", &sctx)?, &sctx)?;
        for (r, row) in ref_m.iter().enumerate().take(nv) {
            for (c, &x) in row.iter().enumerate().take(nv) {
                stats[0].add(m_pin[r][c], x);
            }
        }
        for (k, (name, ours)) in [
            ("nle", &nle),
            ("gravity_torque", &g),
            ("tau_rnea", &tau),
            ("qdd_aba", &qdd),
        ]
        .into_iter()
        .enumerate()
        {
            let r = vec_f64(field(s, name, &sctx)?, &sctx)?;
            for (a, b) in ours.iter().zip(&r) {
                stats[1 + k].add(*a, *b);
            }
        }
        let ref_com = vec_f64(field(s, "com", &sctx)?, &sctx)?;
        for (a, b) in com.iter().zip(&ref_com) {
            stats[5].add(*a, *b);
        }
        let ref_frames = field(s, "frames", &sctx)?;
        let mut out_frames = Map::new();
        for (name, &fid) in frame_names.iter().zip(&frame_ids) {
            let fctx = format!("{sctx}: frame `{name}`");
            let rf = field(ref_frames, name, &fctx)?;
            let x = frame_placement(model, &data, fid);
            frame_jacobian(
                model,
                &data,
                fid,
                ReferenceFrame::LocalWorldAligned,
                &mut jac,
            )
            .map_err(err)?;
            let jac_pin: Vec<Vec<f64>> = (0..6)
                .map(|r| (0..nv).map(|c| jac[r * nv + map.perm[c]]).collect())
                .collect();
            for (a, b) in
                x.p.iter()
                    .zip(&vec_f64(field(rf, "translation", &fctx)?, &fctx)?)
            {
                stats[6].add(*a, *b);
            }
            let rr = mat_f64(field(rf, "rotation", &fctx)?, &fctx)?;
            for (r, row) in rr.iter().enumerate().take(3) {
                for (c, &b) in row.iter().enumerate().take(3) {
                    stats[7].add(x.r[r][c], b);
                }
            }
            let rj = mat_f64(field(rf, "jacobian_local_world_aligned", &fctx)?, &fctx)?;
            for (r, row) in rj.iter().enumerate().take(6) {
                for (c, &b) in row.iter().enumerate().take(nv) {
                    stats[8].add(jac_pin[r][c], b);
                }
            }
            out_frames.insert(
                name.clone(),
                json!({ "translation": x.p, "rotation": x.r, "jacobian_local_world_aligned": jac_pin }),
            );
        }
        out_samples.push(json!({
            "q": map.q_to_pin(&q), "v": v_pin, "a": a_pin,
            "M": m_pin, "nle": nle, "gravity_torque": g, "tau_rnea": tau,
            "tau_aba": tau_aba_pin, "qdd_aba": qdd, "com": com, "frames": out_frames,
        }));
    }
    let pin_joints = field(variant, "joints", ctx)?
        .as_array()
        .cloned()
        .unwrap_or_default();
    let frames_out: Vec<Value> = frame_names
        .iter()
        .zip(&frame_ids)
        .map(|(n, &fid)| {
            let f = &model.frames[fid];
            json!({
                "name": n,
                "type": "BODY",
                "parent_joint": f.parent_joint.map(|j| model.joints[j].name.clone()).unwrap_or_else(|| "universe".into()),
                "placement_in_parent_joint": se3_json(&f.placement),
            })
        })
        .collect();
    let out = json!({
        "root_joint": variant.get("root_joint").cloned().unwrap_or(Value::Null),
        "nq": map.pin_nq,
        "nv": nv,
        "joint_names": map.joints.iter().filter_map(|j| model.joints.iter().find(|oj| oj.idx_v == j.our_v).map(|oj| oj.name.clone())).collect::<Vec<_>>(),
        "total_mass": total_mass_with_world(model),
        "joints": joint_table(model, map, &pin_joints),
        "frames": frames_out,
        "samples": out_samples,
    });
    stats.retain(|s| s.count > 0);
    Ok((stats, out))
}
