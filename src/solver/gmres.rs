//! The GMRES fallback of the KKT solve ([`Kkt::solve`](super::kkt::Kkt::solve) with
//! `kkt_gmres`): restarted GMRES on the KKT system, preconditioned by its regularised LDLᵀ
//! factor. GMRES sees the system only through [`PreconditionedOperator`].

/// A linear system `A x = b` with a preconditioner `M ≈ A` (for the KKT solve: the true KKT
/// matrix and its regularised factor).
pub(crate) trait PreconditionedOperator {
    /// `r = b − A x`.
    fn residual(&self, b: &[f64], x: &[f64], r: &mut [f64]);
    /// `out = A x`.
    fn apply(&self, x: &[f64], out: &mut [f64]);
    /// `x ← M⁻¹ x`.
    fn precondition(&mut self, x: &mut [f64]);
}

/// Relative residual above which the KKT solve follows iterative refinement with GMRES.
pub(crate) const GMRES_TRIGGER: f64 = 1e-12;
/// Krylov dimension of one GMRES cycle.
const GMRES_RESTART: usize = 20;
/// GMRES cycles at most (each restarts from the true residual).
pub(crate) const GMRES_CYCLES: usize = 3;

/// Right-preconditioned restarted GMRES on `K_true x = b` with the regularised LDLᵀ factor as
/// the preconditioner (Saad, Iterative Methods for Sparse Linear Systems, Alg. 9.5, modified
/// Gram–Schmidt and Givens rotations). All vectors are sized once.
pub(crate) struct Gmres {
    /// Dimension of the system (0: no work space).
    pub(crate) dim: usize,
    /// Krylov basis, `GMRES_RESTART + 1` vectors of `dim`.
    v: Vec<f64>,
    /// Hessenberg matrix, column-major `(GMRES_RESTART + 1) × GMRES_RESTART`.
    h: Vec<f64>,
    cs: Vec<f64>,
    sn: Vec<f64>,
    g: Vec<f64>,
    y: Vec<f64>,
    z: Vec<f64>,
    w: Vec<f64>,
}

impl Gmres {
    pub(crate) fn new(dim: usize) -> Gmres {
        let k = GMRES_RESTART;
        let (rows, cols) = if dim == 0 { (0, 0) } else { (k + 1, k) };
        Gmres {
            dim,
            v: vec![0.0; rows * dim],
            h: vec![0.0; rows * cols],
            cs: vec![0.0; cols],
            sn: vec![0.0; cols],
            g: vec![0.0; rows],
            y: vec![0.0; cols],
            z: vec![0.0; dim],
            w: vec![0.0; dim],
        }
    }

    /// One cycle from `x` (improved in place); `r` is scratch of length `dim`.
    pub(crate) fn cycle(
        &mut self,
        op: &mut impl PreconditionedOperator,
        b: &[f64],
        x: &mut [f64],
        r: &mut [f64],
    ) {
        let (dim, k) = (self.dim, GMRES_RESTART);
        if dim == 0 {
            return;
        }
        let ld = k + 1;
        op.residual(b, x, r);
        let beta = dot(r, r).sqrt();
        if !(beta > 0.0 && beta.is_finite()) {
            return;
        }
        for (vi, ri) in self.v[..dim].iter_mut().zip(r.iter()) {
            *vi = ri / beta;
        }
        self.g.fill(0.0);
        self.g[0] = beta;
        let mut used = 0;
        for j in 0..k {
            self.z.copy_from_slice(&self.v[j * dim..(j + 1) * dim]);
            op.precondition(&mut self.z);
            op.apply(&self.z, &mut self.w);
            for i in 0..=j {
                let vi = &self.v[i * dim..(i + 1) * dim];
                let hij = dot(&self.w, vi);
                for (wl, vl) in self.w.iter_mut().zip(vi) {
                    *wl -= hij * vl;
                }
                self.h[i + j * ld] = hij;
            }
            let hn = dot(&self.w, &self.w).sqrt();
            self.h[j + 1 + j * ld] = hn;
            if hn > 0.0 && hn.is_finite() {
                for (vl, wl) in self.v[(j + 1) * dim..(j + 2) * dim]
                    .iter_mut()
                    .zip(self.w.iter())
                {
                    *vl = wl / hn;
                }
            }
            for i in 0..j {
                let (a, c) = (self.h[i + j * ld], self.h[i + 1 + j * ld]);
                self.h[i + j * ld] = self.cs[i] * a + self.sn[i] * c;
                self.h[i + 1 + j * ld] = -self.sn[i] * a + self.cs[i] * c;
            }
            let (a, c) = (self.h[j + j * ld], self.h[j + 1 + j * ld]);
            let den = a.hypot(c);
            if !(den > 0.0 && den.is_finite()) {
                break;
            }
            self.cs[j] = a / den;
            self.sn[j] = c / den;
            self.h[j + j * ld] = den;
            self.h[j + 1 + j * ld] = 0.0;
            self.g[j + 1] = -self.sn[j] * self.g[j];
            self.g[j] *= self.cs[j];
            used = j + 1;
            if !(hn > 0.0 && hn.is_finite()) || self.g[j + 1].abs() <= 1e-16 * beta {
                break;
            }
        }
        if used == 0 {
            return;
        }
        for i in (0..used).rev() {
            let mut t = self.g[i];
            for l in i + 1..used {
                t -= self.h[i + l * ld] * self.y[l];
            }
            self.y[i] = t / self.h[i + i * ld];
        }
        self.z.fill(0.0);
        for i in 0..used {
            let yi = self.y[i];
            for (zl, vl) in self.z.iter_mut().zip(&self.v[i * dim..(i + 1) * dim]) {
                *zl += yi * vl;
            }
        }
        op.precondition(&mut self.z);
        if self.z.iter().all(|v| v.is_finite()) {
            for (xl, zl) in x.iter_mut().zip(self.z.iter()) {
                *xl += zl;
            }
        }
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
