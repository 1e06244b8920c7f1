#!/usr/bin/env python3
"""IPOPT's Scholtes homotopy on a nosbench-style MPCC (the reference of `fesdj mpcc bench`).

Usage:
    ipopt_scholtes.py PROBLEM.json [--bound-relax-factor X] [--time-limit S]

PROBLEM.json is a nosbench problem (fields ``w, p, w0, lbw, ubw, p0, lbg, ubg, g_fun, G_fun,
H_fun, augmented_objective_fun``, see tools/casadi_export.py). The protocol is the one of
`fesdj mpcc solve`'s default homotopy:

- relaxation (Scholtes): ``G >= 0, H >= 0, G_i H_i <= sigma`` appended to ``g``;
- objective ``augmented_objective_fun(w, p0)``;
- ``sigma_0 = 1``, ``sigma_{k+1} = 0.1 sigma_k``, at most 12 NLPs;
- stop after an NLP whose solution has ``max_i min(G_i, H_i) <= 1e-9``;
- NLP k+1 starts from the primal solution of NLP k (IPOPT's default cold multipliers);
- success: the stop test was met and the last IPOPT solve reported success.

IPOPT runs with CasADi's defaults (exact Hessian, MUMPS, tol 1e-8) and print_level 0; with
``--bound-relax-factor`` that one option is overridden (0 is what nosnoc's homotopy sets: the
default 1e-8 relaxes ``G_i H_i <= sigma`` to ``<= sigma + 1e-8``).

Prints one JSON object on stdout: ``status`` (``Solved`` when successful, otherwise the
reason), ``objective``, ``comp_residual`` (max min(G, H)), ``max_constraint_violation`` (bounds,
g and -G, -H of the original problem), ``time_s`` (the homotopy's NLP solves, without building
the NLP), ``build_s``, ``homotopy_steps``, ``nlp_iterations`` and ``steps``.

Exit status: 0 (result printed, solved or not), 2 on bad input.
"""

import argparse
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import casadi_export  # noqa: E402

SIGMA0 = 1.0
KAPPA = 0.1
MAX_STEPS = 12
COMP_TOL = 1e-9


def load(path):
    ca = casadi_export.ca
    label = path
    try:
        with open(path, "r", encoding="utf-8") as fh:
            doc = json.loads(fh.read())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise casadi_export.BadInput(f"cannot read {path}: {exc}") from exc
    if not isinstance(doc, dict):
        raise casadi_export.BadInput(f"{label}: a problem JSON must be an object")
    fns = {}
    for key, field in casadi_export.PROBLEM_FUNCTIONS.items():
        if field not in doc:
            raise casadi_export.BadInput(f"{label}: missing field `{field}`")
        fns[key] = casadi_export.load_function(doc[field], f"{label}: `{field}`")
    vec = {
        f: casadi_export.real_vector(doc, f, label, allow_inf=f not in ("w0", "p0"))
        for f in ("w0", "lbw", "ubw", "p0", "lbg", "ubg")
    }
    n_w = fns["f"].sparsity_in(0).numel()
    n_p = fns["f"].sparsity_in(1).numel()
    if len(vec["w0"]) != n_w or len(vec["p0"]) != n_p:
        raise casadi_export.BadInput(f"{label}: `w0`/`p0` do not match the functions' inputs")
    return ca, fns, vec, n_w, n_p


def solve(path, brf, time_limit):
    ca, fns, vec, n_w, _ = load(path)
    tb = time.perf_counter()
    w = ca.SX.sym("w", n_w)
    sigma = ca.SX.sym("sigma")
    p0 = ca.DM(vec["p0"])
    f = fns["f"].call([w, p0])[0]
    g = fns["g"].call([w, p0])[0]
    G = fns["G"].call([w, p0])[0]
    H = fns["H"].call([w, p0])[0]
    n_c = G.numel()
    n_g = g.numel()
    g_all = ca.vertcat(g, G, H, G * H - sigma)
    lbg = vec["lbg"] + [0.0] * (2 * n_c) + [-math.inf] * n_c
    ubg = vec["ubg"] + [math.inf] * (2 * n_c) + [0.0] * n_c
    opts = {"ipopt.print_level": 0, "ipopt.sb": "yes", "print_time": False}
    if brf is not None:
        opts["ipopt.bound_relax_factor"] = brf
    if math.isfinite(time_limit):
        # Bounds each NLP; the loop below checks the homotopy's total.
        opts["ipopt.max_wall_time"] = max(time_limit, 1e-3)
    solver = ca.nlpsol("scholtes", "ipopt", {"x": w, "p": sigma, "f": f, "g": g_all}, opts)
    eval_gh = ca.Function("gh", [w], [g, G, H, f])
    build_s = time.perf_counter() - tb

    x = ca.DM(vec["w0"])
    steps = []
    t0 = time.perf_counter()
    s = SIGMA0
    status = "MaxHomotopySteps"
    ok = False
    iters = 0
    comp = math.inf
    for _ in range(MAX_STEPS):
        left = time_limit - (time.perf_counter() - t0)
        if left <= 0:
            status = "MaxTime"
            break
        ts = time.perf_counter()
        try:
            res = solver(x0=x, p=s, lbx=vec["lbw"], ubx=vec["ubw"], lbg=lbg, ubg=ubg)
        except RuntimeError as exc:  # evaluation errors inside IPOPT
            steps.append({"sigma": s, "status": f"error: {casadi_export.first_line(exc)}"})
            status = "Error"
            ok = False
            break
        st = solver.stats()
        iters += int(st.get("iter_count", 0))
        ok = bool(st.get("success", False))
        x = res["x"]
        _, Gv, Hv, _ = eval_gh(x)
        Gv = [float(v) for v in ca.vec(Gv).nonzeros()] if n_c else []
        Hv = [float(v) for v in ca.vec(Hv).nonzeros()] if n_c else []
        comp = max((min(a, b) for a, b in zip(Gv, Hv)), default=0.0)
        steps.append(
            {
                "sigma": s,
                "status": st.get("return_status", "?"),
                "iterations": int(st.get("iter_count", 0)),
                "comp_residual": comp,
                "time_s": time.perf_counter() - ts,
            }
        )
        if ok and comp <= COMP_TOL:
            status = "Solved"
            break
        status = "ComplementarityNotMet" if ok else st.get("return_status", "Failed")
        s *= KAPPA
    time_s = time.perf_counter() - t0
    gv, Gv, Hv, fv = eval_gh(x)
    xv = [float(v) for v in ca.vec(x).nonzeros()]
    gv = [float(v) for v in ca.vec(gv).nonzeros()] if n_g else []
    Gv = [float(v) for v in ca.vec(Gv).nonzeros()] if n_c else []
    Hv = [float(v) for v in ca.vec(Hv).nonzeros()] if n_c else []
    viol = 0.0
    for v, lo, hi in zip(xv, vec["lbw"], vec["ubw"]):
        viol = max(viol, lo - v, v - hi)
    for v, lo, hi in zip(gv, vec["lbg"], vec["ubg"]):
        viol = max(viol, lo - v, v - hi)
    for v in Gv + Hv:
        viol = max(viol, -v)
    return {
        "status": status,
        "objective": float(fv),
        "comp_residual": comp,
        "max_constraint_violation": viol,
        "time_s": time_s,
        "build_s": build_s,
        "homotopy_steps": len(steps),
        "nlp_iterations": iters,
        "bound_relax_factor": brf,
        "steps": steps,
    }


def finite_or_null(v):
    """Non-finite numbers as null (strict JSON for the runner)."""
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, dict):
        return {k: finite_or_null(x) for k, x in v.items()}
    if isinstance(v, list):
        return [finite_or_null(x) for x in v]
    return v


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("problem", help="nosbench problem JSON")
    parser.add_argument(
        "--bound-relax-factor",
        type=float,
        default=None,
        help="IPOPT's bound_relax_factor (default: IPOPT's own, 1e-8)",
    )
    parser.add_argument("--time-limit", type=float, default=math.inf, help="seconds")
    args = parser.parse_args(argv)
    try:
        casadi_export.ca = casadi_export.import_casadi()
        out = solve(args.problem, args.bound_relax_factor, args.time_limit)
    except casadi_export.BadInput as exc:
        print(f"ipopt_scholtes: error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(finite_or_null(out), allow_nan=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
