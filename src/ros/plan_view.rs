//! What RViz shows of a verified plan: the planned base path (`nav_msgs/Path` on
//! `~/planned_path`) and the planned contact points and forces (`visualization_msgs/MarkerArray`
//! on `~/planned_markers`).
//!
//! A provider fills a [`PlanView`] (base pose, contact points and force vectors per plan point,
//! in the world frame) for the plan it just handed out; [`PlanKinematics`] computes these from
//! planned configurations of a URDF robot with the model's own `f64` kinematics. The node turns
//! the view into the two messages with [`fill_path`] and [`fill_markers`], reusing every buffer:
//! elements that a shorter plan drops wait in a pool for the next longer one, so nothing is
//! allocated once the buffers have grown.
//!
//! Markers: first a `DELETEALL` (the plan's length and its contacts in force change from plan to
//! plan), then one sphere per contact per plan point (namespace `contacts`, id `point · n_c +
//! contact`; red where the plan has the contact carrying force, grey where it does not) and one
//! arrow per contact force above [`FORCE_SHOWN`] (namespace `forces`, from the contact point
//! along the force, `visualization.force_scale` metres per newton).

use crate::model::{
    contact_point_and_normal, forward_kinematics, Contact, Data, JointType, Model, ModelError,
};

use super::msg::{
    ColorRGBA, Duration, Marker, MarkerArray, Path, Point, PoseStamped, Quaternion, Time, Vector3,
};

/// Contact forces up to this magnitude (N) count as zero (no arrow, grey sphere).
pub const FORCE_SHOWN: f64 = 1e-3;

/// Sphere diameter of a contact point (m).
const SPHERE_DIAMETER: f64 = 0.03;

/// A plan as RViz shows it: per plan point its time, the base pose and, per contact, the world
/// position of the contact point and the contact force (world frame, N).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlanView {
    /// Seconds after the plan's state stamp, one per point.
    pub times: Vec<f64>,
    /// Base position per point (m).
    pub base_position: Vec<[f64; 3]>,
    /// Base orientation per point, unit quaternion `[x, y, z, w]`.
    pub base_orientation: Vec<[f64; 4]>,
    /// Contacts per point.
    pub n_contacts: usize,
    /// Contact point per point and contact (`point · n_contacts + contact`).
    pub contact_position: Vec<[f64; 3]>,
    /// Contact force per point and contact.
    pub contact_force: Vec<[f64; 3]>,
}

impl PlanView {
    /// Sizes every field for `k` points and `n_contacts` contacts, keeping capacity.
    pub fn resize(&mut self, k: usize, n_contacts: usize) {
        self.n_contacts = n_contacts;
        self.times.resize(k, 0.0);
        self.base_position.resize(k, [0.0; 3]);
        self.base_orientation.resize(k, [0.0, 0.0, 0.0, 1.0]);
        self.contact_position.resize(k * n_contacts, [0.0; 3]);
        self.contact_force.resize(k * n_contacts, [0.0; 3]);
    }

    /// Number of plan points.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// Whether there are no points.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }
}

/// Unit quaternion `[x, y, z, w]` of a rotation matrix (row-major), by the largest of the four
/// candidate divisors (numerically safe for every rotation).
pub fn quaternion_from_matrix(r: &[[f64; 3]; 3]) -> [f64; 4] {
    let trace = r[0][0] + r[1][1] + r[2][2];
    let q = if trace > 0.0 {
        let s = 2.0 * (1.0 + trace).sqrt();
        [
            (r[2][1] - r[1][2]) / s,
            (r[0][2] - r[2][0]) / s,
            (r[1][0] - r[0][1]) / s,
            0.25 * s,
        ]
    } else if r[0][0] > r[1][1] && r[0][0] > r[2][2] {
        let s = 2.0 * (1.0 + r[0][0] - r[1][1] - r[2][2]).sqrt();
        [
            0.25 * s,
            (r[0][1] + r[1][0]) / s,
            (r[0][2] + r[2][0]) / s,
            (r[2][1] - r[1][2]) / s,
        ]
    } else if r[1][1] > r[2][2] {
        let s = 2.0 * (1.0 + r[1][1] - r[0][0] - r[2][2]).sqrt();
        [
            (r[0][1] + r[1][0]) / s,
            0.25 * s,
            (r[1][2] + r[2][1]) / s,
            (r[0][2] - r[2][0]) / s,
        ]
    } else {
        let s = 2.0 * (1.0 + r[2][2] - r[0][0] - r[1][1]).sqrt();
        [
            (r[0][2] + r[2][0]) / s,
            (r[1][2] + r[2][1]) / s,
            0.25 * s,
            (r[1][0] - r[0][1]) / s,
        ]
    };
    // Same rotation, w ≥ 0 for a unique answer.
    let sign = if q[3] < 0.0 { -1.0 } else { 1.0 };
    let n = q.iter().map(|c| c * c).sum::<f64>().sqrt();
    q.map(|c| sign * c / n)
}

/// Base pose and contact points of a URDF robot at planned configurations (`f64` kinematics
/// of the model; buffers allocated once).
#[derive(Clone, Debug)]
pub struct PlanKinematics {
    model: Model,
    data: Data<f64>,
    contacts: Vec<Contact>,
    /// The joint carrying the root link (the last root coordinate), `None` for a fixed base.
    base_joint: Option<usize>,
}

impl PlanKinematics {
    /// For `model` with `contacts` (in the order of the plan's contact forces).
    pub fn new(model: Model, contacts: Vec<Contact>) -> PlanKinematics {
        let base_joint = model
            .joints
            .iter()
            .take_while(|j| {
                matches!(
                    j.joint_type,
                    JointType::RootCoordinate | JointType::FreeFlyer
                )
            })
            .count()
            .checked_sub(1);
        PlanKinematics {
            data: Data::new(&model),
            model,
            contacts,
            base_joint,
        }
    }

    /// Number of contacts.
    pub fn n_contacts(&self) -> usize {
        self.contacts.len()
    }

    /// Writes point `p` of `view` for configuration `q` (the model's coordinates) with normal
    /// contact forces `lambda_n` (one per contact): the base pose, each contact point and its
    /// force `λ_n n` along the surface normal. No allocation.
    pub fn write_point(
        &mut self,
        q: &[f64],
        lambda_n: &[f64],
        view: &mut PlanView,
        p: usize,
    ) -> Result<(), ModelError> {
        forward_kinematics(&self.model, &mut self.data, q)?;
        let (pos, rot) = match self.base_joint {
            Some(j) => (self.data.o_m_i[j].p, self.data.o_m_i[j].r),
            None => (
                [0.0; 3],
                [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
            ),
        };
        if let (Some(bp), Some(bo)) = (
            view.base_position.get_mut(p),
            view.base_orientation.get_mut(p),
        ) {
            *bp = pos;
            *bo = quaternion_from_matrix(&rot);
        }
        let n_c = view.n_contacts.min(self.contacts.len());
        for (c, contact) in self.contacts.iter().enumerate().take(n_c) {
            let (point, normal) = contact_point_and_normal(&self.model, &self.data, contact);
            let lambda = lambda_n.get(c).copied().unwrap_or(0.0);
            let i = p * view.n_contacts + c;
            if let (Some(cp), Some(cf)) = (
                view.contact_position.get_mut(i),
                view.contact_force.get_mut(i),
            ) {
                *cp = point;
                *cf = normal.map(|x| lambda * x);
            }
        }
        Ok(())
    }
}

/// Resizes `v` to `n` elements: dropped elements go to `pool`, new ones come from it (or are
/// defaults while the pool is empty). Allocation-free once `v` and `pool` have grown.
fn resize_pooled<T: Default>(v: &mut Vec<T>, pool: &mut Vec<T>, n: usize) {
    while v.len() > n {
        if let Some(x) = v.pop() {
            pool.push(x);
        }
    }
    while v.len() < n {
        v.push(pool.pop().unwrap_or_default());
    }
}

fn stamp_after(stamp: Time, seconds: f64) -> Time {
    Time::from_nanos(stamp.to_nanos() + (seconds * 1e9).round() as i64)
}

/// Writes `view` into `msg` (poses stamped `stamp` plus each point's time, all in `frame`),
/// reusing its poses and `pool`.
pub fn fill_path(
    msg: &mut Path,
    pool: &mut Vec<PoseStamped>,
    view: &PlanView,
    stamp: Time,
    frame: &str,
) {
    msg.header.stamp = stamp;
    set_frame(&mut msg.header.frame_id, frame);
    resize_pooled(&mut msg.poses, pool, view.len());
    for (i, pose) in msg.poses.iter_mut().enumerate() {
        pose.header.stamp = stamp_after(stamp, view.times[i]);
        set_frame(&mut pose.header.frame_id, frame);
        let [x, y, z] = view.base_position[i];
        pose.pose.position = Point { x, y, z };
        let [qx, qy, qz, qw] = view.base_orientation[i];
        pose.pose.orientation = Quaternion {
            x: qx,
            y: qy,
            z: qz,
            w: qw,
        };
    }
}

/// `dst = src` without allocating when `dst` already holds `src` (or has room for it).
fn set_frame(dst: &mut String, src: &str) {
    if dst != src {
        dst.clear();
        dst.push_str(src);
    }
}

const CONTACT_ON: ColorRGBA = ColorRGBA {
    r: 0.9,
    g: 0.2,
    b: 0.1,
    a: 0.9,
};
const CONTACT_OFF: ColorRGBA = ColorRGBA {
    r: 0.6,
    g: 0.6,
    b: 0.6,
    a: 0.5,
};
const FORCE: ColorRGBA = ColorRGBA {
    r: 0.1,
    g: 0.4,
    b: 0.9,
    a: 0.9,
};

/// Sets the common fields of a marker (strings reused).
fn set_marker(m: &mut Marker, stamp: Time, frame: &str, ns: &str, id: i32, type_: i32) {
    m.header.stamp = stamp;
    set_frame(&mut m.header.frame_id, frame);
    set_frame(&mut m.ns, ns);
    m.id = id;
    m.type_ = type_;
    m.action = Marker::ADD;
    m.pose = Default::default();
    m.lifetime = Duration::default();
    m.frame_locked = false;
    m.points.clear();
    m.colors.clear();
}

/// Writes `view` into `msg` (see the module docs), reusing its markers and `pool`.
pub fn fill_markers(
    msg: &mut MarkerArray,
    pool: &mut Vec<Marker>,
    view: &PlanView,
    stamp: Time,
    frame: &str,
    force_scale: f64,
) {
    let n = view.contact_position.len().min(view.contact_force.len());
    let shown = |f: &[f64; 3]| f.iter().map(|x| x * x).sum::<f64>().sqrt() > FORCE_SHOWN;
    let arrows = view.contact_force[..n].iter().filter(|f| shown(f)).count();
    resize_pooled(&mut msg.markers, pool, 1 + n + arrows);
    let (first, rest) = msg.markers.split_at_mut(1);
    let clear = &mut first[0];
    set_marker(clear, stamp, frame, "", 0, Marker::SPHERE);
    clear.action = Marker::DELETEALL;
    let (spheres, forces) = rest.split_at_mut(n);
    let n_c = view.n_contacts.max(1);
    for (i, m) in spheres.iter_mut().enumerate() {
        let at = stamp_after(stamp, view.times.get(i / n_c).copied().unwrap_or(0.0));
        set_marker(m, at, frame, "contacts", i as i32, Marker::SPHERE);
        let [x, y, z] = view.contact_position[i];
        m.pose.position = Point { x, y, z };
        m.scale = Vector3 {
            x: SPHERE_DIAMETER,
            y: SPHERE_DIAMETER,
            z: SPHERE_DIAMETER,
        };
        m.color = if shown(&view.contact_force[i]) {
            CONTACT_ON
        } else {
            CONTACT_OFF
        };
    }
    let with_force = (0..n).filter(|&i| shown(&view.contact_force[i]));
    for (m, i) in forces.iter_mut().zip(with_force) {
        let at = stamp_after(stamp, view.times.get(i / n_c).copied().unwrap_or(0.0));
        set_marker(m, at, frame, "forces", i as i32, Marker::ARROW);
        let [x, y, z] = view.contact_position[i];
        let f = view.contact_force[i];
        m.points.push(Point { x, y, z });
        m.points.push(Point {
            x: x + force_scale * f[0],
            y: y + force_scale * f[1],
            z: z + force_scale * f[2],
        });
        // Shaft diameter, head diameter, head length.
        m.scale = Vector3 {
            x: 0.01,
            y: 0.02,
            z: 0.02,
        };
        m.color = FORCE;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::configuration::zyx_to_matrix;

    #[test]
    fn quaternion_of_a_matrix_rotates_like_it() {
        for angles in [
            [0.0, 0.0, 0.0],
            [0.3, -0.2, 0.1],
            [3.0, 0.1, -3.1],
            [-1.5, 1.4, 2.0],
            [std::f64::consts::PI, 0.0, 0.0],
        ] {
            let r = zyx_to_matrix::<f64>(&angles);
            let [x, y, z, w] = quaternion_from_matrix(&r);
            let back = crate::model::spatial::quat_to_matrix(x, y, z, w);
            for i in 0..3 {
                for j in 0..3 {
                    assert!((back[i][j] - r[i][j]).abs() < 1e-12, "{angles:?}");
                }
            }
            assert!(w >= 0.0);
        }
    }

    fn view() -> PlanView {
        let mut v = PlanView::default();
        v.resize(2, 2);
        v.times.copy_from_slice(&[0.0, 0.05]);
        v.base_position[1] = [0.1, 0.0, 0.3];
        v.contact_position = vec![
            [0.2, 0.1, 0.0],
            [0.2, -0.1, 0.0],
            [0.3, 0.1, 0.0],
            [0.3, -0.1, 0.04],
        ];
        v.contact_force = vec![
            [0.0, 0.0, 60.0],
            [0.0, 0.0, 1e-9],
            [1.0, 0.0, 50.0],
            [0.0; 3],
        ];
        v
    }

    #[test]
    fn markers_show_every_contact_and_arrows_for_forces() {
        let v = view();
        let stamp = Time {
            sec: 10,
            nanosec: 0,
        };
        let mut msg = MarkerArray::default();
        let mut pool = Vec::new();
        fill_markers(&mut msg, &mut pool, &v, stamp, "odom", 0.002);
        // DELETEALL, 4 spheres, 2 arrows (60 N and (1, 0, 50) N).
        assert_eq!(msg.markers.len(), 7);
        assert_eq!(msg.markers[0].action, Marker::DELETEALL);
        let spheres = &msg.markers[1..5];
        assert!(spheres
            .iter()
            .all(|m| m.type_ == Marker::SPHERE && m.ns == "contacts"));
        assert_eq!(spheres[3].pose.position.z, 0.04);
        assert_eq!(
            spheres[2].header.stamp,
            Time {
                sec: 10,
                nanosec: 50_000_000
            }
        );
        assert_eq!(spheres[0].color, CONTACT_ON);
        assert_eq!(spheres[1].color, CONTACT_OFF);
        let a = &msg.markers[6];
        assert_eq!((a.type_, a.id, a.ns.as_str()), (Marker::ARROW, 2, "forces"));
        assert_eq!(
            a.points[0],
            Point {
                x: 0.3,
                y: 0.1,
                z: 0.0
            }
        );
        assert!((a.points[1].x - 0.302).abs() < 1e-15 && (a.points[1].z - 0.1).abs() < 1e-15);
        assert!(msg.markers.iter().all(|m| m.header.frame_id == "odom"));
        // A shorter plan: the dropped markers wait in the pool.
        let mut short = v.clone();
        short.resize(1, 2);
        fill_markers(&mut msg, &mut pool, &short, stamp, "odom", 0.002);
        assert_eq!(msg.markers.len(), 1 + 2 + 1);
        assert_eq!(pool.len(), 3);
    }

    #[test]
    fn path_has_a_stamped_pose_per_point() {
        let v = view();
        let mut msg = Path::default();
        let mut pool = Vec::new();
        let stamp = Time {
            sec: 3,
            nanosec: 990_000_000,
        };
        fill_path(&mut msg, &mut pool, &v, stamp, "map");
        assert_eq!(msg.header.frame_id, "map");
        assert_eq!(msg.poses.len(), 2);
        assert_eq!(
            msg.poses[1].header.stamp,
            Time {
                sec: 4,
                nanosec: 40_000_000
            }
        );
        assert_eq!(
            msg.poses[1].pose.position,
            Point {
                x: 0.1,
                y: 0.0,
                z: 0.3
            }
        );
        assert_eq!(msg.poses[0].pose.orientation, Quaternion::default());
    }
}
