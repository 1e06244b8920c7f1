#!/usr/bin/env python3
"""Check that tools/mujoco_sim.py's pushes deliver their impulse (force × duration).

    python3 tools/mujoco_push_check.py [--scenario tools/scenarios/quadruped.yaml]
        [--push 0.05,0.1,0,80,0] [--tol 1e-3]

Compiles the scenario's robot as the bridge does, switches gravity off and lifts the robot 1 m
above everything (no contact), leaves the motors at zero torque and steps MuJoCo with the
bridge's push schedule (`Pushes`, the same code; the scenario's `push` list plus `--push`,
default one push of 80 N along +y for 0.1 s). With no other external force the robot's total
linear momentum (mass × velocity of its mass centre, `mj_subtreeVel`) changes by exactly the sum
of the impulses. Prints one JSON object: per push the requested impulse and the integral of
`xfrc_applied` over the steps it was applied, the momentum change, and the largest relative
error; exit status 1 if an error exceeds `--tol` or the robot touched anything, 2 on bad input.
"""

import argparse
import json
import os
import sys

import numpy as np

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TOOLS)

import mujoco  # noqa: E402

import mujoco_sim as ms  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", default=os.path.join(TOOLS, "scenarios", "quadruped.yaml"))
    ap.add_argument("--push", action="append", default=[], metavar=ms.PUSH_FORMAT)
    ap.add_argument("--tol", type=float, default=1e-3, help="largest relative error of the momentum change")
    a = ap.parse_args(argv)
    try:
        setup = ms.load_setup(a.scenario)
        pushes = setup["pushes"] + [ms.parse_push_option(p) for p in (a.push or ["0.05,0.1,0,80,0"])]
        setup["gravity"] = [0.0, 0.0, 0.0]
        model, _, _ = ms.compile_model(setup)
        root_body = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, setup["urdf"]["root"])
        schedule = ms.Pushes(pushes, model, setup["urdf"]["root"])
    except ms.SetupError as e:
        print(f"mujoco_push_check: {e}", file=sys.stderr)
        return 2
    data = mujoco.MjData(model)
    if setup["initial_q"] is not None:
        ms.set_q(setup, model, data, setup["initial_q"])
    if setup["root"] in ("floating", "floating_zyx"):
        adr = model.jnt_qposadr[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, "root_joint")]
        data.qpos[adr + 2] += 1.0
    mass = float(model.body_subtreemass[root_body])

    def momentum():
        mujoco.mj_forward(model, data)
        mujoco.mj_subtreeVel(model, data)
        return mass * np.array(data.subtree_linvel[root_body])

    p0 = momentum()
    t_end = max(it["k1"] for it in schedule.items) * schedule.dt + 0.05
    events, contacts = [], 0
    k = 0
    while data.time < t_end - 1e-12:
        schedule.apply(data, k, events)
        mujoco.mj_step(model, data)
        contacts += data.ncon
        k += 1
    dp = momentum() - p0
    report = schedule.report()
    total = np.sum([r["impulse"] for r in report], axis=0)
    applied = np.sum([r["applied_impulse"] for r in report], axis=0)
    scale = max(float(np.linalg.norm(total)), 1e-12)
    out = {
        "scenario": os.path.abspath(a.scenario),
        "mass": mass,
        "pushes": report,
        "impulse": total.tolist(),
        "applied_impulse": applied.tolist(),
        "momentum_change": dp.tolist(),
        "xfrc_error": float(np.linalg.norm(applied - total)) / scale,
        "momentum_error": float(np.linalg.norm(dp - total)) / scale,
        "contacts": int(contacts),
        "steps": k,
    }
    print(json.dumps(out))
    bad = out["xfrc_error"] > a.tol or out["momentum_error"] > a.tol or contacts > 0
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
