#!/usr/bin/env python3
"""Export CasADi functions and nosbench-style MPCC problems to the fesdj JSON format.

Usage:
    casadi_export.py INPUT OUTPUT [--with-values]
    casadi_export.py --make-test-data DIR

INPUT is either a CasADi-serialised Function (a file written by ``Function.save`` or holding
the string of ``Function.serialize()``) or a nosbench-style problem JSON (fields ``w, p, w0,
lbw, ubw, p0, lbg, ubg, g_fun, G_fun, H_fun, augmented_objective_fun``). The output format is
described in ``docs/formats.md`` (``fesdj-function`` and ``fesdj-mpcc``, version 1).

``--make-test-data DIR`` writes the test functions used by ``tests/ad/ad_import.rs``: for each, our
JSON plus CasADi's own values, Jacobians and Hessians at random points.

Exit status: 0 on success, 2 on bad input (unreadable file, malformed problem, MX function that
cannot be expanded, free variables), 1 on unexpected internal errors.
"""

import argparse
import json
import math
import os
import random
import sys

FORMAT_VERSION = 1


class BadInput(Exception):
    """An input file or function that cannot be exported (exit status 2)."""


def import_casadi():
    try:
        import casadi  # noqa: F401
    except ImportError as exc:  # pragma: no cover - depends on the machine
        raise BadInput(
            f"cannot import casadi ({exc}); install it with `pip install casadi`"
        ) from exc
    return casadi


ca = None  # set in main()

# CasADi operation -> our op code, by arity. OP_CONSTPOW (x^c with constant c) is our `pow`.
UNARY_NAMES = {
    "OP_NEG": "neg",
    "OP_SQ": "sq",
    "OP_SQRT": "sqrt",
    "OP_EXP": "exp",
    "OP_LOG": "log",
    "OP_SIN": "sin",
    "OP_COS": "cos",
    "OP_TAN": "tan",
    "OP_TANH": "tanh",
    "OP_ASIN": "asin",
    "OP_ACOS": "acos",
    "OP_ATAN": "atan",
    "OP_SINH": "sinh",
    "OP_COSH": "cosh",
    "OP_FABS": "abs",
    "OP_SIGN": "sign",
    "OP_INV": "inv",
    "OP_TWICE": "twice",
}
BINARY_NAMES = {
    "OP_ADD": "add",
    "OP_SUB": "sub",
    "OP_MUL": "mul",
    "OP_DIV": "div",
    "OP_ATAN2": "atan2",
    "OP_POW": "pow",
    "OP_CONSTPOW": "pow",
    "OP_FMIN": "fmin",
    "OP_FMAX": "fmax",
}
SUPPORTED_NAMES = sorted(
    set(UNARY_NAMES.values())
    | set(BINARY_NAMES.values())
    | {"input", "output", "const", "assign"}
)


def op_tables():
    """Integer op id -> (kind, name) for every casadi.OP_* constant."""
    table = {}
    for attr in dir(ca):
        if not attr.startswith("OP_"):
            continue
        code = getattr(ca, attr)
        if not isinstance(code, int):
            continue
        if attr in UNARY_NAMES:
            table[code] = ("unary", UNARY_NAMES[attr])
        elif attr in BINARY_NAMES:
            table[code] = ("binary", BINARY_NAMES[attr])
        elif attr not in ("OP_INPUT", "OP_OUTPUT", "OP_CONST", "OP_ASSIGN"):
            # Written with its own name so that the importer rejects it by name.
            table[code] = ("other", attr[3:].lower())
    return table


def number(x):
    """A float as JSON: a number, or the strings "inf", "-inf", "nan"."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def numbers(values):
    return [number(v) for v in values]


# ---------------------------------------------------------------------------------------------
# Functions
# ---------------------------------------------------------------------------------------------


def as_sx_function(f, name=None):
    """Expand `f` to SX and re-wrap it: every input a dense column of symbols (column-major over
    the input's full shape; entries outside a sparse input's pattern are ignored), every output
    densified and vectorised column-major."""
    label = name or f.name()
    if f.has_free():
        raise BadInput(f"function `{label}` has free variables: {f.get_free()}")
    if not f.is_a("SXFunction"):
        try:
            f = f.expand()
        except RuntimeError as exc:
            raise BadInput(
                f"function `{label}` ({f.class_name()}) cannot be expanded to SX: "
                f"{first_line(exc)}"
            ) from exc
    syms, args = [], []
    for i in range(f.n_in()):
        sp = f.sparsity_in(i)
        s = ca.SX.sym(f.name_in(i), sp.numel())
        syms.append(s)
        args.append(ca.project(ca.reshape(s, sp.size1(), sp.size2()), sp))
    try:
        outs = f.call(args)
        outs = [ca.vec(ca.densify(o)) for o in outs]
        g = ca.Function(label, syms, outs, f.name_in(), f.name_out())
    except RuntimeError as exc:
        raise BadInput(f"function `{label}` cannot be evaluated on SX: {first_line(exc)}") from exc
    if g.has_free():
        raise BadInput(f"function `{label}` has free variables after expansion")
    return g


def export_function(f, name=None):
    """Our `fesdj-function` document (a dict) for a CasADi Function."""
    g = as_sx_function(f, name)
    table = op_tables()
    instructions = []
    max_reg = -1
    for k in range(g.n_instructions()):
        op = g.instruction_id(k)
        ins = list(g.instruction_input(k))
        outs = list(g.instruction_output(k))
        if op == ca.OP_INPUT:
            # instruction_input = [input index, nonzero index], output = [register]
            instr = ["input", outs[0], ins[0], ins[1]]
            regs = [outs[0]]
        elif op == ca.OP_OUTPUT:
            # instruction_input = [register], output = [output index, nonzero index]
            instr = ["output", ins[0], outs[0], outs[1]]
            regs = [ins[0]]
        elif op == ca.OP_CONST:
            instr = ["const", outs[0], number(g.instruction_constant(k))]
            regs = [outs[0]]
        elif op == ca.OP_ASSIGN:
            instr = ["assign", outs[0], ins[0]]
            regs = [outs[0], ins[0]]
        else:
            kind, opname = table.get(op, ("other", f"casadi_op_{op}"))
            if kind == "unary":
                instr = [opname, outs[0], ins[0]]
                regs = [outs[0], ins[0]]
            elif kind == "binary":
                instr = [opname, outs[0], ins[0], ins[1]]
                regs = [outs[0], ins[0], ins[1]]
            else:
                instr = [opname] + outs + ins
                regs = outs + ins
        max_reg = max([max_reg] + regs)
        instructions.append(instr)
    unsupported = sorted({ins[0] for ins in instructions} - set(SUPPORTED_NAMES))
    if unsupported:
        print(
            f"casadi_export: warning: function `{g.name()}` uses op codes that fesdj_mpc does "
            f"not support (its importer will reject them): {', '.join(unsupported)}",
            file=sys.stderr,
        )
    return {
        "format": "fesdj-function",
        "version": FORMAT_VERSION,
        "name": g.name(),
        "inputs": [
            {"name": g.name_in(i), "size": g.sparsity_in(i).numel()} for i in range(g.n_in())
        ],
        "outputs": [
            {"name": g.name_out(i), "size": g.sparsity_out(i).numel()}
            for i in range(g.n_out())
        ],
        "n_work": max(max_reg + 1, 0),
        "instructions": instructions,
    }


def load_function(text, label, path=None):
    """A Function from the string of `Function.serialize()` (possibly JSON-quoted), or else from
    the file `path` written by `Function.save`."""
    text = text.strip()
    if text.startswith('"'):
        try:
            text = json.loads(text)
        except json.JSONDecodeError as exc:
            raise BadInput(f"{label}: malformed JSON string: {exc}") from exc
    errors = []
    try:
        f = ca.Function.deserialize(text)
        if not f.is_null():
            return f
        errors.append("Function.deserialize gave a null Function")
    except RuntimeError as exc:
        errors.append(first_line(exc))
    if path is not None:
        try:
            f = ca.Function.load(path)
            if not f.is_null():
                return f
            errors.append("Function.load gave a null Function")
        except RuntimeError as exc:
            errors.append(first_line(exc))
    raise BadInput(f"{label}: not a CasADi-serialised Function ({'; '.join(errors)})")


def first_line(exc):
    """The meaningful line of a CasADi exception message."""
    lines = [ln.strip() for ln in str(exc).strip().splitlines() if ln.strip()]
    return lines[-1] if lines else type(exc).__name__


# ---------------------------------------------------------------------------------------------
# Problems
# ---------------------------------------------------------------------------------------------

PROBLEM_FUNCTIONS = {
    "f": "augmented_objective_fun",
    "g": "g_fun",
    "G": "G_fun",
    "H": "H_fun",
}


def real_vector(doc, field, label, allow_inf):
    if field not in doc:
        raise BadInput(f"{label}: missing field `{field}`")
    v = doc[field]
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        v = [v]
    if not isinstance(v, list):
        raise BadInput(f"{label}: field `{field}` must be a list of numbers")
    out = []
    for i, x in enumerate(v):
        if isinstance(x, bool) or not isinstance(x, (int, float)):
            raise BadInput(f"{label}: `{field}[{i}]` is not a number: {x!r}")
        x = float(x)
        if math.isnan(x) or (math.isinf(x) and not allow_inf):
            raise BadInput(f"{label}: `{field}[{i}]` is {x}")
        out.append(x)
    return out


def symbol_names(doc, field, label):
    try:
        s = ca.SX.deserialize(doc[field])
    except (RuntimeError, TypeError) as exc:
        raise BadInput(f"{label}: field `{field}` is not a serialised SX") from exc
    names = []
    for k in range(s.nnz()):
        e = s.nz[k]
        names.append(e.name() if e.is_symbolic() else f"{field}_{k}")
    return names


def export_problem(doc, label, name, with_values):
    if not isinstance(doc, dict):
        raise BadInput(f"{label}: a problem JSON must be an object")
    for field in ("w", "p") + tuple(PROBLEM_FUNCTIONS.values()):
        if field not in doc:
            raise BadInput(f"{label}: missing field `{field}`")
    w_names = symbol_names(doc, "w", label)
    p_names = symbol_names(doc, "p", label)
    n_w, n_p = len(w_names), len(p_names)
    w0 = real_vector(doc, "w0", label, allow_inf=False)
    lbw = real_vector(doc, "lbw", label, allow_inf=True)
    ubw = real_vector(doc, "ubw", label, allow_inf=True)
    p0 = real_vector(doc, "p0", label, allow_inf=False)
    lbg = real_vector(doc, "lbg", label, allow_inf=True)
    ubg = real_vector(doc, "ubg", label, allow_inf=True)
    for field, v, n in (("w0", w0, n_w), ("lbw", lbw, n_w), ("ubw", ubw, n_w), ("p0", p0, n_p)):
        if len(v) != n:
            raise BadInput(f"{label}: `{field}` has {len(v)} entries, expected {n}")
    if len(lbg) != len(ubg):
        raise BadInput(f"{label}: `lbg` has {len(lbg)} entries, `ubg` {len(ubg)}")

    originals, functions = {}, {}
    for key, field in PROBLEM_FUNCTIONS.items():
        f = load_function(doc[field], f"{label}: `{field}`")
        if f.n_in() != 2:
            raise BadInput(f"{label}: `{field}` has {f.n_in()} inputs, expected 2 (w, p)")
        for i, n in ((0, n_w), (1, n_p)):
            if f.sparsity_in(i).numel() != n:
                raise BadInput(
                    f"{label}: `{field}` input {i} has {f.sparsity_in(i).numel()} elements, "
                    f"expected {n}"
                )
        if f.n_out() != 1:
            raise BadInput(f"{label}: `{field}` has {f.n_out()} outputs, expected 1")
        originals[key] = f
        fn = export_function(f, field)
        fn["inputs"][0]["name"] = "w"
        fn["inputs"][1]["name"] = "p"
        functions[key] = fn
    n_f = functions["f"]["outputs"][0]["size"]
    n_g = functions["g"]["outputs"][0]["size"]
    n_c = functions["G"]["outputs"][0]["size"]
    if n_f != 1:
        raise BadInput(f"{label}: the objective has {n_f} elements, expected 1")
    if n_g != len(lbg):
        raise BadInput(f"{label}: `g_fun` has {n_g} elements but `lbg` has {len(lbg)}")
    if functions["H"]["outputs"][0]["size"] != n_c:
        raise BadInput(
            f"{label}: `G_fun` has {n_c} elements but `H_fun` has "
            f"{functions['H']['outputs'][0]['size']}"
        )
    out = {
        "format": "fesdj-mpcc",
        "version": FORMAT_VERSION,
        "name": name,
        "n_w": n_w,
        "n_p": n_p,
        "w_names": w_names,
        "p_names": p_names,
        "w0": numbers(w0),
        "lbw": numbers(lbw),
        "ubw": numbers(ubw),
        "p0": numbers(p0),
        "lbg": numbers(lbg),
        "ubg": numbers(ubg),
        "functions": functions,
    }
    if with_values:
        # (w0, p0) first, then two reproducible perturbations of w0 (f is often 0 at w0).
        rng = random.Random(12345)
        points = [w0] + [[x + rng.uniform(-0.1, 0.1) for x in w0] for _ in range(2)]
        ref = {
            "casadi_version": ca.__version__,
            "what": "values of f, g, G, H; Jacobian of g w.r.t. w (triplets); lower triangle "
            "of the Hessian w.r.t. w of f + lambda' g (triplets), at (w, p)",
            "points": [],
        }
        ws = ca.SX.sym("w", n_w)
        ps = ca.SX.sym("p", n_p)
        lam = ca.SX.sym("lam", n_g)
        fx = originals["f"].call([ws, ps])[0]
        gx = originals["g"].call([ws, ps])[0]
        jac_g = ca.Function("jac_g", [ws, ps], [ca.jacobian(gx, ws)])
        hess, _ = ca.hessian(fx + ca.dot(lam, gx), ws)
        hess_lag = ca.Function("hess_lag", [ws, ps, lam], [ca.tril(hess)])
        for w in points:
            entry = {"w": numbers(w), "p": numbers(p0)}
            for key, f in originals.items():
                entry[key] = numbers(dense_values(f.call([ca.DM(w), ca.DM(p0)])[0]))
            lam_v = [rng.uniform(-1, 1) for _ in range(n_g)]
            entry["jac_g"] = triplets(jac_g.call([ca.DM(w), ca.DM(p0)])[0])
            entry["lambda"] = lam_v
            entry["hess_lag_lower"] = triplets(
                hess_lag.call([ca.DM(w), ca.DM(p0), ca.DM(lam_v)])[0]
            )
            ref["points"].append(entry)
        out["casadi_reference"] = ref
    return out


def dense_values(dm):
    """Column-major dense values of a DM."""
    return [float(v) for v in ca.vec(ca.densify(ca.DM(dm))).nonzeros()]


# ---------------------------------------------------------------------------------------------
# Test data
# ---------------------------------------------------------------------------------------------


def test_functions():
    """(name, Function, point sampler) for the test suite."""
    fs = []

    # Every supported op in a scalar function of a 3-vector (positive arguments where the
    # op needs them, so that random points in [-1, 1] are inside every domain).
    v3 = ca.SX.sym("x", 3)
    x, y, z = v3[0], v3[1], v3[2]
    e = (
        x * y
        + (x - z) / (3 + y)
        - ca.sqrt(1 + x**2)
        + ca.exp(0.5 * y) * ca.log(2 + ca.sin(z))
        + ca.cos(x * z)
        + ca.tan(0.5 * y)
        + ca.tanh(x + y)
        + ca.asin(0.5 * ca.tanh(z))
        + ca.acos(0.3 * ca.cos(y))
        + ca.atan(x * y * z)
        + ca.sinh(0.5 * x)
        - ca.cosh(0.3 * z)
        + ca.fabs(x - 0.1) * ca.sign(y + 0.2)
        + 1 / (2 + x * x)
        + ca.atan2(y, z + 2)
        + (2 + ca.cos(x)) ** y
        + (2.5 + ca.sin(y)) ** 3.7
        + ca.fmin(x, y) * ca.fmax(y, z)
        + 2 * z
        - (x - y * z)
        + ca.sin(-(x * z))
    )
    fs.append(("every_op", ca.Function("every_op", [v3], [e], ["x"], ["f"]), 1.0))

    # Banded vector function with a parameter: sparse Jacobian, one constant and one linear
    # output element.
    n = 8
    xv = ca.SX.sym("x", n)
    pv = ca.SX.sym("p", 2)
    g = []
    for i in range(n):
        gi = ca.sin(xv[i]) * pv[0] + xv[i] ** 2
        if i > 0:
            gi += xv[i - 1] * ca.exp(0.3 * xv[i])
        if i + 1 < n:
            gi -= pv[1] * xv[i + 1] ** 2
        g.append(gi)
    g.append(ca.SX(4.25))
    g.append(3 * xv[0] - xv[n - 1] + pv[1])
    fs.append(
        (
            "banded",
            ca.Function("banded", [xv, pv], [ca.vertcat(*g)], ["x", "p"], ["g"]),
            1.0,
        )
    )

    # Rosenbrock (chained, 6 variables), built in MX so that the exporter expands it.
    m = 6
    xm = ca.MX.sym("x", m)
    r = 0
    for i in range(m - 1):
        r = r + 100 * (xm[i + 1] - xm[i] ** 2) ** 2 + (1 - xm[i]) ** 2
    fs.append(("rosenbrock", ca.Function("rosenbrock", [xm], [r], ["x"], ["f"]), 2.0))

    # Matrix input (3x2, column-major), a vector, a sparse lower-triangular input and a
    # non-symmetric matrix output.
    X = ca.SX.sym("X", 3, 2)
    v = ca.SX.sym("v", 2)
    L = ca.SX.sym("L", ca.Sparsity.lower(2))
    A = ca.DM([[1.0, 2.0], [-3.0, 0.5]])
    out0 = ca.mtimes(X, v)
    out1 = ca.mtimes(X**2, A) + ca.sin(X) * X[2, 1]
    out2 = ca.trace(ca.mtimes(X.T, X)) * v[0] + ca.sum1(ca.sum2(ca.mtimes(L, L.T)))
    fs.append(
        (
            "matrix",
            ca.Function(
                "matrix", [X, v, L], [out1, out0, out2], ["X", "v", "L"], ["M", "Xv", "s"]
            ),
            1.0,
        )
    )
    return fs


def triplets(dm):
    """(row, col, value) triplets of a sparse DM in CSC order."""
    dm = ca.DM(dm)
    rows, cols = dm.sparsity().get_triplet()
    vals = dm.nonzeros()
    return [[int(r), int(c), float(val)] for r, c, val in zip(rows, cols, vals)]


def make_test_data(outdir, n_points=5, seed=20261201):
    os.makedirs(outdir, exist_ok=True)
    rng = random.Random(seed)
    for name, f, scale in test_functions():
        # Round-trip through a serialised file, like a user's Function.save output.
        text = f.serialize()
        f = load_function(text, name)
        doc = export_function(f, name)
        g = as_sx_function(f, name)  # the re-wrapped SX function, for derivatives
        syms = g.sx_in()
        outs = g.call(syms)
        jac_funs = []
        for o in range(g.n_out()):
            for i in range(g.n_in()):
                jac_funs.append((o, i, ca.Function("j", syms, [ca.jacobian(outs[o], syms[i])])))
        lam = ca.SX.sym("lam", g.sparsity_out(0).numel())
        hess, _ = ca.hessian(ca.dot(lam, outs[0]), syms[0])
        hess_fun = ca.Function("h", syms + [lam], [ca.tril(hess)])
        points = []
        for _ in range(n_points):
            inputs = [
                [rng.uniform(-scale, scale) for _ in range(g.sparsity_in(i).numel())]
                for i in range(g.n_in())
            ]
            # Values from the original function (inputs at their original shape/sparsity).
            args = []
            for i in range(f.n_in()):
                sp = f.sparsity_in(i)
                a = ca.reshape(ca.DM(inputs[i]), sp.size1(), sp.size2())
                args.append(ca.project(a, sp))
            res = f.call(args)
            outputs = [dense_values(r) for r in res]
            jacobians = []
            for o, i, jf in jac_funs:
                jv = jf.call([ca.DM(v) for v in inputs])[0]
                jacobians.append(
                    {
                        "output": o,
                        "input": i,
                        "rows": jv.size1(),
                        "cols": jv.size2(),
                        "triplets": triplets(jv),
                    }
                )
            lam_v = [1.0] if lam.numel() == 1 else [rng.uniform(-1, 1) for _ in range(lam.numel())]
            hv = hess_fun.call([ca.DM(v) for v in inputs] + [ca.DM(lam_v)])[0]
            points.append(
                {
                    "inputs": inputs,
                    "outputs": outputs,
                    "jacobians": jacobians,
                    "hessian": {
                        "output": 0,
                        "input": 0,
                        "multipliers": lam_v,
                        "n": hv.size1(),
                        "lower_triplets": triplets(hv),
                    },
                }
            )
        expected = {
            "what": "CasADi's values, Jacobians (dense output x input blocks as triplets) and "
            "lower-triangle Hessian of multipliers' * output 0 w.r.t. input 0, at random points",
            "casadi_version": ca.__version__,
            "function": name,
            "points": points,
        }
        write_json(os.path.join(outdir, f"{name}.json"), doc)
        write_json(os.path.join(outdir, f"{name}.expected.json"), expected)
        used = sorted({ins[0] for ins in doc["instructions"]})
        print(f"{name}: {len(doc['instructions'])} instructions, ops {' '.join(used)}")
        if name == "every_op":
            missing = sorted(set(SUPPORTED_NAMES) - set(used) - {"assign"})
            casadi_ops = {f.instruction_id(k) for k in range(f.n_instructions())}
            if missing or not {ca.OP_POW, ca.OP_CONSTPOW} <= casadi_ops:
                raise RuntimeError(f"every_op does not cover {missing} (or OP_POW/OP_CONSTPOW)")
    # A function with an op we do not support (if_else -> lt, if_else_zero, not): the importer
    # must reject it by name.
    x = ca.SX.sym("x")
    f = ca.Function("unsupported", [x], [ca.if_else(x < 0, -x, x**2)], ["x"], ["y"])
    doc = export_function(f)
    write_json(os.path.join(outdir, "unsupported.json"), doc)
    print(f"unsupported: ops {' '.join(sorted({ins[0] for ins in doc['instructions']}))}")
    return 0


# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------


def write_json(path, doc):
    text = json.dumps(doc, allow_nan=False, separators=(",", ":"))
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.write("\n")
    os.replace(tmp, path)


def export_file(inp, out, with_values):
    try:
        with open(inp, "r", encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"cannot read {inp}: {exc}") from exc
    base = os.path.splitext(os.path.basename(inp))[0]
    if text.lstrip().startswith("{"):
        try:
            # Python's json accepts the bare Infinity / -Infinity / NaN literals of nosbench.
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise BadInput(f"{inp}: malformed JSON: {exc}") from exc
        result = export_problem(doc, inp, base, with_values)
    else:
        if with_values:
            raise BadInput("--with-values applies to problem files only")
        result = export_function(load_function(text, inp, path=inp))
    write_json(out, result)
    return 0


def main(argv=None):
    global ca
    parser = argparse.ArgumentParser(
        description="Export CasADi Functions / nosbench MPCC problems to the fesdj JSON "
        "format (docs/formats.md)."
    )
    parser.add_argument("input", nargs="?", help="CasADi-serialised Function or problem JSON")
    parser.add_argument("output", nargs="?", help="output JSON file")
    parser.add_argument(
        "--with-values",
        action="store_true",
        help="(problems) also write CasADi's values of f, g, G, H at (w0, p0) "
        "as `casadi_reference`",
    )
    parser.add_argument(
        "--make-test-data",
        metavar="DIR",
        help="write the test functions and CasADi's reference values into DIR",
    )
    args = parser.parse_args(argv)
    if args.make_test_data is None and (args.input is None or args.output is None):
        parser.print_usage(sys.stderr)
        print("error: INPUT and OUTPUT are required (or --make-test-data DIR)", file=sys.stderr)
        return 2
    if args.make_test_data is not None and args.input is not None:
        parser.print_usage(sys.stderr)
        print("error: --make-test-data takes no INPUT/OUTPUT", file=sys.stderr)
        return 2
    try:
        ca = import_casadi()
        if args.make_test_data is not None:
            return make_test_data(args.make_test_data)
        return export_file(args.input, args.output, args.with_values)
    except BadInput as exc:
        print(f"casadi_export: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
