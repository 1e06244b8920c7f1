//! Supernodal sparse LDLᵀ with a fixed pivot order, its pattern analysed once.
//!
//! Same job as [`StaticLdlt`](super::ldlt::StaticLdlt) (no pivoting, the caller's order, a zero
//! or non-finite pivot stops the factorisation), organised for dense kernels:
//!
//! * The caller's order is refined by a postorder of its elimination tree (an equivalent order:
//!   same fill, same multiply-adds), so that the columns of every subtree are consecutive.
//! * Consecutive columns `j, j+1` with `parent(j) = j+1` and `struct L[:, j] = {j+1} ∪ struct
//!   L[:, j+1]` form a supernode; a supernode is also merged into its parent supernode when they
//!   are consecutive and the merge stores few explicit zeros ([`Relax`]), because a few zeros in
//!   a dense block are cheaper than the index work of a separate small supernode.
//! * Each supernode's columns of `L` are one dense column-major panel (its rows: its own columns,
//!   then the rows below; the strict upper triangle of the diagonal block is unused).
//! * Left-looking numeric factorisation: for each supernode, the updates of all earlier supernodes
//!   with rows in its columns (a list built in the analysis, with the position of every source
//!   row in the target panel), each `C = L_d D_d L_dᵀ` computed column by column by a kernel that
//!   combines four source columns per pass over contiguous memory, then the dense LDLᵀ of the
//!   panel (left-looking inside the panel, same kernel).
//! * The triangular solves go panel by panel with the same kernel and dot products.
//!
//! Everything is sized in [`SupernodalLdlt::new`]; factorisation and solve allocate nothing.
//! The results equal [`StaticLdlt`](super::ldlt::StaticLdlt)'s up to rounding (the sums are
//! formed in a different order).

use super::ldlt::{elimination_tree, permuted_upper};

const NONE: usize = usize::MAX;

/// Panels of at most this many columns are solved with indirect (scatter/gather) column
/// operations instead of a dense product through a work vector.
const NARROW: usize = 2;

/// Relaxed supernode amalgamation: a child supernode is merged into its parent when the merged
/// supernode has at most `always` columns, or when the explicit zeros it stores are at most
/// `zero_fraction[i]` of its entries for the first `i` with `cols ≤ max_cols[i]`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Relax {
    pub always: usize,
    pub max_cols: [usize; 3],
    pub zero_fraction: [f64; 3],
}

#[cfg(test)]
impl Relax {
    /// Only fundamental supernodes (no explicit zeros).
    pub const NONE: Relax = Relax {
        always: 1,
        max_cols: [0; 3],
        zero_fraction: [0.0; 3],
    };
}

impl Default for Relax {
    fn default() -> Relax {
        Relax {
            always: 4,
            max_cols: [16, 48, usize::MAX],
            zero_fraction: [0.3, 0.05, 0.02],
        }
    }
}

/// One update of a target supernode by an earlier (source) supernode.
#[derive(Clone, Copy, Debug)]
struct Update {
    /// Source supernode.
    src: usize,
    /// Positions `r1..r2` of the source's row list are columns of the target; `r1..` are all
    /// the source rows the update touches.
    r1: usize,
    r2: usize,
    /// Offset in `map` of the target positions of the source rows `r1..`.
    map: usize,
    /// The target positions are consecutive (`map[i] = map[0] + i`): subtract in place.
    contiguous: bool,
}

/// Fixed-order supernodal LDLᵀ.
#[derive(Clone, Debug)]
pub(crate) struct SupernodalLdlt {
    n: usize,
    /// `post[k]` = caller's pivot index of our pivot `k`.
    post: Vec<usize>,
    /// `perm[k]` = original index of our pivot `k`.
    perm: Vec<usize>,
    /// Entry `q` of the permuted matrix: `lx[a_dst[q]] += values[a_src[q]]`.
    a_dst: Vec<usize>,
    a_src: Vec<usize>,
    /// Supernode `s` has the columns `sn_col[s]..sn_col[s + 1]`.
    sn_col: Vec<usize>,
    /// Its rows: `rows[sn_rptr[s]..sn_rptr[s + 1]]` (its own columns first, ascending).
    sn_rptr: Vec<usize>,
    rows: Vec<usize>,
    /// Its panel: `lx[sn_vptr[s]..sn_vptr[s + 1]]`, column-major, leading dimension = row count.
    sn_vptr: Vec<usize>,
    lx: Vec<f64>,
    /// Updates of supernode `s`: `updates[up_ptr[s]..up_ptr[s + 1]]`.
    up_ptr: Vec<usize>,
    updates: Vec<Update>,
    map: Vec<usize>,
    /// Pivots in our order, their inverses, and the pivots in the caller's order.
    d: Vec<f64>,
    dinv: Vec<f64>,
    d_out: Vec<f64>,
    /// Work: scaled source rows (`L_d D_d`) and one column of an update.
    wbuf: Vec<f64>,
    cbuf: Vec<f64>,
    nnz_l: usize,
    nnz_a: usize,
    flops: usize,
    /// Instruction set of the kernels (detected once), and whether it has fused multiply-add.
    arch: pulp::Arch,
    fma: bool,
}

impl SupernodalLdlt {
    /// Analyse the symmetric `n × n` matrix whose lower triangle has the CSC pattern
    /// (`col_ptr`, `row_idx`; no duplicates), with the pivot order `perm` (`perm[i]` = original
    /// index of pivot `i`; a permutation of `0..n`).
    pub fn new(
        n: usize,
        col_ptr: &[usize],
        row_idx: &[usize],
        perm: &[usize],
        relax: Relax,
    ) -> SupernodalLdlt {
        debug_assert_eq!(perm.len(), n);
        // Postorder of the elimination tree of the caller's order (children in index order).
        let (a_ptr, a_row, _) = permuted_upper(n, col_ptr, row_idx, perm);
        let parent0 = elimination_tree(n, &a_ptr, &a_row);
        let post = postorder(&parent0);
        let perm2: Vec<usize> = post.iter().map(|&k| perm[k]).collect();
        let (a_ptr, a_row, a_src) = permuted_upper(n, col_ptr, row_idx, &perm2);
        let parent = elimination_tree(n, &a_ptr, &a_row);

        // Pattern of L (strictly lower, rows ascending per column) from the row reaches.
        let mut mark = vec![NONE; n];
        let mut cc = vec![0usize; n];
        let mut reach_ptr = vec![0usize; n + 1];
        let mut reach = Vec::new();
        for k in 0..n {
            mark[k] = k;
            for &i0 in &a_row[a_ptr[k]..a_ptr[k + 1]] {
                let mut i = i0;
                while i != NONE && mark[i] != k {
                    mark[i] = k;
                    reach.push(i);
                    cc[i] += 1;
                    i = parent[i];
                }
            }
            reach_ptr[k + 1] = reach.len();
        }
        let mut l_ptr = vec![0usize; n + 1];
        for j in 0..n {
            l_ptr[j + 1] = l_ptr[j] + cc[j];
        }
        let mut fill = l_ptr.clone();
        let mut l_row = vec![0usize; l_ptr[n]];
        for k in 0..n {
            for &j in &reach[reach_ptr[k]..reach_ptr[k + 1]] {
                l_row[fill[j]] = k;
                fill[j] += 1;
            }
        }
        drop(reach);

        // Fundamental supernodes, then relaxed amalgamation (a stack of (first, last)).
        let mut stack: Vec<(usize, usize)> = Vec::new();
        for j in 0..n {
            let joins = j > 0 && parent[j - 1] == j && cc[j - 1] == cc[j] + 1;
            match stack.last_mut() {
                Some(top) if joins => top.1 = j,
                _ => stack.push((j, j)),
            }
        }
        let fundamental = stack;
        let mut stack: Vec<(usize, usize)> = Vec::with_capacity(fundamental.len());
        let true_nnz = |f: usize, l: usize| (f..=l).map(|j| cc[j] + 1).sum::<usize>();
        let panel = |f: usize, l: usize| {
            let nc = l - f + 1;
            let nr = nc + cc[l];
            nc * nr - nc * (nc - 1) / 2
        };
        for &(f0, l) in &fundamental {
            let mut f = f0;
            while let Some(&(cf, cl)) = stack.last() {
                if cl + 1 != f || parent[cl] != f {
                    break;
                }
                let nc = l - cf + 1;
                let accept = nc <= relax.always || {
                    let zeros = panel(cf, l) - true_nnz(cf, l);
                    let frac = zeros as f64 / panel(cf, l) as f64;
                    let i = relax.max_cols.iter().position(|&m| nc <= m);
                    i.is_some_and(|i| frac <= relax.zero_fraction[i])
                };
                if !accept {
                    break;
                }
                stack.pop();
                f = cf;
            }
            stack.push((f, l));
        }
        let ns = stack.len();
        let mut sn_col = Vec::with_capacity(ns + 1);
        let mut sn_of = vec![0usize; n];
        for (s, &(f, l)) in stack.iter().enumerate() {
            sn_col.push(f);
            for c in &mut sn_of[f..=l] {
                *c = s;
            }
        }
        sn_col.push(n);
        let mut sn_rptr = vec![0usize; ns + 1];
        let mut sn_vptr = vec![0usize; ns + 1];
        let mut rows = Vec::new();
        for s in 0..ns {
            let (f, l) = (sn_col[s], sn_col[s + 1] - 1);
            rows.extend(f..=l);
            rows.extend_from_slice(&l_row[l_ptr[l]..l_ptr[l + 1]]);
            sn_rptr[s + 1] = rows.len();
            let nr = sn_rptr[s + 1] - sn_rptr[s];
            sn_vptr[s + 1] = sn_vptr[s] + nr * (l - f + 1);
        }
        // Position of a row in a supernode's row list (sorted).
        let pos_in = |s: usize, r: usize| -> usize {
            let list = &rows[sn_rptr[s]..sn_rptr[s + 1]];
            match list.binary_search(&r) {
                Ok(p) => p,
                Err(_) => unreachable!("row {r} not in supernode {s}"),
            }
        };
        // Where each entry of the permuted matrix goes: (r, c), r ≤ c, is L[c, r].
        let mut a_dst = vec![0usize; a_row.len()];
        for c in 0..n {
            for q in a_ptr[c]..a_ptr[c + 1] {
                let r = a_row[q];
                let s = sn_of[r];
                let nr = sn_rptr[s + 1] - sn_rptr[s];
                a_dst[q] = sn_vptr[s] + (r - sn_col[s]) * nr + pos_in(s, c);
            }
        }
        // Updates: the rows below each source supernode, grouped by target supernode.
        let mut found: Vec<(usize, Update)> = Vec::new();
        let mut map = Vec::new();
        let (mut wlen, mut clen) = (0usize, 0usize);
        for d in 0..ns {
            let list = &rows[sn_rptr[d]..sn_rptr[d + 1]];
            let nc = sn_col[d + 1] - sn_col[d];
            let mut r1 = nc;
            while r1 < list.len() {
                let s = sn_of[list[r1]];
                let mut r2 = r1;
                while r2 < list.len() && sn_of[list[r2]] == s {
                    r2 += 1;
                }
                let off = map.len();
                map.extend(list[r1..].iter().map(|&r| pos_in(s, r)));
                let first = map[off];
                let contiguous = map[off..].iter().enumerate().all(|(i, &p)| p == first + i);
                wlen = wlen.max((r2 - r1) * nc);
                clen = clen.max((list.len() - r1) * (r2 - r1));
                found.push((
                    s,
                    Update {
                        src: d,
                        r1,
                        r2,
                        map: off,
                        contiguous,
                    },
                ));
                r1 = r2;
            }
        }
        let mut up_ptr = vec![0usize; ns + 1];
        for &(s, _) in &found {
            up_ptr[s + 1] += 1;
        }
        for s in 0..ns {
            up_ptr[s + 1] += up_ptr[s];
        }
        let mut next = up_ptr.clone();
        let mut updates = vec![
            Update {
                src: 0,
                r1: 0,
                r2: 0,
                map: 0,
                contiguous: true,
            };
            found.len()
        ];
        for &(s, u) in &found {
            updates[next[s]] = u;
            next[s] += 1;
        }
        let max_cols = (0..ns)
            .map(|s| sn_col[s + 1] - sn_col[s])
            .max()
            .unwrap_or(0);
        let max_rows = (0..ns)
            .map(|s| sn_rptr[s + 1] - sn_rptr[s])
            .max()
            .unwrap_or(0);
        let nnz_l = l_ptr[n];
        let flops = cc.iter().map(|&c| c * c).sum();
        SupernodalLdlt {
            n,
            post,
            perm: perm2,
            a_dst,
            a_src,
            sn_col,
            sn_rptr,
            rows,
            lx: vec![0.0; sn_vptr[ns]],
            sn_vptr,
            up_ptr,
            updates,
            map,
            d: vec![0.0; n],
            dinv: vec![0.0; n],
            d_out: vec![0.0; n],
            wbuf: vec![0.0; wlen.max(4 * max_cols)],
            cbuf: vec![0.0; clen.max(max_rows)],
            nnz_l,
            nnz_a: a_row.len(),
            flops,
            arch: pulp::Arch::new(),
            fma: has_fma(),
        }
    }

    /// Nonzeros of the strictly lower part of `L` (without the explicit zeros of the panels).
    pub fn nnz_l(&self) -> usize {
        self.nnz_l
    }

    /// Nonzeros of the lower triangle of the permuted matrix (with the diagonal).
    pub fn nnz_a(&self) -> usize {
        self.nnz_a
    }

    /// Multiply-adds of one numeric factorisation of the sparse factor: Σ_j `nnz(L[:, j])²`
    /// (the same measure as `StaticLdlt::flops`; the panels' explicit zeros add to the work).
    pub fn flops(&self) -> usize {
        self.flops
    }

    /// (supernodes, stored panel entries including explicit zeros and the unused upper
    /// triangles, updates).
    pub fn supernode_stats(&self) -> (usize, usize, usize) {
        (self.sn_col.len() - 1, self.lx.len(), self.updates.len())
    }

    /// The pivots `D`, in the caller's pivot order.
    pub fn pivots(&self) -> &[f64] {
        &self.d_out
    }

    /// Number of supernodes.
    fn ns(&self) -> usize {
        self.sn_col.len() - 1
    }

    /// Factorise the matrix with the analysed pattern and these values (in the pattern's
    /// storage order). `Err(i)` if pivot `i` (in the caller's pivot order) is zero or not finite.
    pub fn factor(&mut self, values: &[f64]) -> Result<(), usize> {
        let arch = self.arch;
        if self.fma {
            arch.dispatch(FactorOp::<true> { f: self, values })
        } else {
            arch.dispatch(FactorOp::<false> { f: self, values })
        }
    }

    /// [`SupernodalLdlt::factor`], compiled for the instruction set `dispatch` selected.
    #[inline(always)]
    fn factor_with<const FMA: bool>(&mut self, values: &[f64]) -> Result<(), usize> {
        self.lx.fill(0.0);
        for (&dst, &src) in self.a_dst.iter().zip(&self.a_src) {
            self.lx[dst] += values[src];
        }
        for s in 0..self.ns() {
            let f = self.sn_col[s];
            let nc = self.sn_col[s + 1] - f;
            let nr = self.sn_rptr[s + 1] - self.sn_rptr[s];
            let v0 = self.sn_vptr[s];
            let (done, rest) = self.lx.split_at_mut(v0);
            let tgt = &mut rest[..nr * nc];
            for u in &self.updates[self.up_ptr[s]..self.up_ptr[s + 1]] {
                let d = u.src;
                let fd = self.sn_col[d];
                let ncd = self.sn_col[d + 1] - fd;
                let nrd = self.sn_rptr[d + 1] - self.sn_rptr[d];
                let src = &done[self.sn_vptr[d]..self.sn_vptr[d + 1]];
                let k = u.r2 - u.r1;
                let m = nrd - u.r1;
                // w[t·k + j] = L_d[r1 + j, t] D_d[t]
                let w = &mut self.wbuf[..k * ncd];
                for (t, &dt) in self.d[fd..fd + ncd].iter().enumerate() {
                    let col = &src[t * nrd + u.r1..t * nrd + u.r2];
                    for (wj, &l) in w[t * k..(t + 1) * k].iter_mut().zip(col) {
                        *wj = l * dt;
                    }
                }
                let map = &self.map[u.map..u.map + m];
                if u.contiguous {
                    // subtract in place: target columns map[0].., rows map[0] + i
                    let at = map[0] * nr + map[0];
                    let mut j0 = 0;
                    while j0 < k {
                        let nb = (k - j0).min(4);
                        let dst = &mut tgt[at + j0 * nr + j0..];
                        let wj = &w[j0..];
                        block::<FMA, false>(
                            nb,
                            dst,
                            nr,
                            src,
                            nrd,
                            u.r1 + j0,
                            wj,
                            1,
                            k,
                            ncd,
                            m - j0,
                        );
                        j0 += nb;
                    }
                } else if ncd == 1 {
                    // one source column: subtract its outer product directly
                    let col = &src[u.r1..nrd];
                    for j in 0..k {
                        let wj = w[j];
                        let dst = &mut tgt[map[j] * nr..(map[j] + 1) * nr];
                        for (&l, &p) in col[j..].iter().zip(&map[j..]) {
                            dst[p] = madd::<FMA>(-l, wj, dst[p]);
                        }
                    }
                } else {
                    // C = L_d[r1.., :] W (lower trapezoid) into `cbuf`, then scattered
                    let c = &mut self.cbuf[..m * k];
                    let mut j0 = 0;
                    while j0 < k {
                        let nb = (k - j0).min(4);
                        let dst = &mut c[j0 * m + j0..];
                        let wj = &w[j0..];
                        block::<FMA, true>(nb, dst, m, src, nrd, u.r1 + j0, wj, 1, k, ncd, m - j0);
                        j0 += nb;
                    }
                    for j in 0..k {
                        let col = &mut tgt[map[j] * nr..(map[j] + 1) * nr];
                        for (&ci, &p) in c[j * m + j..(j + 1) * m].iter().zip(&map[j..]) {
                            col[p] -= ci;
                        }
                    }
                }
            }
            // Dense LDLᵀ of the panel, left-looking by blocks of four columns.
            let mut j0 = 0;
            while j0 < nc {
                let nb = (nc - j0).min(4);
                if j0 > 0 {
                    // columns j0..j0 + nb, rows j0.. -= L[j0.., :j0] D (L[j0..j0 + nb, :j0])ᵀ
                    let w = &mut self.wbuf[..nb * j0];
                    for jj in 0..nb {
                        for t in 0..j0 {
                            w[jj * j0 + t] = tgt[t * nr + j0 + jj] * self.d[f + t];
                        }
                    }
                    let (left, right) = tgt.split_at_mut(j0 * nr);
                    let dst = &mut right[j0..];
                    block::<FMA, false>(nb, dst, nr, left, nr, j0, w, j0, 1, j0, nr - j0);
                }
                for j in j0..j0 + nb {
                    let w = &mut self.wbuf[..j - j0];
                    for (t, wt) in w.iter_mut().enumerate() {
                        *wt = tgt[(j0 + t) * nr + j] * self.d[f + j0 + t];
                    }
                    let (left, right) = tgt.split_at_mut(j * nr);
                    let col = &mut right[j..nr];
                    gemv_sub::<FMA>(col, &left[j0 * nr..], nr, j, w);
                    let dj = col[0];
                    if dj == 0.0 || !dj.is_finite() {
                        return Err(self.post[f + j]);
                    }
                    self.d[f + j] = dj;
                    let inv = dj.recip();
                    self.dinv[f + j] = inv;
                    for x in &mut col[1..] {
                        *x *= inv;
                    }
                }
                j0 += nb;
            }
        }
        for (&k, &dk) in self.post.iter().zip(&self.d) {
            self.d_out[k] = dk;
        }
        Ok(())
    }

    /// Length of the `work` slice of [`SupernodalLdlt::solve_in_place`].
    pub fn work_len(&self) -> usize {
        2 * self.n
    }

    /// Solve `A x = b` in place with the last successful factorisation; `work` has length
    /// [`SupernodalLdlt::work_len`].
    pub fn solve_in_place(&self, b: &mut [f64], work: &mut [f64]) {
        if self.fma {
            self.arch.dispatch(SolveOp::<true> { f: self, b, work })
        } else {
            self.arch.dispatch(SolveOp::<false> { f: self, b, work })
        }
    }

    /// [`SupernodalLdlt::solve_in_place`], compiled for the instruction set `dispatch` selected.
    #[inline(always)]
    fn solve_with<const FMA: bool>(&self, b: &mut [f64], work: &mut [f64]) {
        let (x, tmp) = work[..2 * self.n].split_at_mut(self.n);
        for (xi, &p) in x.iter_mut().zip(&self.perm) {
            *xi = b[p];
        }
        let ns = self.ns();
        // L y = b
        for s in 0..ns {
            let f = self.sn_col[s];
            let nc = self.sn_col[s + 1] - f;
            let nr = self.sn_rptr[s + 1] - self.sn_rptr[s];
            let p = &self.lx[self.sn_vptr[s]..self.sn_vptr[s + 1]];
            let xs = &mut x[f..f + nc];
            for t in 0..nc {
                let xt = xs[t];
                for (xi, &l) in xs[t + 1..].iter_mut().zip(&p[t * nr + t + 1..t * nr + nc]) {
                    *xi -= l * xt;
                }
            }
            let nb = nr - nc;
            let below = &self.rows[self.sn_rptr[s] + nc..self.sn_rptr[s + 1]];
            if nc <= NARROW {
                // narrow panel: scatter each column directly
                for t in 0..nc {
                    let xt = x[f + t];
                    for (&l, &r) in p[t * nr + nc..(t + 1) * nr].iter().zip(below) {
                        x[r] = madd::<FMA>(-l, xt, x[r]);
                    }
                }
            } else if nb > 0 {
                let c = &mut tmp[..nb];
                c.fill(0.0);
                gemv_sub::<FMA>(c, p, nr, nc, &x[f..f + nc]);
                for (&ci, &r) in c.iter().zip(below) {
                    x[r] += ci;
                }
            }
        }
        // D⁻¹
        for (xi, &dinv) in x.iter_mut().zip(&self.dinv) {
            *xi *= dinv;
        }
        // Lᵀ x = z
        for s in (0..ns).rev() {
            let f = self.sn_col[s];
            let nc = self.sn_col[s + 1] - f;
            let nr = self.sn_rptr[s + 1] - self.sn_rptr[s];
            let p = &self.lx[self.sn_vptr[s]..self.sn_vptr[s + 1]];
            let nb = nr - nc;
            let g = &mut tmp[..nb];
            let below = &self.rows[self.sn_rptr[s] + nc..self.sn_rptr[s + 1]];
            if nc <= NARROW {
                // narrow panel: gather inside the dot products
                for t in (0..nc).rev() {
                    let mut acc = 0.0;
                    for (&l, &r) in p[t * nr + nc..(t + 1) * nr].iter().zip(below) {
                        acc = madd::<FMA>(l, x[r], acc);
                    }
                    for (&l, &xi) in p[t * nr + t + 1..t * nr + nc]
                        .iter()
                        .zip(&x[f + t + 1..f + nc])
                    {
                        acc = madd::<FMA>(l, xi, acc);
                    }
                    x[f + t] -= acc;
                }
                continue;
            }
            for (gi, &r) in g.iter_mut().zip(below) {
                *gi = x[r];
            }
            let xs = &mut x[f..f + nc];
            for t in (0..nc).rev() {
                let col = &p[t * nr..(t + 1) * nr];
                let mut acc = dot::<FMA>(&col[nc..], g);
                for (&l, &xi) in col[t + 1..nc].iter().zip(&xs[t + 1..]) {
                    acc = madd::<FMA>(l, xi, acc);
                }
                xs[t] -= acc;
            }
        }
        for (&xi, &p) in x.iter().zip(&self.perm) {
            b[p] = xi;
        }
    }
}

/// [`SupernodalLdlt::factor`] as an operation `pulp::Arch::dispatch` compiles for the detected
/// instruction set (everything it calls is inlined into that context).
struct FactorOp<'a, const FMA: bool> {
    f: &'a mut SupernodalLdlt,
    values: &'a [f64],
}

impl<const FMA: bool> pulp::WithSimd for FactorOp<'_, FMA> {
    type Output = Result<(), usize>;
    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _: S) -> Self::Output {
        self.f.factor_with::<FMA>(self.values)
    }
}

/// [`SupernodalLdlt::solve_in_place`] as a dispatched operation (see [`FactorOp`]).
struct SolveOp<'a, const FMA: bool> {
    f: &'a SupernodalLdlt,
    b: &'a mut [f64],
    work: &'a mut [f64],
}

impl<const FMA: bool> pulp::WithSimd for SolveOp<'_, FMA> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _: S) -> Self::Output {
        self.f.solve_with::<FMA>(self.b, self.work)
    }
}

/// Whether the instruction set `pulp::Arch::new()` selects has fused multiply-add (then the
/// kernels use `mul_add`, one rounding per product; without it `mul_add` would be a library
/// call).
fn has_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        !matches!(pulp::Arch::new(), pulp::Arch::Scalar)
    }
    #[cfg(target_arch = "aarch64")]
    {
        true
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        false
    }
}

/// `a · b + c`, fused when `FMA`.
#[inline(always)]
fn madd<const FMA: bool>(a: f64, b: f64, c: f64) -> f64 {
    if FMA {
        a.mul_add(b, c)
    } else {
        a * b + c
    }
}

/// `dst[j·ldd + i] (−)= Σ_{t < kk} a[t·lda + arow + i] · w[j·wj + t·wt]` for the `nb ≤ 4` columns
/// `j` and the rows `i < nrows`: assigned (`ASSIGN`) or subtracted. Eight rows at a time with
/// the `nb` column sums in registers, so each element of `a` is loaded once per `nb` columns.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn block<const FMA: bool, const ASSIGN: bool>(
    nb: usize,
    dst: &mut [f64],
    ldd: usize,
    a: &[f64],
    lda: usize,
    arow: usize,
    w: &[f64],
    wj: usize,
    wt: usize,
    kk: usize,
    nrows: usize,
) {
    match nb {
        4 => block_n::<FMA, ASSIGN, 4>(dst, ldd, a, lda, arow, w, wj, wt, kk, nrows),
        3 => block_n::<FMA, ASSIGN, 3>(dst, ldd, a, lda, arow, w, wj, wt, kk, nrows),
        2 => block_n::<FMA, ASSIGN, 2>(dst, ldd, a, lda, arow, w, wj, wt, kk, nrows),
        _ => block_n::<FMA, ASSIGN, 1>(dst, ldd, a, lda, arow, w, wj, wt, kk, nrows),
    }
}

#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn block_n<const FMA: bool, const ASSIGN: bool, const NB: usize>(
    dst: &mut [f64],
    ldd: usize,
    a: &[f64],
    lda: usize,
    arow: usize,
    w: &[f64],
    wj: usize,
    wt: usize,
    kk: usize,
    nrows: usize,
) {
    const R: usize = 8;
    let mut wv = [0.0f64; NB];
    let mut i = 0;
    while i + R <= nrows {
        let mut acc = [[0.0f64; R]; NB];
        for t in 0..kk {
            let x = &a[t * lda + arow + i..t * lda + arow + i + R];
            for j in 0..NB {
                wv[j] = w[j * wj + t * wt];
            }
            for j in 0..NB {
                for l in 0..R {
                    acc[j][l] = madd::<FMA>(x[l], wv[j], acc[j][l]);
                }
            }
        }
        for j in 0..NB {
            let d = &mut dst[j * ldd + i..j * ldd + i + R];
            for l in 0..R {
                d[l] = if ASSIGN { acc[j][l] } else { d[l] - acc[j][l] };
            }
        }
        i += R;
    }
    while i < nrows {
        let mut acc = [0.0f64; NB];
        for t in 0..kk {
            let x = a[t * lda + arow + i];
            for j in 0..NB {
                acc[j] = madd::<FMA>(x, w[j * wj + t * wt], acc[j]);
            }
        }
        for j in 0..NB {
            let d = &mut dst[j * ldd + i];
            *d = if ASSIGN { acc[j] } else { *d - acc[j] };
        }
        i += 1;
    }
}

/// `dst[i] -= Σ_t a[t·lda + row0 + i] · w[t]`: columns of a column-major block, four per pass.
#[inline(always)]
fn gemv_sub<const FMA: bool>(dst: &mut [f64], a: &[f64], lda: usize, row0: usize, w: &[f64]) {
    let len = dst.len();
    let col = |t: usize| &a[t * lda + row0..t * lda + row0 + len];
    let mut t = 0;
    while t + 4 <= w.len() {
        let (c0, c1, c2, c3) = (col(t), col(t + 1), col(t + 2), col(t + 3));
        let (w0, w1, w2, w3) = (-w[t], -w[t + 1], -w[t + 2], -w[t + 3]);
        for ((((d, &x0), &x1), &x2), &x3) in dst.iter_mut().zip(c0).zip(c1).zip(c2).zip(c3) {
            let s = madd::<FMA>(x1, w1, x0 * w0) + madd::<FMA>(x3, w3, x2 * w2);
            *d += s;
        }
        t += 4;
    }
    if t + 2 <= w.len() {
        let (c0, c1) = (col(t), col(t + 1));
        let (w0, w1) = (-w[t], -w[t + 1]);
        for ((d, &x0), &x1) in dst.iter_mut().zip(c0).zip(c1) {
            *d += madd::<FMA>(x1, w1, x0 * w0);
        }
        t += 2;
    }
    if t < w.len() {
        let w0 = -w[t];
        for (d, &x0) in dst.iter_mut().zip(col(t)) {
            *d = madd::<FMA>(x0, w0, *d);
        }
    }
}

/// Dot product with eight partial sums.
#[inline(always)]
fn dot<const FMA: bool>(a: &[f64], b: &[f64]) -> f64 {
    let n8 = a.len().min(b.len()) / 8 * 8;
    let mut s = [0.0f64; 8];
    for (x, y) in a[..n8].chunks_exact(8).zip(b[..n8].chunks_exact(8)) {
        for i in 0..8 {
            s[i] = madd::<FMA>(x[i], y[i], s[i]);
        }
    }
    let mut acc = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
    for (x, y) in a[n8..].iter().zip(&b[n8..]) {
        acc = madd::<FMA>(*x, *y, acc);
    }
    acc
}

/// A postorder of the forest `parent` (`NONE` for roots), children visited in index order:
/// `post[k]` = the node placed `k`-th.
fn postorder(parent: &[usize]) -> Vec<usize> {
    let n = parent.len();
    // children lists, each in increasing order (built backwards)
    let mut head = vec![NONE; n];
    let mut next = vec![NONE; n];
    for j in (0..n).rev() {
        let p = parent[j];
        if p != NONE {
            next[j] = head[p];
            head[p] = j;
        }
    }
    let mut post = Vec::with_capacity(n);
    let mut stack = Vec::new();
    for root in 0..n {
        if parent[root] != NONE {
            continue;
        }
        stack.push(root);
        while let Some(&top) = stack.last() {
            let child = head[top];
            if child == NONE {
                stack.pop();
                post.push(top);
            } else {
                head[top] = next[child];
                stack.push(child);
            }
        }
    }
    post
}

#[cfg(test)]
mod tests {
    use super::super::ldlt::StaticLdlt;
    use super::*;

    /// Uniform numbers in [0, 1) from a 64-bit linear congruential generator.
    fn lcg(mut seed: u64) -> impl FnMut() -> f64 {
        move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 11) as f64) / ((1u64 << 53) as f64)
        }
    }

    /// A random symmetric quasi-definite matrix, dense (row-major `n × n`): the first `np` rows
    /// and columns a positive definite block, the rest a negative definite one, random coupling.
    /// `density` of off-diagonal entries, plus `dense` rows/columns with every entry set.
    fn random_quasi_definite(
        n: usize,
        np: usize,
        density: f64,
        dense: usize,
        seed: u64,
    ) -> Vec<f64> {
        let mut rnd = lcg(seed);
        let mut a = vec![0.0; n * n];
        let dense_rows: Vec<usize> = (0..dense).map(|i| (i * 7919 + 3) % n).collect();
        for j in 0..n {
            for i in j + 1..n {
                if rnd() < density || dense_rows.contains(&i) || dense_rows.contains(&j) {
                    let v = 2.0 * rnd() - 1.0;
                    a[i * n + j] = v;
                    a[j * n + i] = v;
                }
            }
        }
        // diagonal dominance of each block over its own row gives quasi-definiteness
        for i in 0..n {
            let row: f64 = (0..n).filter(|&j| j != i).map(|j| a[i * n + j].abs()).sum();
            let d = 1.0 + row + rnd();
            a[i * n + i] = if i < np { d } else { -d };
        }
        a
    }

    /// KKT-like saddle matrix [H + δ, Jᵀ; J, −Σ] with a banded Hessian (stages) and a
    /// stage-coupled Jacobian, as in an optimal-control transcription.
    fn saddle(stages: usize, nx: usize, nc: usize, reg: f64, seed: u64) -> (Vec<f64>, usize) {
        let mut rnd = lcg(seed);
        let (n, m) = (stages * nx, stages * nc);
        let dim = n + m;
        let mut a = vec![0.0; dim * dim];
        let set = |a: &mut Vec<f64>, i: usize, j: usize, v: f64| {
            a[i * dim + j] = v;
            a[j * dim + i] = v;
        };
        for s in 0..stages {
            for i in 0..nx {
                for j in 0..i {
                    if rnd() < 0.5 {
                        set(&mut a, s * nx + i, s * nx + j, 0.2 * (rnd() - 0.5));
                    }
                }
                set(&mut a, s * nx + i, s * nx + i, 2.0 + rnd());
            }
            for c in 0..nc {
                let row = n + s * nc + c;
                for j in 0..nx {
                    if rnd() < 0.6 {
                        set(&mut a, row, s * nx + j, 2.0 * rnd() - 1.0);
                    }
                    if s + 1 < stages && rnd() < 0.3 {
                        set(&mut a, row, (s + 1) * nx + j, 2.0 * rnd() - 1.0);
                    }
                }
                let sig = if c % 2 == 0 { rnd() } else { 0.0 };
                set(&mut a, row, row, -(sig + reg));
            }
        }
        (a, n)
    }

    /// Lower triangle of a dense symmetric matrix in CSC form.
    fn lower_csc(a: &[f64], n: usize) -> (Vec<usize>, Vec<usize>, Vec<f64>) {
        let (mut cp, mut ri, mut v) = (vec![0], vec![], vec![]);
        for c in 0..n {
            for r in c..n {
                if a[r * n + c] != 0.0 || r == c {
                    ri.push(r);
                    v.push(a[r * n + c]);
                }
            }
            cp.push(ri.len());
        }
        (cp, ri, v)
    }

    /// Dense LDLᵀ (no pivoting) of `P A Pᵀ`: the pivots in pivot order.
    fn dense_pivots(a: &[f64], n: usize, perm: &[usize]) -> Vec<f64> {
        let mut m: Vec<f64> = (0..n * n)
            .map(|q| a[perm[q / n] * n + perm[q % n]])
            .collect();
        let mut d = vec![0.0; n];
        for k in 0..n {
            d[k] = m[k * n + k];
            for i in k + 1..n {
                let lik = m[i * n + k] / d[k];
                for j in k + 1..=i {
                    m[i * n + j] -= lik * m[j * n + k];
                }
            }
            for i in k + 1..n {
                m[i * n + k] /= d[k];
            }
        }
        d
    }

    fn permutations(n: usize, seed: u64) -> Vec<Vec<usize>> {
        let mut rnd = lcg(seed);
        let mut shuffled: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            let j = (rnd() * (i + 1) as f64) as usize;
            shuffled.swap(i, j);
        }
        vec![(0..n).collect(), (0..n).rev().collect(), shuffled]
    }

    /// Pivots against the scalar factorisation and a dense LDLᵀ in the same order, the
    /// solution against a dense LU of `A`, the inertia, for both amalgamation settings: the
    /// pivots and the solution are within `tol` (relative) of the scalar factorisation's and of
    /// the references, or (ill-conditioned orders, where the rounding errors of both
    /// factorisations are amplified) the largest error is at most 10 times the scalar
    /// factorisation's.
    fn check(a: &[f64], n: usize, np: usize, tol: f64, seed: u64) {
        let (cp, ri, v) = lower_csc(a, n);
        let dm = nalgebra::DMatrix::from_row_slice(n, n, a);
        let mut rnd = lcg(seed ^ 0x5a5a);
        let b: Vec<f64> = (0..n).map(|_| rnd() - 0.5).collect();
        let want = dm
            .full_piv_lu()
            .solve(&nalgebra::DVector::from_vec(b.clone()))
            .unwrap();
        let xmax = want.amax();
        let rel = |x: &[f64], y: &[f64], scale: &dyn Fn(usize) -> f64| {
            (0..x.len())
                .map(|i| (x[i] - y[i]).abs() / scale(i))
                .fold(0.0f64, f64::max)
        };
        for perm in permutations(n, seed) {
            let mut scalar = StaticLdlt::new(n, &cp, &ri, &perm);
            scalar.factor(&v).unwrap();
            let dense = dense_pivots(a, n, &perm);
            let mut xs = b.clone();
            let mut w = vec![0.0; 2 * n];
            scalar.solve_in_place(&mut xs, &mut w[..n]);
            let dscale = |i: usize| dense[i].abs();
            let xscale = |_: usize| xmax;
            let scalar_d = rel(scalar.pivots(), &dense, &dscale);
            let scalar_x = rel(&xs, want.as_slice(), &xscale);
            for relax in [Relax::NONE, Relax::default()] {
                let mut f = SupernodalLdlt::new(n, &cp, &ri, &perm, relax);
                f.factor(&v).unwrap();
                assert_eq!(f.nnz_l(), scalar.nnz_l());
                assert_eq!(f.flops(), scalar.flops());
                let d_vs_scalar = rel(f.pivots(), scalar.pivots(), &dscale);
                let d_vs_dense = rel(f.pivots(), &dense, &dscale);
                assert!(
                    (d_vs_scalar <= tol && d_vs_dense <= tol) || d_vs_dense <= 10.0 * scalar_d,
                    "n {n}, {relax:?}: pivots {d_vs_scalar:e} from the scalar, \
                     {d_vs_dense:e} from the dense ones (scalar: {scalar_d:e})"
                );
                let neg = f.pivots().iter().filter(|&&d| d < 0.0).count();
                assert_eq!(neg, n - np, "inertia");
                let mut x = b.clone();
                f.solve_in_place(&mut x, &mut w);
                let x_vs_scalar = rel(&x, &xs, &xscale);
                let x_vs_lu = rel(&x, want.as_slice(), &xscale);
                assert!(
                    (x_vs_scalar <= tol && x_vs_lu <= tol) || x_vs_lu <= 10.0 * scalar_x,
                    "n {n}, {relax:?}: solution {x_vs_scalar:e} from the scalar, \
                     {x_vs_lu:e} from LU (scalar: {scalar_x:e})"
                );
            }
        }
    }

    #[test]
    fn random_quasi_definite_matches_scalar_and_dense() {
        for (n, np, density, dense, seed) in [
            (1, 1, 0.0, 0, 1),
            (7, 4, 0.3, 0, 2),
            (40, 25, 0.05, 0, 3),
            (60, 30, 0.1, 2, 4),
            (120, 70, 0.02, 1, 5),
            (150, 80, 0.2, 0, 6),
            (200, 120, 0.01, 3, 7),
            (90, 0, 0.05, 0, 8),
        ] {
            let a = random_quasi_definite(n, np, density, dense, seed);
            check(&a, n, np, 1e-12, seed);
        }
    }

    #[test]
    fn saddle_matrices_match_scalar_and_dense() {
        // well conditioned in every order
        for (stages, nx, nc, seed) in [(3, 4, 2, 11), (10, 12, 8, 12), (6, 20, 15, 13)] {
            let (a, n) = saddle(stages, nx, nc, 0.5, seed);
            check(&a, stages * (nx + nc), n, 1e-12, seed);
        }
        // the IPM's static regularisation 1e-8 on equality rows: orders that pivot on a
        // constraint row first amplify rounding errors by up to ~1e8
        for (stages, nx, nc, seed) in [(10, 12, 8, 14), (6, 20, 15, 15)] {
            let (a, n) = saddle(stages, nx, nc, 1e-8, seed);
            check(&a, stages * (nx + nc), n, 1e-12, seed);
        }
    }

    /// A zero pivot at a leaf of the elimination tree (the same in every order) is reported
    /// with its index in the caller's pivot order; the next factorisation succeeds.
    #[test]
    fn zero_pivot_is_reported() {
        let n = 30;
        let mut a = random_quasi_definite(n, 18, 0.1, 0, 21);
        // make original index 5 an isolated zero: no off-diagonal entries
        for j in 0..n {
            if j != 5 {
                a[5 * n + j] = 0.0;
                a[j * n + 5] = 0.0;
            }
        }
        a[5 * n + 5] = 0.0;
        let (cp, ri, v) = lower_csc(&a, n);
        for perm in permutations(n, 22) {
            let at = perm.iter().position(|&p| p == 5).unwrap();
            let mut f = SupernodalLdlt::new(n, &cp, &ri, &perm, Relax::default());
            assert_eq!(f.factor(&v), Err(at));
            let mut s = StaticLdlt::new(n, &cp, &ri, &perm);
            assert_eq!(s.factor(&v), Err(at));
            let mut ok = v.clone();
            let d5 = (cp[5]..cp[6]).find(|&q| ri[q] == 5).unwrap();
            ok[d5] = 1.0;
            f.factor(&ok).unwrap();
            let mut nan = v.clone();
            nan[d5] = f64::NAN;
            assert_eq!(f.factor(&nan), Err(at));
        }
    }
}
