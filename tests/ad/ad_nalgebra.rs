//! Small fixed-size nalgebra matrices of `Sx` work (products, transposes), and sparsity
//! patterns convert to faer's symbolic matrices.

use fesdj_mpc::ad::{jacobian_sx, Function, Scalar, SparsityPattern, Sx};
use nalgebra::{Matrix3, Vector3};

fn rot_z<S: Scalar + nalgebra::Scalar + num_traits::Zero + num_traits::One>(a: S) -> Matrix3<S> {
    let (c, s) = (a.cos(), a.sin());
    let (z, o) = (<S as Scalar>::zero(), <S as Scalar>::one());
    Matrix3::new(c, -s, z, s, c, z, z, z, o)
}

#[test]
fn nalgebra_matrices_of_sx_match_f64() {
    let a = Sx::sym("a");
    let p = Vector3::new(Sx::sym("px"), Sx::sym("py"), Sx::sym("pz"));
    let r = rot_z(a) * rot_z(a * 2.0).transpose();
    let y = r * p;
    let inputs = [a, p[0], p[1], p[2]];
    let f = Function::new("rot", &[&inputs], &[&[y[0], y[1], y[2]]]).unwrap();
    let mut out = [0.0; 3];
    let x = [0.4, 1.0, -2.0, 0.5];
    f.eval(&[&x], &mut [&mut out], &mut f.workspace()).unwrap();
    let pf = Vector3::new(x[1], x[2], x[3]);
    let yf = rot_z(x[0]) * rot_z(x[0] * 2.0).transpose() * pf;
    for i in 0..3 {
        assert!((out[i] - yf[i]).abs() < 1e-14);
    }
    // The z row does not depend on the angle: exact sparsity through nalgebra code.
    let (pat, _) = jacobian_sx(&[y[0], y[1], y[2]], &inputs);
    assert_eq!(pat.find(2, 0), None);
    assert_eq!(pat.find(2, 3), Some(pat.nnz() - 1));
}

#[test]
fn sparsity_converts_to_faer() {
    let (p, _) = SparsityPattern::from_triplets(3, 3, &[(0, 0), (2, 0), (1, 1), (2, 2)]).unwrap();
    let f = p.to_faer();
    assert_eq!(f.nrows(), 3);
    assert_eq!(f.ncols(), 3);
    assert_eq!(f.col_ptr(), p.col_ptr());
    assert_eq!(f.row_idx(), p.row_idx());
}
