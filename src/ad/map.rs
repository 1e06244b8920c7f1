//! One compiled function evaluated at many points whose arguments are gathered from large
//! vectors (what a direct transcription needs: the same stage function at every grid point).
//!
//! The index maps are prepared once ([`MappedFunction::new`]); evaluation gathers the arguments
//! of every instance into a small buffer, runs the tape, and writes (or adds) each output element
//! to its destination in a large output vector. Nothing is allocated per evaluation.

use super::error::AdError;
use super::function::{Function, Workspace};

/// Where one input element of one instance comes from: element `index` of source vector
/// `source` (e.g. source 0 = x, 1 = p, 2 = λ).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gather {
    /// Which source vector.
    pub source: u16,
    /// Index inside that vector.
    pub index: u32,
}

impl Gather {
    /// Element `index` of source `source`.
    pub fn new(source: u16, index: usize) -> Gather {
        Gather {
            source,
            index: index as u32,
        }
    }
}

/// A function applied to many instances with prepared gather and scatter maps.
#[derive(Clone, Debug)]
pub struct MappedFunction {
    f: Function,
    n_instances: usize,
    in_total: usize,
    out_total: usize,
    /// `n_instances × in_total` gather entries, instance-major.
    gather: Vec<Gather>,
    /// `n_instances × out_total` destinations, instance-major; `u32::MAX` = discard.
    scatter: Vec<u32>,
    n_sources: usize,
    source_len: Vec<usize>,
    dest_len: usize,
}

/// Scratch for [`MappedFunction::eval`].
#[derive(Clone, Debug)]
pub struct MapWorkspace {
    ws: Workspace,
    inbuf: Vec<f64>,
    outbuf: Vec<f64>,
}

/// How outputs are written to the destination vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scatter {
    /// `dest[k] = value`
    Assign,
    /// `dest[k] += value` (contributions of several instances to one entry are summed)
    Add,
}

impl MappedFunction {
    /// Prepare `f` for `instances`: for each instance, the gather entries of all its input
    /// elements (inputs concatenated in order) and the destination index of each output element
    /// (outputs concatenated; `None` discards the element). `source_len[s]` and `dest_len` are
    /// the lengths the source and destination vectors will have; every index is checked here.
    pub fn new(
        f: Function,
        source_len: &[usize],
        dest_len: usize,
        instances: &[(Vec<Gather>, Vec<Option<usize>>)],
    ) -> Result<MappedFunction, AdError> {
        let in_total: usize = f.input_sizes().iter().sum();
        let out_total: usize = f.output_sizes().iter().sum();
        let mut gather = Vec::with_capacity(instances.len() * in_total);
        let mut scatter = Vec::with_capacity(instances.len() * out_total);
        let dim = |what: String, expected: usize, got: usize| AdError::Dimension {
            function: f.name().to_string(),
            what,
            expected,
            got,
        };
        for (k, (gs, ss)) in instances.iter().enumerate() {
            if gs.len() != in_total {
                return Err(dim(
                    format!("gather entries of instance {k}"),
                    in_total,
                    gs.len(),
                ));
            }
            if ss.len() != out_total {
                return Err(dim(
                    format!("scatter entries of instance {k}"),
                    out_total,
                    ss.len(),
                ));
            }
            for g in gs {
                let s = g.source as usize;
                if s >= source_len.len() {
                    return Err(dim(format!("source of instance {k}"), source_len.len(), s));
                }
                if g.index as usize >= source_len[s] {
                    return Err(dim(
                        format!("index into source {s} of instance {k}"),
                        source_len[s],
                        g.index as usize,
                    ));
                }
                gather.push(*g);
            }
            for d in ss {
                match d {
                    Some(d) if *d >= dest_len => {
                        return Err(dim(format!("destination of instance {k}"), dest_len, *d))
                    }
                    Some(d) => scatter.push(*d as u32),
                    None => scatter.push(u32::MAX),
                }
            }
        }
        Ok(MappedFunction {
            n_instances: instances.len(),
            in_total,
            out_total,
            gather,
            scatter,
            n_sources: source_len.len(),
            source_len: source_len.to_vec(),
            dest_len,
            f,
        })
    }

    /// The mapped function.
    pub fn function(&self) -> &Function {
        &self.f
    }
    /// Number of instances.
    pub fn n_instances(&self) -> usize {
        self.n_instances
    }

    /// Scratch sized for this map.
    pub fn workspace(&self) -> MapWorkspace {
        MapWorkspace {
            ws: self.f.workspace(),
            inbuf: vec![0.0; self.in_total],
            outbuf: vec![0.0; self.out_total],
        }
    }

    /// Evaluate every instance, gathering from `sources` and scattering into `dest`.
    /// Allocates nothing.
    pub fn eval(
        &self,
        sources: &[&[f64]],
        dest: &mut [f64],
        mode: Scatter,
        ws: &mut MapWorkspace,
    ) -> Result<(), AdError> {
        let dim = |what: String, expected: usize, got: usize| AdError::Dimension {
            function: self.f.name().to_string(),
            what,
            expected,
            got,
        };
        if sources.len() != self.n_sources {
            return Err(dim(
                "number of sources".into(),
                self.n_sources,
                sources.len(),
            ));
        }
        for (s, (v, &n)) in sources.iter().zip(&self.source_len).enumerate() {
            if v.len() != n {
                return Err(dim(format!("length of source {s}"), n, v.len()));
            }
        }
        if dest.len() != self.dest_len {
            return Err(dim(
                "length of destination".into(),
                self.dest_len,
                dest.len(),
            ));
        }
        ws.ws.reserve_registers(self.f.n_registers());
        let n_in = self.f.n_in();
        let n_out = self.f.n_out();
        for k in 0..self.n_instances {
            let gs = &self.gather[k * self.in_total..(k + 1) * self.in_total];
            for (slot, g) in ws.inbuf.iter_mut().zip(gs) {
                *slot = sources[g.source as usize][g.index as usize];
            }
            // Split the flat buffers into per-argument slices without allocating: functions
            // with up to 8 inputs/outputs go through fixed arrays.
            let mut ins: [&[f64]; 8] = [&[]; 8];
            let mut outs: [&mut [f64]; 8] = Default::default();
            if n_in > 8 || n_out > 8 {
                return Err(dim(
                    "arguments of a mapped function (at most 8)".into(),
                    8,
                    n_in.max(n_out),
                ));
            }
            let mut rest: &[f64] = &ws.inbuf;
            for (i, &n) in self.f.input_sizes().iter().enumerate() {
                let (head, tail) = rest.split_at(n);
                ins[i] = head;
                rest = tail;
            }
            let mut rest_out: &mut [f64] = &mut ws.outbuf;
            for (i, &n) in self.f.output_sizes().iter().enumerate() {
                let (head, tail) = std::mem::take(&mut rest_out).split_at_mut(n);
                outs[i] = head;
                rest_out = tail;
            }
            self.f.eval(&ins[..n_in], &mut outs[..n_out], &mut ws.ws)?;
            let ss = &self.scatter[k * self.out_total..(k + 1) * self.out_total];
            for (&d, &v) in ss.iter().zip(ws.outbuf.iter()) {
                if d != u32::MAX {
                    match mode {
                        Scatter::Assign => dest[d as usize] = v,
                        Scatter::Add => dest[d as usize] += v,
                    }
                }
            }
        }
        Ok(())
    }
}
