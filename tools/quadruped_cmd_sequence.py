#!/usr/bin/env python3
"""The quadruped MPC driven by a `cmd_vel` sequence in MuJoCo (issue 27's command scenario).

    python3 tools/quadruped_cmd_sequence.py [--config config/quadruped_mpc.yaml] [--out DIR]
        [--node target/release/fesdj_node] [--set KEY=VALUE ...]

`fesdj_node` (`sim: false`, `use_sim_time`, `floating_base`) on the quadruped and
`tools/mujoco_sim.py` on `tools/scenarios/quadruped.yaml` in lockstep (0.05 s); the bridge sends
the issue's sequence on `cmd_vel` (simulated time): stand 1 s, 0.2 m/s forward 3 s, turn at
0.3 rad/s 2 s, 0.1 m/s lateral 2 s, stop (1.5 s). Prints, per phase, the commanded and the
achieved mean velocity over the phase's last second (forward and lateral in the heading frame,
yaw rate), the heading change over the turn, the largest |roll| and |pitch|, and whether the
robot came to rest (mean speed below 0.05 m/s over the last 0.5 s); `--json` writes them.
The issue's criteria: each mean speed within 25 % of its command, the heading change within
25 % of the commanded 0.6 rad, |roll| and |pitch| < 0.3, at rest after the stop.

Runs inside a private network namespace (re-executing itself under `unshare -n`), never on the
host network.
"""

import argparse
import json
import math
import os
import sys

from quadruped_lockstep import reexec_in_private_netns, run_lockstep

TOOLS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TOOLS)
# (name, start, end, command (vx, vy, wz)) in simulated seconds.
PHASES = [
    ("stand", 0.0, 1.0, (0.0, 0.0, 0.0)),
    ("forward", 1.0, 4.0, (0.2, 0.0, 0.0)),
    ("turn", 4.0, 6.0, (0.0, 0.0, 0.3)),
    ("lateral", 6.0, 8.0, (0.0, 0.1, 0.0)),
    ("stop", 8.0, 9.5, (0.0, 0.0, 0.0)),
]


def yaw_roll_pitch(q_xyzw):
    x, y, z, w = q_xyzw
    yaw = math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))
    pitch = math.asin(max(-1.0, min(1.0, 2 * (w * y - z * x))))
    roll = math.atan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y))
    return yaw, roll, pitch


def unwrap(angles):
    out, off, prev = [], 0.0, None
    for a in angles:
        if prev is not None:
            d = a - prev
            if d > math.pi:
                off -= 2 * math.pi
            elif d < -math.pi:
                off += 2 * math.pi
        out.append(a + off)
        prev = a
    return out


def analyse(samples):
    """Per phase: achieved mean velocities over its last second; overall tilt; rest at the end."""
    base = [(s["t"], s["base"]) for s in samples if "base" in s]
    ts = [t for t, _ in base]
    yaws = unwrap([yaw_roll_pitch(b[3:7])[0] for _, b in base])

    def at(t):
        i = min(range(len(ts)), key=lambda k: abs(ts[k] - t))
        return base[i][1][0], base[i][1][1], yaws[i]

    phases = []
    for name, t0, t1, cmd in PHASES:
        a = max(t0, t1 - 1.0)
        (x0, y0, p0), (x1, y1, p1) = at(a), at(t1)
        dt = t1 - a
        mid = 0.5 * (p0 + p1)  # heading frame of the window
        dx, dy = x1 - x0, y1 - y0
        fwd = (math.cos(mid) * dx + math.sin(mid) * dy) / dt
        lat = (-math.sin(mid) * dx + math.cos(mid) * dy) / dt
        phases.append({"phase": name, "command": list(cmd), "forward": fwd, "lateral": lat,
                       "yaw_rate": (p1 - p0) / dt, "heading_change": at(t1)[2] - at(t0)[2]})
    tilt = [yaw_roll_pitch(b[3:7])[1:] for t, b in base if t >= 1.0]
    end = [b for t, b in base if t >= ts[-1] - 0.5]
    rest = sum(math.hypot(b[7], b[8]) for b in end) / max(1, len(end))
    return {"phases": phases, "max_abs_roll": max(abs(r) for r, _ in tilt),
            "max_abs_pitch": max(abs(p) for _, p in tilt), "final_mean_speed": rest,
            "min_base_z": min(b[2] for t, b in base if t >= 1.0)}


def judge(r):
    why = []
    for p in r["phases"]:
        vx, vy, wz = p["command"]
        for key, c in (("forward", vx), ("lateral", vy), ("yaw_rate", wz)):
            if c != 0 and abs(p[key] - c) > 0.25 * abs(c):
                why.append(f"{p['phase']}: {key} {p[key]:.3f} against {c}")
        if p["phase"] == "turn" and abs(p["heading_change"] - 0.6) > 0.15:
            why.append(f"turn: heading change {p['heading_change']:.3f} rad against 0.6")
    if r["max_abs_roll"] >= 0.3 or r["max_abs_pitch"] >= 0.3:
        why.append("fell or tilted")
    if r["final_mean_speed"] >= 0.05:
        why.append(f"not at rest after the stop ({r['final_mean_speed']:.3f} m/s)")
    return not why, why


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default=os.path.join(ROOT, "config", "quadruped_mpc.yaml"))
    ap.add_argument("--node", default=os.path.join(ROOT, "target", "release", "fesdj_node"))
    ap.add_argument("--out", default="/tmp/fesdj_cmd_sequence")
    ap.add_argument("--json", help="write the result here")
    ap.add_argument("--limit", type=float, default=900.0, help="wall seconds before giving up")
    a = ap.parse_args()
    status = reexec_in_private_netns()
    if status is not None:
        return status
    os.makedirs(a.out, exist_ok=True)
    config = os.path.abspath(a.config)
    log = os.path.join(a.out, "run.json")
    cmds = [f"--cmd-vel={t0},{c[0]},{c[1]},{c[2]}" for _, t0, _, c in PHASES]
    duration = PHASES[-1][2]
    rc, berr, node_summary, wall = run_lockstep(a.node, config, a.out, log, duration, cmds, a.limit)
    if rc != 0 or not os.path.exists(log):
        print(f"bridge failed ({rc}): {berr[-500:]}", file=sys.stderr)
        return 1
    with open(log) as f:
        run = json.load(f)
    r = analyse(run["samples"])
    ok, why = judge(r)
    r.update({"met": ok, "why": why, "wall_s": round(wall, 1),
              "node": node_summary,
              "lockstep_timeouts": run["summary"].get("lockstep_timeouts")})
    print("| phase | command (vx, vy, wz) | forward (m/s) | lateral (m/s) | yaw rate (rad/s) |")
    print("|---|---|---|---|---|")
    for p in r["phases"]:
        print(f"| {p['phase']} | {tuple(p['command'])} | {p['forward']:.3f} | {p['lateral']:.3f} | "
              f"{p['yaw_rate']:.3f} |")
    turn = next(p for p in r["phases"] if p["phase"] == "turn")
    print(f"\nheading change over the turn {turn['heading_change']:.3f} rad (commanded 0.6); max |roll| "
          f"{r['max_abs_roll']:.3f}, |pitch| {r['max_abs_pitch']:.3f}; speed over the last 0.5 s "
          f"{r['final_mean_speed']:.3f} m/s; lowest base {r['min_base_z']:.3f} m")
    print(f"criteria met: {ok}" + ("" if ok else f" ({'; '.join(why)})"))
    print(r["node"])
    if a.json:
        with open(a.json, "w") as f:
            json.dump(r, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
