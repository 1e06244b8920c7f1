#!/usr/bin/env python3
"""Write Pinocchio reference data for the model tests of fesdj_mpc.

Uses PyPI `pin` (Pinocchio) and `example-robot-data` (whose wheel ships the URDFs). For each
robot it writes, into the output folder (default `target/reference`):

  urdf/<robot>.urdf           a copy of the URDF from example-robot-data (not committed)
  dynamics/<robot>.json       Pinocchio values in the layout of shared/reference/dynamics/*.json

Robots: double_pendulum, double_pendulum_continuous (continuous joints: q = [cos, sin]), ur5,
panda, solo12 (fixed base and free-flyer) from example-robot-data, and this repository's own
scenario robots urdf/quadruped.urdf (fixed base and free-flyer) and urdf/pusher_arm.urdf.
Fixed-base samples also carry Pinocchio's computeRNEADerivatives (`dtau_dq`, `dtau_dv`,
row-major nv x nv).

    python3 tools/pinocchio_reference.py [OUT_DIR]

Install the dependencies with `pip install pin example-robot-data`.
"""

import importlib.metadata
import json
import os
import shutil
import sys

import numpy as np
import pinocchio as pin

ROBOTS = {
    "double_pendulum": ("double_pendulum_description/urdf/double_pendulum.urdf", ["link1", "link2"], False),
    "double_pendulum_continuous": (
        "double_pendulum_description/urdf/double_pendulum_continuous.urdf",
        ["link1", "link2"],
        False,
    ),
    "ur5": ("ur_description/urdf/ur5_robot.urdf", ["tool0", "ee_link", "forearm_link"], False),
    "panda": (
        "panda_description/urdf/panda.urdf",
        ["panda_hand_tcp", "panda_link8", "panda_leftfinger", "panda_rightfinger"],
        False,
    ),
    "solo12": ("solo_description/robots/solo12.urdf", ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"], True),
    # Our scenario robots (paths relative to the repository root).
    "quadruped": ("repo:urdf/quadruped.urdf", ["FL_foot", "FR_foot", "HL_foot", "HR_foot", "body"], True),
    "pusher_arm": ("repo:urdf/pusher_arm.urdf", ["tool", "forearm"], False),
}
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SAMPLES = 5

CONVENTIONS = {
    "matrices": "row-major: a list of rows",
    "gravity": "model.gravity = [0, 0, -9.81] m/s^2 in the world frame (Pinocchio default)",
    "M": "joint-space mass matrix from crba, full symmetric nv x nv",
    "nle": "h(q,v) = C(q,v) v + g(q) from nonLinearEffects (= rnea(q, v, 0))",
    "gravity_torque": "g(q) from computeGeneralizedGravity (= rnea(q, 0, 0))",
    "tau_rnea": "rnea(q, v, a) = M(q) a + h(q, v)",
    "aba": "qdd_aba = aba(q, v, tau_aba); tau_aba = tau_rnea + a random perturbation",
    "rnea_derivatives": "fixed-base samples: dtau_dq, dtau_dv from computeRNEADerivatives (nv x nv)",
    "frames": "world placement oMf (translation, rotation with the frame axes as columns) and "
    "computeFrameJacobian(..., LOCAL_WORLD_ALIGNED): rows 0-2 linear velocity of the frame "
    "origin in world axes, rows 3-5 angular velocity in world axes",
    "joint_order": "Pinocchio depth-first order of the URDF tree; fixed joints are merged into "
    "the parent body; mimic tags are ignored (independent DoF)",
    "revolute_unbounded": "URDF continuous joints are JointModelRUB*: nq=2, nv=1, q = [cos, sin]",
    "free_flyer": "floating_base: root joint 'root_joint' = JointModelFreeFlyer; q = [position, "
    "quaternion (x, y, z, w)], v = local twist [v; omega] in the base frame, tau[0:6] = base wrench "
    "in the base frame",
    "com": "centerOfMass(model, data, q): centre of mass of the moving bodies",
    "total_mass": "sum of all body inertias including the universe (fixed root link)",
}


def robots_dir():
    dist = importlib.metadata.distribution("example-robot-data")
    path = dist.locate_file("cmeel.prefix/share/example-robot-data/robots")
    if not os.path.isdir(path):
        raise SystemExit(f"example-robot-data robots folder not found at {path}")
    return str(path)


def se3(m):
    return {"translation": m.translation.tolist(), "rotation": m.rotation.tolist()}


def joint_table(model):
    out = []
    for i in range(1, model.njoints):
        j = model.joints[i]
        inertia = model.inertias[i]
        out.append(
            {
                "name": model.names[i],
                "type": j.shortname(),
                "parent": model.names[model.parents[i]],
                "idx_q": j.idx_q,
                "nq": j.nq,
                "idx_v": j.idx_v,
                "nv": j.nv,
                "placement": se3(model.jointPlacements[i]),
                "inertia": {
                    "mass": float(inertia.mass),
                    "com": inertia.lever.tolist(),
                    "inertia_com": inertia.inertia.tolist(),
                },
                "lower_position_limit": model.lowerPositionLimit[j.idx_q : j.idx_q + j.nq].tolist(),
                "upper_position_limit": model.upperPositionLimit[j.idx_q : j.idx_q + j.nq].tolist(),
            }
        )
    return out


def random_q(model, rng):
    q = np.zeros(model.nq)
    for i in range(1, model.njoints):
        j = model.joints[i]
        name = j.shortname()
        if "FreeFlyer" in name:
            quat = rng.normal(size=4)
            quat /= np.linalg.norm(quat)
            q[j.idx_q : j.idx_q + 3] = rng.uniform(-1, 1, 3)
            q[j.idx_q + 3 : j.idx_q + 7] = quat
        elif j.nq == 2:
            th = rng.uniform(-np.pi, np.pi)
            q[j.idx_q : j.idx_q + 2] = [np.cos(th), np.sin(th)]
        else:
            q[j.idx_q] = rng.uniform(-np.pi, np.pi)
    return q


def variant(model, frames, seed, root_name, derivatives):
    rng = np.random.default_rng(seed)
    data = model.createData()
    fids = [model.getFrameId(f) for f in frames]
    samples = []
    for _ in range(SAMPLES):
        q = random_q(model, rng)
        v = rng.uniform(-2, 2, model.nv)
        a = rng.uniform(-3, 3, model.nv)
        M = pin.crba(model, data, q).copy()
        M = np.triu(M) + np.triu(M, 1).T
        nle = pin.nonLinearEffects(model, data, q, v).copy()
        g = pin.computeGeneralizedGravity(model, data, q).copy()
        tau = pin.rnea(model, data, q, v, a).copy()
        tau_aba = tau + rng.uniform(-1, 1, model.nv)
        qdd = pin.aba(model, data, q, v, tau_aba).copy()
        com = pin.centerOfMass(model, data, q).copy()
        pin.forwardKinematics(model, data, q)
        pin.updateFramePlacements(model, data)
        fr = {}
        for name, fid in zip(frames, fids):
            J = pin.computeFrameJacobian(model, data, q, fid, pin.LOCAL_WORLD_ALIGNED)
            fr[name] = {**se3(data.oMf[fid]), "jacobian_local_world_aligned": J.tolist()}
        s = {
            "q": q.tolist(),
            "v": v.tolist(),
            "a": a.tolist(),
            "M": M.tolist(),
            "nle": nle.tolist(),
            "gravity_torque": g.tolist(),
            "tau_rnea": tau.tolist(),
            "tau_aba": tau_aba.tolist(),
            "qdd_aba": qdd.tolist(),
            "com": com.tolist(),
            "frames": fr,
        }
        if derivatives:
            dq, dv, _ = pin.computeRNEADerivatives(model, data, q, v, a)
            s["dtau_dq"] = dq.tolist()
            s["dtau_dv"] = dv.tolist()
        samples.append(s)
    return {
        "root_joint": root_name,
        "nq": model.nq,
        "nv": model.nv,
        "njoints_including_universe": model.njoints,
        "joint_names": list(model.names)[1:],
        "total_mass": float(sum(model.inertias[i].mass for i in range(model.njoints))),
        "joints": joint_table(model),
        "frames": [
            {
                "name": f,
                "type": "BODY",
                "parent_joint": model.names[model.frames[fid].parentJoint],
                "placement_in_parent_joint": se3(model.frames[fid].placement),
            }
            for f, fid in zip(frames, fids)
        ],
        "rng_seed": seed,
        "samples": samples,
    }


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "target/reference"
    base = robots_dir()
    os.makedirs(os.path.join(out, "urdf"), exist_ok=True)
    os.makedirs(os.path.join(out, "dynamics"), exist_ok=True)
    for k, (robot, (rel, frames, floating)) in enumerate(ROBOTS.items()):
        src = os.path.join(REPO, rel[5:]) if rel.startswith("repo:") else os.path.join(base, rel)
        urdf = os.path.join(out, "urdf", robot + ".urdf")
        shutil.copyfile(src, urdf)
        variants = {"fixed_base": variant(pin.buildModelFromUrdf(urdf), frames, 1000 + k, None, True)}
        if floating:
            ff = pin.buildModelFromUrdf(urdf, pin.JointModelFreeFlyer())
            variants["floating_base"] = variant(
                ff, frames, 2000 + k, "JointModelFreeFlyer named 'root_joint'", False
            )
        doc = {
            "robot": robot,
            "source": {"repository": "fesdj_mpc", "urdf_path": rel[5:]}
            if rel.startswith("repo:")
            else {
                "package": "example-robot-data",
                "version": importlib.metadata.version("example-robot-data"),
                "urdf_path_in_package": rel,
            },
            "generator": {
                "pinocchio": pin.__version__,
                "numpy": np.__version__,
                "script": "tools/pinocchio_reference.py",
            },
            "gravity": pin.Model().gravity.linear.tolist(),
            "conventions": CONVENTIONS,
            "variants": variants,
        }
        with open(os.path.join(out, "dynamics", robot + ".json"), "w") as f:
            json.dump(doc, f, indent=1)
        print(f"wrote {robot}: {', '.join(variants)}")


if __name__ == "__main__":
    main()
