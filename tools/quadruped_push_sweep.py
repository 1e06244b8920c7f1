#!/usr/bin/env python3
"""The largest lateral push the quadruped MPC survives in MuJoCo (issue 27), by bisection.

    python3 tools/quadruped_push_sweep.py --case stand [--impulses 0,4,8] [--bisect 2,12 --runs 6] [--fixed-schedule]
        [--push-t 2.0] [--after 3.0] [--node target/release/fesdj_node] [--out DIR]

One run: `fesdj_node` (`sim: false`, `use_sim_time`) on the quadruped and `tools/mujoco_sim.py`
on `tools/scenarios/quadruped.yaml` in lockstep (0.05 s), a push of IMPULSE N·s along +y in the
world on the base's mass centre for 0.1 s at `--push-t`, the run ending `--after` seconds after
the push began. `--case walk` uses the shipped `config/quadruped_mpc.yaml` (the periodic walking
gait); `--case stand` the same file with the reference of a robot standing still (written next
to the logs by `standing_config`: no `x_ref_period`, one constant `x_ref` with the body at 0.33 m,
the feet under the hips, zero speed; the same robot, weights and solver). `--deadline-s` changes
the node's wall-clock budget per solve (`mpc.deadline_s`, 2 s as shipped): with the node on
the simulated clock a longer budget takes the machine's speed out of the result.

Survived (`judge`): after the push |roll| and |pitch| < 0.3 rad and the base above 0.2 m at every
physics step, no robot geom other than the feet touching anything; over the last 0.5 s |roll|
and |pitch| < 0.1 rad, the base's mean lateral velocity below 0.1 m/s and its angular speed
below 1 rad/s. Each run prints one line; the end a table (Markdown) of all runs and the largest
impulse survived below the smallest one that was not.

Runs inside a private network namespace (re-executing itself under `unshare -n`, as the DDS tests
do), never on the host network. A run takes 30-60 s of wall time.
"""

import argparse
import json
import math
import os
import sys

from quadruped_lockstep import reexec_in_private_netns, run_lockstep

TOOLS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TOOLS)
PUSH_S = 0.1
# Standing: the body at 0.33 m, each foot under its hip (tools/quadruped_gait.py's leg_ik(0, 0.33)).
STAND_LEG = [0.0, 0.6006, -1.2012]


# The fixed-schedule variant (`--fixed-schedule`, `mpc.contact_schedule`): standing, every foot
# always down; walking, the swing windows of the gait library's 0.1 m/s gait (what the shipped
# config walks on), on the controller's clock as `mpc.gait_library` phases it (the first foot's
# stance centred at phase 0): `library_walk_schedule()`.
FIXED_SCHEDULES = {
    "stand": "{period: 1.2, swing: {FL_foot: [0, 0], FR_foot: [0, 0], HL_foot: [0, 0], HR_foot: [0, 0]}}",
}


def library_walk_schedule(command=(0.1, 0.0, 0.0)):
    """`mpc.contact_schedule` of the library gait of `command`: per foot its swing window (the
    intervals whose end sample has the foot out of stance), in fractions of the period, shifted
    as src/mpc/gait_library.rs shifts the gait (the circular mean of the first contact's normal
    force at phase 0), half an interval of margin on each side of the swing's interval ends."""
    with open(os.path.join(ROOT, "config", "quadruped_gaits.json")) as f:
        lib = json.load(f)
    g = next(g for g in lib["gaits"] if tuple(g["command"]) == tuple(command))
    period, n = g["period"], len(g["x"]) - 1
    c = sum(l[0] * math.cos(2 * math.pi * t / period) for t, l in zip(g["t_force"], g["lambda_n"]))
    s = sum(l[0] * math.sin(2 * math.pi * t / period) for t, l in zip(g["t_force"], g["lambda_n"]))
    m = round((math.atan2(s, c) % (2 * math.pi)) / (2 * math.pi) * n) % n
    swing = {}
    for ci, name in enumerate(lib["contacts"]):
        up = [not g["stance"][k][ci] for k in range(n)]
        if all(up) or not any(up):
            swing[name] = [0, 0]
            continue
        # The run of swing intervals, starting after a stance interval (periodic).
        k0 = next(k for k in range(n) if up[k] and not up[k - 1])
        k1 = k0
        while up[(k1 + 1) % n] and (k1 + 1) % n != k0:
            k1 += 1
        start = ((k0 + 0.5 - m) / n) % 1.0
        end = (start + (k1 - k0 + 1) / n) % 1.0  # a window past 1 wraps: start > end
        swing[name] = [round(start, 6), round(end, 6)]
    inner = ", ".join(f"{k}: [{a:g}, {b:g}]" for k, (a, b) in swing.items())
    return f"{{period: {period:g}, swing: {{{inner}}}}}"


def standing_x_ref():
    return [0.0, 0.0, 0.33, 0.0, 0.0, 0.0] + STAND_LEG * 4 + [0.0] * 18


def standing_config(shipped_text):
    """The shipped walking config with a constant standing reference instead of the gait."""
    out, skipping = [], False
    for line in shipped_text.splitlines():
        if skipping:
            if line.startswith("    - ["):
                continue
            skipping = False
        if line.startswith(("  x_ref_period:", "  gait_library:", "  gait_schedule_from:", "  base_velocity:")):
            continue
        if line.startswith("  x_ref:"):
            out.append("  x_ref: [" + ", ".join(f"{x:g}" for x in standing_x_ref()) + "]")
            skipping = True
            continue
        out.append(line)
    keys = [l for l in out if l.startswith(("  x_ref:", "  x_ref_period:", "    - ["))]
    if len(keys) != 1:
        raise SystemExit(f"standing_config: unexpected layout of the shipped reference: {keys}")
    return "\n".join(out) + "\n"


def judge(summary):
    """(survived, why) from the bridge's summary."""
    a = summary.get("after_push")
    if a is None or "end" not in a:
        return False, "no push summary"
    why = []
    if a["max_abs_roll"] >= 0.3 or a["max_abs_pitch"] >= 0.3:
        why.append(f"tilted (roll {a['max_abs_roll']:.2f}, pitch {a['max_abs_pitch']:.2f})")
    if a["min_base_z"] <= 0.2:
        why.append(f"base down to {a['min_base_z']:.3f} m")
    if a["non_foot_contact_t"] is not None:
        why.append(f"body touched at t = {a['non_foot_contact_t']:.2f} s")
    w = a["end"].get("window")
    if w is None:
        why.append("no end window")
    else:
        if w["max_abs_roll"] >= 0.1 or w["max_abs_pitch"] >= 0.1:
            why.append(f"not level at the end ({w['max_abs_roll']:.2f}, {w['max_abs_pitch']:.2f})")
        if abs(w["mean_lin_vel"][1]) >= 0.1:
            why.append(f"still moving sideways ({w['mean_lin_vel'][1]:.2f} m/s)")
        if w["max_ang_speed"] >= 1.0:
            why.append(f"still turning ({w['max_ang_speed']:.2f} rad/s)")
    if summary.get("lockstep_timeouts"):
        why.append(f"{summary['lockstep_timeouts']} lockstep timeouts")
    return not why, "; ".join(why) or "recovered"


def run_once(case, impulse, a, out_dir):
    config = os.path.join(ROOT, "config", "quadruped_mpc.yaml")
    with open(config) as f:
        text = f.read().replace("../urdf/quadruped.urdf", os.path.join(ROOT, "urdf", "quadruped.urdf")).replace(
            "gait_library: quadruped_gaits.json",
            "gait_library: " + os.path.join(ROOT, "config", "quadruped_gaits.json"))
    if case == "stand":
        text = standing_config(text)
    tag = f"{case}_{impulse:g}"
    if a.fixed_schedule:
        # The controller's `mpc` section ends the shipped file: append the schedule to it.
        if not text.rstrip("\n").splitlines()[-1].startswith("    "):
            raise SystemExit("--fixed-schedule: the shipped config no longer ends with its `mpc` section")
        schedule = FIXED_SCHEDULES["stand"] if case == "stand" else library_walk_schedule()
        # The whole horizon's schedule imposed instead of the shipped one's from interval 1 on.
        text = "".join(l for l in text.splitlines(keepends=True) if not l.startswith("  gait_schedule_from:"))
        text = text.rstrip("\n") + "\n  contact_schedule: " + schedule + "\n"
        tag += "_fixed"
        out_dir = os.path.join(out_dir, "fixed")
        os.makedirs(out_dir, exist_ok=True)
    if a.deadline_s is not None:
        if text.count("  deadline_s: 2.0\n") != 1:
            raise SystemExit("--deadline-s: the shipped config's `mpc.deadline_s: 2.0` line changed")
        text = text.replace("  deadline_s: 2.0\n", f"  deadline_s: {a.deadline_s}\n")
        tag += f"_deadline{a.deadline_s:g}"
    config = os.path.join(out_dir, f"quadruped_{case}.yaml")
    with open(config, "w") as f:
        f.write(text)
    log = os.path.join(out_dir, f"{tag}.json")
    force = impulse / PUSH_S
    duration = a.push_t + a.after
    rc, berr, node_summary, wall = run_lockstep(
        a.node, config, out_dir, log, duration,
        ["--push", f"{a.push_t},{PUSH_S},0,{force},0",
         # the bridge waits for every command as long as the node may take (default 10 s)
         "--lockstep-timeout", str(max(10.0, 2.0 * (a.deadline_s or 0.0)))],
        a.limit)
    if rc != 0 or not os.path.exists(log):
        return {"impulse": impulse, "survived": False, "why": f"bridge failed ({rc}): {berr[-300:]}",
                "wall_s": wall}
    with open(log) as f:
        summary = json.load(f)["summary"]
    ok, why = judge(summary)
    ap = summary.get("after_push", {})
    w = ap.get("end", {}).get("window", {})
    return {"impulse": impulse, "survived": ok, "why": why, "wall_s": round(wall, 1),
            "max_abs_roll": ap.get("max_abs_roll"), "max_abs_pitch": ap.get("max_abs_pitch"),
            "min_base_z": ap.get("min_base_z"), "lateral_displacement": ap.get("lateral_displacement"),
            "end_window": w, "node": node_summary}


def fmt(r):
    def f(x, d=3):
        return "–" if x is None else f"{x:.{d}f}"

    w = r.get("end_window") or {}
    vy = (w.get("mean_lin_vel") or [None, None])[1]
    return (f"| {r['impulse']:g} | {'yes' if r['survived'] else 'no'} | {f(r.get('max_abs_roll'))} | "
            f"{f(r.get('max_abs_pitch'))} | {f(r.get('min_base_z'))} | {f(r.get('lateral_displacement'))} | "
            f"{f(vy)} | {r['why']} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", choices=["stand", "walk"], required=True)
    ap.add_argument("--impulses", default="", help="comma-separated impulses (N·s) to run first")
    ap.add_argument("--bisect", default="", help="LO,HI: bisect between a survived LO and a failed HI")
    ap.add_argument("--runs", type=int, default=6, help="bisection runs")
    ap.add_argument("--push-t", type=float, default=None, help="push time (s; stand 2.0, walk 2.5)")
    ap.add_argument("--after", type=float, default=3.0, help="simulated seconds from the push to the end")
    ap.add_argument("--deadline-s", type=float, default=None,
                    help="the node's wall-clock budget per solve (`mpc.deadline_s`, shipped 2.0)")
    ap.add_argument("--fixed-schedule", action="store_true",
                    help="the fixed-schedule variant: the gait's contact schedule imposed (`mpc.contact_schedule`)")
    ap.add_argument("--node", default=os.path.join(ROOT, "target", "release", "fesdj_node"))
    ap.add_argument("--limit", type=float, default=600.0, help="wall seconds per run before giving up")
    ap.add_argument("--out", default="/tmp/fesdj_push_sweep")
    a = ap.parse_args()
    if a.push_t is None:
        a.push_t = 2.0 if a.case == "stand" else 2.5
    try:
        impulses = [float(x) for x in a.impulses.split(",") if x.strip()]
        bounds = [float(x) for x in a.bisect.split(",")] if a.bisect else []
    except ValueError:
        raise SystemExit("--impulses and --bisect take comma-separated numbers") from None
    if bounds and len(bounds) != 2:
        raise SystemExit("--bisect takes LO,HI")
    status = reexec_in_private_netns()
    if status is not None:
        return status
    os.makedirs(a.out, exist_ok=True)
    results = []

    def run(x):
        r = run_once(a.case, x, a, a.out)
        results.append(r)
        print(json.dumps(r), flush=True)
        return r["survived"]

    for x in impulses:
        run(x)
    if bounds:
        lo, hi = bounds
        for _ in range(a.runs):
            mid = round((lo + hi) / 2, 2)
            if run(mid):
                lo = mid
            else:
                hi = mid
    results.sort(key=lambda r: r["impulse"])
    print(f"\n{a.case}: push at t = {a.push_t} s for {PUSH_S} s along +y, run until {a.push_t + a.after} s\n")
    print("| impulse (N·s) | survived | max abs roll | max abs pitch | min base z (m) | lateral displacement (m) "
          "| end lateral velocity (m/s) | why |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        print(fmt(r))
    failed = [r["impulse"] for r in results if not r["survived"]]
    first_fail = min(failed) if failed else None
    ok = [r["impulse"] for r in results if r["survived"] and (first_fail is None or r["impulse"] < first_fail)]
    print(f"\nlargest survived below the smallest failure: {max(ok) if ok else None} N·s "
          f"(smallest failure: {first_fail} N·s; {len(results)} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
