//! Contacts: signed distances and Jacobians against finite differences, orthonormal tangents,
//! rolling without slip, validation.
#![allow(clippy::needless_range_loop)]

use crate::support::reference as common;

use fesdj_mpc::model::{
    contact_jacobians, forward_kinematics, frame_jacobian, integrate, signed_distance, Contact,
    ContactSpec, Data, Model, ModelError, ModelOptions, ReferenceFrame, RootJoint, SurfaceSpec,
};

const BALL: &str = r#"<robot name="ball"><link name="ball"><inertial><mass value="2"/>
<inertia ixx="0.008" ixy="0" ixz="0" iyy="0.008" iyz="0" izz="0.008"/></inertial></link></robot>"#;

fn solo(root: RootJoint) -> Model {
    Model::from_urdf_file(
        common::urdf("solo12"),
        &ModelOptions {
            root,
            ..Default::default()
        },
    )
    .unwrap()
}

fn spec(frame: &str, radius: f64, surface: SurfaceSpec) -> ContactSpec {
    ContactSpec {
        name: format!("{frame}_contact"),
        frame: frame.to_string(),
        offset: [0.01, -0.02, 0.005],
        radius,
        surface,
        mu: 0.7,
        restitution: 0.2,
    }
}

fn state(model: &Model) -> (Vec<f64>, Vec<f64>) {
    let mut q: Vec<f64> = (0..model.nq)
        .map(|i| 0.3 * ((i as f64) * 1.7).sin())
        .collect();
    if model.root == RootJoint::Floating {
        let quat = [0.2, -0.3, 0.1, 0.9];
        let n = quat.iter().map(|x: &f64| x * x).sum::<f64>().sqrt();
        for k in 0..4 {
            q[3 + k] = quat[k] / n;
        }
    }
    let v: Vec<f64> = (0..model.nv).map(|i| ((i as f64) * 0.9).cos()).collect();
    (q, v)
}

/// J_n v equals the time derivative of f_c along q ⊕ t v.
fn check_normal_jacobian(model: &Model, contact: &Contact) {
    let (q, v) = state(model);
    let mut d = Data::new(model);
    forward_kinematics(model, &mut d, &q).unwrap();
    let nv = model.nv;
    let (mut jn, mut jt) = (vec![0.0; nv], vec![0.0; contact.tangent_dim * nv]);
    let dist = contact_jacobians(model, &d, contact, &mut jn, &mut jt).unwrap();
    assert_eq!(dist, signed_distance(model, &d, contact));
    let eps = 1e-6;
    let mut at = |s: f64| {
        let dv: Vec<f64> = v.iter().map(|x| x * s).collect();
        let mut qs = vec![0.0; model.nq];
        integrate(model, &q, &dv, &mut qs).unwrap();
        forward_kinematics(model, &mut d, &qs).unwrap();
        signed_distance(model, &d, contact)
    };
    let fd = (at(eps) - at(-eps)) / (2.0 * eps);
    let jv: f64 = jn.iter().zip(&v).map(|(a, b)| a * b).sum();
    assert!((fd - jv).abs() < 1e-7, "{}: {fd} vs {jv}", contact.name);
}

#[test]
fn ground_plane_and_sphere_distances_and_normal_jacobians() {
    for root in [
        RootJoint::Floating,
        RootJoint::FloatingZyx,
        RootJoint::Fixed,
    ] {
        let model = solo(root);
        let ground = spec("FL_FOOT", 0.02, SurfaceSpec::Ground { height: -0.3 })
            .resolve(&model)
            .unwrap();
        // Distance of the ground contact: centre height − h − r.
        let (q, _) = state(&model);
        let mut d = Data::new(&model);
        forward_kinematics(&model, &mut d, &q).unwrap();
        let fid = model.frame_id("FL_FOOT").unwrap();
        let x = fesdj_mpc::model::frame_placement(&model, &d, fid);
        let c = x.act_point(&[0.01, -0.02, 0.005]);
        assert!((signed_distance(&model, &d, &ground) - (c[2] + 0.3 - 0.02)).abs() < 1e-15);
        check_normal_jacobian(&model, &ground);
        let plane = spec(
            "HR_FOOT",
            0.0,
            SurfaceSpec::Plane {
                normal: [0.3, -1.0, 2.0],
                offset: 0.1,
            },
        )
        .resolve(&model)
        .unwrap();
        check_normal_jacobian(&model, &plane);
        let sphere = spec(
            "FR_FOOT",
            0.03,
            SurfaceSpec::Sphere {
                frame: "HL_FOOT".into(),
                offset: [0.0, 0.01, 0.0],
                radius: 0.01,
            },
        )
        .resolve(&model)
        .unwrap();
        check_normal_jacobian(&model, &sphere);
    }
}

#[test]
fn point_contact_tangents_complete_an_orthonormal_frame() {
    let model = solo(RootJoint::Floating);
    let contact = spec(
        "FL_FOOT",
        0.0,
        SurfaceSpec::Plane {
            normal: [0.1, 0.2, -1.0],
            offset: 0.0,
        },
    )
    .resolve(&model)
    .unwrap();
    assert_eq!(contact.tangent_dim, 2);
    let (q, v) = state(&model);
    let mut d = Data::new(&model);
    forward_kinematics(&model, &mut d, &q).unwrap();
    let nv = model.nv;
    let (mut jn, mut jt) = (vec![0.0; nv], vec![0.0; 2 * nv]);
    contact_jacobians(&model, &d, &contact, &mut jn, &mut jt).unwrap();
    // Velocity of the contact point from the frame Jacobian (offset folded in by hand).
    let fid = model.frame_id("FL_FOOT").unwrap();
    let mut j = vec![0.0; 6 * nv];
    frame_jacobian(&model, &d, fid, ReferenceFrame::LocalWorldAligned, &mut j).unwrap();
    let x = fesdj_mpc::model::frame_placement(&model, &d, fid);
    let tw: Vec<f64> = (0..6)
        .map(|r| (0..nv).map(|c| j[r * nv + c] * v[c]).sum())
        .collect();
    let arm: Vec<f64> = (0..3)
        .map(|i| (0..3).map(|k| x.r[i][k] * [0.01, -0.02, 0.005][k]).sum())
        .collect();
    let vp = [
        tw[0] + tw[4] * arm[2] - tw[5] * arm[1],
        tw[1] + tw[5] * arm[0] - tw[3] * arm[2],
        tw[2] + tw[3] * arm[1] - tw[4] * arm[0],
    ];
    let dotv = |row: &[f64]| row.iter().zip(&v).map(|(a, b)| a * b).sum::<f64>();
    let (vn, t1, t2) = (dotv(&jn), dotv(&jt[..nv]), dotv(&jt[nv..]));
    let speed2: f64 = vp.iter().map(|x| x * x).sum();
    assert!((vn * vn + t1 * t1 + t2 * t2 - speed2).abs() < 1e-12 * (1.0 + speed2));
}

#[test]
fn a_rolling_ball_does_not_slip() {
    let r = 0.1;
    for root in [
        RootJoint::Floating,
        RootJoint::FloatingZyx,
        RootJoint::PlanarXz,
    ] {
        let model = Model::from_urdf_str(
            BALL,
            &ModelOptions {
                root,
                ..Default::default()
            },
        )
        .unwrap();
        let c = Contact::new(
            &model,
            "ball",
            model.frame_id("ball").unwrap(),
            [0.0; 3],
            r,
            fesdj_mpc::model::Surface::Ground { height: 0.0 },
            0.5,
            0.0,
        )
        .unwrap();
        let nv = model.nv;
        let mut q = fesdj_mpc::model::neutral(&model);
        // Centre at height r, rolling about +y at 2 rad/s: centre velocity (2 r, 0, 0).
        let v = match root {
            RootJoint::Floating => {
                q[2] = r;
                vec![2.0 * r, 0.0, 0.0, 0.0, 2.0, 0.0]
            }
            RootJoint::FloatingZyx => {
                q[2] = r;
                vec![2.0 * r, 0.0, 0.0, 0.0, 2.0, 0.0]
            }
            _ => {
                q[1] = r;
                vec![2.0 * r, 0.0, 2.0]
            }
        };
        let mut d = Data::new(&model);
        forward_kinematics(&model, &mut d, &q).unwrap();
        let (mut jn, mut jt) = (vec![0.0; nv], vec![0.0; c.tangent_dim * nv]);
        let dist = contact_jacobians(&model, &d, &c, &mut jn, &mut jt).unwrap();
        assert!(dist.abs() < 1e-15);
        assert_eq!(
            c.tangent_dim,
            if root == RootJoint::PlanarXz { 1 } else { 2 }
        );
        for row in jt.chunks(nv) {
            let slip: f64 = row.iter().zip(&v).map(|(a, b)| a * b).sum();
            assert!(slip.abs() < 1e-15, "{root:?}: slip {slip}");
        }
        // Sliding without rotation slips by the centre speed.
        let mut vs = v.clone();
        let rot = if root == RootJoint::PlanarXz { 2 } else { 4 };
        vs[rot] = 0.0;
        let slip: f64 = jt[..nv].iter().zip(&vs).map(|(a, b)| a * b).sum();
        assert!((slip.abs() - 2.0 * r).abs() < 1e-15, "{root:?}");
    }
}

#[test]
fn invalid_contacts_are_rejected_with_the_contact_name() {
    let model = solo(RootJoint::Floating);
    let ground = SurfaceSpec::Ground { height: 0.0 };
    let mut s = spec("FL_FOOT", -1.0, ground.clone());
    let e = s.resolve(&model).unwrap_err();
    assert!(
        matches!(&e, ModelError::InvalidContact { name, .. } if name == "FL_FOOT_contact"),
        "{e}"
    );
    s.radius = 0.0;
    s.restitution = 1.5;
    assert!(s.resolve(&model).is_err());
    s.restitution = 0.5;
    s.mu = f64::NAN;
    assert!(s.resolve(&model).is_err());
    s.mu = 0.5;
    s.frame = "nope".into();
    assert!(s.resolve(&model).unwrap_err().to_string().contains("nope"));
    s.frame = "FL_FOOT".into();
    s.surface = SurfaceSpec::Plane {
        normal: [0.0; 3],
        offset: 0.0,
    };
    assert!(s.resolve(&model).is_err());
    s.surface = ground;
    assert!(s.resolve(&model).is_ok());
    // The spec reads from YAML-like JSON with snake_case surfaces.
    let parsed: ContactSpec = serde_json::from_str(
        r#"{"name":"c","frame":"FL_FOOT","radius":0.02,"surface":{"ground":{"height":0.1}},"mu":0.9}"#,
    )
    .unwrap();
    assert_eq!(parsed.surface, SurfaceSpec::Ground { height: 0.1 });
}

/// A plane fixed to a link (a face of a pushed box): its distance is the sphere centre's height
/// above the plane in that link's coordinates, `J_n` is the derivative of that distance (finite
/// differences, both bodies moving), and a motion that carries sphere and plane together (the
/// base moving, every joint still) has neither approach nor slip.
#[test]
fn body_plane_distance_jacobians_and_rigid_motion() {
    for root in [RootJoint::Floating, RootJoint::FloatingZyx] {
        let model = solo(root);
        let contact = spec(
            "FL_FOOT",
            0.02,
            SurfaceSpec::BodyPlane {
                frame: "HR_FOOT".into(),
                normal: [0.0, 3.0, -4.0],
                offset: 0.05,
            },
        )
        .resolve(&model)
        .unwrap();
        let (q, mut v) = state(&model);
        let mut d = Data::new(&model);
        forward_kinematics(&model, &mut d, &q).unwrap();
        // Independent: the sphere centre mapped into the plane's frame, n̂ · x − d − r.
        let p = fesdj_mpc::model::frame_placement(&model, &d, model.frame_id("FL_FOOT").unwrap())
            .act_point(&[0.01, -0.02, 0.005]);
        let x2 = fesdj_mpc::model::frame_placement(&model, &d, model.frame_id("HR_FOOT").unwrap());
        let rel = [p[0] - x2.p[0], p[1] - x2.p[1], p[2] - x2.p[2]];
        let local: Vec<f64> = (0..3)
            .map(|k| (0..3).map(|i| x2.r[i][k] * rel[i]).sum())
            .collect();
        let expect = 0.6 * local[1] - 0.8 * local[2] - 0.05 - 0.02;
        let dist = signed_distance(&model, &d, &contact);
        assert!((dist - expect).abs() < 1e-14, "{dist} vs {expect}");
        check_normal_jacobian(&model, &contact);
        let nv = model.nv;
        let (mut jn, mut jt) = (vec![0.0; nv], vec![0.0; 2 * nv]);
        contact_jacobians(&model, &d, &contact, &mut jn, &mut jt).unwrap();
        v[6..].iter_mut().for_each(|x| *x = 0.0);
        let jv: f64 = jn.iter().zip(&v).map(|(a, b)| a * b).sum();
        assert!(jv.abs() < 1e-12, "approach under a rigid motion: {jv}");
        for r in 0..2 {
            let s: f64 = jt[r * nv..(r + 1) * nv]
                .iter()
                .zip(&v)
                .map(|(a, b)| a * b)
                .sum();
            assert!(s.abs() < 1e-12, "slip {r} under a rigid motion: {s}");
        }
        // Moving only the plane's leg changes the distance (the plane's rows are not lost).
        assert!(jn[6..].iter().any(|x| x.abs() > 1e-3));
    }
    // The plane on the sphere's own frame, or on an unknown frame: errors naming the contact
    // (and the frame).
    let model = solo(RootJoint::Floating);
    for (frame, named) in [("FL_FOOT", "FL_FOOT_contact"), ("nowhere", "nowhere")] {
        let surface = SurfaceSpec::BodyPlane {
            frame: frame.into(),
            normal: [1.0, 0.0, 0.0],
            offset: 0.0,
        };
        let bad = spec("FL_FOOT", 0.0, surface).resolve(&model).unwrap_err();
        assert!(bad.to_string().contains(named), "{bad}");
    }
}
