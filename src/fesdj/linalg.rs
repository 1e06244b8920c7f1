//! Small dense linear algebra on symbolic (or numeric) scalars, column-major.
//!
//! Matrices are `Vec<S>` in column-major order (`a[i + rows * j]` is row `i`, column `j`), the
//! convention of every matrix of [`ClsModel`](super::cls::ClsModel). Nothing here branches on
//! values, so the same code builds expression graphs for [`Sx`](crate::ad::Sx).

use crate::ad::Scalar;

/// `A x` for `A` of size `rows × x.len()`.
pub fn mat_vec<S: Scalar>(a: &[S], rows: usize, x: &[S]) -> Vec<S> {
    let mut y = vec![S::zero(); rows];
    for (j, &xj) in x.iter().enumerate() {
        if xj.is_exact_zero() {
            continue;
        }
        for (i, yi) in y.iter_mut().enumerate() {
            let aij = a[i + rows * j];
            if !aij.is_exact_zero() {
                *yi += aij * xj;
            }
        }
    }
    y
}

/// `Aᵀ x` for `A` of size `x.len() × cols`.
pub fn mat_t_vec<S: Scalar>(a: &[S], cols: usize, x: &[S]) -> Vec<S> {
    let rows = x.len();
    (0..cols)
        .map(|j| dot(&a[rows * j..rows * (j + 1)], x))
        .collect()
}

/// `aᵀ b`.
pub fn dot<S: Scalar>(a: &[S], b: &[S]) -> S {
    let mut s = S::zero();
    for (&x, &y) in a.iter().zip(b) {
        if !x.is_exact_zero() && !y.is_exact_zero() {
            s += x * y;
        }
    }
    s
}

/// Solve `M x = r` for a symmetric positive definite `M` (`n × n`) by an LDLᵀ factorisation
/// without pivoting (valid for SPD matrices; no branching on values, so it works symbolically).
/// Structural zeros of `M` stay zeros, so a diagonal `M` costs `n` divisions.
pub fn solve_spd<S: Scalar>(m: &[S], r: &[S]) -> Vec<S> {
    let n = r.len();
    // L (unit lower, column-major) and D.
    let mut l = vec![S::zero(); n * n];
    let mut d = vec![S::zero(); n];
    for j in 0..n {
        let mut dj = m[j + n * j];
        for k in 0..j {
            let ljk = l[j + n * k];
            if !ljk.is_exact_zero() {
                dj -= ljk * ljk * d[k];
            }
        }
        d[j] = dj;
        for i in j + 1..n {
            let mut s = m[i + n * j];
            for k in 0..j {
                let (lik, ljk) = (l[i + n * k], l[j + n * k]);
                if !lik.is_exact_zero() && !ljk.is_exact_zero() {
                    s -= lik * ljk * d[k];
                }
            }
            l[i + n * j] = if s.is_exact_zero() { s } else { s / dj };
        }
    }
    // L y = r, D z = y, Lᵀ x = z.
    let mut y = r.to_vec();
    for i in 0..n {
        for k in 0..i {
            let lik = l[i + n * k];
            if !lik.is_exact_zero() && !y[k].is_exact_zero() {
                let yk = y[k];
                y[i] -= lik * yk;
            }
        }
    }
    for i in 0..n {
        y[i] = if y[i].is_exact_zero() {
            y[i]
        } else {
            y[i] / d[i]
        };
    }
    for i in (0..n).rev() {
        for k in i + 1..n {
            let lki = l[k + n * i];
            if !lki.is_exact_zero() && !y[k].is_exact_zero() {
                let yk = y[k];
                y[i] -= lki * yk;
            }
        }
    }
    y
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solve_spd_numeric() {
        // M = [[4, 1, 0], [1, 3, 1], [0, 1, 2]] (column-major, symmetric).
        let m = [4.0, 1.0, 0.0, 1.0, 3.0, 1.0, 0.0, 1.0, 2.0];
        let x = [1.0, -2.0, 0.5];
        let r = mat_vec(&m, 3, &x);
        let s = solve_spd(&m, &r);
        for (a, b) in s.iter().zip(&x) {
            assert!((a - b).abs() < 1e-14);
        }
        let t = mat_t_vec(&m, 3, &x);
        assert_eq!(t, r);
    }
}
