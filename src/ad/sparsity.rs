//! Compressed-sparse-column sparsity patterns.

use super::error::AdError;

/// A sparsity pattern in compressed sparse column (CSC) form: the row indices of column `j` are
/// `row_idx[col_ptr[j]..col_ptr[j+1]]`, strictly increasing. Non-zero `k` of a matching value
/// array belongs to that (row, column).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SparsityPattern {
    nrows: usize,
    ncols: usize,
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
}

impl SparsityPattern {
    /// Build from raw CSC arrays, checking every invariant.
    pub fn new(
        nrows: usize,
        ncols: usize,
        col_ptr: Vec<usize>,
        row_idx: Vec<usize>,
    ) -> Result<Self, AdError> {
        let bad = |why: &str| AdError::InvalidSparsity(why.to_string());
        if col_ptr.len() != ncols + 1 {
            return Err(bad("col_ptr must have ncols + 1 entries"));
        }
        if col_ptr[0] != 0 || col_ptr[ncols] != row_idx.len() {
            return Err(bad("col_ptr must start at 0 and end at nnz"));
        }
        for j in 0..ncols {
            if col_ptr[j] > col_ptr[j + 1] {
                return Err(bad("col_ptr must be non-decreasing"));
            }
            let rows = &row_idx[col_ptr[j]..col_ptr[j + 1]];
            for (k, &r) in rows.iter().enumerate() {
                if r >= nrows {
                    return Err(bad("row index out of range"));
                }
                if k > 0 && rows[k - 1] >= r {
                    return Err(bad(
                        "row indices must be strictly increasing in each column",
                    ));
                }
            }
        }
        Ok(SparsityPattern {
            nrows,
            ncols,
            col_ptr,
            row_idx,
        })
    }

    /// An empty (all-zero) pattern.
    pub fn empty(nrows: usize, ncols: usize) -> Self {
        SparsityPattern {
            nrows,
            ncols,
            col_ptr: vec![0; ncols + 1],
            row_idx: Vec::new(),
        }
    }

    /// A dense pattern.
    pub fn dense(nrows: usize, ncols: usize) -> Self {
        let col_ptr = (0..=ncols).map(|j| j * nrows).collect();
        let row_idx = (0..ncols).flat_map(|_| 0..nrows).collect();
        SparsityPattern {
            nrows,
            ncols,
            col_ptr,
            row_idx,
        }
    }

    /// Build from (row, col) pairs in any order; duplicates are merged. Returns the pattern and,
    /// for every input pair, the index of its non-zero.
    pub fn from_triplets(
        nrows: usize,
        ncols: usize,
        entries: &[(usize, usize)],
    ) -> Result<(Self, Vec<usize>), AdError> {
        for &(r, c) in entries {
            if r >= nrows || c >= ncols {
                return Err(AdError::InvalidSparsity(format!(
                    "entry ({r}, {c}) outside a {nrows}x{ncols} pattern"
                )));
            }
        }
        let mut order: Vec<usize> = (0..entries.len()).collect();
        order.sort_by_key(|&k| (entries[k].1, entries[k].0));
        let mut col_ptr = vec![0usize; ncols + 1];
        let mut row_idx = Vec::with_capacity(entries.len());
        let mut map = vec![0usize; entries.len()];
        let mut last: Option<(usize, usize)> = None;
        for &k in &order {
            let (r, c) = entries[k];
            if last != Some((r, c)) {
                row_idx.push(r);
                col_ptr[c + 1] += 1;
                last = Some((r, c));
            }
            map[k] = row_idx.len() - 1;
        }
        for j in 0..ncols {
            col_ptr[j + 1] += col_ptr[j];
        }
        Ok((
            SparsityPattern {
                nrows,
                ncols,
                col_ptr,
                row_idx,
            },
            map,
        ))
    }

    /// Number of rows.
    pub fn nrows(&self) -> usize {
        self.nrows
    }
    /// Number of columns.
    pub fn ncols(&self) -> usize {
        self.ncols
    }
    /// Number of structural non-zeros.
    pub fn nnz(&self) -> usize {
        self.row_idx.len()
    }
    /// Column pointers (length `ncols + 1`).
    pub fn col_ptr(&self) -> &[usize] {
        &self.col_ptr
    }
    /// Row indices (length `nnz`).
    pub fn row_idx(&self) -> &[usize] {
        &self.row_idx
    }

    /// Iterate over `(row, col)` of every non-zero, in storage order.
    pub fn entries(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        (0..self.ncols).flat_map(move |j| {
            self.row_idx[self.col_ptr[j]..self.col_ptr[j + 1]]
                .iter()
                .map(move |&i| (i, j))
        })
    }

    /// Index of the non-zero at (row, col), if it is structurally present.
    pub fn find(&self, row: usize, col: usize) -> Option<usize> {
        if col >= self.ncols {
            return None;
        }
        let lo = self.col_ptr[col];
        let rows = &self.row_idx[lo..self.col_ptr[col + 1]];
        rows.binary_search(&row).ok().map(|k| lo + k)
    }

    /// The transposed pattern and, for each non-zero of the transpose, the index of the
    /// corresponding non-zero of `self` (so values transpose by a gather).
    pub fn transpose(&self) -> (SparsityPattern, Vec<usize>) {
        let mut counts = vec![0usize; self.nrows + 1];
        for &r in &self.row_idx {
            counts[r + 1] += 1;
        }
        for i in 0..self.nrows {
            counts[i + 1] += counts[i];
        }
        let col_ptr = counts.clone();
        let mut next = counts;
        let mut row_idx = vec![0usize; self.nnz()];
        let mut map = vec![0usize; self.nnz()];
        for j in 0..self.ncols {
            for k in self.col_ptr[j]..self.col_ptr[j + 1] {
                let r = self.row_idx[k];
                let dst = next[r];
                row_idx[dst] = j;
                map[dst] = k;
                next[r] += 1;
            }
        }
        (
            SparsityPattern {
                nrows: self.ncols,
                ncols: self.nrows,
                col_ptr,
                row_idx,
            },
            map,
        )
    }

    /// True if every non-zero is on or below the diagonal.
    pub fn is_lower_triangular(&self) -> bool {
        self.entries().all(|(i, j)| i >= j)
    }

    /// True if every non-zero is on or above the diagonal.
    pub fn is_upper_triangular(&self) -> bool {
        self.entries().all(|(i, j)| i <= j)
    }

    /// The faer symbolic matrix of this pattern (the form faer's sparse factorisations take).
    pub fn to_faer(&self) -> faer::sparse::SymbolicSparseColMat<usize> {
        // The invariants faer checks are those `new` checks, so this cannot fail.
        faer::sparse::SymbolicSparseColMat::new_checked(
            self.nrows,
            self.ncols,
            self.col_ptr.clone(),
            None,
            self.row_idx.clone(),
        )
    }

    /// Dense row-major boolean mask (for tests and small diagnostics).
    pub fn to_dense_mask(&self) -> Vec<Vec<bool>> {
        let mut m = vec![vec![false; self.ncols]; self.nrows];
        for (i, j) in self.entries() {
            m[i][j] = true;
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triplets_merge_and_map() {
        let (p, map) =
            SparsityPattern::from_triplets(3, 2, &[(2, 1), (0, 0), (2, 1), (1, 1)]).unwrap();
        assert_eq!(p.col_ptr(), &[0, 1, 3]);
        assert_eq!(p.row_idx(), &[0, 1, 2]);
        assert_eq!(map, vec![2, 0, 2, 1]);
        assert_eq!(p.find(1, 1), Some(1));
        assert_eq!(p.find(1, 0), None);
    }

    #[test]
    fn transpose_roundtrip() {
        let (p, _) =
            SparsityPattern::from_triplets(3, 4, &[(0, 3), (2, 0), (1, 1), (2, 3)]).unwrap();
        let (t, map) = p.transpose();
        assert_eq!(t.nrows(), 4);
        let te: Vec<_> = t.entries().collect();
        assert_eq!(te, vec![(3, 0), (1, 1), (0, 2), (3, 2)]);
        for (k, (i, j)) in t.entries().enumerate() {
            assert_eq!(p.entries().nth(map[k]), Some((j, i)));
        }
        let (tt, _) = t.transpose();
        assert_eq!(tt, p);
    }

    #[test]
    fn invalid_patterns_are_rejected() {
        assert!(SparsityPattern::new(2, 1, vec![0, 2], vec![1, 0]).is_err());
        assert!(SparsityPattern::new(2, 1, vec![0, 1], vec![5]).is_err());
        assert!(SparsityPattern::from_triplets(2, 2, &[(2, 0)]).is_err());
    }
}
