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

use super::tape::{Instr, Segment, TapeOp};

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
mod tests;
