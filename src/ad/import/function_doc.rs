//! The `fesdj-function` document: parsing, validation and replay over `Sx` registers.

use super::format::{
    as_object, check_header, describe, field, index_value, parse_json, real_value,
};
use super::format::{string_field, usize_field, Origin, FUNCTION_FORMAT};
use crate::ad::error::AdError;
use crate::ad::function::Function;
use crate::ad::op::OpCode;
use crate::ad::sx::Sx;
use serde_json::{Map, Value};

/// Name and length of one input or output of an imported function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Port {
    /// Name as written in the file.
    pub name: String,
    /// Number of elements (a dense column; matrices are flattened column-major).
    pub size: usize,
}

/// One decoded instruction of a function document (indices validated).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Instr {
    /// `r[dst] = input[input][element]`
    Input { dst: u32, input: u32, element: u32 },
    /// `output[output][element] = r[src]`
    Output { src: u32, output: u32, element: u32 },
    /// `r[dst] = value`
    Const { dst: u32, value: f64 },
    /// `r[dst] = r[src]`
    Assign { dst: u32, src: u32 },
    /// `r[dst] = 2 r[a]`
    Twice { dst: u32, a: u32 },
    /// `r[dst] = op(r[a])`
    Unary { op: OpCode, dst: u32, a: u32 },
    /// `r[dst] = op(r[a], r[b])`
    Binary {
        op: OpCode,
        dst: u32,
        a: u32,
        b: u32,
    },
}

/// A validated `fesdj-function` document: the instruction list of one function.
///
/// Obtained from [`FunctionDoc::parse`]; every index in it has been checked, so replaying it
/// ([`FunctionDoc::call`]) can only fail on wrong argument lengths.
#[derive(Clone, Debug)]
pub struct FunctionDoc {
    name: String,
    inputs: Vec<Port>,
    outputs: Vec<Port>,
    n_work: usize,
    instructions: Vec<Instr>,
}

fn ports(obj: &Map<String, Value>, key: &str, o: Origin) -> Result<Vec<Port>, AdError> {
    let v = field(obj, key, o)?;
    let list = v.as_array().ok_or_else(|| {
        o.err(format!(
            "field `{key}`: expected an array, got {}",
            describe(v)
        ))
    })?;
    let mut out = Vec::with_capacity(list.len());
    for (i, p) in list.iter().enumerate() {
        let at = format!("{key}[{i}]");
        let po = p.as_object().ok_or_else(|| {
            o.err(format!(
                "field `{at}`: expected an object {{\"name\", \"size\"}}"
            ))
        })?;
        let name = match po.get("name") {
            Some(Value::String(s)) => s.clone(),
            Some(other) => {
                return Err(o.err(format!(
                    "field `{at}.name`: expected a string, got {}",
                    describe(other)
                )))
            }
            None => return Err(o.err(format!("field `{at}`: missing `name`"))),
        };
        let size = match po.get("size") {
            Some(s) => index_value(s, &format!("field `{at}.size`"), o)? as usize,
            None => return Err(o.err(format!("field `{at}`: missing `size`"))),
        };
        out.push(Port { name, size });
    }
    Ok(out)
}

impl FunctionDoc {
    /// Parse and validate a `fesdj-function` document; `origin` names the source in errors
    /// (a file name, or e.g. `<string>`).
    pub fn parse(text: &str, origin: &str) -> Result<FunctionDoc, AdError> {
        let v = parse_json(text, origin)?;
        FunctionDoc::from_value(
            &v,
            Origin {
                file: origin,
                within: "",
            },
        )
    }

    pub(super) fn from_value(v: &Value, o: Origin) -> Result<FunctionDoc, AdError> {
        let obj = as_object(v, o)?;
        check_header(obj, FUNCTION_FORMAT, o)?;
        let name = string_field(obj, "name", o)?.to_string();
        let inputs = ports(obj, "inputs", o)?;
        let outputs = ports(obj, "outputs", o)?;
        let n_work = usize_field(obj, "n_work", o)?;
        let list_v = field(obj, "instructions", o)?;
        let list = list_v.as_array().ok_or_else(|| {
            o.err(format!(
                "field `instructions`: expected an array, got {}",
                describe(list_v)
            ))
        })?;
        // Every register read must have been written, so a file cannot need more registers
        // than it has instructions; this bounds the allocations below by the file's size.
        if n_work > list.len() {
            return Err(o.err(format!(
                "field `n_work`: {n_work} registers for {} instructions (each register must be \
                 written by an instruction)",
                list.len()
            )));
        }
        let n_out_total: usize = outputs.iter().map(|p| p.size).sum();
        if n_out_total > list.len() {
            return Err(o.err(format!(
                "the outputs have {n_out_total} elements but there are only {} instructions \
                 (every output element needs an `output` instruction)",
                list.len()
            )));
        }
        let mut decoder = Decoder {
            o,
            inputs: &inputs,
            outputs: &outputs,
            written: vec![false; n_work],
            out_written: outputs.iter().map(|p| vec![false; p.size]).collect(),
        };
        let instructions = list
            .iter()
            .enumerate()
            .map(|(k, item)| decoder.decode(k, item))
            .collect::<Result<Vec<Instr>, AdError>>()?;
        decoder.check_outputs_written()?;
        Ok(FunctionDoc {
            name,
            inputs,
            outputs,
            n_work,
            instructions,
        })
    }

    /// The function's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Names and sizes of the inputs.
    pub fn inputs(&self) -> &[Port] {
        &self.inputs
    }

    /// Names and sizes of the outputs.
    pub fn outputs(&self) -> &[Port] {
        &self.outputs
    }

    /// Number of work registers of the instruction list.
    pub fn n_work(&self) -> usize {
        self.n_work
    }

    /// Number of instructions.
    pub fn n_instructions(&self) -> usize {
        self.instructions.len()
    }

    /// Replay the instruction list with `args` (one slice per input, any expressions: symbols,
    /// constants or composite expressions) in the input registers; returns the output
    /// expressions. Fails only if the argument count or a length is wrong.
    pub fn call(&self, args: &[&[Sx]]) -> Result<Vec<Vec<Sx>>, AdError> {
        let dim = |what: String, expected: usize, got: usize| AdError::Dimension {
            function: self.name.clone(),
            what,
            expected,
            got,
        };
        if args.len() != self.inputs.len() {
            return Err(dim(
                "number of inputs".into(),
                self.inputs.len(),
                args.len(),
            ));
        }
        for (i, (a, p)) in args.iter().zip(&self.inputs).enumerate() {
            if a.len() != p.size {
                return Err(dim(
                    format!("length of input {i} (`{}`)", p.name),
                    p.size,
                    a.len(),
                ));
            }
        }
        Ok(self.replay(args))
    }

    /// Replay over arguments already checked against `self.inputs`.
    fn replay(&self, args: &[&[Sx]]) -> Vec<Vec<Sx>> {
        let zero = Sx::constant(0.0);
        let mut r = vec![zero; self.n_work];
        let mut out: Vec<Vec<Sx>> = self.outputs.iter().map(|p| vec![zero; p.size]).collect();
        // All indices were validated by `parse` against n_work and the port sizes, and the
        // argument lengths match the ports (checked by `call`, or sized from them), so the
        // indexing below is in bounds.
        for ins in &self.instructions {
            match *ins {
                Instr::Input {
                    dst,
                    input,
                    element,
                } => r[dst as usize] = args[input as usize][element as usize],
                Instr::Output {
                    src,
                    output,
                    element,
                } => out[output as usize][element as usize] = r[src as usize],
                Instr::Const { dst, value } => r[dst as usize] = Sx::constant(value),
                Instr::Assign { dst, src } => r[dst as usize] = r[src as usize],
                Instr::Twice { dst, a } => {
                    r[dst as usize] =
                        Sx::apply_binary(OpCode::Mul, Sx::constant(2.0), r[a as usize])
                }
                Instr::Unary { op, dst, a } => r[dst as usize] = Sx::apply_unary(op, r[a as usize]),
                Instr::Binary { op, dst, a, b } => {
                    r[dst as usize] = Sx::apply_binary(op, r[a as usize], r[b as usize])
                }
            }
        }
        out
    }

    /// Fresh input symbols (named `<input name>_<k>`) and the outputs replayed over them.
    pub fn symbolic(&self) -> (Vec<Vec<Sx>>, Vec<Vec<Sx>>) {
        let inputs: Vec<Vec<Sx>> = self
            .inputs
            .iter()
            .map(|p| Sx::sym_vec(&p.name, p.size))
            .collect();
        let refs: Vec<&[Sx]> = inputs.iter().map(|v| v.as_slice()).collect();
        // The symbols were sized from `self.inputs`.
        let outputs = self.replay(&refs);
        (inputs, outputs)
    }

    /// Compile into a [`Function`] with the document's name.
    pub fn compile(&self) -> Result<Function, AdError> {
        let (inputs, outputs) = self.symbolic();
        compile_over(&self.name, &inputs, &outputs)
    }

    /// Compile over the given input symbols (shared between the functions of a problem).
    pub(super) fn compile_with(&self, inputs: &[Vec<Sx>]) -> Result<Function, AdError> {
        let refs: Vec<&[Sx]> = inputs.iter().map(|v| v.as_slice()).collect();
        let outputs = self.call(&refs)?;
        compile_over(&self.name, inputs, &outputs)
    }
}

fn compile_over(name: &str, inputs: &[Vec<Sx>], outputs: &[Vec<Sx>]) -> Result<Function, AdError> {
    let ins: Vec<&[Sx]> = inputs.iter().map(|v| v.as_slice()).collect();
    let outs: Vec<&[Sx]> = outputs.iter().map(|v| v.as_slice()).collect();
    Function::new(name, &ins, &outs)
}

/// Validation state while decoding an instruction list.
struct Decoder<'a> {
    o: Origin<'a>,
    inputs: &'a [Port],
    outputs: &'a [Port],
    /// Registers written so far.
    written: Vec<bool>,
    /// Output elements written so far.
    out_written: Vec<Vec<bool>>,
}

/// One instruction's raw parts, for operand checks and error messages.
struct Raw<'v> {
    k: usize,
    op: &'v str,
    operands: &'v [Value],
}

impl Decoder<'_> {
    fn err(&self, raw: &Raw, why: String) -> AdError {
        self.o
            .err(format!("instructions[{}] (`{}`): {why}", raw.k, raw.op))
    }

    fn expect(&self, raw: &Raw, n: usize, layout: &str) -> Result<(), AdError> {
        if raw.operands.len() == n {
            Ok(())
        } else {
            Err(self.err(
                raw,
                format!("expected {n} operands {layout}, got {}", raw.operands.len()),
            ))
        }
    }

    /// Operand `j` (0-based after the op code) as an index.
    fn index(&self, raw: &Raw, j: usize, what: &str) -> Result<u32, AdError> {
        let what = format!(
            "instructions[{}] (`{}`) operand {} ({what})",
            raw.k,
            raw.op,
            j + 1
        );
        index_value(&raw.operands[j], &what, self.o)
    }

    fn register(&self, raw: &Raw, j: usize) -> Result<u32, AdError> {
        let r = self.index(raw, j, "register")?;
        if r as usize >= self.written.len() {
            return Err(self.err(
                raw,
                format!(
                    "register {r} out of range (n_work = {})",
                    self.written.len()
                ),
            ));
        }
        Ok(r)
    }

    /// A register that is read: it must have been written before.
    fn source(&self, raw: &Raw, j: usize) -> Result<u32, AdError> {
        let r = self.register(raw, j)?;
        if !self.written[r as usize] {
            return Err(self.err(raw, format!("register {r} is read before it is written")));
        }
        Ok(r)
    }

    /// An element index of port `port` (of `ports`, named `kind`).
    fn element(
        &self,
        raw: &Raw,
        ports: &[Port],
        kind: &str,
        port: u32,
        element: u32,
    ) -> Result<(), AdError> {
        let Some(p) = ports.get(port as usize) else {
            return Err(self.err(
                raw,
                format!("{kind} {port} out of range ({} {kind}s)", ports.len()),
            ));
        };
        if element as usize >= p.size {
            return Err(self.err(
                raw,
                format!(
                    "element {element} out of range ({kind} {port} `{}` has size {})",
                    p.name, p.size
                ),
            ));
        }
        Ok(())
    }

    /// Decode and validate instruction `k`.
    fn decode(&mut self, k: usize, item: &Value) -> Result<Instr, AdError> {
        let o = self.o;
        let arr = item.as_array().ok_or_else(|| {
            o.err(format!(
                "instructions[{k}]: expected an array [op, operands…], got {}",
                describe(item)
            ))
        })?;
        let op = match arr.first() {
            Some(Value::String(s)) => s.as_str(),
            Some(other) => {
                return Err(o.err(format!(
                    "instructions[{k}]: the op code must be a string, got {}",
                    describe(other)
                )))
            }
            None => return Err(o.err(format!("instructions[{k}]: empty instruction"))),
        };
        let raw = Raw {
            k,
            op,
            operands: &arr[1..],
        };
        let ins = match op {
            "input" => {
                self.expect(&raw, 3, "[\"input\", dst, input, element]")?;
                let dst = self.register(&raw, 0)?;
                let input = self.index(&raw, 1, "input index")?;
                let element = self.index(&raw, 2, "element index")?;
                self.element(&raw, self.inputs, "input", input, element)?;
                Instr::Input {
                    dst,
                    input,
                    element,
                }
            }
            "output" => {
                self.expect(&raw, 3, "[\"output\", src, output, element]")?;
                let src = self.source(&raw, 0)?;
                let output = self.index(&raw, 1, "output index")?;
                let element = self.index(&raw, 2, "element index")?;
                self.element(&raw, self.outputs, "output", output, element)?;
                let slot = &mut self.out_written[output as usize][element as usize];
                if *slot {
                    let name = &self.outputs[output as usize].name;
                    return Err(self.err(
                        &raw,
                        format!("output {output} (`{name}`) element {element} is written twice"),
                    ));
                }
                *slot = true;
                Instr::Output {
                    src,
                    output,
                    element,
                }
            }
            "const" => {
                self.expect(&raw, 2, "[\"const\", dst, value]")?;
                let dst = self.register(&raw, 0)?;
                let value = real_value(&raw.operands[1]).ok_or_else(|| {
                    self.err(
                        &raw,
                        format!(
                            "operand 2 (value): expected a number or \"inf\", \"-inf\", \
                             \"nan\", got {}",
                            describe(&raw.operands[1])
                        ),
                    )
                })?;
                Instr::Const { dst, value }
            }
            "assign" => {
                self.expect(&raw, 2, "[\"assign\", dst, src]")?;
                let src = self.source(&raw, 1)?;
                Instr::Assign {
                    dst: self.register(&raw, 0)?,
                    src,
                }
            }
            "twice" => {
                self.expect(&raw, 2, "[\"twice\", dst, a]")?;
                let a = self.source(&raw, 1)?;
                Instr::Twice {
                    dst: self.register(&raw, 0)?,
                    a,
                }
            }
            name => match OpCode::from_name(name) {
                Some(op) if !matches!(op, OpCode::Const | OpCode::Symbol) => {
                    if op.is_binary() {
                        self.expect(&raw, 3, "[op, dst, a, b]")?;
                        let a = self.source(&raw, 1)?;
                        let b = self.source(&raw, 2)?;
                        Instr::Binary {
                            op,
                            dst: self.register(&raw, 0)?,
                            a,
                            b,
                        }
                    } else {
                        self.expect(&raw, 2, "[op, dst, a]")?;
                        let a = self.source(&raw, 1)?;
                        Instr::Unary {
                            op,
                            dst: self.register(&raw, 0)?,
                            a,
                        }
                    }
                }
                _ => return Err(o.unsupported(name, k)),
            },
        };
        match ins {
            Instr::Input { dst, .. }
            | Instr::Const { dst, .. }
            | Instr::Assign { dst, .. }
            | Instr::Twice { dst, .. }
            | Instr::Unary { dst, .. }
            | Instr::Binary { dst, .. } => self.written[dst as usize] = true,
            Instr::Output { .. } => {}
        }
        Ok(ins)
    }

    fn check_outputs_written(&self) -> Result<(), AdError> {
        for (i, (port, w)) in self.outputs.iter().zip(&self.out_written).enumerate() {
            if let Some(e) = w.iter().position(|&b| !b) {
                return Err(self.o.err(format!(
                    "output {i} (`{}`) element {e} is never written",
                    port.name
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::Scalar;

    fn doc(instructions: &str, inputs: &str, outputs: &str, n_work: usize) -> String {
        format!(
            r#"{{"format":"fesdj-function","version":1,"name":"t","inputs":{inputs},
            "outputs":{outputs},"n_work":{n_work},"instructions":{instructions}}}"#
        )
    }

    fn consts(values: &[f64]) -> Vec<Sx> {
        values.iter().map(|&v| Sx::constant(v)).collect()
    }

    fn value(x: Sx) -> f64 {
        x.constant_value().unwrap_or(f64::NAN)
    }

    /// f(x, y) = [x*y + sin(x), 2y, x] (x scalar, y of size 2), g = atan2(y0, y1)
    fn sample() -> String {
        doc(
            r#"[["input",0,0,0],["input",1,1,1],["mul",2,0,1],["sin",3,0],["add",2,2,3],
                ["output",2,0,0],["twice",2,1],["output",2,0,1],["assign",3,0],["output",3,0,2],
                ["input",1,1,0],["input",2,1,1],["atan2",3,1,2],["output",3,1,0],
                ["const",0,"-inf"],["output",0,1,1]]"#,
            r#"[{"name":"x","size":1},{"name":"y","size":2}]"#,
            r#"[{"name":"f","size":3},{"name":"g","size":2}]"#,
            4,
        )
    }

    #[test]
    fn replay_with_constants() {
        let d = FunctionDoc::parse(&sample(), "<s>").unwrap();
        assert_eq!(d.name(), "t");
        assert_eq!(
            d.inputs()[1],
            Port {
                name: "y".into(),
                size: 2
            }
        );
        assert_eq!(d.n_instructions(), 16);
        let (x, y) = (0.7, [-1.3, 2.1]);
        let out = d.call(&[&consts(&[x]), &consts(&y)]).unwrap();
        assert_eq!(value(out[0][0]), x * y[1] + x.sin());
        assert_eq!(value(out[0][1]), 2.0 * y[1]);
        assert_eq!(value(out[0][2]), x);
        assert_eq!(value(out[1][0]), y[0].atan2(y[1]));
        assert_eq!(value(out[1][1]), f64::NEG_INFINITY);
    }

    #[test]
    fn symbolic_replay_and_compile() {
        let d = FunctionDoc::parse(&sample(), "<s>").unwrap();
        let (ins, outs) = d.symbolic();
        assert_eq!(ins[1].len(), 2);
        assert_eq!(outs[0][2], ins[0][0]);
        assert_eq!(outs[0][1], ins[1][1] * 2.0);
        let f = d.compile().unwrap();
        let mut ws = f.workspace();
        let (mut a, mut b) = ([0.0; 3], [0.0; 2]);
        f.eval(&[&[0.7], &[-1.3, 2.1]], &mut [&mut a, &mut b], &mut ws)
            .unwrap();
        assert_eq!(a, [0.7 * 2.1 + 0.7f64.sin(), 4.2, 0.7]);
        assert_eq!(b[0], (-1.3f64).atan2(2.1));
    }

    #[test]
    fn every_op_code_replays() {
        for op in OpCode::ALL {
            if matches!(op, OpCode::Const | OpCode::Symbol) {
                continue;
            }
            let (ins, args) = if op.is_binary() {
                (
                    format!(
                        r#"[["input",0,0,0],["input",1,0,1],["{}",0,0,1],["output",0,0,0]]"#,
                        op.name()
                    ),
                    2,
                )
            } else {
                (
                    format!(
                        r#"[["input",0,0,0],["{}",1,0],["output",1,0,0]]"#,
                        op.name()
                    ),
                    2,
                )
            };
            let text = doc(
                &ins,
                r#"[{"name":"x","size":2}]"#,
                r#"[{"name":"y","size":1}]"#,
                args,
            );
            let d = FunctionDoc::parse(&text, "<s>").unwrap();
            let (a, b) = (0.3, 0.8);
            let out = d.call(&[&consts(&[a, b])]).unwrap();
            let expected = if op.is_binary() {
                op.eval_binary(a, b)
            } else {
                op.eval_unary(a)
            };
            assert_eq!(value(out[0][0]), expected, "{}", op.name());
        }
    }

    #[test]
    fn wrong_argument_length() {
        let d = FunctionDoc::parse(&sample(), "<s>").unwrap();
        let e = d.call(&[&consts(&[1.0]), &consts(&[1.0])]).unwrap_err();
        assert!(
            matches!(
                e,
                AdError::Dimension {
                    expected: 2,
                    got: 1,
                    ..
                }
            ),
            "{e}"
        );
        let e = d.call(&[&consts(&[1.0])]).unwrap_err();
        assert!(
            matches!(
                e,
                AdError::Dimension {
                    expected: 2,
                    got: 1,
                    ..
                }
            ),
            "{e}"
        );
    }

    #[test]
    fn scalar_trait_is_usable_on_replayed_graphs() {
        // Replayed outputs are ordinary expressions: compose them further.
        let d = FunctionDoc::parse(&sample(), "<s>").unwrap();
        let (_, outs) = d.symbolic();
        let e = outs[0][0].sin() + outs[0][1];
        assert!(e.constant_value().is_none());
    }
}
