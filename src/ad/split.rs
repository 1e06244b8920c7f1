//! One function evaluated on several threads **[ours]** (the real-time speed issue's lever 4):
//! the elements of its output are cut into contiguous ranges, each range compiled as a
//! function of its own (the same expressions, so the same operations and the same rounding),
//! and the parts are dealt out in order to the threads: the caller's thread evaluates the
//! first group while persistent worker threads, started once, evaluate the others. A long
//! tape is cut into parts of at most [`AUTO_MAX_INSTRUCTIONS`] instructions, so that each part
//! can run as native code ([`Backend::Auto`](super::native::Backend::Auto)).
//!
//! A worker owns its parts, its workspace and copies of the inputs and of its output range:
//! a call copies the inputs in, wakes the workers (a mutex and a condition variable each),
//! evaluates its own range and copies the workers' ranges out. Nothing is allocated per call.
//! Dropping the function stops its workers.

use std::ops::Range;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use super::error::AdError;
use super::function::{check_call, Function, Workspace};
use super::native::AUTO_MAX_INSTRUCTIONS;
use super::sx::Sx;

/// What the caller and one worker share.
struct Job {
    /// Calls requested (the worker runs when it differs from `done`).
    gen: u64,
    /// Calls finished.
    done: u64,
    quit: bool,
    /// The inputs of the latest call.
    inputs: Vec<Vec<f64>>,
    /// The worker's output range of the latest finished call.
    out: Vec<f64>,
    ok: bool,
}

struct Shared {
    job: Mutex<Job>,
    go: Condvar,
    finished: Condvar,
}

impl Shared {
    /// The job, also after a thread panicked while holding it (its data is plain numbers).
    fn lock(&self) -> MutexGuard<'_, Job> {
        self.job.lock().unwrap_or_else(|e| e.into_inner())
    }
}

struct Worker {
    shared: Arc<Shared>,
    handle: Option<JoinHandle<()>>,
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.shared.lock().quit = true;
        self.shared.go.notify_one();
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// Evaluate `parts` (each writing `ranges[i]` of `out`) at `inputs`.
fn eval_parts(
    parts: &[Function],
    ranges: &[Range<usize>],
    inputs: &[&[f64]],
    out: &mut [f64],
    ws: &mut Workspace,
) -> Result<(), AdError> {
    for (g, r) in parts.iter().zip(ranges) {
        g.eval(inputs, &mut [&mut out[r.clone()]], ws)?;
    }
    Ok(())
}

fn work(shared: Arc<Shared>, parts: Vec<Function>, ranges: Vec<Range<usize>>) {
    let regs = parts.iter().map(|g| g.n_registers()).max().unwrap_or(0);
    let mut ws = Workspace::with_registers(regs);
    let sizes = parts.first().map_or(&[][..], |g| g.input_sizes()).to_vec();
    let mut inputs: Vec<Vec<f64>> = sizes.iter().map(|&n| vec![0.0; n]).collect();
    let mut out = vec![0.0; ranges.last().map_or(0, |r| r.end)];
    let mut seen = 0u64;
    loop {
        {
            let mut j = shared.lock();
            while j.gen == seen && !j.quit {
                j = shared.go.wait(j).unwrap_or_else(|e| e.into_inner());
            }
            if j.quit {
                return;
            }
            seen = j.gen;
            for (mine, given) in inputs.iter_mut().zip(&j.inputs) {
                mine.copy_from_slice(given);
            }
        }
        let refs: [&[f64]; 4] = [
            inputs.first().map_or(&[][..], |v| v),
            inputs.get(1).map_or(&[][..], |v| v),
            inputs.get(2).map_or(&[][..], |v| v),
            inputs.get(3).map_or(&[][..], |v| v),
        ];
        // A panic would leave the caller waiting for `done` for ever: it counts as a failed
        // part instead (the evaluation itself never panics by design).
        let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            eval_parts(&parts, &ranges, &refs[..inputs.len()], &mut out, &mut ws).is_ok()
        }))
        .unwrap_or(false);
        let mut j = shared.lock();
        std::mem::swap(&mut j.out, &mut out);
        j.ok = ok;
        j.done = seen;
        shared.finished.notify_one();
    }
}

/// A function of at most four inputs and one output, evaluated on `threads` threads (see the
/// module).
pub struct SplitFunction {
    name: String,
    input_sizes: Vec<usize>,
    len: usize,
    /// Every part, in output order.
    parts: Vec<Function>,
    /// The output range of each part.
    ranges: Vec<Range<usize>>,
    /// The parts of each thread (indices into `parts`), the caller's first.
    groups: Vec<Range<usize>>,
    /// The worker of group `i + 1`; `None` where no thread could be started (a clone's), and
    /// the caller evaluates that group itself.
    workers: Vec<Option<Worker>>,
}

impl Clone for SplitFunction {
    /// The same parts with workers of their own (a group whose thread cannot be started is
    /// evaluated by the caller).
    fn clone(&self) -> Self {
        SplitFunction {
            name: self.name.clone(),
            input_sizes: self.input_sizes.clone(),
            len: self.len,
            parts: self.parts.clone(),
            ranges: self.ranges.clone(),
            groups: self.groups.clone(),
            workers: self.groups[1..]
                .iter()
                .map(|g| self.spawn(g.clone()).ok())
                .collect(),
        }
    }
}

impl std::fmt::Debug for SplitFunction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SplitFunction")
            .field("name", &self.name)
            .field("ranges", &self.ranges)
            .field("groups", &self.groups)
            .finish_non_exhaustive()
    }
}

/// The cut points of `len` output elements into `parts` ranges whose parts of `f` have about
/// equal instruction counts: equal ranges first, then each cut moved once in proportion to
/// the measured imbalance of its two neighbours.
fn compile_parts(
    f: &Function,
    inputs: &[Vec<Sx>],
    outputs: &[Sx],
    parts: usize,
) -> Result<(Vec<Range<usize>>, Vec<Function>), AdError> {
    let refs: Vec<&[Sx]> = inputs.iter().map(|v| v.as_slice()).collect();
    let len = outputs.len();
    let build = |cuts: &[usize]| -> Result<(Vec<Range<usize>>, Vec<Function>), AdError> {
        let ranges: Vec<Range<usize>> = cuts.windows(2).map(|w| w[0]..w[1]).collect();
        let fns = ranges
            .iter()
            .enumerate()
            .map(|(i, r)| {
                Function::new(&format!("{}_{i}", f.name()), &refs, &[&outputs[r.clone()]])
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok((ranges, fns))
    };
    let mut cuts: Vec<usize> = (0..=parts).map(|i| i * len / parts).collect();
    let (ranges, fns) = build(&cuts)?;
    let sizes: Vec<f64> = fns.iter().map(|g| g.n_instructions() as f64).collect();
    let total: f64 = sizes.iter().sum();
    let largest = sizes.iter().cloned().fold(0.0, f64::max);
    // Balanced within 10 % already: keep these parts.
    if total <= 0.0 || largest <= 1.1 * total / parts as f64 {
        return Ok((ranges, fns));
    }
    // Instructions per output element of each part, and the cuts that give each part a
    // `1/parts` share of the total under that density.
    let mut moved = false;
    let mut acc = 0.0;
    let mut new_cuts = vec![0usize];
    let mut part = 0usize;
    for k in 1..parts {
        let target = total * k as f64 / parts as f64;
        while part < ranges.len() && acc + sizes[part] < target {
            acc += sizes[part];
            part += 1;
        }
        let r = &ranges[part.min(ranges.len() - 1)];
        let density = sizes[part.min(ranges.len() - 1)] / (r.len().max(1) as f64);
        let at = r.start + ((target - acc) / density.max(1e-12)).round() as usize;
        let at = at.clamp(new_cuts[k - 1] + 1, len - (parts - k));
        moved |= at != cuts[k];
        new_cuts.push(at);
    }
    new_cuts.push(len);
    if !moved {
        return Ok((ranges, fns));
    }
    cuts = new_cuts;
    build(&cuts)
}

impl SplitFunction {
    /// `f` (one output, at most four inputs) on `threads ≥ 1` threads, cut into as many parts
    /// as threads, or more where a part would be longer than [`AUTO_MAX_INSTRUCTIONS`] (a
    /// multiple of `threads`, so that every thread gets as many); `threads − 1` worker threads
    /// start now.
    pub fn new(f: &Function, threads: usize) -> Result<SplitFunction, AdError> {
        let threads = threads.max(1);
        let long = f.n_instructions().div_ceil(AUTO_MAX_INSTRUCTIONS);
        let parts = long.max(threads).div_ceil(threads) * threads;
        SplitFunction::with_parts(f, threads, parts)
    }

    /// `f` cut into `parts` parts of about equal tape length on `threads` threads (each
    /// thread gets a contiguous group of `parts / threads` parts, the first groups one more
    /// where it does not divide); `threads − 1` worker threads start now.
    pub fn with_parts(
        f: &Function,
        threads: usize,
        parts: usize,
    ) -> Result<SplitFunction, AdError> {
        let dim = |what: &str, expected: usize, got: usize| AdError::Dimension {
            function: f.name().to_string(),
            what: what.into(),
            expected,
            got,
        };
        if f.n_out() != 1 {
            return Err(dim("number of outputs (one to split)", 1, f.n_out()));
        }
        if f.n_in() > 4 {
            return Err(dim("number of inputs (at most four)", 4, f.n_in()));
        }
        let len = f.size_out(0);
        let parts = parts.clamp(1, len.max(1));
        let threads = threads.clamp(1, parts);
        let (inputs, outputs) = f.symbolic()?;
        let (ranges, fns) = compile_parts(f, &inputs, &outputs[0], parts)?;
        // Native code now (shared by the workers' clones), not in the first evaluation; a
        // part that cannot be compiled stays interpreted (a warning was printed).
        // The parts are compiled in parallel, one scoped thread each (start-up, not a call).
        let fns: Vec<Function> = fns
            .into_iter()
            .map(|g| g.with_backend(f.backend()))
            .collect();
        std::thread::scope(|sc| {
            for g in &fns[1..] {
                sc.spawn(move || {
                    let _ = g.prepare_native();
                });
            }
            let _ = fns[0].prepare_native();
        });
        let groups: Vec<Range<usize>> = (0..threads)
            .map(|t| (t * parts / threads)..((t + 1) * parts / threads))
            .collect();
        let mut split = SplitFunction {
            name: f.name().to_string(),
            input_sizes: f.input_sizes().to_vec(),
            len,
            parts: fns,
            ranges,
            groups,
            workers: Vec::new(),
        };
        split.workers = split.groups[1..]
            .iter()
            .map(|g| split.spawn(g.clone()).map(Some))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(split)
    }

    /// A worker for the parts `group`.
    fn spawn(&self, group: Range<usize>) -> Result<Worker, AdError> {
        let base = self.ranges[group.start].start;
        let ranges: Vec<Range<usize>> = self.ranges[group.clone()]
            .iter()
            .map(|r| (r.start - base)..(r.end - base))
            .collect();
        let len = ranges.last().map_or(0, |r| r.end);
        let parts = self.parts[group].to_vec();
        let shared = Arc::new(Shared {
            job: Mutex::new(Job {
                gen: 0,
                done: 0,
                quit: false,
                inputs: self.input_sizes.iter().map(|&n| vec![0.0; n]).collect(),
                out: vec![0.0; len],
                ok: true,
            }),
            go: Condvar::new(),
            finished: Condvar::new(),
        });
        let s = Arc::clone(&shared);
        let handle = std::thread::Builder::new()
            .name(format!("{}-worker", self.name))
            .spawn(move || work(s, parts, ranges))
            .map_err(|e| AdError::Thread {
                function: self.name.clone(),
                why: format!("cannot start a worker thread: {e}"),
            })?;
        Ok(Worker {
            shared,
            handle: Some(handle),
        })
    }

    /// The output range of thread `t`'s group.
    fn group_range(&self, t: usize) -> Range<usize> {
        let g = &self.groups[t];
        self.ranges[g.start].start..self.ranges[g.end - 1].end
    }

    /// Number of threads a call uses (the caller's and the workers').
    pub fn threads(&self) -> usize {
        1 + self.workers.iter().flatten().count()
    }

    /// The output ranges of the parts, in order.
    pub fn ranges(&self) -> &[Range<usize>] {
        &self.ranges
    }

    /// The parts of each thread (indices into [`SplitFunction::ranges`]), the caller's first.
    pub fn groups(&self) -> &[Range<usize>] {
        &self.groups
    }

    /// The tape length (instructions) of each part, in order.
    pub fn part_instructions(&self) -> Vec<usize> {
        self.parts.iter().map(|g| g.n_instructions()).collect()
    }

    /// A workspace for the caller's part.
    pub fn workspace(&self) -> Workspace {
        let n = self
            .parts
            .iter()
            .map(|g| g.n_registers())
            .max()
            .unwrap_or(0);
        Workspace::with_registers(n)
    }

    /// Evaluate at `inputs` into `out` (the whole output). Allocates nothing.
    pub fn eval(
        &self,
        inputs: &[&[f64]],
        out: &mut [f64],
        ws: &mut Workspace,
    ) -> Result<(), AdError> {
        check_call(
            &self.name,
            &self.input_sizes,
            inputs.iter().map(|x| x.len()),
            &[self.len],
            std::iter::once(out.len()),
        )?;
        for w in self.workers.iter().flatten() {
            let mut j = w.shared.lock();
            for (mine, given) in j.inputs.iter_mut().zip(inputs) {
                mine.copy_from_slice(given);
            }
            j.gen += 1;
            w.shared.go.notify_one();
        }
        let g0 = self.groups[0].clone();
        let mut mine = eval_parts(&self.parts[g0.clone()], &self.ranges[g0], inputs, out, ws);
        for (g, w) in self.groups[1..].iter().zip(&self.workers) {
            if w.is_none() && mine.is_ok() {
                mine = eval_parts(
                    &self.parts[g.clone()],
                    &self.ranges[g.clone()],
                    inputs,
                    out,
                    ws,
                );
            }
        }
        let mut ok = true;
        for (t, w) in self.workers.iter().enumerate() {
            let Some(w) = w else { continue };
            let mut j = w.shared.lock();
            while j.done != j.gen {
                j = w.shared.finished.wait(j).unwrap_or_else(|e| e.into_inner());
            }
            ok &= j.ok;
            out[self.group_range(t + 1)].copy_from_slice(&j.out);
        }
        mine?;
        if ok {
            Ok(())
        } else {
            Err(AdError::Thread {
                function: self.name.clone(),
                why: "a worker's part of the evaluation failed".into(),
            })
        }
    }
}
