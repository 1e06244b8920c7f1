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
    let vars: HashSet<u32> = [x.0].into_iter().collect();
    let roots: Vec<u32> = ys.iter().map(|y| y.0).collect();
    let order = reachable(&roots);
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

/// Sparse Jacobian of the expressions `ys` with respect to the symbols `xs`: the pattern
/// (`ys.len() × xs.len()`, CSC) and the non-zero expressions in pattern order.
///
/// Forward sweeps (one per variable) are used when there are fewer variables than outputs,
/// reverse sweeps (one per output) otherwise.
pub fn jacobian_sx(ys: &[Sx], xs: &[Sx]) -> (SparsityPattern, Vec<Sx>) {
    let mut triplets: Vec<(usize, usize)> = Vec::new();
    let mut values: Vec<Sx> = Vec::new();
    if xs.len() <= ys.len() {
        for (j, &x) in xs.iter().enumerate() {
            for (i, d) in tangent_sx(ys, x).into_iter().enumerate() {
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
    let mut triplets = Vec::new();
    let mut values = Vec::new();
    for (j, &xj) in xs.iter().enumerate() {
        let col = tangent_sx(&grad[j..], xj);
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
