#!/usr/bin/env python3
"""Check the MuJoCo model that tools/mujoco_sim.py compiles against the URDF it came from.

    python3 tools/mujoco_model_check.py --scenario tools/scenarios/hopper.yaml [--samples 5]
        [--seed 1] [--out check.json]

Prints (and writes with --out) one JSON object:
  * `links`: per URDF link, the mass, mass centre and inertia about the mass centre (link axes)
    read back from the compiled MuJoCo model (body_mass, body_ipos, body_iquat, body_inertia)
    next to the URDF's, and the worst differences `max_mass_error`, `max_com_error`,
    `max_inertia_error`; `total_mass` (mj_getTotalmass) and the URDF sum;
  * `coordinates`: our model's coordinate names (root coordinates, then URDF joints depth first);
  * `samples`: random q, v in those coordinates with MuJoCo's joint-space mass matrix
    (`mj_fullM`), bias forces `qfrc_bias` = C(q,v) v + g(q) and gravity forces (bias at v = 0),
    all in our coordinate order, for a Rust test to compare with our crba / nonlinear effects.
A `floating_zyx` root is compiled here as six joints (slides x, y, z; hinges z, y, x, i.e.
Rz(yaw) Ry(pitch) Rx(roll)) instead of the bridge's free joint, so that the coordinates are
ours; the bodies below the root are the same.
"""

import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import mujoco  # noqa: E402

import mujoco_sim as ms  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--config")
    ap.add_argument("--samples", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out")
    a = ap.parse_args(argv)
    setup = ms.load_setup(a.scenario, a.config)
    if setup["root"] == "floating_zyx":
        ms.ROOT_COORDS["floating_zyx"] = [
            ("root_x", "slide", (1, 0, 0)),
            ("root_y", "slide", (0, 1, 0)),
            ("root_z", "slide", (0, 0, 1)),
            ("root_yaw", "hinge", (0, 0, 1)),
            ("root_pitch", "hinge", (0, 1, 0)),
            ("root_roll", "hinge", (1, 0, 0)),
        ]
        setup["root"] = "zyx_chain"
        ms.ROOT_COORDS["zyx_chain"] = ms.ROOT_COORDS["floating_zyx"]
    # The scenario's free bodies (a box) are not part of the robot: leave them out here.
    setup["scenario"] = {k: v for k, v in setup["scenario"].items() if k not in ("box",)}
    model, _, _ = ms.compile_model(setup)
    data = mujoco.MjData(model)
    urdf = setup["urdf"]

    links = []
    worst = {"mass": 0.0, "com": 0.0, "inertia": 0.0}
    for name, l in urdf["links"].items():
        b = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name)
        if b < 0:
            raise SystemExit(f"link {name}: no MuJoCo body")
        mass = float(model.body_mass[b])
        com = model.body_ipos[b].tolist()
        r = np.zeros(9)
        mujoco.mju_quat2Mat(r, model.body_iquat[b])
        r = r.reshape(3, 3)
        inertia = r @ np.diag(model.body_inertia[b]) @ r.T
        e_m = abs(mass - l["mass"])
        e_c = float(np.max(np.abs(np.array(com) - np.array(l["com"])))) if l["mass"] > 0 else 0.0
        e_i = float(np.max(np.abs(inertia - l["inertia"])))
        worst["mass"] = max(worst["mass"], e_m)
        worst["com"] = max(worst["com"], e_c)
        worst["inertia"] = max(worst["inertia"], e_i)
        links.append({"name": name, "urdf_mass": l["mass"], "mujoco_mass": mass, "urdf_com": l["com"],
                      "mujoco_com": com, "urdf_inertia": l["inertia"].tolist(), "mujoco_inertia": inertia.tolist()})

    names = ms.coordinate_names(setup if setup["root"] != "zyx_chain" else {**setup, "root": "floating_zyx"})
    jids = [mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, n) for n in names]
    if min(jids) < 0 or model.nv != len(names) or model.nq != len(names):
        raise SystemExit(f"coordinates {names} do not map onto MuJoCo's joints (nq {model.nq}, nv {model.nv})")
    qadr = [int(model.jnt_qposadr[j]) for j in jids]
    vadr = [int(model.jnt_dofadr[j]) for j in jids]
    rng = np.random.default_rng(a.seed)
    samples = []
    full = np.zeros((model.nv, model.nv))
    for _ in range(a.samples):
        q = np.zeros(len(names))
        for i, j in enumerate(jids):
            if model.jnt_limited[j]:
                lo, hi = model.jnt_range[j]
                q[i] = rng.uniform(lo, hi)
            else:
                q[i] = rng.uniform(-1.0, 1.0)
        v = rng.uniform(-2.0, 2.0, len(names))
        data.qpos[qadr] = q
        data.qvel[vadr] = 0.0
        mujoco.mj_forward(model, data)
        grav = data.qfrc_bias[vadr].copy()
        data.qvel[vadr] = v
        mujoco.mj_forward(model, data)
        mujoco.mj_fullM(model, data, full)
        M = full[np.ix_(vadr, vadr)]
        samples.append({"q": q.tolist(), "v": v.tolist(), "M": M.tolist(), "bias": data.qfrc_bias[vadr].tolist(),
                        "gravity": grav.tolist()})
    out = {
        "scenario": setup["scenario_path"],
        "urdf": setup["urdf_path"],
        "root": "floating_zyx" if setup["root"] == "zyx_chain" else setup["root"],
        "mujoco": mujoco.__version__,
        "total_mass": float(mujoco.mj_getTotalmass(model)),
        "urdf_total_mass": float(sum(l["mass"] for l in urdf["links"].values())),
        "max_mass_error": worst["mass"],
        "max_com_error": worst["com"],
        "max_inertia_error": worst["inertia"],
        "links": links,
        "coordinates": names,
        "gravity": list(map(float, model.opt.gravity)),
        "samples": samples,
    }
    text = json.dumps(out)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
