#!/usr/bin/env python3
"""MuJoCo plant for the fesdj_mpc node, bridged over ROS 2 DDS (a test tool, not the product).

    python3 tools/mujoco_sim.py --scenario tools/scenarios/hopper.yaml [--duration 10]
        [--domain-id 0] [--command-timeout 0.1] [--log run.json] [--frames strip.png]
        [--effort-joints hip,leg] [--push T,DURATION,FX,FY,FZ[,BODY]] [--print-mjcf]

A scenario file (tools/scenarios/*.yaml) names the node's problem config (`config:`), whose
`model.robot` section (urdf, root, actuated, contacts; `model.mu`; `initial.q`) gives the robot,
or carries such a `robot:` section itself, plus the environment: `ground`, `table`, `box`,
`obstacles` (see README.md, "Validation in MuJoCo").

The robot is compiled from the URDF by this tool (one MuJoCo body per link, inertials as written,
fixed joints as welded bodies; meshes are dropped, primitive <visual> shapes kept for pictures,
primitive <collision> shapes collide with the environment, e.g. a body that falls onto the
ground). The
root joint follows the config: a free joint (`root_joint`) for `floating` / `floating_zyx`,
slide/hinge joints named as our model names the base coordinates (`root_x`, `root_z`,
`root_pitch` for `planar_xz`; `root_x`, `root_y`, `root_yaw` for `planar_xy`), none for `fixed`.
Each config contact becomes a collision sphere in its frame's body; a point contact (radius 0)
becomes a sphere of `point_radius` centred at the point, and the ground under point contacts is
lowered by that radius, so contact starts when the point reaches the configured height. One
motor per actuated joint, limited to the URDF effort.

Running: physics at 1 kHz paced to the wall clock; `joint_states` (sensor_msgs/JointState) at
250 Hz with every hinge/slide joint of the robot in our model's coordinate order (the planar root
coordinates included), effort = applied actuator force; for a floating base also `odom`
(nav_msgs/Odometry: world pose, twist in the base frame); a scenario box is published as extra
joints `box_x`, `box_y`, `box_yaw` (or, with `box.joints` of 4 names, x, y, z, yaw). The latest `/fesdj_mpc/effort_command`
(std_msgs/Float64MultiArray in `--effort-joints` order, default the config's `actuated`) is held;
a command older than `--command-timeout` seconds is replaced by zero torque. The log (JSON,
`--log`) has, at 250 Hz: time, q, v, applied command, command age, contact forces and contact
point positions, plus a summary. SIGINT/SIGTERM end the run cleanly (log written, exit 0).

Pushes (the scenario's `push: [{t, duration, force: [fx, fy, fz], body}]` plus `--push`,
repeatable): a world-frame force (N) on the named body's mass centre (`base`, the default, is the
robot's root link) through MuJoCo's `xfrc_applied`, for the physics steps from round(t / dt) on,
round(duration / dt) of them; logged as `push` / `push end` events. The summary says how the
robot came through: `non_foot_contacts` (robot geoms other than the config's contact points
touching anything, e.g. the body on the floor: steps, first time, geoms), and with pushes
`pushes` (the impulse requested and the integral of the applied force) and `after_push` (from
the first push on, every physics step: largest |roll| and |pitch| of a floating base, lowest
base height, first non-foot contact; the base at the push and at the end, the lateral
displacement, and over the last 0.5 s the largest |roll| and |pitch| and the mean and largest
world-frame velocities).

Lockstep (`--lockstep PERIOD`, for a node started with `use_sim_time:=true`): the simulator's
clock is shared instead of the wall clock. It publishes `/clock` (rosgraph_msgs/Clock) with every
state, stamps states with the simulated time, and at every multiple of PERIOD (the node's
command period) holds the time until the node's command for that state has arrived; physics is
not paced. A slow solve then slows the run down instead of degrading it, and a fast one runs
faster than real time. Command ages count simulated time.
"""

import argparse
import json
import math
import os
import signal
import struct
import sys
import time
import xml.etree.ElementTree as ET
import zlib

import numpy as np
import yaml

TOOLS = os.path.dirname(os.path.abspath(__file__))

ROOT_COORDS = {
    "fixed": [],
    "floating": [],  # free joint
    "floating_zyx": [],  # free joint; the node reads the base from odom
    "planar_xz": [("root_x", "slide", (1, 0, 0)), ("root_z", "slide", (0, 0, 1)), ("root_pitch", "hinge", (0, 1, 0))],
    "planar_xy": [("root_x", "slide", (1, 0, 0)), ("root_y", "slide", (0, 1, 0)), ("root_yaw", "hinge", (0, 0, 1))],
}
ROBOT_CONTYPE, ROBOT_CONAFFINITY = 2, 0  # robot spheres touch the environment, not each other
ENV_CONTYPE, ENV_CONAFFINITY = 1, 3


class SetupError(Exception):
    pass


# --- URDF --------------------------------------------------------------------------------------
def _floats(text, n, default):
    if text is None:
        return list(default)
    v = [float(x) for x in text.split()]
    if len(v) != n:
        raise SetupError(f"expected {n} numbers, got '{text}'")
    return v


def rpy_matrix(rpy):
    r, p, y = rpy
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    ry = np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
    rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
    return rz @ ry @ rx


def mat_quat(r):
    """Unit quaternion (w, x, y, z) of a rotation matrix."""
    import mujoco

    q = np.zeros(4)
    mujoco.mju_mat2Quat(q, np.asarray(r, dtype=float).reshape(9))
    return q


def parse_urdf(path):
    """Links (mass, com, inertia about the com in link axes) and joints of a URDF file."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        raise SetupError(f"{path}: {e}") from e
    links = {}
    for l in root.findall("link"):
        inertial = l.find("inertial")
        link = {"name": l.get("name"), "mass": 0.0, "com": [0.0] * 3, "inertia": np.zeros((3, 3))}
        if inertial is not None:
            o = inertial.find("origin")
            xyz = _floats(o.get("xyz") if o is not None else None, 3, [0, 0, 0])
            rpy = _floats(o.get("rpy") if o is not None else None, 3, [0, 0, 0])
            m = inertial.find("mass")
            link["mass"] = float(m.get("value")) if m is not None else 0.0
            i = inertial.find("inertia")
            g = (lambda k: float(i.get(k, "0"))) if i is not None else (lambda k: 0.0)
            ic = np.array(
                [[g("ixx"), g("ixy"), g("ixz")], [g("ixy"), g("iyy"), g("iyz")], [g("ixz"), g("iyz"), g("izz")]]
            )
            r = rpy_matrix(rpy)
            link["com"] = xyz
            link["inertia"] = r @ ic @ r.T
        if l.find("visual/geometry/mesh") is not None or l.find("collision/geometry/mesh") is not None:
            link["had_mesh"] = True
        # Primitive shapes: <visual> for pictures only, <collision> also collide with the
        # environment (meshes are dropped).
        link["visuals"] = []
        for tag in ("visual", "collision"):
            for vis in l.findall(tag):
                o = vis.find("origin")
                xyz = _floats(o.get("xyz") if o is not None else None, 3, [0, 0, 0])
                rpy = _floats(o.get("rpy") if o is not None else None, 3, [0, 0, 0])
                g = vis.find("geometry")
                el = {"pos": _v(xyz), "quat": _v(mat_quat(rpy_matrix(rpy))), "mass": "0", "contype": "0",
                      "conaffinity": "0", "group": "1", "rgba": ".75 .75 .8 1"}
                if tag == "collision":
                    el.update(contype=str(ROBOT_CONTYPE), conaffinity=str(ROBOT_CONAFFINITY), group="3",
                              friction="0.5 0.005 0.0001")
                if g is None:
                    continue
                if g.find("box") is not None:
                    el.update(type="box", size=_v([x / 2 for x in _floats(g.find("box").get("size"), 3, [0, 0, 0])]))
                elif g.find("cylinder") is not None:
                    c = g.find("cylinder")
                    el.update(type="cylinder", size=_v([float(c.get("radius")), float(c.get("length")) / 2]))
                elif g.find("sphere") is not None:
                    el.update(type="sphere", size=g.find("sphere").get("radius"))
                else:
                    continue
                link["visuals"].append(el)
        links[link["name"]] = link
    joints = []
    for j in root.findall("joint"):
        o = j.find("origin")
        lim = j.find("limit")
        dyn = j.find("dynamics")
        ax = j.find("axis")
        joints.append(
            {
                "name": j.get("name"),
                "type": j.get("type"),
                "parent": j.find("parent").get("link"),
                "child": j.find("child").get("link"),
                "xyz": _floats(o.get("xyz") if o is not None else None, 3, [0, 0, 0]),
                "rpy": _floats(o.get("rpy") if o is not None else None, 3, [0, 0, 0]),
                "axis": _floats(ax.get("xyz") if ax is not None else None, 3, [1, 0, 0]),
                "lower": float(lim.get("lower", "0")) if lim is not None else None,
                "upper": float(lim.get("upper", "0")) if lim is not None else None,
                "effort": float(lim.get("effort")) if lim is not None and lim.get("effort") else None,
                "damping": float(dyn.get("damping", "0")) if dyn is not None else 0.0,
            }
        )
    children = {j["child"] for j in joints}
    roots = [n for n in links if n not in children]
    if len(roots) != 1:
        raise SetupError(f"{path}: expected one root link, found {roots}")
    return {"name": root.get("name"), "links": links, "joints": joints, "root": roots[0]}


def movable(j):
    return j["type"] in ("revolute", "continuous", "prismatic")


def dfs_joints(urdf):
    """Joints depth first from the root, children in declaration order (our model's order)."""
    out = []

    def visit(link):
        for j in urdf["joints"]:
            if j["parent"] == link:
                out.append(j)
                visit(j["child"])

    visit(urdf["root"])
    return out


# --- setup: scenario + node config ---------------------------------------------------------------
def load_setup(scenario_path, config_path=None):
    sdir = os.path.dirname(os.path.abspath(scenario_path))
    try:
        with open(scenario_path) as f:
            sc = yaml.safe_load(f) or {}
    except (OSError, yaml.YAMLError) as e:
        raise SetupError(f"{scenario_path}: {e}") from e
    mu = sc.get("mu")
    initial = (sc.get("initial") or {}).get("q")
    if config_path is None and sc.get("config"):
        config_path = os.path.join(sdir, sc["config"])
    if config_path is not None:
        try:
            with open(config_path) as f:
                cfg = yaml.safe_load(f)
        except (OSError, yaml.YAMLError) as e:
            raise SetupError(f"{config_path}: {e}") from e
        model = cfg.get("model") or {}
        robot = model.get("robot")
        if robot is None:
            raise SetupError(f"{config_path}: no model.robot section")
        base = os.path.dirname(os.path.abspath(config_path))
        mu = model.get("mu", mu)
        if initial is None:
            initial = (cfg.get("initial") or {}).get("q")
    else:
        robot = sc.get("robot")
        if robot is None:
            raise SetupError(f"{scenario_path}: neither `config` nor `robot`")
        base = sdir
    root = robot.get("root", "fixed")
    if root not in ROOT_COORDS:
        raise SetupError(f"root `{root}` is not one of {sorted(ROOT_COORDS)}")
    urdf_path = os.path.normpath(os.path.join(base, robot["urdf"]))
    return {
        "scenario": sc,
        "scenario_path": os.path.abspath(scenario_path),
        "config_path": os.path.abspath(config_path) if config_path else None,
        "urdf_path": urdf_path,
        "urdf": parse_urdf(urdf_path),
        "root": root,
        "actuated": list(robot.get("actuated", [])),
        "contacts": list(robot.get("contacts", [])),
        "mu": float(mu) if mu is not None else 0.0,
        "initial_q": initial,
        "gravity": robot.get("gravity", [0, 0, -9.81]),
        "pushes": scenario_pushes(sc, scenario_path),
    }


def coordinate_names(setup):
    """Names of our model's coordinates q (root coordinates, then URDF joints depth first)."""
    root = setup["root"]
    names = [c[0] for c in ROOT_COORDS[root]]
    if root == "floating_zyx":
        names = ["root_x", "root_y", "root_z", "root_yaw", "root_pitch", "root_roll"]
    return names + [j["name"] for j in dfs_joints(setup["urdf"]) if movable(j)]


# --- MJCF ----------------------------------------------------------------------------------------
def _v(x):
    return " ".join(f"{float(a):.17g}" for a in x)


def build_mjcf(setup):
    """The MJCF text of the scenario and a description of what it contains."""
    urdf, sc = setup["urdf"], setup["scenario"]
    point_r = float(sc.get("point_radius", 0.005))
    mu = setup["mu"]
    ground = sc.get("ground", {"height": 0.0})
    info = {"contacts": [], "point_radius": point_r, "notes": []}
    m = ET.Element("mujoco", model=urdf["name"] or "robot")
    ET.SubElement(m, "compiler", angle="radian", autolimits="true", inertiafromgeom="false")
    opt = {"timestep": "0.001", "gravity": _v(setup["gravity"]), "integrator": "implicitfast"}
    # MuJoCo's friction is soft: a loaded contact creeps under a steady tangential force. A
    # scenario can stiffen it (`friction_cone: elliptic`, `impratio` > 1, MuJoCo's own options).
    if sc.get("friction_cone"):
        opt["cone"] = str(sc["friction_cone"])
    if sc.get("impratio"):
        opt["impratio"] = str(float(sc["impratio"]))
    ET.SubElement(m, "option", **opt)
    vis = ET.SubElement(m, "visual")
    ET.SubElement(vis, "global", offwidth="640", offheight="480")
    asset = ET.SubElement(m, "asset")
    ET.SubElement(asset, "texture", name="grid", type="2d", builtin="checker", width="256", height="256",
                  rgb1=".85 .85 .85", rgb2=".7 .7 .7")
    ET.SubElement(asset, "material", name="grid", texture="grid", texrepeat="8 8")
    world = ET.SubElement(m, "worldbody")
    ET.SubElement(world, "light", pos="0 -2 3", dir="0 0.6 -1", directional="true")
    friction = f"{mu} 0.005 0.0001"
    if ground is not None:
        h = float(ground.get("height", 0.0))
        has_point = any(float(c.get("radius", 0.0)) == 0.0 for c in setup["contacts"])
        zg = h - (point_r if has_point else 0.0)
        gf = ground.get("friction", mu)
        ET.SubElement(world, "geom", name="ground", type="plane", size="10 10 0.1", pos=f"0 0 {zg}",
                      friction=f"{gf} 0.005 0.0001", material="grid",
                      contype=str(ENV_CONTYPE), conaffinity=str(ENV_CONAFFINITY))
        info["ground_z"] = zg
    if sc.get("table"):
        t = sc["table"]
        ET.SubElement(world, "geom", name="table", type="box", size=_v(t["size"]), pos=_v(t["pos"]),
                      friction=f"{t.get('friction', mu)} 0.005 0.0001", rgba=".6 .45 .3 1",
                      contype=str(ENV_CONTYPE), conaffinity=str(ENV_CONAFFINITY))
    for k, o in enumerate(sc.get("obstacles") or []):
        ET.SubElement(world, "geom", name=o.get("name", f"obstacle{k}"), type=o.get("type", "box"),
                      size=_v(o["size"]), pos=_v(o["pos"]), friction=f"{o.get('friction', mu)} 0.005 0.0001",
                      rgba=".5 .5 .6 1", contype=str(ENV_CONTYPE), conaffinity=str(ENV_CONAFFINITY))
    if sc.get("box"):
        b = sc["box"]
        yaw = float(b.get("yaw", 0.0))
        body = ET.SubElement(world, "body", name="box", pos=_v(b["pos"]), quat=_v([math.cos(yaw / 2), 0, 0, math.sin(yaw / 2)]))
        ET.SubElement(body, "freejoint", name="box_free")
        hx, hy, hz = (float(x) for x in b["size"])
        bm = float(b["mass"])
        ET.SubElement(body, "inertial", pos="0 0 0", mass=str(bm),
                      diaginertia=_v([bm / 3 * (hy * hy + hz * hz), bm / 3 * (hx * hx + hz * hz), bm / 3 * (hx * hx + hy * hy)]))
        ET.SubElement(body, "geom", name="box_geom", type="box", size=_v(b["size"]), mass=str(b["mass"]),
                      friction=f"{b.get('friction', mu)} 0.005 0.0001", rgba=".2 .5 .8 1",
                      contype=str(ENV_CONTYPE), conaffinity=str(ENV_CONAFFINITY))
        info["box"] = list(b.get("joints", ["box_x", "box_y", "box_yaw"]))
        if len(info["box"]) not in (3, 4):
            raise SetupError(f"scenario box.joints: 3 names (x, y, yaw) or 4 (x, y, z, yaw), got {info['box']}")

    contacts_by_link = {}
    for c in setup["contacts"]:
        if c["frame"] not in urdf["links"]:
            raise SetupError(f"contact frame `{c['frame']}` is not a link of {setup['urdf_path']}")
        contacts_by_link.setdefault(c["frame"], []).append(c)

    def add_link(parent_el, link_name, joint=None):
        link = urdf["links"][link_name]
        if joint is None:
            body = ET.SubElement(parent_el, "body", name=link_name)
            if setup["root"] in ("floating", "floating_zyx"):
                ET.SubElement(body, "freejoint", name="root_joint")
            for name, kind, axis in ROOT_COORDS[setup["root"]]:
                ET.SubElement(body, "joint", name=name, type=kind, axis=_v(axis), limited="false")
        else:
            r = rpy_matrix(joint["rpy"])
            body = ET.SubElement(parent_el, "body", name=link_name, pos=_v(joint["xyz"]), quat=_v(mat_quat(r)))
            if movable(joint):
                attrs = {"name": joint["name"], "type": "slide" if joint["type"] == "prismatic" else "hinge",
                         "axis": _v(joint["axis"]), "damping": str(joint["damping"]),
                         "solreflimit": "0.004 1"}  # stiff joint stops (MuJoCo's default is 0.02)
                if joint["type"] != "continuous" and joint["lower"] is not None and joint["upper"] > joint["lower"]:
                    attrs["range"] = _v([joint["lower"], joint["upper"]])
                    attrs["limited"] = "true"
                else:
                    attrs["limited"] = "false"
                ET.SubElement(body, "joint", **attrs)
                if joint["type"] == "prismatic" and joint["lower"]:
                    # display only: the guide of a prismatic joint, in the parent body
                    a = np.array(joint["axis"]) * joint["lower"] + np.array(joint["xyz"])
                    ET.SubElement(parent_el, "geom", type="capsule", fromto=_v(list(joint["xyz"]) + list(a)),
                                  size="0.02", mass="0", contype="0", conaffinity="0", rgba=".4 .4 .5 1", group="1")
                    rod = -np.array(joint["axis"]) * (joint["upper"] - joint["lower"])
                    ET.SubElement(body, "geom", type="capsule", fromto=_v([0, 0, 0] + list(rod)), size="0.01",
                                  mass="0", contype="0", conaffinity="0", rgba=".3 .3 .3 1", group="1")
            elif joint["type"] != "fixed":
                raise SetupError(f"joint `{joint['name']}`: type `{joint['type']}` is not supported")
        if link.get("had_mesh"):
            info["notes"].append(f"link {link_name}: meshes dropped")
        if link["mass"] > 0:
            i = link["inertia"]
            ET.SubElement(body, "inertial", pos=_v(link["com"]), mass=f"{link['mass']:.17g}",
                          fullinertia=_v([i[0, 0], i[1, 1], i[2, 2], i[0, 1], i[0, 2], i[1, 2]]))
        ET.SubElement(body, "site", name=link_name, size="0.005", rgba="1 0 0 0")
        for c in contacts_by_link.get(link_name, []):
            rad = float(c.get("radius", 0.0))
            name = c.get("name") or c["frame"]
            cmu = c.get("mu", mu)
            # MuJoCo mixes the solref of two touching geoms by their solmix weights (default
            # 1 each: the average); the robot's contact geoms dominate so that the scenario's
            # contact_solref holds against the ground, table and box alike.
            extra = ({"solref": _v(sc["contact_solref"]), "solmix": "1000"}
                     if sc.get("contact_solref") else {})
            ET.SubElement(body, "geom", name=f"contact_{name}", type="sphere", size=str(rad if rad > 0 else point_r), **extra,
                          pos=_v(c.get("offset", [0, 0, 0])), friction=f"{cmu} 0.005 0.0001", mass="0",
                          rgba=".9 .2 .2 1", contype=str(ROBOT_CONTYPE), conaffinity=str(ROBOT_CONAFFINITY))
            ET.SubElement(body, "site", name=f"contact_{name}", pos=_v(c.get("offset", [0, 0, 0])), size="0.003")
            info["contacts"].append({"name": name, "frame": c["frame"], "radius": rad if rad > 0 else point_r})
        for j in urdf["joints"]:
            if j["parent"] == link_name:
                child = add_link(body, j["child"], j)
                # a visual-only bone from this body's origin to the child's
                if np.linalg.norm(j["xyz"]) > 1e-6:
                    ET.SubElement(body, "geom", type="capsule", fromto=_v([0, 0, 0] + list(j["xyz"])), size="0.012",
                                  mass="0", contype="0", conaffinity="0", rgba=".3 .3 .3 1", group="1")
                del child
        # bones to the contact points and the mass centre (only for display)
        for c in contacts_by_link.get(link_name, []):
            off = c.get("offset", [0, 0, 0])
            if np.linalg.norm(off) > 1e-6:
                ET.SubElement(body, "geom", type="capsule", fromto=_v([0, 0, 0] + list(off)), size="0.008",
                              mass="0", contype="0", conaffinity="0", rgba=".3 .3 .3 1", group="1")
        if link["mass"] > 0 and np.linalg.norm(link["com"]) > 1e-6:
            ET.SubElement(body, "geom", type="capsule", fromto=_v([0, 0, 0] + list(link["com"])), size="0.01",
                          mass="0", contype="0", conaffinity="0", rgba=".3 .3 .3 1", group="1")
        for vis_el in link.get("visuals", []):
            ET.SubElement(body, "geom", **vis_el)
        if not any(v["group"] == "1" for v in link.get("visuals", [])) and link["mass"] > 0:
            r = min(0.08, 0.045 * link["mass"] ** (1 / 3))
            ET.SubElement(body, "geom", type="sphere", size=f"{r:.4f}", mass="0", contype="0", conaffinity="0",
                          rgba=".8 .6 .2 1", group="1", pos=_v(link["com"]))
        return body

    add_link(world, urdf["root"])
    act = ET.SubElement(m, "actuator")
    jmap = {j["name"]: j for j in urdf["joints"]}
    for a in setup["actuated"]:
        j = jmap.get(a)
        if j is None or not movable(j):
            raise SetupError(f"actuated joint `{a}` is not a movable URDF joint")
        attrs = {"name": a, "joint": a, "gear": "1"}
        if j["effort"]:
            attrs["ctrlrange"] = _v([-j["effort"], j["effort"]])
            attrs["ctrllimited"] = "true"
        ET.SubElement(act, "motor", **attrs)
    return ET.tostring(m, encoding="unicode"), info


def zyx_quat(yaw, pitch, roll):
    """(w, x, y, z) of Rz(yaw) Ry(pitch) Rx(roll)."""
    return mat_quat(rpy_matrix([roll, pitch, yaw]))


def compile_model(setup):
    import mujoco

    xml, info = build_mjcf(setup)
    try:
        model = mujoco.MjModel.from_xml_string(xml)
    except ValueError as e:
        raise SetupError(f"MuJoCo cannot compile the scenario: {e}") from e
    return model, xml, info


def set_q(setup, model, data, q):
    """Set MuJoCo's state from our model's coordinates q (names of coordinate_names)."""
    import mujoco

    names = coordinate_names(setup)
    if len(q) != len(names):
        raise SetupError(f"initial q has {len(q)} entries, the model has {len(names)} ({names})")
    start = 0
    if setup["root"] in ("floating", "floating_zyx"):
        adr = model.jnt_qposadr[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, "root_joint")]
        if setup["root"] == "floating_zyx":
            data.qpos[adr : adr + 3] = q[0:3]
            data.qpos[adr + 3 : adr + 7] = zyx_quat(*q[3:6])
            start = 6
        else:
            raise SetupError("root `floating` (quaternion) is not a node configuration")
    for n, x in zip(names[start:], q[start:]):
        jid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, n)
        data.qpos[model.jnt_qposadr[jid]] = x


# --- pushes: external forces on a body for a while ----------------------------------------------
PUSH_KEYS = ("t", "duration", "force", "body")
CMD_VEL_PERIOD = 0.05
PUSH_FORMAT = "T,DURATION,FX,FY,FZ[,BODY]"


def _push_number(x, where, key):
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        raise SetupError(f"{where}: `{key}` must be a finite number, got {x!r}")
    return float(x)


def check_push(p, where):
    """A push (`t`, `duration` in s; world-frame `force` in N; `body`: `base` for the robot's root
    link, or a body name, default `base`) checked and normalised; SetupError naming `where`."""
    if not isinstance(p, dict):
        raise SetupError(f"{where}: expected a mapping with keys {', '.join(PUSH_KEYS)}, got {p!r}")
    unknown = sorted(str(k) for k in p if k not in PUSH_KEYS)
    if unknown:
        raise SetupError(f"{where}: unknown keys {unknown} (known: {', '.join(PUSH_KEYS)})")
    for key in ("t", "duration", "force"):
        if key not in p:
            raise SetupError(f"{where}: `{key}` is missing")
    t = _push_number(p["t"], where, "t")
    duration = _push_number(p["duration"], where, "duration")
    if t < 0:
        raise SetupError(f"{where}: `t` must be >= 0, got {t}")
    if duration <= 0:
        raise SetupError(f"{where}: `duration` must be > 0, got {duration}")
    force = p["force"]
    if not isinstance(force, (list, tuple)) or len(force) != 3:
        raise SetupError(f"{where}: `force` must be 3 numbers (world frame, N), got {force!r}")
    force = [_push_number(f, where, "force") for f in force]
    body = p.get("body", "base")
    if not isinstance(body, str) or not body:
        raise SetupError(f"{where}: `body` must be a body name, got {body!r}")
    return {"t": t, "duration": duration, "force": force, "body": body, "where": where}


def parse_push_option(text):
    """The value of `--push T,DURATION,FX,FY,FZ[,BODY]` as a push; SetupError naming the option."""
    where = f"--push {text!r}"
    parts = [s.strip() for s in text.split(",")]
    if len(parts) not in (5, 6):
        raise SetupError(f"{where}: expected {PUSH_FORMAT} (5 numbers, then optionally a body), "
                         f"got {len(parts)} fields")
    nums = []
    for name, s in zip(("T", "DURATION", "FX", "FY", "FZ"), parts):
        try:
            nums.append(float(s))
        except ValueError:
            raise SetupError(f"{where}: {name} must be a number, got {s!r} (format {PUSH_FORMAT})") from None
    p = {"t": nums[0], "duration": nums[1], "force": nums[2:5]}
    if len(parts) == 6:
        p["body"] = parts[5]
    return check_push(p, where)


CMD_VEL_FORMAT = "T,VX,VY,WZ"


def parse_cmd_vel_option(text):
    """The value of `--cmd-vel T,VX,VY,WZ` as (t, [vx, vy, wz]); SetupError naming the option."""
    where = f"--cmd-vel {text!r}"
    parts = [s.strip() for s in text.split(",")]
    if len(parts) != 4:
        raise SetupError(f"{where}: expected {CMD_VEL_FORMAT} (4 numbers), got {len(parts)} fields")
    try:
        nums = [float(x) for x in parts]
    except ValueError:
        raise SetupError(f"{where}: every field must be a number (format {CMD_VEL_FORMAT})") from None
    if not all(math.isfinite(x) for x in nums) or nums[0] < 0:
        raise SetupError(f"{where}: the numbers must be finite and T >= 0")
    return nums[0], nums[1:]


def scenario_pushes(sc, scenario_path):
    """The scenario's `push` list, checked."""
    items = sc.get("push") or []
    if not isinstance(items, list):
        raise SetupError(f"{scenario_path}: `push` must be a list of {{t, duration, force, body}}")
    return [check_push(p, f"{scenario_path}: push[{i}]") for i, p in enumerate(items)]


def check_push_bodies(setup):
    """Every push names `base`, a URDF link or the scenario's `box`."""
    known = ["base"] + list(setup["urdf"]["links"]) + (["box"] if setup["scenario"].get("box") else [])
    for p in setup.get("pushes") or []:
        if p["body"] not in known:
            raise SetupError(f"{p.get('where', 'push')}: body `{p['body']}` is not `base` or one of {known[1:]}")


class Pushes:
    """Scheduled pushes: a world-frame force on a body's mass centre (MuJoCo's `xfrc_applied`)
    during the physics steps k0 <= k < k0 + n, k0 = round(t / dt) and n = round(duration / dt)
    (at least 1): the impulse is force × n dt, reported with the applied duration."""

    def __init__(self, pushes, model, root_link):
        import mujoco

        dt = float(model.opt.timestep)
        self.dt = dt
        self.items = []
        for p in pushes:
            name = root_link if p["body"] == "base" else p["body"]
            bid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name)
            if bid <= 0:  # -1: unknown; 0: the world
                bodies = [mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, i) for i in range(1, model.nbody)]
                raise SetupError(f"{p.get('where', 'push')}: body `{p['body']}` is not `base` or one of {bodies}")
            k0 = int(round(p["t"] / dt))
            n = max(1, int(round(p["duration"] / dt)))
            self.items.append({"spec": p, "body_name": name, "body_id": bid, "k0": k0, "k1": k0 + n, "n": n,
                               "force": np.array(p["force"], dtype=float), "applied": np.zeros(3)})
        self.bodies = sorted({it["body_id"] for it in self.items})

    def first_t(self):
        return min((it["k0"] * self.dt for it in self.items), default=None)

    def apply(self, data, k, events):
        """Set `xfrc_applied` for physics step k (before mj_step); log starts and ends."""
        if not self.items:
            return
        for b in self.bodies:
            data.xfrc_applied[b, :] = 0.0
        for it in self.items:
            if k == it["k0"]:
                events.append({"t": round(data.time, 6), "event": "push", "body": it["body_name"],
                               "force": it["force"].tolist(), "duration": round(it["n"] * self.dt, 9),
                               "impulse": (it["force"] * it["n"] * self.dt).tolist()})
            if k == it["k1"]:
                events.append({"t": round(data.time, 6), "event": "push end", "body": it["body_name"],
                               "applied_impulse": it["applied"].tolist()})
            if it["k0"] <= k < it["k1"]:
                data.xfrc_applied[it["body_id"], :3] += it["force"]
                it["applied"] += it["force"] * self.dt  # the integral of xfrc over the steps

    def report(self):
        return [{"t": it["k0"] * self.dt, "duration": round(it["n"] * self.dt, 9), "steps": it["n"],
                 "body": it["body_name"], "force": it["force"].tolist(),
                 "impulse": (it["force"] * it["n"] * self.dt).tolist(), "applied_impulse": it["applied"].tolist()}
                for it in self.items]


def roll_pitch_yaw(quat_wxyz):
    """ZYX angles (roll, pitch, yaw) of a unit quaternion (w, x, y, z)."""
    w, x, y, z = (float(a) for a in quat_wxyz)
    roll = math.atan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y))
    pitch = math.asin(max(-1.0, min(1.0, 2 * (w * y - z * x))))
    yaw = math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))
    return roll, pitch, yaw


class Recovery:
    """What a test needs to judge whether the robot came through: contacts of robot geoms other
    than the config's contact points (a body on the floor), and for a floating base after the
    first push (every physics step) the largest |roll| and |pitch|, the lowest base height, and
    the base's state at the end."""

    def __init__(self, model, root_body, root_adr, contact_geoms, first_push_t):
        self.m = model
        self.root_adr = root_adr  # (qpos, qvel) address of the free joint, or None
        robot_bodies = set()
        root = root_body
        for b in range(root_body, model.nbody):  # MuJoCo numbers children after parents
            if b == root or int(model.body_parentid[b]) in robot_bodies:
                robot_bodies.add(b)
        self.watch = np.zeros(model.ngeom, dtype=bool)  # robot geoms that may touch, not feet
        for g in range(model.ngeom):
            if (int(model.geom_bodyid[g]) in robot_bodies and g not in contact_geoms
                    and (model.geom_contype[g] or model.geom_conaffinity[g])):
                self.watch[g] = True
        self.any_watch = bool(self.watch.any())
        self.t_push = first_push_t
        self.other = {"steps": 0, "first_t": None, "geoms": []}
        self.after = None
        if first_push_t is not None:
            self.after = {"from_t": first_push_t, "base_at_push": None, "max_abs_roll": 0.0,
                          "max_abs_pitch": 0.0, "min_base_z": None, "non_foot_contact_t": None}

    def _geom_name(self, g):
        import mujoco

        name = mujoco.mj_id2name(self.m, mujoco.mjtObj.mjOBJ_GEOM, g)
        if name:
            return name
        body = mujoco.mj_id2name(self.m, mujoco.mjtObj.mjOBJ_BODY, int(self.m.geom_bodyid[g]))
        return f"{body} geom {g}"

    def step(self, d):
        """After each physics step."""
        t = float(d.time)
        after = self.after is not None and t >= self.t_push - 1e-9
        if self.any_watch:
            for i in range(d.ncon):
                c = d.contact[i]
                hit = [g for g in (int(c.geom1), int(c.geom2)) if self.watch[g]]
                if not hit:
                    continue
                o = self.other
                o["steps"] += 1
                if o["first_t"] is None:
                    o["first_t"] = round(t, 6)
                for g in hit:
                    n = self._geom_name(g)
                    if n not in o["geoms"]:
                        o["geoms"].append(n)
                if after and self.after["non_foot_contact_t"] is None:
                    self.after["non_foot_contact_t"] = round(t, 6)
        if after and self.root_adr is not None:
            qa = self.root_adr[0]
            a = self.after
            if a["base_at_push"] is None:
                a["base_at_push"] = [float(x) for x in d.qpos[qa : qa + 3]]
            roll, pitch, _ = roll_pitch_yaw(d.qpos[qa + 3 : qa + 7])
            z = float(d.qpos[qa + 2])
            a["max_abs_roll"] = max(a["max_abs_roll"], abs(roll))
            a["max_abs_pitch"] = max(a["max_abs_pitch"], abs(pitch))
            a["min_base_z"] = z if a["min_base_z"] is None else min(a["min_base_z"], z)

    def base_end(self, d, samples, window):
        """The base at the end (world-frame velocities) and over the last `window` seconds of the
        samples: largest |roll| and |pitch|, mean and largest world-frame velocity."""
        import mujoco

        qa, va = self.root_adr
        rot = np.zeros(9)
        mujoco.mju_quat2Mat(rot, d.qpos[qa + 3 : qa + 7])
        r = rot.reshape(3, 3)
        roll, pitch, yaw = roll_pitch_yaw(d.qpos[qa + 3 : qa + 7])
        end = {"t": round(float(d.time), 6), "base": [float(x) for x in d.qpos[qa : qa + 3]],
               "roll": roll, "pitch": pitch, "yaw": yaw, "lin_vel": [float(x) for x in d.qvel[va : va + 3]],
               "ang_vel": (r @ d.qvel[va + 3 : va + 6]).tolist()}
        t_end = float(d.time)
        lin, ang, rp = [], [], [0.0, 0.0]
        for s in samples:
            if s["t"] < t_end - window - 1e-9 or "base" not in s:
                continue
            b = s["base"]  # position, quaternion xyzw, base-frame linear and angular velocity
            qw = [b[6], b[3], b[4], b[5]]
            mujoco.mju_quat2Mat(rot, np.array(qw))
            rs = rot.reshape(3, 3)
            lin.append(rs @ np.array(b[7:10]))
            ang.append(rs @ np.array(b[10:13]))
            ro, pi, _ = roll_pitch_yaw(qw)
            rp = [max(rp[0], abs(ro)), max(rp[1], abs(pi))]
        if lin:
            lin, ang = np.array(lin), np.array(ang)
            end["window"] = {"seconds": window, "samples": len(lin), "max_abs_roll": rp[0], "max_abs_pitch": rp[1],
                             "mean_lin_vel": lin.mean(axis=0).tolist(),
                             "max_lin_speed": float(np.linalg.norm(lin, axis=1).max()),
                             "max_ang_speed": float(np.linalg.norm(ang, axis=1).max())}
        return end

    def report(self, d, samples, window=0.5):
        out = {"non_foot_contacts": self.other}
        if self.after is not None:
            a = dict(self.after)
            if self.root_adr is not None and a["base_at_push"] is not None:
                end = self.base_end(d, samples, window)
                a["end"] = end
                a["lateral_displacement"] = end["base"][1] - a["base_at_push"][1]
            out["after_push"] = a
        return out


# --- PNG strip (no imaging library needed) -------------------------------------------------------
def write_png(path, rgb):
    h, w, _ = rgb.shape
    raw = b"".join(b"\x00" + rgb[r].tobytes() for r in range(h))

    def chunk(t, d):
        c = struct.pack(">I", len(d)) + t + d
        return c + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


# --- the bridge ----------------------------------------------------------------------------------
class Bridge:
    def __init__(self, args, setup):
        import mujoco

        from cyclonedds.domain import DomainParticipant
        from cyclonedds.pub import DataWriter
        from cyclonedds.sub import DataReader
        from cyclonedds.topic import Topic

        import ros_idl

        self.mj = mujoco
        self.idl = ros_idl
        self.a = args
        self.setup = setup
        self.model, self.xml, self.info = compile_model(setup)
        self.data = mujoco.MjData(self.model)
        if setup["initial_q"] is not None:
            set_q(setup, self.model, self.data, setup["initial_q"])
        mujoco.mj_forward(self.model, self.data)
        m = self.model
        jid = lambda n: mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, n)  # noqa: E731
        self.floating = setup["root"] in ("floating", "floating_zyx")
        names = coordinate_names(setup)
        self.joint_names = names[6:] if self.floating else names
        self.qadr = [int(m.jnt_qposadr[jid(n)]) for n in self.joint_names]
        self.vadr = [int(m.jnt_dofadr[jid(n)]) for n in self.joint_names]
        self.box = None
        if "box" in self.info:
            b = jid("box_free")
            self.box = (int(m.jnt_qposadr[b]), int(m.jnt_dofadr[b]))
        self.pub_names = self.joint_names + (self.info["box"] if self.box else [])
        if self.floating:
            b = jid("root_joint")
            self.root_adr = (int(m.jnt_qposadr[b]), int(m.jnt_dofadr[b]))
        self.effort_joints = args.effort_joints.split(",") if args.effort_joints else list(setup["actuated"])
        act_ids = {mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_ACTUATOR, i): i for i in range(m.nu)}
        missing = [e for e in self.effort_joints if e not in act_ids]
        if missing:
            raise SetupError(f"effort joints {missing} are not actuated in the config ({setup['actuated']})")
        self.cmd_act = [act_ids[e] for e in self.effort_joints]
        self.contact_geoms = {}
        self.contact_sites = []
        for c in self.info["contacts"]:
            g = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, f"contact_{c['name']}")
            self.contact_geoms[g] = c["name"]
            self.contact_sites.append(mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_SITE, f"contact_{c['name']}"))
        self.root_body = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, setup["urdf"]["root"])
        self.pushes = Pushes(setup.get("pushes") or [], m, setup["urdf"]["root"])
        self.recovery = Recovery(m, self.root_body, self.root_adr if self.floating else None,
                                 set(self.contact_geoms), self.pushes.first_t())

        q = ros_idl.qos()
        self.dp = DomainParticipant(args.domain_id)
        self.js_w = DataWriter(self.dp, Topic(self.dp, "rt/joint_states", ros_idl.JointState, qos=q), qos=q)
        self.odom_w = None
        if self.floating:
            self.odom_w = DataWriter(self.dp, Topic(self.dp, "rt/odom", ros_idl.Odometry, qos=q), qos=q)
        topic = "rt" + args.command_topic if args.command_topic.startswith("/") else "rt/" + args.command_topic
        self.cmd_r = DataReader(self.dp, Topic(self.dp, topic, ros_idl.Float64MultiArray, qos=q), qos=q)
        # --lockstep: /clock (rosgraph_msgs/Clock) and simulated-time stamps.
        self.clock_w = None
        if args.lockstep:
            self.clock_w = DataWriter(self.dp, Topic(self.dp, "rt/clock", ros_idl.Clock, qos=q), qos=q)
        # --cmd-vel: a velocity command sequence on cmd_vel (geometry_msgs/Twist, base frame),
        # each entry in force from its simulated time on, sent every CMD_VEL_PERIOD s.
        self.cmd_vel_seq = sorted(args.cmd_vel_seq, key=lambda e: e[0])
        self.cmd_vel_w = None
        self.cmd_vel_next = 0.0
        if self.cmd_vel_seq:
            self.cmd_vel_w = DataWriter(self.dp, Topic(self.dp, "rt/cmd_vel", ros_idl.Twist, qos=q), qos=q)
        self.cmd = [0.0] * len(self.cmd_act)
        self.cmd_time = None
        self.n_cmd = 0
        self.n_bad_cmd = 0
        self.stale = True
        self.events = []
        self.samples = []
        self.frames = []
        self.snapshots = []
        self.renderer = None
        self.stop = False
        self.lockstep_wait = 0.0
        self.lockstep_timeouts = 0

    def _render_init(self):
        if not self.a.frames:
            return
        os.environ.setdefault("MUJOCO_GL", "osmesa")
        try:
            self.renderer = self.mj.Renderer(self.model, 240, 320)
            self.cam = self.mj.MjvCamera()
            self.cam.type = self.mj.mjtCamera.mjCAMERA_TRACKING
            sc = self.setup["scenario"]
            if sc.get("camera_lookat"):  # a fixed point to look at (default: track the root body)
                self.cam.type = self.mj.mjtCamera.mjCAMERA_FREE
                self.cam.lookat[:] = [float(x) for x in sc["camera_lookat"]]
            else:
                self.cam.trackbodyid = max(self.root_body, 1)
            self.cam.distance = float(sc.get("camera_distance", 2.0))
            self.cam.elevation = float(sc.get("camera_elevation", -15.0))
            self.cam.azimuth = float(sc.get("camera_azimuth", 90.0))
        except Exception as e:  # any GL failure: go on without frames
            print(f"mujoco_sim: rendering unavailable ({type(e).__name__}: {e}); continuing without frames",
                  file=sys.stderr)
            self.renderer = None

    def _read_commands(self, now):
        for msg in self.cmd_r.take(N=20):
            if not isinstance(msg, self.idl.Float64MultiArray):  # instance-state change
                continue
            data = list(msg.data)
            if len(data) != len(self.cmd_act) or not all(math.isfinite(x) for x in data):
                self.n_bad_cmd += 1
                continue
            self.cmd = data
            self.cmd_time = self.data.time if self.a.lockstep else now
            self.n_cmd += 1

    def _contact_forces(self):
        m, d = self.model, self.data
        out = {c["name"]: [0.0, 0.0, 0.0] for c in self.info["contacts"]}
        f6 = np.zeros(6)
        for i in range(d.ncon):
            c = d.contact[i]
            for g, sign in ((c.geom2, 1.0), (c.geom1, -1.0)):
                name = self.contact_geoms.get(int(g))
                if name is None:
                    continue
                self.mj.mj_contactForce(m, d, i, f6)
                fw = np.asarray(c.frame).reshape(3, 3).T @ f6[:3] * sign
                acc = out[name]
                for k in range(3):
                    acc[k] += float(fw[k])
        return out

    def _publish(self, now_wall):
        d = self.data
        q = [float(d.qpos[a]) for a in self.qadr]
        v = [float(d.qvel[a]) for a in self.vadr]
        eff = [float(d.qfrc_actuator[a]) for a in self.vadr]
        if self.box:
            qa, va = self.box
            w, x, y, z = d.qpos[qa + 3 : qa + 7]
            yaw = math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))
            rot = np.zeros(9)
            self.mj.mju_quat2Mat(rot, d.qpos[qa + 3 : qa + 7])
            wz = float((rot.reshape(3, 3) @ d.qvel[va + 3 : va + 6])[2])
            lin = [0, 1, 2] if len(self.info["box"]) == 4 else [0, 1]  # with z, or planar
            q += [float(d.qpos[qa + i]) for i in lin] + [yaw]
            v += [float(d.qvel[va + i]) for i in lin] + [wz]
            eff += [0.0] * len(self.info["box"])
        I = self.idl  # noqa: E741
        stamp = I.stamp_of(d.time) if self.a.lockstep else I.now_stamp()
        self.js_w.write(I.JointState(header=I.Header(stamp=stamp, frame_id=""), name=self.pub_names,
                                     position=q, velocity=v, effort=eff))
        base = None
        if self.floating:
            qa, va = self.root_adr
            pos = [float(x) for x in d.qpos[qa : qa + 3]]
            w, x, y, z = (float(a) for a in d.qpos[qa + 3 : qa + 7])
            rot = np.zeros(9)
            self.mj.mju_quat2Mat(rot, d.qpos[qa + 3 : qa + 7])
            lin = rot.reshape(3, 3).T @ d.qvel[va : va + 3]  # free joint: world linear, local angular
            ang = [float(a) for a in d.qvel[va + 3 : va + 6]]
            self.odom_w.write(I.Odometry(
                header=I.Header(stamp=stamp, frame_id="odom"), child_frame_id=self.setup["urdf"]["root"],
                pose=I.PoseWithCovariance(pose=I.Pose(position=I.Point(*pos), orientation=I.Quaternion(x, y, z, w))),
                twist=I.TwistWithCovariance(twist=I.Twist(linear=I.Vector3(*(float(a) for a in lin)),
                                                          angular=I.Vector3(*ang)))))
            base = pos + [x, y, z, w] + [float(a) for a in lin] + ang
        if self.clock_w is not None:
            self.clock_w.write(I.Clock(clock=stamp))
        if self.cmd_vel_w is not None and d.time >= self.cmd_vel_next - 1e-9:
            cmd = self.cmd_vel_now()
            if cmd is not None:
                self.cmd_vel_w.write(I.Twist(linear=I.Vector3(cmd[0], cmd[1], 0.0), angular=I.Vector3(0.0, 0.0, cmd[2])))
            self.cmd_vel_next = d.time + CMD_VEL_PERIOD
        return q, v, base

    def cmd_vel_now(self):
        """The `--cmd-vel` command in force at the present simulated time (None before the first)."""
        cmd = None
        for t, c in self.cmd_vel_seq:
            if self.data.time >= t - 1e-9:
                cmd = c
        return cmd

    def _apply_command(self, now):
        """Take new commands and apply the latest (zero torque once it is older than
        --command-timeout, in simulated time under --lockstep); log fresh/stale transitions.
        Returns the command's age and whether it is stale."""
        d = self.data
        self._read_commands(now)
        clock = d.time if self.a.lockstep else now
        age = None if self.cmd_time is None else clock - self.cmd_time
        stale = age is None or age > self.a.command_timeout
        if stale != self.stale:
            self.events.append({"t": round(d.time, 6), "event": "command stale" if stale else "command fresh",
                                "age": age})  # unrounded: compared with the timeout
            self.stale = stale
        for i, a in enumerate(self.cmd_act):
            d.ctrl[a] = 0.0 if stale else self.cmd[i]
        return age, stale

    def _await_command(self):
        """--lockstep: hold the simulated time at a sync point until a command newer than the
        state just published arrives (the node's answer to it), or --lockstep-timeout of wall
        time passed (--start-timeout for the run's first command, while the node starts up;
        then go on with the command it has, logged). Until the first command of
        the run the state is published again every 0.2 s (a node may still be starting, and
        DDS keeps no history for late readers); after it only /clock is repeated."""
        n0 = self.n_cmd
        limit = self.a.lockstep_timeout if n0 > 0 else max(self.a.lockstep_timeout, self.a.start_timeout)
        t0 = time.monotonic()
        last = t0
        while not self.stop:
            now = time.monotonic()
            self._read_commands(now)
            if self.n_cmd > n0:
                self.lockstep_wait += now - t0
                return
            if now - t0 > limit:
                self.events.append({"t": round(self.data.time, 6), "event": "lockstep timeout",
                                    "waited_s": round(now - t0, 4)})
                self.lockstep_timeouts += 1
                return
            if now - last > 0.2:
                last = now
                if self.n_cmd == 0:
                    self._publish(now)
                else:
                    self.clock_w.write(self.idl.Clock(clock=self.idl.stamp_of(self.data.time)))
            time.sleep(0.0002)

    def _hold_until_command(self):
        """--start-on-command: publish the initial state (physics not stepped, the robot held
        where the scenario puts it) until the first valid effort command arrives, as a robot
        that is switched on only once its controller is up. Gives up after --start-timeout."""
        period = 1.0 / self.a.rate
        t_start = time.monotonic()
        while not self.stop:
            now = time.monotonic()
            self._read_commands(now)
            if self.cmd_time is not None:
                self.events.append({"t": 0.0, "event": "first command", "waited_s": round(now - t_start, 4)})
                return
            if now - t_start > self.a.start_timeout:
                self.events.append({"t": 0.0, "event": "no command: started anyway",
                                    "waited_s": round(now - t_start, 4)})
                return
            self._publish(now)
            time.sleep(period)

    def run(self):
        mj, m, d = self.mj, self.model, self.data
        if self.a.start_on_command:
            self._hold_until_command()
        dt = m.opt.timestep
        every = max(1, int(round(1.0 / (self.a.rate * dt))))
        sync = max(1, int(round(self.a.lockstep / dt))) if self.a.lockstep else 0
        frame_every = max(1, int(round(1.0 / (self.a.frame_rate * dt)))) if self.a.frames else 0
        n_steps = int(round(self.a.duration / dt)) if self.a.duration > 0 else None
        t0 = time.monotonic()
        offset = 0.0  # wall-clock slack absorbed when the loop fell far behind
        k = 0
        late = 0
        max_lag = 0.0
        while not self.stop and (n_steps is None or k < n_steps):
            now = time.monotonic()
            age, stale = self._apply_command(now)
            if k % every == 0 or (sync and k % sync == 0):
                q, v, base = self._publish(now)
                s = {"t": round(d.time, 6), "wall": round(now - t0, 6), "q": q, "v": v,
                     "u": [float(d.ctrl[a]) for a in self.cmd_act],
                     "cmd_age": age, "stale": stale,  # unrounded: the stale flag follows age > timeout
                     "contact_force": self._contact_forces(),
                     "contact_point": {c["name"]: [float(x) for x in d.site_xpos[sid]]
                                       for c, sid in zip(self.info["contacts"], self.contact_sites)}}
                if base is not None:
                    s["base"] = base
                if self.cmd_vel_w is not None:
                    s["cmd_vel"] = self.cmd_vel_now()
                if self.box:
                    qa = self.box[0]
                    s["box_pose"] = [float(x) for x in d.qpos[qa : qa + 7]]  # position, quaternion wxyz
                self.samples.append(s)
            if frame_every and k % frame_every == 0:
                self.snapshots.append(d.qpos.copy())  # rendered after the run (GL is slow)
            if sync and k % sync == 0:
                # The node's command for this state before the time moves on; the control
                # for the coming steps is the one just received.
                self._await_command()
                self._apply_command(time.monotonic())
            self.pushes.apply(d, k, self.events)
            mj.mj_step(m, d)
            self.recovery.step(d)
            k += 1
            if sync:
                continue  # no wall-clock pacing in lockstep
            target = t0 + offset + k * dt
            lag = time.monotonic() - target
            if lag < 0:
                time.sleep(-lag)
            else:
                max_lag = max(max_lag, lag)
                if lag > 0.05:
                    late += 1
                    offset += lag
        wall = time.monotonic() - t0
        self.summary = {"steps": k, "sim_time": round(d.time, 6), "wall_time": round(wall, 4),
                        "realtime_factor": round(d.time / wall, 4) if wall > 0 else None,
                        "published": len(self.samples), "commands_received": self.n_cmd,
                        "commands_rejected": self.n_bad_cmd, "fell_behind_resyncs": late,
                        "max_lag_s": round(max_lag, 5), "frames": len(self.snapshots),
                        "lockstep": self.a.lockstep or None, "lockstep_wait_s": round(self.lockstep_wait, 4),
                        "lockstep_timeouts": self.lockstep_timeouts,
                        "stopped_by_signal": self.stop}
        self.summary.update(self.recovery.report(d, self.samples))
        if self.pushes.items:
            self.summary["pushes"] = self.pushes.report()

    def write_outputs(self):
        if self.a.frames and self.snapshots:
            self._render_init()
        if self.renderer is not None:
            n = min(len(self.snapshots), self.a.max_frames)
            idx = np.linspace(0, len(self.snapshots) - 1, n).round().astype(int)
            d = self.mj.MjData(self.model)
            frames = []
            for i in idx:
                d.qpos[:] = self.snapshots[i]
                self.mj.mj_forward(self.model, d)
                self.renderer.update_scene(d, camera=self.cam)
                frames.append(self.renderer.render().copy())
            write_png(self.a.frames, np.concatenate(frames, axis=1))
            print(f"mujoco_sim: wrote {len(frames)} frames to {self.a.frames}", file=sys.stderr)
        if self.a.log:
            meta = {"scenario": self.setup["scenario_path"], "config": self.setup["config_path"],
                    "urdf": self.setup["urdf_path"], "root": self.setup["root"], "joint_names": self.pub_names,
                    "effort_joints": self.effort_joints, "contacts": self.info["contacts"],
                    "point_radius": self.info["point_radius"], "ground_z": self.info.get("ground_z"),
                    "dt": self.model.opt.timestep, "publish_rate_hz": self.a.rate,
                    "command_timeout": self.a.command_timeout, "domain_id": self.a.domain_id,
                    "pushes": self.pushes.report(),
                    "base_layout": "position xyz, quaternion xyzw, linear velocity (base frame), angular velocity (base frame)"
                    if self.floating else None, "notes": self.info["notes"]}
            with open(self.a.log, "w") as f:
                json.dump({"meta": meta, "summary": self.summary, "events": self.events, "samples": self.samples}, f)


_STOP = {"signal": False, "bridge": None}


def _on_signal(signum, frame):
    _STOP["signal"] = True
    if _STOP["bridge"] is not None:
        _STOP["bridge"].stop = True


def main(argv=None):
    # Installed first, so that a signal during the (slow) start-up also ends the run cleanly.
    signal.signal(signal.SIGINT, _on_signal)
    signal.signal(signal.SIGTERM, _on_signal)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", required=True, help="scenario YAML (tools/scenarios/*.yaml)")
    ap.add_argument("--config", help="node problem config (overrides the scenario's `config`)")
    ap.add_argument("--duration", type=float, default=10.0, help="seconds of simulated time (0: until a signal)")
    ap.add_argument("--domain-id", type=int, default=int(os.environ.get("ROS_DOMAIN_ID", "0")))
    ap.add_argument("--rate", type=float, default=250.0, help="joint_states rate (Hz)")
    ap.add_argument("--command-timeout", type=float, default=0.1, help="older commands give zero torque (s)")
    ap.add_argument("--command-topic", default="/fesdj_mpc/effort_command")
    ap.add_argument("--effort-joints", default="", help="order of effort_command (default: config actuated)")
    ap.add_argument("--start-on-command", action="store_true",
                    help="hold the initial state (publishing it) until the first effort command arrives")
    ap.add_argument("--start-timeout", type=float, default=30.0,
                    help="with --start-on-command: start anyway after this many seconds")
    ap.add_argument("--lockstep", type=float, default=0.0,
                    help="sync period (s): publish /clock (rosgraph_msgs/Clock), stamp with the simulated time, "
                         "and at every multiple of the period wait for the node's effort command before "
                         "stepping on (for a node with use_sim_time:=true; 0: paced to the wall clock)")
    ap.add_argument("--lockstep-timeout", type=float, default=10.0,
                    help="wall seconds to wait for a command at a sync point before going on")
    ap.add_argument("--log", help="write the run log (JSON) here")
    ap.add_argument("--frames", help="write a PNG strip of offscreen frames here")
    ap.add_argument("--frame-rate", type=float, default=10.0)
    ap.add_argument("--max-frames", type=int, default=8)
    ap.add_argument("--initial-q", help="comma-separated q in our coordinates (overrides the config's)")
    ap.add_argument("--push", action="append", default=[], metavar=PUSH_FORMAT,
                    help="push the body (default `base`, the robot's root link) with the world-frame force "
                         "FX,FY,FZ (N) on its mass centre from T for DURATION s (repeatable; added to the "
                         "scenario's `push` list)")
    ap.add_argument("--cmd-vel", action="append", default=[], metavar=CMD_VEL_FORMAT,
                    help="from simulated time T on, send the velocity command (VX, VY forward and lateral m/s, "
                         "WZ yaw rate rad/s, base frame) on cmd_vel (geometry_msgs/Twist) every 0.05 s "
                         "(repeatable: a command sequence)")
    ap.add_argument("--print-mjcf", action="store_true", help="print the generated MJCF and exit")
    a = ap.parse_args(argv)
    try:
        setup = load_setup(a.scenario, a.config)
        if a.initial_q:
            setup["initial_q"] = [float(x) for x in a.initial_q.split(",")]
        setup["pushes"] = setup["pushes"] + [parse_push_option(p) for p in a.push]
        a.cmd_vel_seq = [parse_cmd_vel_option(c) for c in a.cmd_vel]
        check_push_bodies(setup)
        if a.print_mjcf:
            print(build_mjcf(setup)[0])
            return 0
        bridge = Bridge(a, setup)
    except SetupError as e:
        print(f"mujoco_sim: {e}", file=sys.stderr)
        return 2

    if _STOP["signal"]:
        bridge.stop = True
    _STOP["bridge"] = bridge
    print(f"mujoco_sim: {os.path.basename(a.scenario)}: publishing {bridge.pub_names} on domain {a.domain_id}",
          file=sys.stderr, flush=True)
    bridge.run()
    bridge.write_outputs()
    print(json.dumps(bridge.summary), flush=True)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, TOOLS)
    sys.exit(main())
