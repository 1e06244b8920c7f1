//! Compilation of expression graphs into tapes: dependency collection, liveness-based register
//! allocation, constant fusion and validation of every index the interpreter relies on.

use super::error::AdError;
use super::hash::{FastMap as HashMap, FastSet};
use super::op::OpCode;
use super::schedule::schedule;
use super::sx::{Arena, Node, Sx};
use super::tape::{Instr, Tape, TapeOp};

/// Where a node's value comes from during compilation.
#[derive(Clone, Copy)]
enum Loc {
    Reg(u32),
    Const(u32),
}

pub(super) fn compile(
    arena: &Arena,
    name: &str,
    inputs: &[&[Sx]],
    outputs: &[&[Sx]],
) -> Result<Tape, AdError> {
    let nodes = &arena.nodes;
    // Input symbols -> (input, element).
    let mut input_of: HashMap<u32, (u32, u32)> = HashMap::default();
    for (i, xs) in inputs.iter().enumerate() {
        for (j, x) in xs.iter().enumerate() {
            let bad = |why: &str| AdError::BadInput {
                function: name.to_string(),
                input: i,
                element: j,
                why: why.to_string(),
            };
            if nodes[x.0 as usize].op != OpCode::Symbol {
                return Err(bad("not a free symbol"));
            }
            if input_of.insert(x.0, (i as u32, j as u32)).is_some() {
                return Err(bad("the same symbol appears twice among the inputs"));
            }
        }
    }

    // Nodes the outputs depend on, and how often each is read (operand uses + output stores).
    let mut needed: Vec<u32> = Vec::new();
    let mut seen: HashMap<u32, ()> = HashMap::default();
    let mut stack: Vec<u32> = Vec::new();
    for ys in outputs {
        for y in ys.iter() {
            stack.push(y.0);
        }
    }
    while let Some(id) = stack.pop() {
        if seen.insert(id, ()).is_some() {
            continue;
        }
        needed.push(id);
        let n = nodes[id as usize];
        match n.op {
            OpCode::Const | OpCode::Symbol => {}
            op if op.is_binary() => {
                stack.push(n.a);
                stack.push(n.b);
            }
            _ => stack.push(n.a),
        }
    }
    needed.sort_unstable();

    // Free symbols that are not inputs.
    if let Some(&bad) = needed
        .iter()
        .find(|&&id| nodes[id as usize].op == OpCode::Symbol && !input_of.contains_key(&id))
    {
        // Name the first output element that depends on it.
        let (output, element) = first_dependent(nodes, outputs, bad);
        return Err(AdError::FreeSymbol {
            function: name.to_string(),
            output,
            element,
            symbol: Sx::from_id(bad).name().unwrap_or_else(|| format!("s{bad}")),
        });
    }

    // Constants and the instruction position of each needed node.
    let mut consts: Vec<f64> = Vec::new();
    let mut const_index: HashMap<u64, u32> = HashMap::default();
    let mut intern_const = |v: f64, consts: &mut Vec<f64>| -> u32 {
        *const_index.entry(v.to_bits()).or_insert_with(|| {
            consts.push(v);
            (consts.len() - 1) as u32
        })
    };

    // Output stores grouped by node.
    let mut stores: HashMap<u32, Vec<(u32, u32)>> = HashMap::default();
    for (o, ys) in outputs.iter().enumerate() {
        for (e, y) in ys.iter().enumerate() {
            stores.entry(y.0).or_default().push((o as u32, e as u32));
        }
    }

    // Remaining reads of each node's register (operands that need a register + stores).
    let is_const = |id: u32| nodes[id as usize].op == OpCode::Const;
    let fused = |op: OpCode, a: u32, b: u32| -> bool {
        matches!(op, OpCode::Add | OpCode::Sub | OpCode::Mul | OpCode::Div)
            && (is_const(a) || is_const(b))
    };
    let mut reads: HashMap<u32, u32> =
        HashMap::with_capacity_and_hasher(needed.len(), Default::default());
    for &id in &needed {
        let n = nodes[id as usize];
        match n.op {
            OpCode::Const | OpCode::Symbol => {}
            op if op.is_binary() => {
                if fused(op, n.a, n.b) {
                    let v = if is_const(n.a) { n.b } else { n.a };
                    *reads.entry(v).or_default() += 1;
                } else {
                    *reads.entry(n.a).or_default() += 1;
                    *reads.entry(n.b).or_default() += 1;
                }
            }
            _ => *reads.entry(n.a).or_default() += 1,
        }
    }
    for (&id, list) in &stores {
        if !is_const(id) {
            *reads.entry(id).or_default() += list.len() as u32;
        }
    }

    // Products fused into the sum or difference that is their only reader (`MulAdd`, `MulSub`,
    // `SubMul`): a register-register `Mul` read exactly once, not an output, whose reader is a
    // register-register `Add`/`Sub`. `fuse_into[sum] = (product, product is operand a)`.
    let is_rr_binary = |id: u32, op: OpCode| {
        let n = nodes[id as usize];
        n.op == op && !is_const(n.a) && !is_const(n.b)
    };
    let mut fused_mul: HashMap<u32, ()> = HashMap::default();
    let mut fuse_into: HashMap<u32, (u32, bool)> = HashMap::default();
    for &id in &needed {
        let n = nodes[id as usize];
        if !(is_rr_binary(id, OpCode::Add) || is_rr_binary(id, OpCode::Sub)) || n.a == n.b {
            continue;
        }
        for (x, is_a) in [(n.a, true), (n.b, false)] {
            if is_rr_binary(x, OpCode::Mul)
                && reads.get(&x) == Some(&1)
                && !stores.contains_key(&x)
                && !fused_mul.contains_key(&x)
            {
                fused_mul.insert(x, ());
                fuse_into.insert(id, (x, is_a));
                break;
            }
        }
    }

    // Two tapes from the same nodes: `plain` (one instruction per node; replayed symbolically
    // by `call_sx`, so derivatives are built exactly as without fusion) and `fast` (products
    // fused into their sums; what `eval` runs — the same operations and roundings).
    let no_fusion: (HashMap<u32, ()>, HashMap<u32, (u32, bool)>) =
        (HashMap::default(), HashMap::default());
    let mut tapes: Vec<(Vec<Instr>, u32)> = Vec::with_capacity(2);
    for fuse in [false, true] {
        let (fused_mul, fuse_into) = if fuse {
            (&fused_mul, &fuse_into)
        } else {
            (&no_fusion.0, &no_fusion.1)
        };
        let mut reads = reads.clone();
        let mut loc: HashMap<u32, Loc> =
            HashMap::with_capacity_and_hasher(needed.len(), Default::default());
        let mut free: Vec<u32> = Vec::new();
        let mut n_regs: u32 = 0;
        let mut instrs: Vec<Instr> = Vec::with_capacity(needed.len() + 16);

        // Reading a register once; release it when its last read has happened.
        fn release(
            id: u32,
            reads: &mut HashMap<u32, u32>,
            loc: &HashMap<u32, Loc>,
            free: &mut Vec<u32>,
        ) {
            if let Some(r) = reads.get_mut(&id) {
                *r -= 1;
                if *r == 0 {
                    if let Some(Loc::Reg(reg)) = loc.get(&id) {
                        free.push(*reg);
                    }
                }
            }
        }

        for &id in &needed {
            let n = nodes[id as usize];
            if n.op == OpCode::Const {
                let k = intern_const(n.value, &mut consts);
                loc.insert(id, Loc::Const(k));
                continue;
            }
            if fused_mul.contains_key(&id) {
                // Computed by its reader; its operands stay live until then.
                continue;
            }
            // Operands are read before the destination is written, so an operand register released
            // here can be the destination.
            let reg_of = |x: u32, loc: &HashMap<u32, Loc>| match loc.get(&x) {
                Some(Loc::Reg(r)) => *r,
                _ => u32::MAX,
            };
            let mut c = 0u32;
            let (op, a, b) = match n.op {
                OpCode::Symbol => {
                    let (i, j) = input_of[&id];
                    (TapeOp::Input, i, j)
                }
                _ if fuse_into.contains_key(&id) => {
                    let (prod, prod_is_a) = fuse_into[&id];
                    let pn = nodes[prod as usize];
                    let other = if prod_is_a { n.b } else { n.a };
                    let (ra, rb, rc) =
                        (reg_of(pn.a, &loc), reg_of(pn.b, &loc), reg_of(other, &loc));
                    release(pn.a, &mut reads, &loc, &mut free);
                    release(pn.b, &mut reads, &loc, &mut free);
                    release(other, &mut reads, &loc, &mut free);
                    c = rc;
                    let t = match (n.op, prod_is_a) {
                        (OpCode::Add, _) => TapeOp::MulAdd,
                        (_, true) => TapeOp::MulSub,
                        (_, false) => TapeOp::SubMul,
                    };
                    (t, ra, rb)
                }
                op if op.is_binary() && fused(op, n.a, n.b) => {
                    let (ca, var, cval) = if is_const(n.a) {
                        (true, n.b, nodes[n.a as usize].value)
                    } else {
                        (false, n.a, nodes[n.b as usize].value)
                    };
                    let k = intern_const(cval, &mut consts);
                    let t = match (op, ca) {
                        (OpCode::Add, _) => TapeOp::AddC,
                        (OpCode::Mul, _) => TapeOp::MulC,
                        (OpCode::Sub, false) => TapeOp::SubC,
                        (OpCode::Sub, true) => TapeOp::CSub,
                        (OpCode::Div, false) => TapeOp::DivC,
                        _ => TapeOp::CDiv,
                    };
                    let ra = reg_of(var, &loc);
                    release(var, &mut reads, &loc, &mut free);
                    (t, ra, k)
                }
                op if op.is_binary() => {
                    let ra = operand_reg(n.a, &loc, &mut instrs, &mut free, &mut n_regs);
                    let rb = operand_reg(n.b, &loc, &mut instrs, &mut free, &mut n_regs);
                    // A constant operand loaded into a temporary register: free it right away.
                    if is_const(n.a) {
                        free.push(ra);
                    } else {
                        release(n.a, &mut reads, &loc, &mut free);
                    }
                    if is_const(n.b) {
                        free.push(rb);
                    } else {
                        release(n.b, &mut reads, &loc, &mut free);
                    }
                    (TapeOp::of(op), ra, rb)
                }
                op => {
                    let ra = reg_of(n.a, &loc);
                    release(n.a, &mut reads, &loc, &mut free);
                    (TapeOp::of(op), ra, 0)
                }
            };
            let dst = match free.pop() {
                Some(r) => r,
                None => {
                    n_regs += 1;
                    n_regs - 1
                }
            };
            instrs.push(Instr { op, dst, a, b, c });
            loc.insert(id, Loc::Reg(dst));
            if let Some(list) = stores.get(&id) {
                for &(o, e) in list {
                    instrs.push(Instr {
                        op: TapeOp::Output,
                        dst,
                        a: o,
                        b: e,
                        c: 0,
                    });
                    release(id, &mut reads, &loc, &mut free);
                }
            }
            if !reads.contains_key(&id) {
                // Computed but never read (cannot happen for needed nodes; keep registers tidy).
                free.push(dst);
            }
        }
        // Outputs that are constants.
        for (o, ys) in outputs.iter().enumerate() {
            for (e, y) in ys.iter().enumerate() {
                if let Some(Loc::Const(k)) = loc.get(&y.0) {
                    instrs.push(Instr {
                        op: TapeOp::OutputConst,
                        dst: *k,
                        a: o as u32,
                        b: e as u32,
                        c: 0,
                    });
                }
            }
        }
        validate_tape(name, &instrs, consts.len(), n_regs, inputs, outputs)?;
        tapes.push((instrs, n_regs));
    }
    let (fast, n_fast) = tapes.pop().unwrap_or_default();
    let (plain, n_plain) = tapes.pop().unwrap_or_default();
    let (fast, segments, n_fast) = schedule(&fast, n_fast);
    validate_tape(name, &fast, consts.len(), n_fast, inputs, outputs)?;
    Ok(Tape {
        input_sizes: inputs.iter().map(|x| x.len()).collect(),
        output_sizes: outputs.iter().map(|y| y.len()).collect(),
        instrs: plain,
        fast,
        segments,
        consts,
        n_regs: n_plain.max(n_fast) as usize,
    })
}

/// Register holding operand `x`; a constant operand is loaded into a fresh temporary register.
fn operand_reg(
    x: u32,
    loc: &HashMap<u32, Loc>,
    instrs: &mut Vec<Instr>,
    free: &mut Vec<u32>,
    n_regs: &mut u32,
) -> u32 {
    match loc.get(&x) {
        Some(Loc::Reg(r)) => *r,
        Some(Loc::Const(k)) => {
            let dst = match free.pop() {
                Some(r) => r,
                None => {
                    *n_regs += 1;
                    *n_regs - 1
                }
            };
            instrs.push(Instr {
                op: TapeOp::Const,
                dst,
                a: *k,
                b: 0,
                c: 0,
            });
            dst
        }
        None => u32::MAX,
    }
}

/// The first output element whose expression depends on node `target`.
fn first_dependent(nodes: &[Node], outputs: &[&[Sx]], target: u32) -> (usize, usize) {
    for (o, ys) in outputs.iter().enumerate() {
        for (e, y) in ys.iter().enumerate() {
            let mut stack = vec![y.0];
            let mut seen = FastSet::default();
            while let Some(id) = stack.pop() {
                if id == target {
                    return (o, e);
                }
                if !seen.insert(id) {
                    continue;
                }
                let n = nodes[id as usize];
                match n.op {
                    OpCode::Const | OpCode::Symbol => {}
                    op if op.is_binary() => {
                        stack.push(n.a);
                        stack.push(n.b);
                    }
                    _ => stack.push(n.a),
                }
            }
        }
    }
    (0, 0)
}

/// Check every index of a freshly built tape (the interpreter relies on it).
fn validate_tape(
    name: &str,
    instrs: &[Instr],
    n_consts: usize,
    n_regs: u32,
    inputs: &[&[Sx]],
    outputs: &[&[Sx]],
) -> Result<(), AdError> {
    let ok = instrs.iter().all(|ins| {
        let reg = |x: u32| x < n_regs;
        let cst = |x: u32| (x as usize) < n_consts;
        let input = |i: u32, j: u32| {
            inputs
                .get(i as usize)
                .is_some_and(|v| (j as usize) < v.len())
        };
        let output = |i: u32, j: u32| {
            outputs
                .get(i as usize)
                .is_some_and(|v| (j as usize) < v.len())
        };
        match ins.op {
            TapeOp::Input => reg(ins.dst) && input(ins.a, ins.b),
            TapeOp::Output => reg(ins.dst) && output(ins.a, ins.b),
            TapeOp::OutputConst => cst(ins.dst) && output(ins.a, ins.b),
            TapeOp::Const => reg(ins.dst) && cst(ins.a),
            TapeOp::AddC
            | TapeOp::SubC
            | TapeOp::CSub
            | TapeOp::MulC
            | TapeOp::DivC
            | TapeOp::CDiv => reg(ins.dst) && reg(ins.a) && cst(ins.b),
            TapeOp::MulAdd | TapeOp::MulSub | TapeOp::SubMul => {
                reg(ins.dst) && reg(ins.a) && reg(ins.b) && reg(ins.c)
            }
            t => {
                let binary = t.opcode().is_some_and(|op| op.is_binary());
                reg(ins.dst) && reg(ins.a) && (!binary || reg(ins.b))
            }
        }
    });
    if ok {
        Ok(())
    } else {
        Err(AdError::Internal(format!(
            "tape of `{name}` failed validation"
        )))
    }
}
