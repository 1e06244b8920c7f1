//! Hand-written kinematics of the planar hopper (`urdf/hopper.urdf`, q = (x, z, pitch, hip,
//! leg)) shared by its tests: independent of the URDF kinematics of `src/model`.

/// Foot height of q: the foot is `leg` below the hip along the leg axis, rotated by
/// pitch + hip about y.
pub fn foot_height(q: &[f64]) -> f64 {
    q[1] - q[4] * (q[2] + q[3]).cos()
}

/// Height above which the foot counts as airborne in [`flight_phases`].
#[allow(dead_code)]
pub const AIRBORNE: f64 = 0.02;

/// Number of flight phases along a sequence of configurations: runs of foot height above
/// [`AIRBORNE`].
#[allow(dead_code)]
pub fn flight_phases<'a>(qs: impl IntoIterator<Item = &'a [f64]>) -> usize {
    let mut flights = 0;
    let mut airborne = false;
    for q in qs {
        let up = foot_height(q) > AIRBORNE;
        if up && !airborne {
            flights += 1;
        }
        airborne = up;
    }
    flights
}
