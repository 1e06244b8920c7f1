//! Symbolic derivatives with exact sparsity: gradients, Jacobians, Hessians of the Lagrangian.
//!
//! Derivatives are built as new expressions in the arena by forward (tangent) or reverse
//! (adjoint) sweeps over the expression DAG, restricted to the nodes that depend on the
//! differentiation variables and that the differentiated outputs depend on. Because the arena
//! folds constants and applies the trivial identities, a derivative that is identically zero
//! becomes the constant 0 and is **dropped from the pattern**: the patterns are exact in the
//! sense that an entry is present iff its derivative expression is not the zero constant (a
//! constraint linear in x contributes nothing to a Hessian; a separable function has a diagonal
//! Hessian). Derivatives of compiled functions are taken by replaying the tape symbolically.

use super::error::AdError;
use super::function::Function;
use super::hash::{FastMap as HashMap, FastSet as HashSet};
use super::op::OpCode;
use super::scalar::Scalar;
use super::sparsity::SparsityPattern;
use super::sx::{with_arena, Node, Sx};

fn node(id: u32) -> Node {
    with_arena(|a| a.nodes[id as usize])
}

fn operands(n: &Node) -> (Option<u32>, Option<u32>) {
    match n.op {
        OpCode::Const | OpCode::Symbol => (None, None),
        op if op.is_binary() => (Some(n.a), Some(n.b)),
        _ => (Some(n.a), None),
    }
}

/// Partial derivatives of node `y` with respect to its operands (`None` where the operand is a
/// constant or the partial is not needed).
fn partials(y: u32, n: &Node, need_a: bool, need_b: bool) -> (Sx, Sx) {
    let a = Sx::from_id(n.a);
    let b = Sx::from_id(n.b);
    let ys = Sx::from_id(y);
    let zero = Sx::zero();
    let one = Sx::one();
    let pa = |f: &dyn Fn() -> Sx| if need_a { f() } else { zero };
    let pb = |f: &dyn Fn() -> Sx| if need_b { f() } else { zero };
    match n.op {
        OpCode::Add => (one, one),
        OpCode::Sub => (one, -one),
        OpCode::Mul => (pa(&|| b), pb(&|| a)),
        OpCode::Div => (pa(&|| b.inv()), pb(&|| -(ys / b))),
        OpCode::Neg => (-one, zero),
        OpCode::Sq => (a * 2.0, zero),
        OpCode::Sqrt => (ys.inv() * 0.5, zero),
        OpCode::Exp => (ys, zero),
        OpCode::Log => (a.inv(), zero),
        OpCode::Sin => (a.cos(), zero),
        OpCode::Cos => (-a.sin(), zero),
        OpCode::Tan => (ys.sq() + 1.0, zero),
        OpCode::Tanh => (1.0 - ys.sq(), zero),
        OpCode::Asin => ((1.0 - a.sq()).sqrt().inv(), zero),
        OpCode::Acos => (-(1.0 - a.sq()).sqrt().inv(), zero),
        OpCode::Atan => ((a.sq() + 1.0).inv(), zero),
        OpCode::Sinh => (Sx::apply_unary(OpCode::Cosh, a), zero),
        OpCode::Cosh => (Sx::apply_unary(OpCode::Sinh, a), zero),
        OpCode::Abs => (a.sign(), zero),
        OpCode::Sign => (zero, zero),
        OpCode::Inv => (-ys.sq(), zero),
        OpCode::Atan2 => {
            let r2 = a.sq() + b.sq();
            (pa(&|| b / r2), pb(&|| -(a / r2)))
        }
        OpCode::Pow => (pa(&|| b * a.powf(b - 1.0)), pb(&|| ys * a.ln())),
        OpCode::Fmin => {
            let s = (a - b).sign();
            (pa(&|| (1.0 - s) * 0.5), pb(&|| (s + 1.0) * 0.5))
        }
        OpCode::Fmax => {
            let s = (a - b).sign();
            (pa(&|| (s + 1.0) * 0.5), pb(&|| (1.0 - s) * 0.5))
        }
        OpCode::Const | OpCode::Symbol => (zero, zero),
    }
}

impl Sx {
    /// `1 / self`.
    pub fn inv(self) -> Sx {
        Sx::apply_unary(OpCode::Inv, self)
    }
}

/// Nodes reachable from `roots`, in ascending (topological) order.
fn reachable(roots: &[u32]) -> Vec<u32> {
    let mut seen: HashSet<u32> = HashSet::default();
    let mut stack: Vec<u32> = roots.to_vec();
    let mut out = Vec::new();
    with_arena(|ar| {
        while let Some(id) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            out.push(id);
            let (a, b) = operands(&ar.nodes[id as usize]);
            if let Some(a) = a {
                stack.push(a);
            }
            if let Some(b) = b {
                stack.push(b);
            }
        }
    });
    out.sort_unstable();
    out
}

/// Of the nodes in `order` (ascending), those that depend on a symbol in `vars`.
fn dependent(order: &[u32], vars: &HashSet<u32>) -> HashSet<u32> {
    let mut dep: HashSet<u32> = HashSet::default();
    with_arena(|ar| {
        for &id in order {
            let n = &ar.nodes[id as usize];
            let d = match operands(n) {
                (None, None) => vars.contains(&id),
                (a, b) => {
                    a.is_some_and(|a| dep.contains(&a)) || b.is_some_and(|b| dep.contains(&b))
                }
            };
            if d {
                dep.insert(id);
            }
        }
    });
    dep
}

/// Reverse sweep: gradient of the scalar expression `y` with respect to the symbols `wrt`.
pub fn gradient_sx(y: Sx, wrt: &[Sx]) -> Vec<Sx> {
    let vars: HashSet<u32> = wrt.iter().map(|x| x.0).collect();
    let order = reachable(&[y.0]);
    let dep = dependent(&order, &vars);
    let mut adj: HashMap<u32, Sx> = HashMap::default();
    if dep.contains(&y.0) {
        adj.insert(y.0, Sx::one());
    }
    for &id in order.iter().rev() {
        if !dep.contains(&id) {
            continue;
        }
        let Some(&bar) = adj.get(&id) else { continue };
        let n = node(id);
        let (a, b) = operands(&n);
        let need_a = a.is_some_and(|a| dep.contains(&a));
        let need_b = b.is_some_and(|b| dep.contains(&b));
        if !need_a && !need_b {
            continue;
        }
        let (pa, pb) = partials(id, &n, need_a, need_b);
        if need_a {
            let a = n.a;
            let contrib = bar * pa;
            let e = adj.entry(a).or_insert(Sx::zero());
            *e += contrib;
        }
        if need_b {
            let b = n.b;
            let contrib = bar * pb;
            let e = adj.entry(b).or_insert(Sx::zero());
            *e += contrib;
        }
    }
    wrt.iter()
        .map(|x| adj.get(&x.0).copied().unwrap_or(Sx::zero()))
        .collect()
}

/// Forward sweep: directional derivatives of `ys` along the symbol `x` (seed 1 on `x`).
pub fn tangent_sx(ys: &[Sx], x: Sx) -> Vec<Sx> {
    let roots: Vec<u32> = ys.iter().map(|y| y.0).collect();
    TangentSweep::new(&roots).tangents(0, x)
}

/// Forward sweeps over one expression DAG for many variables: the DAG of `roots` is
/// traversed and indexed once, and each sweep ([`TangentSweep::tangents`]) marks what it needs
/// in flat arrays, instead of hash sets built from the whole DAG per variable. Each sweep
/// visits the nodes that the roots it asks for depend on and that depend on its variable, in
/// ascending order, and builds the same tangent expressions in the same order as a sweep of its
/// own would.
struct TangentSweep {
    /// Nodes reachable from the roots, ascending (topological).
    order: Vec<u32>,
    /// Positions in `order` of each node's operands (`NONE` where there is none).
    ops: Vec<(u32, u32)>,
    /// Positions of the roots in `order`.
    root_pos: Vec<u32>,
    reach: Vec<bool>,
    dep: Vec<bool>,
    tan: Vec<Sx>,
}

const NONE: u32 = u32::MAX;

impl TangentSweep {
    fn new(roots: &[u32]) -> TangentSweep {
        let order = reachable(roots);
        let pos = |id: u32| order.binary_search(&id).map_or(NONE, |k| k as u32);
        let ops = with_arena(|ar| {
            order
                .iter()
                .map(|&id| {
                    let (a, b) = operands(&ar.nodes[id as usize]);
                    (a.map_or(NONE, pos), b.map_or(NONE, pos))
                })
                .collect()
        });
        let root_pos = roots.iter().map(|&r| pos(r)).collect();
        let n = order.len();
        TangentSweep {
            order,
            ops,
            root_pos,
            reach: vec![false; n],
            dep: vec![false; n],
            tan: vec![Sx::zero(); n],
        }
    }

    /// Tangents of the roots `from..` in the direction of the symbol `x`.
    fn tangents(&mut self, from: usize, x: Sx) -> Vec<Sx> {
        let roots = &self.root_pos[from..];
        let Ok(xk) = self.order.binary_search(&x.0) else {
            return vec![Sx::zero(); roots.len()];
        };
        self.reach.fill(false);
        for &r in roots {
            self.reach[r as usize] = true;
        }
        for k in (0..self.order.len()).rev() {
            if self.reach[k] {
                let (a, b) = self.ops[k];
                for o in [a, b] {
                    if o != NONE {
                        self.reach[o as usize] = true;
                    }
                }
            }
        }
        let on = |dep: &[bool], o: u32| o != NONE && dep[o as usize];
        for k in 0..self.order.len() {
            let (a, b) = self.ops[k];
            self.dep[k] = self.reach[k] && (k == xk || on(&self.dep, a) || on(&self.dep, b));
        }
        self.tan[xk] = Sx::one();
        for k in 0..self.order.len() {
            if !self.dep[k] || k == xk {
                continue;
            }
            let id = self.order[k];
            let n = node(id);
            let (a, b) = self.ops[k];
            let need_a = on(&self.dep, a);
            let need_b = on(&self.dep, b);
            let (pa, pb) = partials(id, &n, need_a, need_b);
            let mut t = Sx::zero();
            if need_a {
                t += pa * self.tan[a as usize];
            }
            if need_b {
                t += pb * self.tan[b as usize];
            }
            self.tan[k] = t;
        }
        roots
            .iter()
            .map(|&r| {
                if self.dep[r as usize] {
                    self.tan[r as usize]
                } else {
                    Sx::zero()
                }
            })
            .collect()
    }
}

/// Sparse Jacobian of the expressions `ys` with respect to the symbols `xs`: the pattern
/// (`ys.len() × xs.len()`, CSC) and the non-zero expressions in pattern order.
///
/// Forward sweeps (one per variable) are used when there are fewer variables than outputs,
/// reverse sweeps (one per output) otherwise.
pub fn jacobian_sx(ys: &[Sx], xs: &[Sx]) -> (SparsityPattern, Vec<Sx>) {
    let mut triplets: Vec<(usize, usize)> = Vec::new();
    let mut values: Vec<Sx> = Vec::new();
    if xs.len() <= ys.len() {
        let roots: Vec<u32> = ys.iter().map(|y| y.0).collect();
        let mut sweep = TangentSweep::new(&roots);
        for (j, &x) in xs.iter().enumerate() {
            for (i, d) in sweep.tangents(0, x).into_iter().enumerate() {
                if !d.is_exact_zero() {
                    triplets.push((i, j));
                    values.push(d);
                }
            }
        }
    } else {
        for (i, &y) in ys.iter().enumerate() {
            for (j, d) in gradient_sx(y, xs).into_iter().enumerate() {
                if !d.is_exact_zero() {
                    triplets.push((i, j));
                    values.push(d);
                }
            }
        }
    }
    pattern_and_values(ys.len(), xs.len(), &triplets, values)
}

/// Order `values` (given per triplet, no duplicates) into CSC order.
fn pattern_and_values(
    nrows: usize,
    ncols: usize,
    triplets: &[(usize, usize)],
    values: Vec<Sx>,
) -> (SparsityPattern, Vec<Sx>) {
    let (pattern, map) = match SparsityPattern::from_triplets(nrows, ncols, triplets) {
        Ok(r) => r,
        // Triplets are generated in range above; an empty pattern is the only sane fallback.
        Err(_) => return (SparsityPattern::empty(nrows, ncols), Vec::new()),
    };
    let mut out = vec![Sx::zero(); pattern.nnz()];
    for (k, v) in values.into_iter().enumerate() {
        out[map[k]] = v;
    }
    (pattern, out)
}

/// Jacobian of output `output` of `f` with respect to its input `wrt`.
///
/// Returns the pattern (`size_out(output) × size_in(wrt)`) and a function with the same inputs
/// as `f` and one output: the non-zeros in CSC order of the pattern.
pub fn jacobian_of(
    f: &Function,
    output: usize,
    wrt: usize,
) -> Result<(SparsityPattern, Function), AdError> {
    check_index(f, output, wrt)?;
    let (inputs, outputs) = f.symbolic()?;
    let (pattern, values) = jacobian_sx(&outputs[output], &inputs[wrt]);
    let refs: Vec<&[Sx]> = inputs.iter().map(|v| v.as_slice()).collect();
    let jf = Function::new(&format!("jac_{}", f.name()), &refs, &[&values])?;
    Ok((pattern, jf))
}

/// Jacobian of the first output of `f` with respect to its first input (see [`jacobian_of`]).
pub fn jacobian(f: &Function) -> Result<(SparsityPattern, Function), AdError> {
    jacobian_of(f, 0, 0)
}

/// Dense gradient of the scalar first output of `f` with respect to input `wrt` (one reverse
/// sweep): a function with the same inputs and one output of length `size_in(wrt)`.
pub fn gradient(f: &Function, wrt: usize) -> Result<Function, AdError> {
    check_index(f, 0, wrt)?;
    if f.size_out(0) != 1 {
        return Err(AdError::Dimension {
            function: f.name().to_string(),
            what: "length of output 0 (gradient needs a scalar)".into(),
            expected: 1,
            got: f.size_out(0),
        });
    }
    let (inputs, outputs) = f.symbolic()?;
    let g = gradient_sx(outputs[0][0], &inputs[wrt]);
    let refs: Vec<&[Sx]> = inputs.iter().map(|v| v.as_slice()).collect();
    Function::new(&format!("grad_{}", f.name()), &refs, &[&g])
}

/// Lower triangle of the Hessian of the expression `l` with respect to `xs`: pattern
/// (`n × n`, entries with row ≥ column) and non-zero expressions in CSC order.
pub fn hessian_lower_sx(l: Sx, xs: &[Sx]) -> (SparsityPattern, Vec<Sx>) {
    // Forward over reverse: one reverse sweep for the gradient, then one tangent sweep of the
    // gradient expressions per variable (column), keeping rows i ≥ j. Tangents of intermediate
    // nodes are shared by all rows of a column, which keeps the Hessian tape small.
    let grad = gradient_sx(l, xs);
    let roots: Vec<u32> = grad.iter().map(|g| g.0).collect();
    let mut sweep = TangentSweep::new(&roots);
    let mut triplets = Vec::new();
    let mut values = Vec::new();
    for (j, &xj) in xs.iter().enumerate() {
        let col = sweep.tangents(j, xj);
        for (k, d) in col.into_iter().enumerate() {
            if !d.is_exact_zero() {
                triplets.push((j + k, j));
                values.push(d);
            }
        }
    }
    pattern_and_values(xs.len(), xs.len(), &triplets, values)
}

/// Hessian of the Lagrangian `σ f(x, p…) + λᵀ g(x, p…)` with respect to x (the first input).
///
/// `f` (scalar output) and `g` (vector output) take the same inputs `(x, p…)`. Returns the
/// exact lower-triangular pattern and a function with inputs `(x, σ[1], λ[m], p…)` whose one
/// output holds the non-zeros in CSC order.
pub fn hessian_of_lagrangian(
    f: &Function,
    g: &Function,
) -> Result<(SparsityPattern, Function), AdError> {
    hessian_with(f, g, true)
}

/// The Gauss–Newton counterpart of [`hessian_of_lagrangian`]: the lower triangle of `σ ∇²f`
/// alone, with the constraints' curvature `Σ λ_i ∇²g_i` left out, as a function of the same
/// inputs `(x, σ, λ, p…)` (λ unused), so that a solver calls either one the same way. For a
/// least-squares objective over constraints whose curvature is expensive (the rigid-body
/// dynamics of a many-joint robot) this is the usual approximation of real-time MPC: the tape
/// is small and its pattern sparser, at the price of linear instead of quadratic convergence.
pub fn hessian_of_objective(
    f: &Function,
    g: &Function,
) -> Result<(SparsityPattern, Function), AdError> {
    hessian_with(f, g, false)
}

fn hessian_with(
    f: &Function,
    g: &Function,
    constraints: bool,
) -> Result<(SparsityPattern, Function), AdError> {
    if f.input_sizes() != g.input_sizes() {
        return Err(AdError::Dimension {
            function: g.name().to_string(),
            what: format!(
                "inputs must match those of `{}`; number of inputs",
                f.name()
            ),
            expected: f.n_in(),
            got: g.n_in(),
        });
    }
    check_index(f, 0, 0)?;
    if f.size_out(0) != 1 {
        return Err(AdError::Dimension {
            function: f.name().to_string(),
            what: "length of output 0 (the objective must be scalar)".into(),
            expected: 1,
            got: f.size_out(0),
        });
    }
    let (inputs, fout) = f.symbolic()?;
    let refs: Vec<&[Sx]> = inputs.iter().map(|v| v.as_slice()).collect();
    let m = g.size_out(0);
    let sigma = Sx::sym("sigma");
    let lambda = Sx::sym_vec("lambda", m);
    let mut l = sigma * fout[0][0];
    if constraints {
        let gout = g.call_sx(&refs)?;
        for (li, gi) in lambda.iter().zip(&gout[0]) {
            l += *li * *gi;
        }
    }
    let (pattern, values) = hessian_lower_sx(l, &inputs[0]);
    let sig = [sigma];
    let mut hin: Vec<&[Sx]> = vec![&inputs[0], &sig, &lambda];
    hin.extend(inputs[1..].iter().map(|v| v.as_slice()));
    let hf = Function::new(
        &format!("hess_lag_{}_{}", f.name(), g.name()),
        &hin,
        &[&values],
    )?;
    Ok((pattern, hf))
}

fn check_index(f: &Function, output: usize, wrt: usize) -> Result<(), AdError> {
    if output >= f.n_out() {
        return Err(AdError::Dimension {
            function: f.name().to_string(),
            what: "output index (number of outputs)".into(),
            expected: f.n_out(),
            got: output,
        });
    }
    if wrt >= f.n_in() {
        return Err(AdError::Dimension {
            function: f.name().to_string(),
            what: "input index (number of inputs)".into(),
            expected: f.n_in(),
            got: wrt,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tangent sweep of one variable as written out plainly (hash maps over the DAG of the
    /// roots): the oracle of the shared sweep.
    fn plain_tangents(ys: &[Sx], x: Sx) -> Vec<Sx> {
        let roots: Vec<u32> = ys.iter().map(|y| y.0).collect();
        let order = reachable(&roots);
        let vars: HashSet<u32> = [x.0].into_iter().collect();
        let dep = dependent(&order, &vars);
        let mut tan: HashMap<u32, Sx> = HashMap::default();
        tan.insert(x.0, Sx::one());
        for &id in &order {
            if !dep.contains(&id) || id == x.0 {
                continue;
            }
            let n = node(id);
            let (a, b) = operands(&n);
            let need_a = a.is_some_and(|a| dep.contains(&a));
            let need_b = b.is_some_and(|b| dep.contains(&b));
            let (pa, pb) = partials(id, &n, need_a, need_b);
            let mut t = Sx::zero();
            if need_a {
                t += pa * tan[&n.a];
            }
            if need_b {
                t += pb * tan[&n.b];
            }
            tan.insert(id, t);
        }
        ys.iter()
            .map(|y| tan.get(&y.0).copied().unwrap_or(Sx::zero()))
            .collect()
    }

    /// A scalar with shared subexpressions, a symbol it does not depend on (x₅), gradient
    /// entries that are a bare symbol and a constant, and every kind of operand.
    fn test_function(x: &[Sx]) -> Sx {
        let s = x[0] * x[1] + x[2].sin();
        let t = (s * x[3]).exp() / (x[1].sq() + 1.0);
        s * t + x[0].sq() * 0.5 + x[4] * 3.0 + (x[2] - x[3]).atan2(x[1] + 2.0) + s.sq().sqrt()
    }

    /// Every Hessian column of the shared sweep is the plain sweep's, node for node (the same
    /// arena ids, so the same tape), and its values match central differences of the gradient.
    #[test]
    fn shared_sweeps_build_the_plain_sweeps_hessian() {
        let x = Sx::sym_vec("x", 6);
        let l = test_function(&x);
        let grad = gradient_sx(l, &x);
        let roots: Vec<u32> = grad.iter().map(|g| g.0).collect();
        let mut sweep = TangentSweep::new(&roots);
        for (j, &xj) in x.iter().enumerate() {
            let shared = sweep.tangents(j, xj);
            let plain = plain_tangents(&grad[j..], xj);
            let ids = |v: &[Sx]| v.iter().map(|s| s.0).collect::<Vec<_>>();
            assert_eq!(ids(&shared), ids(&plain), "column {j}");
        }
        // The Jacobian's forward sweeps (fewer variables than outputs) likewise.
        let ys: Vec<Sx> = (0..8).map(|k| grad[k % 6] * (k as f64 + 1.0)).collect();
        let (_, jv) = jacobian_sx(&ys, &x[..3]);
        let mut plain_j = Vec::new();
        for &xj in &x[..3] {
            plain_j.extend(
                plain_tangents(&ys, xj)
                    .into_iter()
                    .filter(|d| !d.is_exact_zero()),
            );
        }
        let mut a: Vec<u32> = jv.iter().map(|s| s.0).collect();
        let mut b: Vec<u32> = plain_j.iter().map(|s| s.0).collect();
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b);

        // Values against central differences of the gradient.
        let (pat, vals) = hessian_lower_sx(l, &x);
        let h = Function::new("h", &[&x], &[&vals]).unwrap();
        let g = Function::new("g", &[&x], &[&grad]).unwrap();
        let (mut hw, mut gw) = (h.workspace(), g.workspace());
        let x0 = [0.3, -0.7, 1.1, 0.4, -0.2, 0.9];
        let mut hv = vec![0.0; vals.len()];
        h.eval(&[&x0], &mut [&mut hv], &mut hw).unwrap();
        let grad_at = |xv: &[f64], gw: &mut crate::ad::Workspace| {
            let mut out = vec![0.0; 6];
            g.eval(&[xv], &mut [&mut out], gw).unwrap();
            out
        };
        let eps = 1e-6;
        let mut checked = 0;
        for (k, (r, c)) in pat.entries().enumerate() {
            let (mut xp, mut xm) = (x0, x0);
            xp[c] += eps;
            xm[c] -= eps;
            let fd = (grad_at(&xp, &mut gw)[r] - grad_at(&xm, &mut gw)[r]) / (2.0 * eps);
            assert!(
                (hv[k] - fd).abs() <= 1e-6 * fd.abs().max(1.0),
                "H[{r},{c}] {} vs {fd}",
                hv[k]
            );
            checked += 1;
        }
        // x₄ enters linearly and x₅ not at all: no entry in their rows or columns.
        assert!(
            pat.entries().all(|(r, c)| r < 4 && c < 4),
            "{:?}",
            pat.entries().collect::<Vec<_>>()
        );
        assert_eq!(checked, 10, "the dense 4 × 4 lower triangle");
    }
}
