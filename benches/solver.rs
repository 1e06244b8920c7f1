//! Solver benchmark: our IPM / MPCC homotopy against IPOPT (feature `ipopt-baseline`) on the
//! Hock–Schittkowski set, the MacMPEC set and the nosbench FESD-J problems (exported with
//! tools/casadi_export.py when python3 + casadi and ../shared/reference/nosbench exist).
//! Same NLP callbacks (sparse `ad` tapes), same homotopy and tolerances. Prints per problem:
//! status, iterations, best-of-5 wall time, and the time ratio ours/IPOPT.
//!
//! ```text
//! eval "$(tools/ipopt_pkgconfig.sh)"
//! cargo bench --bench solver --features ipopt-baseline
//! ```

use fesdj_mpc::ad::import::read_problem;
use fesdj_mpc::solver::ad_nlp::{AdComplementarity, AdNlp};
use fesdj_mpc::solver::problems::{hs, macmpec, Backend};
use fesdj_mpc::solver::{
    Complementarity, HomotopySettings, Ipm, IpmStart, MpccSolver, Nlp, Settings, Status,
};
use std::path::Path;
use std::time::Instant;

const REPEATS: usize = 5;

struct Row {
    set: &'static str,
    name: String,
    ours: (Status, usize, f64, f64),
    ipopt: Option<(Status, usize, f64, f64)>,
}

fn best<T>(mut f: impl FnMut() -> T) -> (T, f64) {
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..REPEATS {
        let t = Instant::now();
        let r = f();
        best = best.min(t.elapsed().as_secs_f64());
        out = Some(r);
    }
    (out.expect("REPEATS > 0"), best)
}

fn nlp_row(name: &str, nlp: &dyn Nlp) -> Row {
    let settings = Settings::default();
    let mut ipm = Ipm::new(nlp, settings.clone()).expect("valid problem");
    let ((st, it, f), t) = best(|| {
        let st = ipm.solve(nlp, &[], IpmStart::Initial).expect("dims");
        (st, ipm.info().iterations, ipm.info().objective)
    });
    #[allow(unused_mut)]
    let mut row = Row {
        set: "HS",
        name: name.into(),
        ours: (st, it, t, f),
        ipopt: None,
    };
    #[cfg(feature = "ipopt-baseline")]
    {
        let mut x0 = vec![0.0; nlp.n()];
        nlp.initial_point(&mut x0);
        let (r, t) = best(|| {
            fesdj_mpc::solver::baseline::ipopt_solve(nlp, &[], &x0, None, &settings).expect("ipopt")
        });
        row.ipopt = Some((r.status, r.iterations, t, r.objective));
    }
    row
}

fn mpcc_row(
    set: &'static str,
    name: &str,
    nlp: &dyn Nlp,
    comp: &dyn Complementarity,
    p: &[f64],
) -> Row {
    let settings = HomotopySettings::default();
    let mut solver = MpccSolver::new(nlp, comp, settings.clone()).expect("valid problem");
    let (r, t) = best(|| solver.solve(nlp, comp, p, None).expect("solve"));
    #[allow(unused_mut)]
    let mut row = Row {
        set,
        name: name.into(),
        ours: (r.status, r.nlp_iterations, t, r.objective),
        ipopt: None,
    };
    #[cfg(feature = "ipopt-baseline")]
    {
        let (r, t) = best(|| {
            fesdj_mpc::solver::baseline::ipopt_mpcc(nlp, comp, &settings, p, None).expect("ipopt")
        });
        row.ipopt = Some((r.status, r.nlp_iterations, t, r.objective));
    }
    row
}

fn nosbench() -> Vec<(String, AdNlp, AdComplementarity, Vec<f64>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("../shared/reference/nosbench");
    let out = root.join("target/nosbench_export");
    let mut v = Vec::new();
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return v;
    };
    let _ = std::fs::create_dir_all(&out);
    let mut files: Vec<_> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.sort();
    for f in files {
        let Some(stem) = f.file_stem().map(|s| s.to_string_lossy().to_string()) else {
            continue;
        };
        if !stem.contains("CLS") {
            continue;
        }
        let dst = out.join(format!("{stem}.json"));
        if !dst.exists() {
            let ok = std::process::Command::new("python3")
                .arg(root.join("tools/casadi_export.py"))
                .arg(&f)
                .arg(&dst)
                .status()
                .is_ok_and(|s| s.success());
            if !ok {
                continue;
            }
        }
        if let Ok(prob) = read_problem(&dst) {
            if let Ok((nlp, comp)) = AdNlp::from_imported(&prob) {
                v.push((stem, nlp, comp, prob.p0.clone()));
            }
        }
    }
    v
}

fn main() {
    let mut rows = Vec::new();
    for p in hs::collection(Backend::Ad) {
        rows.push(nlp_row(p.name, p.nlp.as_ref()));
    }
    for p in macmpec::collection(Backend::Ad) {
        rows.push(mpcc_row(
            "MacMPEC",
            p.name,
            p.nlp.as_ref(),
            p.comp.as_ref(),
            &[],
        ));
    }
    for (name, nlp, comp, p0) in nosbench() {
        rows.push(mpcc_row("nosbench", &name, &nlp, &comp, &p0));
    }
    println!(
        "{:9} {:36} {:>22} {:>6} {:>10} | {:>22} {:>6} {:>10} | {:>7}",
        "set",
        "problem",
        "ours status",
        "iters",
        "time ms",
        "IPOPT status",
        "iters",
        "time ms",
        "ratio"
    );
    let mut ratios = Vec::new();
    let (mut ours_ok, mut ipopt_ok, mut total) = (0, 0, 0);
    for r in &rows {
        total += 1;
        if r.ours.0.is_success() {
            ours_ok += 1;
        }
        let (ist, iit, itime) = match r.ipopt {
            Some((s, i, t, _)) => {
                if s.is_success() {
                    ipopt_ok += 1;
                }
                ratios.push(r.ours.2 / t);
                (format!("{s:?}"), i.to_string(), format!("{:.3}", 1e3 * t))
            }
            None => ("-".into(), "-".into(), "-".into()),
        };
        let ratio = r.ipopt.map_or("-".to_string(), |(_, _, t, _)| {
            format!("{:.3}", r.ours.2 / t)
        });
        println!(
            "{:9} {:36} {:>22} {:>6} {:>10.3} | {:>22} {:>6} {:>10} | {:>7}",
            r.set,
            r.name,
            format!("{:?}", r.ours.0),
            r.ours.1,
            1e3 * r.ours.2,
            ist,
            iit,
            itime,
            ratio
        );
    }
    println!("solved: ours {ours_ok}/{total}, IPOPT {ipopt_ok}/{total}");
    if !ratios.is_empty() {
        ratios.sort_by(|a, b| a.total_cmp(b));
        let med = ratios[ratios.len() / 2];
        println!(
            "median time ratio ours/IPOPT: {med:.3} over {} problems",
            ratios.len()
        );
    }
}
