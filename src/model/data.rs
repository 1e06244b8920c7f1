//! The mutable workspace [`Data<S>`] of one model and one scalar type.

use super::spatial::{v3_zero, Force, Mat6, Motion, RigidInertia, Se3, V3};
use super::structure::Model;
use crate::ad::Scalar;

/// Workspace and results of the algorithms for one [`Model`] and scalar type `S`.
///
/// Created once with [`Data::new`] (which converts the model's constants to `S`); the
/// algorithms then allocate nothing. Which fields an algorithm updates is stated on the
/// algorithm. Per-joint vectors are indexed by joint, `tau`/`ddq` by velocity coordinate, `m`
/// is `nv × nv` row-major, `o_m_f` is indexed by frame.
#[derive(Clone, Debug)]
pub struct Data<S> {
    /// Joint placements in the parent joint frame at q = 0 (model constants as `S`).
    pub(crate) placements: Vec<Se3<S>>,
    /// Body inertias in the joint frames (model constants as `S`).
    pub(crate) inertias: Vec<RigidInertia<S>>,
    /// Frame placements in their joints (model constants as `S`).
    pub(crate) frame_placements: Vec<Se3<S>>,
    /// `−g` as the spatial acceleration of the world (the gravity trick).
    pub(crate) a_world: Motion<S>,
    /// Parent-to-joint transforms `λMᵢ(q)`.
    pub li_m_i: Vec<Se3<S>>,
    /// World placements of the joint frames `⁰Mᵢ`.
    pub o_m_i: Vec<Se3<S>>,
    /// World placements of the frames `⁰M_f` (after [`update_frame_placements`](super::update_frame_placements)).
    pub o_m_f: Vec<Se3<S>>,
    /// Body twists in the joint frames.
    pub v: Vec<Motion<S>>,
    /// Body spatial accelerations in the joint frames (with gravity for `rnea`/`aba`).
    pub a: Vec<Motion<S>>,
    /// Body forces in the joint frames (`rnea`).
    pub f: Vec<Force<S>>,
    /// Generalized forces (output of `rnea`, `nonlinear_effects`, `gravity`).
    pub tau: Vec<S>,
    /// Generalized accelerations (output of `aba`).
    pub ddq: Vec<S>,
    /// Joint-space mass matrix, row-major (output of `crba`).
    pub m: Vec<S>,
    /// Centre of mass in the world (output of `center_of_mass`).
    pub com: V3<S>,
    pub(crate) ycrb: Vec<RigidInertia<S>>,
    pub(crate) ia: Vec<Mat6<S>>,
    pub(crate) pa: Vec<Force<S>>,
    pub(crate) c: Vec<Motion<S>>,
    /// Per velocity coordinate: `U = IA S`.
    pub(crate) u_col: Vec<Force<S>>,
    /// Per velocity coordinate: `u = τ − Sᵀ pA`.
    pub(crate) u_val: Vec<S>,
    /// Per velocity coordinate of one-coordinate joints: `1 / (Sᵀ IA S)`.
    pub(crate) dinv: Vec<S>,
    /// LDLᵀ factors of the free-flyer's 6×6 `IA` (row-major, unit lower L below the diagonal,
    /// D on the diagonal).
    pub(crate) ff_ldl: [[S; 6]; 6],
}

impl<S: Scalar> Data<S> {
    /// A workspace for `model`.
    pub fn new(model: &Model) -> Self {
        let nj = model.joints.len();
        let nv = model.nv;
        let g = model.gravity;
        Data {
            placements: model
                .joints
                .iter()
                .map(|j| Se3::from_f64(&j.placement))
                .collect(),
            inertias: model
                .joints
                .iter()
                .map(|j| RigidInertia::from_f64(&j.inertia))
                .collect(),
            frame_placements: model
                .frames
                .iter()
                .map(|f| Se3::from_f64(&f.placement))
                .collect(),
            a_world: Motion {
                v: [S::from_f64(-g[0]), S::from_f64(-g[1]), S::from_f64(-g[2])],
                w: v3_zero(),
            },
            li_m_i: vec![Se3::identity(); nj],
            o_m_i: vec![Se3::identity(); nj],
            o_m_f: vec![Se3::identity(); model.frames.len()],
            v: vec![Motion::zero(); nj],
            a: vec![Motion::zero(); nj],
            f: vec![Force::zero(); nj],
            tau: vec![S::zero(); nv],
            ddq: vec![S::zero(); nv],
            m: vec![S::zero(); nv * nv],
            com: v3_zero(),
            ycrb: vec![RigidInertia::zero(); nj],
            ia: vec![Mat6::zero(); nj],
            pa: vec![Force::zero(); nj],
            c: vec![Motion::zero(); nj],
            u_col: vec![Force::zero(); nv],
            u_val: vec![S::zero(); nv],
            dinv: vec![S::zero(); nv],
            ff_ldl: [[S::zero(); 6]; 6],
        }
    }

    /// Entry `(i, j)` of the mass matrix computed by the last `crba`.
    pub fn m_at(&self, i: usize, j: usize) -> S {
        let nv = self.tau.len();
        self.m[i * nv + j]
    }
}
