//! The model algorithms perform no heap allocation once `Data` exists (counting allocator).

use crate::counting_alloc as alloc_common;

use crate::support::reference as common;

use fesdj_mpc::model::{
    aba, center_of_mass, contact_jacobians, crba, forward_kinematics, frame_jacobian, gravity,
    integrate, nonlinear_effects, rnea, update_frame_placements, ContactSpec, Data, Model,
    ModelOptions, ReferenceFrame, RootJoint, SurfaceSpec,
};

#[test]
fn algorithms_do_not_allocate() {
    let _turn = crate::support::serial::file(module_path!());
    for root in [
        RootJoint::Floating,
        RootJoint::FloatingZyx,
        RootJoint::Fixed,
    ] {
        let model = Model::from_urdf_file(
            common::urdf("solo12"),
            &ModelOptions {
                root,
                ..Default::default()
            },
        )
        .unwrap();
        let contact = ContactSpec {
            name: "foot".into(),
            frame: "FL_FOOT".into(),
            offset: [0.0; 3],
            radius: 0.02,
            surface: SurfaceSpec::Ground { height: 0.0 },
            mu: 1.0,
            restitution: 0.0,
        }
        .resolve(&model)
        .unwrap();
        let mut data = Data::<f64>::new(&model);
        let mut q = fesdj_mpc::model::neutral(&model);
        let v = vec![0.1; model.nv];
        let mut q1 = q.clone();
        let mut jac = vec![0.0; 6 * model.nv];
        let (mut jn, mut jt) = (vec![0.0; model.nv], vec![0.0; 2 * model.nv]);
        q[model.nq - 1] = 0.3;
        let before = alloc_common::allocations();
        rnea(&model, &mut data, &q, &v, &v).unwrap();
        nonlinear_effects(&model, &mut data, &q, &v).unwrap();
        gravity(&model, &mut data, &q).unwrap();
        crba(&model, &mut data, &q).unwrap();
        aba(&model, &mut data, &q, &v, &v).unwrap();
        center_of_mass(&model, &mut data, &q).unwrap();
        forward_kinematics(&model, &mut data, &q).unwrap();
        update_frame_placements(&model, &mut data);
        frame_jacobian(&model, &data, 3, ReferenceFrame::Local, &mut jac).unwrap();
        contact_jacobians(&model, &data, &contact, &mut jn, &mut jt).unwrap();
        integrate(&model, &q, &v, &mut q1).unwrap();
        let after = alloc_common::allocations();
        assert_eq!(after - before, 0, "{root:?}");
    }
}
