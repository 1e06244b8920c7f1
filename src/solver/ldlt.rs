//! Sparse LDLᵀ of a symmetric matrix with a fixed pivot order, its pattern analysed once.
//!
//! The KKT matrix of the IPM keeps its pattern for the whole solve and is factorised several
//! times per iteration, so everything that depends only on the pattern is computed in
//! [`StaticLdlt::new`]: the permuted upper triangle (where each entry of the matrix goes), the
//! elimination tree, the pattern of `L` and, for every row `k`, the columns `j < k` with
//! `L[k, j] ≠ 0` (the row's reach in the elimination tree, in a topological order)
//! together with the slot of `L[k, j]` in the value array. A numeric factorisation is then the
//! up-looking algorithm (Davis, *Direct Methods for Sparse Linear Systems*, §4.6) without any
//! graph traversal: scatter row `k` of `P A Pᵀ`, eliminate with the columns of its reach, store
//! `L[k, :]` and `D[k]`.
//!
//! No pivoting: a zero or non-finite pivot stops the factorisation (the caller regularises).
//! Nothing is allocated after construction.

/// Fixed-order sparse LDLᵀ.
#[derive(Clone, Debug)]
pub(crate) struct StaticLdlt {
    n: usize,
    /// `perm[i]` = original index of pivot `i`.
    perm: Vec<usize>,
    /// Upper triangle of `P A Pᵀ` by columns: row and index into the caller's value array.
    a_ptr: Vec<usize>,
    a_row: Vec<usize>,
    a_src: Vec<usize>,
    /// Strictly lower part of `L` (CSC, rows ascending within a column).
    l_ptr: Vec<usize>,
    l_row: Vec<usize>,
    l: Vec<f64>,
    /// Reach of each row: columns `j` (topological order) and the slot of `L[k, j]`.
    r_ptr: Vec<usize>,
    r_col: Vec<usize>,
    r_pos: Vec<usize>,
    d: Vec<f64>,
    /// Dense work vector (all zero between calls).
    x: Vec<f64>,
}

const NONE: usize = usize::MAX;

/// The upper triangle of `P A Pᵀ` by columns, from the lower triangle of `A` (CSC: `col_ptr`,
/// `row_idx`) and the pivot order `perm` (`perm[i]` = original index of pivot `i`): column
/// pointers, rows, and for every entry its index in `A`'s value array.
pub(super) fn permuted_upper(
    n: usize,
    col_ptr: &[usize],
    row_idx: &[usize],
    perm: &[usize],
) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
    let mut inv = vec![0usize; n];
    for (i, &p) in perm.iter().enumerate() {
        inv[p] = i;
    }
    // Entry (r, c) of A goes to (min, max) of (inv r, inv c).
    let mut count = vec![0usize; n + 1];
    for c in 0..n {
        for &r in &row_idx[col_ptr[c]..col_ptr[c + 1]] {
            count[inv[r].max(inv[c])] += 1;
        }
    }
    let mut a_ptr = vec![0usize; n + 1];
    for k in 0..n {
        a_ptr[k + 1] = a_ptr[k] + count[k];
    }
    let nnz = a_ptr[n];
    let mut a_row = vec![0usize; nnz];
    let mut a_src = vec![0usize; nnz];
    let mut next = a_ptr.clone();
    for c in 0..n {
        for t in col_ptr[c]..col_ptr[c + 1] {
            let (pr, pc) = (inv[row_idx[t]], inv[c]);
            let (row, col) = (pr.min(pc), pr.max(pc));
            a_row[next[col]] = row;
            a_src[next[col]] = t;
            next[col] += 1;
        }
    }
    (a_ptr, a_row, a_src)
}

/// Elimination tree of the matrix whose upper triangle has the column pattern (`a_ptr`,
/// `a_row`): `parent[j]`, or `usize::MAX` for a root (path compression through `ancestor`).
pub(super) fn elimination_tree(n: usize, a_ptr: &[usize], a_row: &[usize]) -> Vec<usize> {
    let mut parent = vec![NONE; n];
    let mut ancestor = vec![NONE; n];
    for k in 0..n {
        for &i0 in &a_row[a_ptr[k]..a_ptr[k + 1]] {
            let mut i = i0;
            while i != NONE && i < k {
                let up = ancestor[i];
                ancestor[i] = k;
                if up == NONE {
                    parent[i] = k;
                }
                i = up;
            }
        }
    }
    parent
}

impl StaticLdlt {
    /// Analyse the symmetric `n × n` matrix whose lower triangle has the CSC pattern
    /// (`col_ptr`, `row_idx`; no duplicates), with the pivot order `perm` (`perm[i]` = original
    /// index of pivot `i`; a permutation of `0..n`).
    pub fn new(n: usize, col_ptr: &[usize], row_idx: &[usize], perm: &[usize]) -> StaticLdlt {
        debug_assert_eq!(perm.len(), n);
        let (a_ptr, a_row, a_src) = permuted_upper(n, col_ptr, row_idx, perm);
        let parent = elimination_tree(n, &a_ptr, &a_row);
        // Reach of every row: the union of the tree paths from its entries up to k.
        let mut mark = vec![NONE; n];
        let mut r_ptr = Vec::with_capacity(n + 1);
        let mut r_col = Vec::new();
        r_ptr.push(0);
        let mut col_count = vec![0usize; n];
        // Order (any topological order is valid; this one is faer's `ereach`, so that the
        // factor matches faer's simplicial LDLᵀ bit for bit): the paths of the row's entries,
        // last entry first, each path from the entry upwards.
        let mut paths: Vec<usize> = Vec::with_capacity(n);
        let mut path_start: Vec<usize> = Vec::with_capacity(n);
        for k in 0..n {
            mark[k] = k;
            let start = r_col.len();
            paths.clear();
            path_start.clear();
            for &i0 in &a_row[a_ptr[k]..a_ptr[k + 1]] {
                path_start.push(paths.len());
                let mut i = i0;
                while i != NONE && mark[i] != k {
                    mark[i] = k;
                    paths.push(i);
                    i = parent[i];
                }
            }
            let mut end = paths.len();
            for &s in path_start.iter().rev() {
                r_col.extend_from_slice(&paths[s..end]);
                end = s;
            }
            for &j in &r_col[start..] {
                col_count[j] += 1;
            }
            r_ptr.push(r_col.len());
        }
        let mut l_ptr = vec![0usize; n + 1];
        for j in 0..n {
            l_ptr[j + 1] = l_ptr[j] + col_count[j];
        }
        let mut fill = l_ptr.clone();
        let mut l_row = vec![0usize; l_ptr[n]];
        let mut r_pos = vec![0usize; r_col.len()];
        for k in 0..n {
            for q in r_ptr[k]..r_ptr[k + 1] {
                let j = r_col[q];
                r_pos[q] = fill[j];
                l_row[fill[j]] = k;
                fill[j] += 1;
            }
        }
        StaticLdlt {
            n,
            perm: perm.to_vec(),
            a_ptr,
            a_row,
            a_src,
            l: vec![0.0; l_ptr[n]],
            l_ptr,
            l_row,
            r_ptr,
            r_col,
            r_pos,
            d: vec![0.0; n],
            x: vec![0.0; n],
        }
    }

    /// Dimension of the matrix.
    pub fn dim(&self) -> usize {
        self.n
    }

    /// Nonzeros of the strictly lower part of `L`.
    pub fn nnz_l(&self) -> usize {
        self.l_row.len()
    }

    /// Nonzeros of the lower triangle of the permuted matrix (with the diagonal).
    pub fn nnz_a(&self) -> usize {
        self.a_row.len()
    }

    /// Multiply-adds of one numeric factorisation: Σ over columns of `nnz(L[:, j])²`.
    pub fn flops(&self) -> usize {
        (0..self.n)
            .map(|j| {
                let c = self.l_ptr[j + 1] - self.l_ptr[j];
                c * c
            })
            .sum()
    }

    /// The pivots `D` (in pivot order).
    pub fn pivots(&self) -> &[f64] {
        &self.d
    }

    /// Factorise the matrix with the analysed pattern and these values (in the pattern's
    /// storage order). `Err(i)` if pivot `i` is zero or not finite.
    pub fn factor(&mut self, values: &[f64]) -> Result<(), usize> {
        let x = &mut self.x[..];
        for k in 0..self.n {
            for q in self.a_ptr[k]..self.a_ptr[k + 1] {
                x[self.a_row[q]] += values[self.a_src[q]];
            }
            let mut dk = x[k];
            x[k] = 0.0;
            let (r0, r1) = (self.r_ptr[k], self.r_ptr[k + 1]);
            for (&j, &pos) in self.r_col[r0..r1].iter().zip(&self.r_pos[r0..r1]) {
                let xj = x[j];
                x[j] = 0.0;
                let start = self.l_ptr[j];
                for (&i, &lij) in self.l_row[start..pos].iter().zip(&self.l[start..pos]) {
                    x[i] -= lij * xj;
                }
                let lkj = xj * self.d[j].recip();
                dk -= lkj * xj;
                self.l[pos] = lkj;
            }
            if dk == 0.0 || !dk.is_finite() {
                x.fill(0.0);
                return Err(k);
            }
            self.d[k] = dk;
        }
        Ok(())
    }

    /// Solve `A x = b` in place with the last successful factorisation; `work` has length `n`.
    pub fn solve_in_place(&self, b: &mut [f64], work: &mut [f64]) {
        let w = &mut work[..self.n];
        for (wi, &p) in w.iter_mut().zip(&self.perm) {
            *wi = b[p];
        }
        for j in 0..self.n {
            let wj = w[j];
            let (s, e) = (self.l_ptr[j], self.l_ptr[j + 1]);
            for (&i, &lij) in self.l_row[s..e].iter().zip(&self.l[s..e]) {
                w[i] -= lij * wj;
            }
        }
        // D⁻¹ and Lᵀ in one sweep, in faer's operation order.
        for j in (0..self.n).rev() {
            let (s, e) = (self.l_ptr[j], self.l_ptr[j + 1]);
            let mut acc = 0.0;
            for (&i, &lij) in self.l_row[s..e].iter().zip(&self.l[s..e]).rev() {
                acc += lij * w[i];
            }
            w[j] = w[j] * self.d[j].recip() - acc;
        }
        for (&wi, &p) in w.iter().zip(&self.perm) {
            b[p] = wi;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 5×5 symmetric indefinite matrix with fill, factorised under a non-trivial order and
    /// checked against A x = b by a dense product.
    #[test]
    fn factors_and_solves_with_fill_and_permutation() {
        // dense symmetric matrix (lower part stored)
        let a = [
            [4.0, 1.0, 0.0, 2.0, 0.0],
            [1.0, -3.0, 0.5, 0.0, 0.0],
            [0.0, 0.5, 5.0, 0.0, 1.0],
            [2.0, 0.0, 0.0, -2.0, 0.7],
            [0.0, 0.0, 1.0, 0.7, 3.0],
        ];
        let n = 5;
        let (mut cp, mut ri, mut v) = (vec![0], vec![], vec![]);
        for c in 0..n {
            for r in c..n {
                if a[r][c] != 0.0 {
                    ri.push(r);
                    v.push(a[r][c]);
                }
            }
            cp.push(ri.len());
        }
        for perm in [[0, 1, 2, 3, 4], [4, 2, 0, 3, 1], [3, 0, 4, 1, 2]] {
            let mut f = StaticLdlt::new(n, &cp, &ri, &perm);
            f.factor(&v).unwrap();
            let neg = f.pivots().iter().filter(|&&d| d < 0.0).count();
            assert_eq!(neg, 2, "inertia of {perm:?}");
            let b = [1.0, -2.0, 0.5, 3.0, -1.0];
            let mut x = b;
            let mut w = [0.0; 5];
            f.solve_in_place(&mut x, &mut w);
            for i in 0..n {
                let ax: f64 = (0..n).map(|j| a[i][j] * x[j]).sum();
                assert!(
                    (ax - b[i]).abs() < 1e-12,
                    "{perm:?}: row {i}: {ax} vs {}",
                    b[i]
                );
            }
        }
        // a zero pivot is reported
        let mut f = StaticLdlt::new(n, &cp, &ri, &[0, 1, 2, 3, 4]);
        let mut z = v.clone();
        z[0] = 0.0;
        assert_eq!(f.factor(&z), Err(0));
        // and the work vector is clean afterwards
        f.factor(&v).unwrap();
    }
}
