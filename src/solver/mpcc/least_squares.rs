//! The dense part of the stationarity certificate (formulation §10.8, `stationarity.rs`):
//! sign-constrained least squares `min |r0 - Q̂ ŷ|` over the projected dense columns, solved by
//! an active-set method (Lawson–Hanson with free variables) for one sign pattern at a time,
//! and the pivoted Cholesky solve of its Gram systems.

/// Sign constraint of a dense variable in one pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Sign {
    Free,
    Pos,
    Neg,
    Zero,
}

/// The projection of the gradient and of the dense columns onto the orthogonal complement of
/// the core columns.
pub(super) struct Projection {
    /// `P ∇f` (n).
    pub(super) r0: Vec<f64>,
    /// Core least-squares multipliers of `∇f` (per core column).
    pub(super) mu0: Vec<f64>,
    /// `P a_s` per dense column (n each).
    pub(super) q: Vec<Vec<f64>>,
    /// Core coefficients of `a_s` per dense column.
    pub(super) k: Vec<Vec<f64>>,
}

/// Solve `A z = b` for a symmetric positive semidefinite `p × p` matrix `a` (row-major) by
/// Cholesky with diagonal pivoting; directions with pivots below `1e-11` of the largest
/// diagonal are dropped (their unknowns are zero).
fn solve_psd(a: &mut [f64], b: &[f64], p: usize) -> Vec<f64> {
    let mut perm: Vec<usize> = (0..p).collect();
    let dmax = (0..p).map(|i| a[i * p + i]).fold(0.0f64, f64::max);
    let eps = 1e-11 * dmax.max(f64::MIN_POSITIVE);
    let mut rank = 0;
    // a is overwritten by L (lower, in the permuted order)
    for kk in 0..p {
        let (mut best, mut bi) = (f64::NEG_INFINITY, kk);
        for i in kk..p {
            let d = a[perm[i] * p + perm[i]];
            if d > best {
                best = d;
                bi = i;
            }
        }
        if !(best > eps) {
            break;
        }
        perm.swap(kk, bi);
        let pk = perm[kk];
        let l = best.sqrt();
        a[pk * p + pk] = l;
        for i in kk + 1..p {
            let pi = perm[i];
            a[pi * p + pk] /= l;
        }
        for i in kk + 1..p {
            let pi = perm[i];
            let lik = a[pi * p + pk];
            for jj in kk + 1..=i {
                let pj = perm[jj];
                let ljk = a[pj * p + pk];
                a[pi * p + pj] -= lik * ljk;
                if pi != pj {
                    a[pj * p + pi] = a[pi * p + pj];
                }
            }
        }
        rank += 1;
    }
    // L L^T z_perm = b_perm over the first `rank` pivots
    let mut y = vec![0.0; rank];
    for i in 0..rank {
        let pi = perm[i];
        let mut s = b[pi];
        for jj in 0..i {
            s -= a[pi * p + perm[jj]] * y[jj];
        }
        y[i] = s / a[pi * p + pi];
    }
    let mut z = vec![0.0; p];
    for i in (0..rank).rev() {
        let pi = perm[i];
        let mut s = y[i];
        for jj in i + 1..rank {
            s -= a[perm[jj] * p + pi] * z[perm[jj]];
        }
        z[pi] = s / a[pi * p + pi];
    }
    z
}

/// The dense problem `min |r0 - Q̂ ŷ|` (columns of `Q̂` of unit length).
pub(super) struct Dense {
    pub(super) n: usize,
    pub(super) ns: usize,
    /// Normalised projected columns.
    pub(super) qh: Vec<Vec<f64>>,
    /// Their lengths before normalisation (0 for a column in the span of the core).
    pub(super) qn: Vec<f64>,
    pub(super) r0: Vec<f64>,
    /// Gram matrix `Q̂ᵀQ̂` (row-major) and `Q̂ᵀ r0`.
    pub(super) gram: Vec<f64>,
    pub(super) c: Vec<f64>,
}

/// The solution of one sign pattern.
pub(super) struct PatternOut {
    /// `ŷ` (in the normalised columns).
    pub(super) y: Vec<f64>,
    /// `|r|_∞` of the residual.
    pub(super) res: f64,
    /// The residual `r0 - Q̂ ŷ`.
    pub(super) r: Vec<f64>,
    /// The active-set method ended optimal (so `-r` is a descent direction when `res > 0`).
    pub(super) optimal: bool,
}

impl Dense {
    pub(super) fn new(proj: &Projection) -> Dense {
        let n = proj.r0.len();
        let ns = proj.q.len();
        let norms: Vec<f64> = proj
            .q
            .iter()
            .map(|q| q.iter().map(|v| v * v).sum::<f64>().sqrt())
            .collect();
        // unit columns; the projection of a column in the span of the core is ~1e-10 (the
        // regularisation), below the threshold it does not move the residual
        let qn: Vec<f64> = norms
            .iter()
            .map(|&v| if v > 1e-7 { v } else { 0.0 })
            .collect();
        let qh: Vec<Vec<f64>> = proj
            .q
            .iter()
            .zip(&qn)
            .map(|(q, &w)| {
                if w > 0.0 {
                    q.iter().map(|v| v / w).collect()
                } else {
                    vec![0.0; n]
                }
            })
            .collect();
        let mut gram = vec![0.0; ns * ns];
        let mut c = vec![0.0; ns];
        for a in 0..ns {
            c[a] = dot(&qh[a], &proj.r0);
            for b in 0..=a {
                let v = dot(&qh[a], &qh[b]);
                gram[a * ns + b] = v;
                gram[b * ns + a] = v;
            }
        }
        Dense {
            n,
            ns,
            qh,
            qn,
            r0: proj.r0.clone(),
            gram,
            c,
        }
    }

    /// Sign-constrained least squares (Lawson–Hanson with free variables, on the Gram
    /// matrix): `ŷ_s` free, `>= 0`, `<= 0` or `= 0` by `signs`.
    pub(super) fn solve(&self, signs: &[Sign]) -> PatternOut {
        let ns = self.ns;
        let sg: Vec<f64> = signs
            .iter()
            .map(|s| if *s == Sign::Neg { -1.0 } else { 1.0 })
            .collect();
        let usable: Vec<bool> = (0..ns)
            .map(|s| signs[s] != Sign::Zero && self.qn[s] > 0.0)
            .collect();
        let free: Vec<bool> = (0..ns)
            .map(|s| usable[s] && signs[s] == Sign::Free)
            .collect();
        let bounded = |s: usize| usable[s] && !free[s];
        // flipped coordinates: y' = sg y >= 0 for the bounded ones
        let g = |a: usize, b: usize| sg[a] * sg[b] * self.gram[a * ns + b];
        let cc = |a: usize| sg[a] * self.c[a];
        let sub = |passive: &[bool]| -> Vec<f64> {
            let idx: Vec<usize> = (0..ns).filter(|&s| passive[s]).collect();
            let p = idx.len();
            let mut a = vec![0.0; p * p];
            let mut b = vec![0.0; p];
            for (i, &si) in idx.iter().enumerate() {
                b[i] = cc(si);
                for (j, &sj) in idx.iter().enumerate() {
                    a[i * p + j] = g(si, sj);
                }
            }
            let z = solve_psd(&mut a, &b, p);
            let mut out = vec![0.0; ns];
            for (i, &si) in idx.iter().enumerate() {
                out[si] = z[i];
            }
            out
        };
        let grad = |y: &[f64], j: usize| -> f64 {
            let mut w = cc(j);
            for b in 0..ns {
                if y[b] != 0.0 {
                    w -= g(j, b) * y[b];
                }
            }
            w
        };
        let scale = 1.0 + self.c.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let tol_w = 1e-12 * scale;
        let mut passive = free.clone();
        let mut y = sub(&passive);
        let mut blocked = vec![false; ns];
        let mut optimal = false;
        for _ in 0..(3 * ns + 10) {
            let mut best = (tol_w, None);
            for j in 0..ns {
                if bounded(j) && !passive[j] && !blocked[j] {
                    let w = grad(&y, j);
                    if w > best.0 {
                        best = (w, Some(j));
                    }
                }
            }
            let Some(j) = best.1 else {
                optimal = true;
                break;
            };
            passive[j] = true;
            let mut first = true;
            for _ in 0..(ns + 5) {
                let z = sub(&passive);
                let bad: Vec<usize> = (0..ns)
                    .filter(|&s| bounded(s) && passive[s] && !(z[s] > 0.0))
                    .collect();
                if bad.is_empty() {
                    y = z;
                    break;
                }
                if first && bad.contains(&j) && !(z[j] > 0.0) {
                    // rounding: the entering variable does not move; leave it out
                    passive[j] = false;
                    blocked[j] = true;
                    break;
                }
                first = false;
                let mut alpha = 1.0f64;
                for &s in &bad {
                    let d = y[s] - z[s];
                    if d > 0.0 {
                        alpha = alpha.min(y[s] / d);
                    }
                }
                for s in 0..ns {
                    if passive[s] {
                        y[s] += alpha * (z[s] - y[s]);
                    }
                }
                for s in 0..ns {
                    if bounded(s) && passive[s] && !(y[s] > 1e-15) {
                        passive[s] = false;
                        y[s] = 0.0;
                    }
                }
            }
        }
        // back from the flipped coordinates, the residual and a looser optimality check
        for s in 0..ns {
            y[s] *= sg[s];
        }
        let mut r = self.r0.clone();
        for s in 0..ns {
            if y[s] != 0.0 {
                for (ri, qi) in r.iter_mut().zip(&self.qh[s]) {
                    *ri -= y[s] * qi;
                }
            }
        }
        let res = r.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        if !optimal || blocked.iter().any(|&b| b) {
            let rn = dot(&r, &r).sqrt();
            optimal = (0..ns).all(|s| {
                let w = sg[s] * dot(&self.qh[s], &r);
                if !usable[s] {
                    true
                } else if free[s] {
                    w.abs() <= 1e-8 * (1.0 + rn)
                } else {
                    w <= 1e-8 * (1.0 + rn)
                }
            });
        }
        debug_assert_eq!(r.len(), self.n);
        PatternOut { y, res, r, optimal }
    }
}

pub(super) fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn psd_solve_drops_dependent_directions() {
        // [[1, 1], [1, 1]] z = [2, 2]: rank one, z = (2, 0) or (0, 2)
        let mut a = vec![1.0, 1.0, 1.0, 1.0];
        let z = solve_psd(&mut a, &[2.0, 2.0], 2);
        assert!(
            (z[0] + z[1] - 2.0).abs() < 1e-12 && z[0] * z[1] == 0.0,
            "{z:?}"
        );
        let mut a = vec![4.0, 2.0, 2.0, 3.0];
        let z = solve_psd(&mut a, &[2.0, 1.0], 2);
        // 4a + 2b = 2, 2a + 3b = 1 -> a = 0.5, b = 0
        assert!((z[0] - 0.5).abs() < 1e-12 && z[1].abs() < 1e-12, "{z:?}");
    }

    #[test]
    fn sign_constrained_least_squares() {
        // r0 = (1, -1), columns e1, e2: free -> residual 0; y2 >= 0 -> residual (0, -1)
        let proj = Projection {
            r0: vec![1.0, -1.0],
            mu0: vec![],
            q: vec![vec![1.0, 0.0], vec![0.0, 1.0]],
            k: vec![vec![], vec![]],
        };
        let d = Dense::new(&proj);
        let o = d.solve(&[Sign::Free, Sign::Free]);
        assert!(o.res < 1e-14 && (o.y[1] + 1.0).abs() < 1e-14);
        let o = d.solve(&[Sign::Free, Sign::Pos]);
        assert!((o.res - 1.0).abs() < 1e-14 && o.optimal && o.y[1] == 0.0);
        let o = d.solve(&[Sign::Pos, Sign::Neg]);
        assert!(o.res < 1e-14 && (o.y[0] - 1.0).abs() < 1e-14);
        let o = d.solve(&[Sign::Zero, Sign::Neg]);
        assert!((o.res - 1.0).abs() < 1e-14);
    }
}
