//! URDF → [`Model`]: parsing (through `urdf-rs`), validation with errors that name the element,
//! and the Pinocchio-style tree build (fixed joints folded into their parent bodies as frames).

// Small fixed-size linear algebra reads best with explicit indices.
#![allow(clippy::needless_range_loop)]

use super::error::ModelError;
use super::spatial::{mtm, rpy_to_matrix, skew, RigidInertia, Se3};
use super::structure::{
    Axis, Frame, FrameKind, Joint, JointLimits, JointMotion, JointType, Model, ModelOptions,
    RootJoint,
};
use std::collections::HashMap;
use std::path::Path;

const KNOWN_JOINT_TYPES: [&str; 7] = [
    "revolute",
    "continuous",
    "prismatic",
    "fixed",
    "floating",
    "planar",
    "spherical",
];

impl Model {
    /// Read a URDF file and build the model.
    pub fn from_urdf_file(
        path: impl AsRef<Path>,
        options: &ModelOptions,
    ) -> Result<Model, ModelError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| ModelError::Io {
            file: path.display().to_string(),
            source,
        })?;
        Model::from_urdf_str(&text, options)
    }

    /// Parse a URDF document and build the model.
    pub fn from_urdf_str(urdf: &str, options: &ModelOptions) -> Result<Model, ModelError> {
        check_joint_types(urdf)?;
        let robot =
            urdf_rs::read_from_string(urdf).map_err(|e| ModelError::Parse(e.to_string()))?;
        build(&robot, options)
    }
}

/// Find `<joint … type="…">` tags with a type URDF does not define (urdf-rs would fail with a
/// message that does not name the joint).
fn check_joint_types(text: &str) -> Result<(), ModelError> {
    let mut rest = text;
    while let Some(pos) = rest.find("<joint") {
        rest = &rest[pos + 6..];
        if !rest.starts_with(|c: char| c.is_whitespace()) {
            continue;
        }
        let end = rest.find('>').unwrap_or(rest.len());
        let tag = &rest[..end];
        if let Some(t) = attribute(tag, "type") {
            if !KNOWN_JOINT_TYPES.contains(&t) {
                return Err(ModelError::UnknownJointType {
                    joint: attribute(tag, "name").unwrap_or("?").to_string(),
                    joint_type: t.to_string(),
                });
            }
        }
    }
    Ok(())
}

/// The value of attribute `name` in the text of a start tag.
fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let mut rest = tag;
    while let Some(pos) = rest.find(name) {
        let before_ok = pos == 0 || rest[..pos].ends_with(|c: char| c.is_whitespace());
        let after = rest[pos + name.len()..].trim_start();
        rest = &rest[pos + name.len()..];
        if !before_ok {
            continue;
        }
        if let Some(after_eq) = after.strip_prefix('=') {
            let after_eq = after_eq.trim_start();
            let quote = after_eq.chars().next()?;
            if quote == '"' || quote == '\'' {
                let body = &after_eq[1..];
                let close = body.find(quote)?;
                return Some(&body[..close]);
            }
        }
    }
    None
}

fn finite(element: &str, field: &str, values: &[f64]) -> Result<(), ModelError> {
    if values.iter().all(|x| x.is_finite()) {
        Ok(())
    } else {
        Err(ModelError::NonFinite {
            element: element.to_string(),
            field: field.to_string(),
        })
    }
}

fn not_nan(element: &str, field: &str, values: &[f64]) -> Result<(), ModelError> {
    if values.iter().all(|x| !x.is_nan()) {
        Ok(())
    } else {
        Err(ModelError::NonFinite {
            element: element.to_string(),
            field: field.to_string(),
        })
    }
}

fn pose_to_se3(p: &urdf_rs::Pose) -> Se3<f64> {
    Se3 {
        r: rpy_to_matrix(&p.rpy.0),
        p: p.xyz.0,
    }
}

/// Check that a symmetric 3×3 matrix is positive semi-definite (all principal minors ≥ 0, with
/// a relative tolerance for rounding in the file).
fn check_psd(link: &str, i: &[[f64; 3]; 3]) -> Result<(), ModelError> {
    let scale = i[0][0]
        .abs()
        .max(i[1][1].abs())
        .max(i[2][2].abs())
        .max(1e-300);
    let tol = 1e-10;
    for k in 0..3 {
        if i[k][k] < -tol * scale {
            return Err(ModelError::InertiaNotPsd {
                link: link.to_string(),
                why: format!("negative diagonal entry {}", i[k][k]),
            });
        }
    }
    for (a, b) in [(0, 1), (0, 2), (1, 2)] {
        let minor = i[a][a] * i[b][b] - i[a][b] * i[a][b];
        if minor < -tol * scale * scale {
            return Err(ModelError::InertiaNotPsd {
                link: link.to_string(),
                why: format!("negative 2x2 principal minor {minor:e}"),
            });
        }
    }
    let det = i[0][0] * (i[1][1] * i[2][2] - i[1][2] * i[1][2])
        - i[0][1] * (i[0][1] * i[2][2] - i[1][2] * i[0][2])
        + i[0][2] * (i[0][1] * i[1][2] - i[1][1] * i[0][2]);
    if det < -tol * scale * scale * scale {
        return Err(ModelError::InertiaNotPsd {
            link: link.to_string(),
            why: format!("negative determinant {det:e}"),
        });
    }
    Ok(())
}

/// The inertia of a URDF link about its frame origin, expressed in the link frame.
fn link_inertia(link: &urdf_rs::Link) -> Result<RigidInertia<f64>, ModelError> {
    let el = format!("link `{}`", link.name);
    let inl = &link.inertial;
    let t = &inl.inertia;
    let ic = [
        [t.ixx, t.ixy, t.ixz],
        [t.ixy, t.iyy, t.iyz],
        [t.ixz, t.iyz, t.izz],
    ];
    finite(&el, "inertial/mass", &[inl.mass.value])?;
    finite(
        &el,
        "inertial/inertia",
        &[t.ixx, t.ixy, t.ixz, t.iyy, t.iyz, t.izz],
    )?;
    finite(
        &el,
        "inertial/origin",
        &[inl.origin.xyz.0, inl.origin.rpy.0].concat(),
    )?;
    if inl.mass.value < 0.0 {
        return Err(ModelError::NegativeMass {
            link: link.name.clone(),
            mass: inl.mass.value,
        });
    }
    check_psd(&link.name, &ic)?;
    let x = pose_to_se3(&inl.origin);
    let m = inl.mass.value;
    // Inertia about the com in link axes, then about the link origin: io = Ic + m [c]×ᵀ[c]×.
    let rot = super::spatial::conjugate(&x.r, &ic);
    let c = x.p;
    let sc = skew(&c);
    let sts = mtm(&sc, &sc);
    let mut io = rot;
    for a in 0..3 {
        for b in 0..3 {
            io[a][b] += m * sts[a][b];
        }
    }
    Ok(RigidInertia {
        m,
        h: [m * c[0], m * c[1], m * c[2]],
        io,
    })
}

fn is_zero_inertia(i: &RigidInertia<f64>) -> bool {
    i.m == 0.0 && i.h.iter().all(|&x| x == 0.0) && i.io.iter().flatten().all(|&x| x == 0.0)
}

struct Builder<'a> {
    robot: &'a urdf_rs::Robot,
    link_inertias: Vec<RigidInertia<f64>>,
    children: Vec<Vec<usize>>,
    model: Model,
}

fn build(robot: &urdf_rs::Robot, options: &ModelOptions) -> Result<Model, ModelError> {
    finite("model options", "gravity", &options.gravity)?;
    let mut link_index: HashMap<&str, usize> = HashMap::new();
    for (i, l) in robot.links.iter().enumerate() {
        if link_index.insert(l.name.as_str(), i).is_some() {
            return Err(ModelError::DuplicateName {
                kind: "link",
                name: l.name.clone(),
            });
        }
    }
    let mut joint_names: HashMap<&str, usize> = HashMap::new();
    let mut parent_joint: Vec<Option<usize>> = vec![None; robot.links.len()];
    let mut parent_link: Vec<Option<usize>> = vec![None; robot.links.len()];
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); robot.links.len()];
    for (ji, j) in robot.joints.iter().enumerate() {
        if joint_names.insert(j.name.as_str(), ji).is_some() {
            return Err(ModelError::DuplicateName {
                kind: "joint",
                name: j.name.clone(),
            });
        }
        let el = format!("joint `{}`", j.name);
        finite(&el, "origin", &[j.origin.xyz.0, j.origin.rpy.0].concat())?;
        finite(&el, "axis", &j.axis.xyz.0)?;
        not_nan(
            &el,
            "limit",
            &[
                j.limit.lower,
                j.limit.upper,
                j.limit.velocity,
                j.limit.effort,
            ],
        )?;
        match j.joint_type {
            urdf_rs::JointType::Revolute
            | urdf_rs::JointType::Continuous
            | urdf_rs::JointType::Prismatic
            | urdf_rs::JointType::Fixed => {}
            ref other => {
                return Err(ModelError::UnsupportedJointType {
                    joint: j.name.clone(),
                    joint_type: format!("{other:?}").to_lowercase(),
                })
            }
        }
        if j.joint_type != urdf_rs::JointType::Fixed {
            let a = j.axis.xyz.0;
            if a[0] * a[0] + a[1] * a[1] + a[2] * a[2] < 1e-24 {
                return Err(ModelError::ZeroAxis {
                    joint: j.name.clone(),
                });
            }
        }
        let p = *link_index.get(j.parent.link.as_str()).ok_or_else(|| {
            ModelError::UnknownParentLink {
                joint: j.name.clone(),
                link: j.parent.link.clone(),
            }
        })?;
        let c =
            *link_index
                .get(j.child.link.as_str())
                .ok_or_else(|| ModelError::UnknownChildLink {
                    joint: j.name.clone(),
                    link: j.child.link.clone(),
                })?;
        if let Some(first) = parent_joint[c] {
            return Err(ModelError::TwoParents {
                link: j.child.link.clone(),
                first: robot.joints[first].name.clone(),
                second: j.name.clone(),
            });
        }
        parent_joint[c] = Some(ji);
        parent_link[c] = Some(p);
        children[p].push(ji);
    }
    // Cycles: walking up from any link must reach a link without parent within n steps.
    let n = robot.links.len();
    for start in 0..n {
        let mut cur = start;
        let mut steps = 0;
        while let Some(p) = parent_link[cur] {
            cur = p;
            steps += 1;
            if steps > n {
                return Err(ModelError::Cycle {
                    link: robot.links[cur].name.clone(),
                });
            }
        }
    }
    let roots: Vec<usize> = (0..n).filter(|&i| parent_link[i].is_none()).collect();
    if roots.len() != 1 {
        return Err(ModelError::Roots {
            roots: roots.iter().map(|&i| robot.links[i].name.clone()).collect(),
        });
    }
    let link_inertias = robot
        .links
        .iter()
        .map(link_inertia)
        .collect::<Result<Vec<_>, _>>()?;

    let mut b = Builder {
        robot,
        link_inertias,
        children,
        model: Model {
            name: robot.name.clone(),
            joints: Vec::new(),
            frames: Vec::new(),
            nq: 0,
            nv: 0,
            gravity: options.gravity,
            root: options.root,
            world_inertia: RigidInertia::zero(),
            warnings: Vec::new(),
            supports: Vec::new(),
            v_joint: Vec::new(),
        },
    };
    let root = roots[0];
    b.model.frames.push(Frame {
        name: "universe".to_string(),
        kind: FrameKind::FixedJoint,
        parent_joint: None,
        placement: Se3::identity(),
    });
    let root_body = b.add_root_joints(options.root);
    b.visit_link(root, root_body, Se3::identity());
    for j in &robot.joints {
        if let Some(m) = &j.mimic {
            b.model.warnings.push(format!(
                "joint `{}` mimics `{}`: treated as an independent joint",
                j.name, m.joint
            ));
        }
    }
    let massless: Vec<&str> = b
        .model
        .joints
        .iter()
        .filter(|j| j.joint_type != JointType::RootCoordinate && is_zero_inertia(&j.inertia))
        .map(|j| j.name.as_str())
        .collect();
    if !massless.is_empty() {
        let w = format!(
            "massless bodies (no inertial) moved by joints: {}",
            massless.join(", ")
        );
        b.model.warnings.push(w);
    }
    b.model.finish();
    Ok(b.model)
}

impl Builder<'_> {
    #[allow(clippy::too_many_arguments)]
    fn push_joint(
        &mut self,
        name: String,
        joint_type: JointType,
        motion: JointMotion,
        parent: Option<usize>,
        placement: Se3<f64>,
        limits: Vec<JointLimits>,
        mimic: Option<String>,
    ) -> usize {
        let (nq, nv) = match motion {
            JointMotion::FreeFlyer => (7, 6),
            _ => (1, 1),
        };
        let idx = self.model.joints.len();
        self.model.joints.push(Joint {
            name: name.clone(),
            joint_type,
            motion,
            parent,
            placement,
            inertia: RigidInertia::zero(),
            idx_q: self.model.nq,
            nq,
            idx_v: self.model.nv,
            nv,
            limits,
            mimic,
        });
        self.model.nq += nq;
        self.model.nv += nv;
        self.model.frames.push(Frame {
            name,
            kind: FrameKind::Joint,
            parent_joint: Some(idx),
            placement: Se3::identity(),
        });
        idx
    }

    /// Add the root joint(s); returns the joint that carries the root link.
    fn add_root_joints(&mut self, root: RootJoint) -> Option<usize> {
        let coords: &[(&str, JointMotion)] = match root {
            RootJoint::Fixed => &[],
            RootJoint::Floating => &[("root_joint", JointMotion::FreeFlyer)],
            RootJoint::FloatingZyx => &[
                ("root_x", JointMotion::Prismatic(Axis::X)),
                ("root_y", JointMotion::Prismatic(Axis::Y)),
                ("root_z", JointMotion::Prismatic(Axis::Z)),
                ("root_yaw", JointMotion::Revolute(Axis::Z)),
                ("root_pitch", JointMotion::Revolute(Axis::Y)),
                ("root_roll", JointMotion::Revolute(Axis::X)),
            ],
            RootJoint::PlanarXz => &[
                ("root_x", JointMotion::Prismatic(Axis::X)),
                ("root_z", JointMotion::Prismatic(Axis::Z)),
                ("root_pitch", JointMotion::Revolute(Axis::Y)),
            ],
            RootJoint::PlanarXy => &[
                ("root_x", JointMotion::Prismatic(Axis::X)),
                ("root_y", JointMotion::Prismatic(Axis::Y)),
                ("root_yaw", JointMotion::Revolute(Axis::Z)),
            ],
        };
        let mut parent = None;
        for &(name, motion) in coords {
            let (jt, limits) = match motion {
                JointMotion::FreeFlyer => (JointType::FreeFlyer, Vec::new()),
                _ => (JointType::RootCoordinate, vec![JointLimits::unlimited()]),
            };
            parent = Some(self.push_joint(
                name.to_string(),
                jt,
                motion,
                parent,
                Se3::identity(),
                limits,
                None,
            ));
        }
        parent
    }

    fn add_inertia(&mut self, body: Option<usize>, link: usize, x: &Se3<f64>) {
        let i = self.link_inertias[link].transform(x);
        match body {
            Some(j) => self.model.joints[j].inertia = self.model.joints[j].inertia.add(&i),
            None => self.model.world_inertia = self.model.world_inertia.add(&i),
        }
    }

    /// Attach link `link` to `body` at placement `x` (link frame in the body's joint frame), then
    /// its subtree (depth first, children in declaration order).
    fn visit_link(&mut self, link: usize, body: Option<usize>, x: Se3<f64>) {
        let robot = self.robot;
        self.add_inertia(body, link, &x);
        self.model.frames.push(Frame {
            name: robot.links[link].name.clone(),
            kind: FrameKind::Body,
            parent_joint: body,
            placement: x,
        });
        let kids = self.children[link].clone();
        for ji in kids {
            let j = &robot.joints[ji];
            let child = robot
                .links
                .iter()
                .position(|l| l.name == j.child.link)
                .unwrap_or(0);
            let placement = x.compose(&pose_to_se3(&j.origin));
            let (jt, motion) = match j.joint_type {
                urdf_rs::JointType::Revolute => (
                    JointType::Revolute,
                    JointMotion::Revolute(Axis::from_vector(j.axis.xyz.0)),
                ),
                urdf_rs::JointType::Continuous => (
                    JointType::Continuous,
                    JointMotion::Revolute(Axis::from_vector(j.axis.xyz.0)),
                ),
                urdf_rs::JointType::Prismatic => (
                    JointType::Prismatic,
                    JointMotion::Prismatic(Axis::from_vector(j.axis.xyz.0)),
                ),
                _ => {
                    // Fixed (other types were rejected during validation).
                    self.model.frames.push(Frame {
                        name: j.name.clone(),
                        kind: FrameKind::FixedJoint,
                        parent_joint: body,
                        placement,
                    });
                    self.visit_link(child, body, placement);
                    continue;
                }
            };
            let limits = if jt == JointType::Continuous {
                JointLimits {
                    lower: f64::NEG_INFINITY,
                    upper: f64::INFINITY,
                    velocity: j.limit.velocity,
                    effort: j.limit.effort,
                }
            } else {
                JointLimits {
                    lower: j.limit.lower,
                    upper: j.limit.upper,
                    velocity: j.limit.velocity,
                    effort: j.limit.effort,
                }
            };
            let idx = self.push_joint(
                j.name.clone(),
                jt,
                motion,
                body,
                placement,
                vec![limits],
                j.mimic.as_ref().map(|m| m.joint.clone()),
            );
            self.visit_link(child, Some(idx), Se3::identity());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attribute_scanner() {
        let tag = r#" name="j1" type='weird' other="x""#;
        assert_eq!(attribute(tag, "name"), Some("j1"));
        assert_eq!(attribute(tag, "type"), Some("weird"));
        assert_eq!(attribute(" subtype=\"a\" type=\"b\"", "type"), Some("b"));
        assert_eq!(attribute(" name=\"a\"", "type"), None);
    }
}
