//! Instruction scheduling of the evaluation tape: runs of one kind of instruction.
//!
//! A tape in creation order mixes operation kinds from one instruction to the next, so the
//! interpreter's dispatch on the kind is an indirect branch the processor mispredicts most of
//! the time (about 5 ns per instruction on the hopper's Hessian of 53 000 instructions). This
//! pass reorders the tape without changing any operation: every instruction gets its depth in
//! the dependency graph (loads as late as their first reader allows, so they do not all stay
//! alive from the start), the tape is sorted by (depth, kind) — instructions of one depth are
//! independent — and registers are allocated again by liveness. The interpreter then runs one
//! tight loop per [`Segment`] of equal kind: no dispatch inside a segment, and the iterations
//! of a segment are independent, so their latencies overlap. Each value is computed by the
//! same operation on the same operands as before, so the results are bit for bit the same.

use super::function::{Instr, TapeOp};

/// A run `fast[start..end]` of instructions of one kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Segment {
    pub op: TapeOp,
    pub start: u32,
    pub end: u32,
}

const NONE: u32 = u32::MAX;

/// Registers an instruction reads (at most three), in operand order.
fn reads(ins: &Instr) -> ([u32; 3], usize) {
    match ins.op {
        TapeOp::Input | TapeOp::OutputConst | TapeOp::Const => ([0; 3], 0),
        TapeOp::Output => ([ins.dst, 0, 0], 1),
        TapeOp::AddC
        | TapeOp::SubC
        | TapeOp::CSub
        | TapeOp::MulC
        | TapeOp::DivC
        | TapeOp::CDiv
        | TapeOp::Neg
        | TapeOp::Sq
        | TapeOp::Sin
        | TapeOp::Cos => ([ins.a, 0, 0], 1),
        TapeOp::Add | TapeOp::Sub | TapeOp::Mul | TapeOp::Div => ([ins.a, ins.b, 0], 2),
        TapeOp::MulAdd | TapeOp::MulSub | TapeOp::SubMul => ([ins.a, ins.b, ins.c], 3),
        TapeOp::Op(op) if op.is_binary() => ([ins.a, ins.b, 0], 2),
        TapeOp::Op(_) => ([ins.a, 0, 0], 1),
    }
}

/// Whether the instruction writes register `dst`.
fn writes(op: TapeOp) -> bool {
    !matches!(op, TapeOp::Output | TapeOp::OutputConst)
}

/// A total order on instruction kinds (the sort key within one depth).
fn kind(op: TapeOp) -> u16 {
    match op {
        TapeOp::Input => 0,
        TapeOp::Output => 1,
        TapeOp::OutputConst => 2,
        TapeOp::Const => 3,
        TapeOp::AddC => 4,
        TapeOp::SubC => 5,
        TapeOp::CSub => 6,
        TapeOp::MulC => 7,
        TapeOp::DivC => 8,
        TapeOp::CDiv => 9,
        TapeOp::Add => 10,
        TapeOp::Sub => 11,
        TapeOp::Mul => 12,
        TapeOp::Div => 13,
        TapeOp::Neg => 14,
        TapeOp::Sq => 15,
        TapeOp::Sin => 16,
        TapeOp::Cos => 17,
        TapeOp::MulAdd => 18,
        TapeOp::MulSub => 19,
        TapeOp::SubMul => 20,
        TapeOp::Op(op) => 32 + op as u16,
    }
}

/// Reorder `tape` (registers allocated in its order, `n_regs` of them) into runs of one kind;
/// returns the new tape, its segments and its register count.
pub(super) fn schedule(tape: &[Instr], n_regs: u32) -> (Vec<Instr>, Vec<Segment>, u32) {
    let n = tape.len();
    // SSA: the instruction defining the value each operand reads.
    let mut current = vec![NONE; n_regs as usize];
    let mut operands: Vec<([u32; 3], usize)> = Vec::with_capacity(n);
    for (i, ins) in tape.iter().enumerate() {
        let (regs, k) = reads(ins);
        let mut defs = [NONE; 3];
        for j in 0..k {
            defs[j] = current[regs[j] as usize];
        }
        operands.push((defs, k));
        if writes(ins.op) {
            current[ins.dst as usize] = i as u32;
        }
    }
    // Depths: as soon as possible, then loads moved down to just before their first reader.
    let mut level = vec![0u32; n];
    for i in 0..n {
        let (defs, k) = operands[i];
        level[i] = defs[..k]
            .iter()
            .filter(|&&d| d != NONE)
            .map(|&d| level[d as usize] + 1)
            .max()
            .unwrap_or(0);
    }
    let mut first_use = vec![u32::MAX; n];
    let mut n_reads = vec![0u32; n];
    for i in 0..n {
        let (defs, k) = operands[i];
        for &d in defs[..k].iter().filter(|&&d| d != NONE) {
            first_use[d as usize] = first_use[d as usize].min(level[i]);
            n_reads[d as usize] += 1;
        }
    }
    for i in 0..n {
        if matches!(tape[i].op, TapeOp::Input | TapeOp::Const) && first_use[i] != u32::MAX {
            level[i] = first_use[i] - 1;
        }
    }
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_by_key(|&i| (level[i as usize], kind(tape[i as usize].op)));

    // Registers again, by liveness in the new order.
    let mut reg_of = vec![NONE; n];
    let mut free: Vec<u32> = Vec::new();
    let mut count: u32 = 0;
    let mut out: Vec<Instr> = Vec::with_capacity(n);
    let mut segments: Vec<Segment> = Vec::new();
    for &i in &order {
        let i = i as usize;
        let mut ins = tape[i];
        let (defs, k) = operands[i];
        let mut regs = [0u32; 3];
        for j in 0..k {
            let d = defs[j] as usize;
            regs[j] = reg_of[d];
            n_reads[d] -= 1;
            if n_reads[d] == 0 {
                free.push(reg_of[d]);
            }
        }
        match ins.op {
            TapeOp::Output => ins.dst = regs[0],
            _ if k == 0 => {}
            _ => {
                ins.a = regs[0];
                if k > 1 {
                    ins.b = regs[1];
                }
                if k > 2 {
                    ins.c = regs[2];
                }
            }
        }
        if writes(ins.op) {
            let r = free.pop().unwrap_or_else(|| {
                count += 1;
                count - 1
            });
            reg_of[i] = r;
            ins.dst = r;
        }
        let pos = out.len() as u32;
        match segments.last_mut() {
            Some(s) if s.op == ins.op => s.end = pos + 1,
            _ => segments.push(Segment {
                op: ins.op,
                start: pos,
                end: pos + 1,
            }),
        }
        out.push(ins);
    }
    (out, segments, count)
}

#[cfg(test)]
mod tests {
    use super::super::{hessian_of_lagrangian, jacobian_of, Function, Scalar, Sx};

    /// Constraints of a small planar two-link arm with contact-like terms: every instruction
    /// kind the compiler emits (loads, constant-fused ops, products fused into sums, sin/cos,
    /// division, sqrt, exp, tanh, atan2, outputs that are constants).
    fn arm(q: &[Sx], v: &[Sx], lam: &[Sx]) -> Vec<Sx> {
        let (s1, c1) = (q[0].sin(), q[0].cos());
        let (s12, c12) = ((q[0] + q[1]).sin(), (q[0] + q[1]).cos());
        let m11 = (c1 * 0.5 + 1.3) * 2.0 + q[1].cos() * 0.7;
        let m12 = q[1].cos() * 0.35 + 0.4;
        let gap = s1 * 1.1 + s12 * 0.9 + 0.05;
        let tang = c1 * 1.1 + c12 * 0.9;
        vec![
            m11 * v[0] + m12 * v[1] - lam[0] * tang,
            m12 * v[0] + v[1] * 0.4 - (gap * lam[1]) / (q[1].sq() + 1.0),
            (gap.sq() + tang.sq()).sqrt() - 1.0,
            (v[0] * v[1]).exp() * 0.01 + lam[0].tanh(),
            tang.atan2(gap) - 2.0 / (1.0 + v[0].sq()),
            Sx::constant(3.0),
        ]
    }

    #[test]
    fn scheduled_tapes_match_creation_order_bit_for_bit() {
        let x = Sx::sym_vec("x", 6);
        let g = arm(&x[0..2], &x[2..4], &x[4..6]);
        let fun = Function::new("arm", &[&x], &[&g]).unwrap();
        let f = Function::new("f", &[&x], &[&[(x[0] * x[3]).sin() + x[1].sq()]]).unwrap();
        let (_, jac) = jacobian_of(&fun, 0, 0).unwrap();
        let (_, hess) = hessian_of_lagrangian(&f, &fun).unwrap();
        let point: Vec<f64> = (0..6).map(|i| 0.3 + 0.17 * i as f64).collect();
        let lam: Vec<f64> = (0..6).map(|i| 1.0 - 0.31 * i as f64).collect();
        for (name, h, args) in [
            ("g", &fun, vec![point.clone()]),
            ("jac", &jac, vec![point.clone()]),
            ("hess", &hess, vec![point.clone(), vec![0.7], lam.clone()]),
        ] {
            let ins: Vec<&[f64]> = args.iter().map(|a| a.as_slice()).collect();
            let want = h.eval_creation_order(&ins);
            let mut got: Vec<Vec<f64>> = want.iter().map(|o| vec![f64::NAN; o.len()]).collect();
            let mut outs: Vec<&mut [f64]> = got.iter_mut().map(|o| o.as_mut_slice()).collect();
            h.eval(&ins, &mut outs, &mut h.workspace()).unwrap();
            for (o, w) in got.iter().zip(&want) {
                for (a, b) in o.iter().zip(w) {
                    assert_eq!(a.to_bits(), b.to_bits(), "{name}: {a} vs {b}");
                }
            }
            // The segments cover the tape in order, each one kind, neighbours different.
            let segs = h.segments();
            assert_eq!(segs.first().map(|s| s.start), Some(0));
            assert_eq!(
                segs.last().map(|s| s.end as usize),
                Some(h.n_instructions())
            );
            for w in segs.windows(2) {
                assert_eq!(w[0].end, w[1].start);
                assert_ne!(w[0].op, w[1].op);
            }
        }
    }

    #[test]
    fn wide_tapes_run_in_long_segments() {
        // 40 copies of the arm's constraints at different points: instructions of one depth
        // are independent, so segments hold many instructions each.
        let x = Sx::sym_vec("x", 240);
        let g: Vec<Sx> = x
            .chunks(6)
            .flat_map(|c| arm(&c[0..2], &c[2..4], &c[4..6]))
            .collect();
        let fun = Function::new("arms", &[&x], &[&g]).unwrap();
        let n = fun.n_instructions();
        let per_segment = n as f64 / fun.segments().len() as f64;
        assert!(
            per_segment > 20.0,
            "{n} instructions in {} segments",
            fun.segments().len()
        );
    }
}
