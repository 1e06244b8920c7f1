#!/usr/bin/env python3
"""Cyclone DDS peer for the `fesdj_node` binary (tests/ros/ros_fesdj_node.rs).

Usage: python3 tools/dds_node_peer.py --mode {listen,publish,clock} [--node /fesdj_mpc]
           [--duration 8] [--joints x,y] [--rate 200] [--phases good:4,nan:1.5,...] [--q0 0.1,0]

listen:  subscribe joint_states, ~/planned_trajectory and ~/effort_command for --duration s
         (the node's internal simulator publishes joint_states itself).
publish: publish joint_states at --rate Hz through the phases `name:seconds` in order:
         good (finite state, configured joints reversed plus an extra joint), nan (a NaN
         position), inf (an infinite velocity), short (one position missing), unknown (a joint
         name the node does not know instead of one it needs); record the stamps of the good
         messages and the phase of every received message.
clock:   a simulator in lockstep with a `use_sim_time` node: for each count in --syncs (e.g.
         40,20) the simulated time starts at 0 (so the second run is a simulator restart, the
         clock going back) and advances by --sync seconds per step; at each step publish a
         good joint_states stamped with the simulated time, then /clock (rosgraph_msgs/Clock),
         and wait (wall time, up to --wait s; --first-wait for the very first) for an effort
         command. With --clock-lead L the first step publishes only /clock for L seconds before
         the state (a node that sees the time before any state must still answer it); with
         --ignore-until S the commands of the first S seconds are dropped as if lost (the node
         must send again while the clock stands still).
         Prints {syncs: [{run, t, answered, wait}], trajectories: [{stamp, run}]}.

Prints one JSON object on stdout: joint_states [{t, name, position, velocity}], trajectories
[{t, stamp, joint_names, points: [{positions, velocities, effort, time_from_start}],
stamp_was_good, phase}], efforts [{t, data, phase}], phases [{name, start, end}] (times in
seconds since the peer started).
"""

import argparse
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dds_peer import (  # noqa: E402  (the message types and QoS of the interop peer)
    Float64MultiArray,
    Header,
    JointState,
    JointTrajectory,
    duration_s,
    now_stamp,
    qos,
)
from ros_idl import Clock, stamp_of  # noqa: E402
from cyclonedds.domain import DomainParticipant  # noqa: E402
from cyclonedds.pub import DataWriter  # noqa: E402
from cyclonedds.sub import DataReader  # noqa: E402
from cyclonedds.internal import InvalidSample  # noqa: E402
from cyclonedds.topic import Topic  # noqa: E402


def valid(samples):
    """The data samples of a take(): Cyclone also hands out InvalidSample entries (a writer's
    dispose or unregister, e.g. when the node shuts down), which carry no fields."""
    return [m for m in samples if not isinstance(m, InvalidSample)]


def finite(xs):
    return all(math.isfinite(x) for x in xs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=["listen", "publish", "clock"], required=True)
    ap.add_argument("--syncs", default="40,20")
    ap.add_argument("--sync", type=float, default=0.1)
    ap.add_argument("--wait", type=float, default=5.0)
    ap.add_argument("--first-wait", type=float, default=60.0)
    ap.add_argument("--clock-lead", type=float, default=0.0)
    ap.add_argument("--ignore-until", type=float, default=0.0)
    ap.add_argument("--node", default="/fesdj_mpc")
    ap.add_argument("--duration", type=float, default=8.0)
    ap.add_argument("--joints", default="x,y")
    ap.add_argument("--rate", type=float, default=200.0)
    ap.add_argument("--phases", default="good:4")
    ap.add_argument("--q0", default="0.1,0")
    ap.add_argument("--domain", type=int, default=0)
    a = ap.parse_args()

    dp = DomainParticipant(a.domain)
    q = qos()
    node = a.node.rstrip("/")
    js_topic = Topic(dp, "rt/joint_states", JointState, qos=q)
    traj = DataReader(dp, Topic(dp, f"rt{node}/planned_trajectory", JointTrajectory, qos=q), qos=q)
    effort = DataReader(dp, Topic(dp, f"rt{node}/effort_command", Float64MultiArray, qos=q), qos=q)
    js_reader = DataReader(dp, js_topic, qos=q) if a.mode == "listen" else None
    js_writer = DataWriter(dp, js_topic, qos=q) if a.mode in ("publish", "clock") else None
    if a.mode == "clock":
        clock = DataWriter(dp, Topic(dp, "rt/clock", Clock, qos=q), qos=q)
        return lockstep(a, js_writer, clock, traj, effort)

    joints = a.joints.split(",")
    q0 = [float(x) for x in a.q0.split(",")]
    phases = []
    if a.mode == "publish":
        t = 0.0
        for item in a.phases.split(","):
            name, secs = item.split(":")
            phases.append({"name": name, "start": t, "end": t + float(secs)})
            t += float(secs)
        duration = t
    else:
        duration = a.duration

    good = set()
    out = {"joint_states": [], "trajectories": [], "efforts": [], "phases": phases, "sent": {}}
    start = time.monotonic()
    next_pub = start
    period = 1.0 / a.rate

    def phase_at(t):
        for p in phases:
            if p["start"] <= t < p["end"]:
                return p["name"]
        return None

    while True:
        now = time.monotonic()
        t = now - start
        if t >= duration:
            break
        if js_writer is not None and now >= next_pub:
            name = phase_at(t)
            stamp = now_stamp(-0.001)
            names = ["extra"] + list(reversed(joints))
            pos = [42.0] + list(reversed(q0))
            vel = [0.0] * (len(joints) + 1)
            if name == "nan":
                pos[1] = float("nan")
            elif name == "inf":
                vel[1] = float("inf")
            elif name == "short":
                pos = pos[:-1]
            elif name == "unknown":
                names[1] = "no_such_joint"
            if name == "good":
                good.add((stamp.sec, stamp.nanosec))
            js_writer.write(
                JointState(header=Header(stamp=stamp, frame_id=""), name=names, position=pos, velocity=vel, effort=[])
            )
            out["sent"][name] = out["sent"].get(name, 0) + 1
            next_pub += period
            if next_pub < now:
                next_pub = now + period
        if js_reader is not None:
            for m in valid(js_reader.take(N=100)):
                out["joint_states"].append(
                    {"t": t, "name": list(m.name), "position": list(m.position), "velocity": list(m.velocity)}
                )
        for m in valid(traj.take(N=100)):
            st = (m.header.stamp.sec, m.header.stamp.nanosec)
            out["trajectories"].append(
                {
                    "t": t,
                    "stamp": m.header.stamp.sec + 1e-9 * m.header.stamp.nanosec,
                    "joint_names": list(m.joint_names),
                    "points": [
                        {
                            "positions": list(p.positions),
                            "velocities": list(p.velocities),
                            "effort": list(p.effort),
                            "time_from_start": duration_s(p.time_from_start),
                        }
                        for p in m.points
                    ],
                    "finite": all(
                        finite(p.positions) and finite(p.velocities) and finite(p.effort) for p in m.points
                    ),
                    "stamp_was_good": st in good,
                    "phase": phase_at(t),
                }
            )
        for m in valid(effort.take(N=100)):
            out["efforts"].append({"t": t, "data": list(m.data), "phase": phase_at(t)})
        time.sleep(0.0005)
    json.dump(out, sys.stdout, allow_nan=True)
    print()
    return 0


def lockstep(a, js_writer, clock, traj, effort):
    joints = a.joints.split(",")
    q0 = [float(x) for x in a.q0.split(",")]
    out = {"syncs": [], "trajectories": []}
    run_of_stamp = {}
    answered_total = 0
    start = time.monotonic()
    out["dropped"] = 0

    def drain():
        nonlocal answered_total
        for m in valid(traj.take(N=100)):
            st = (m.header.stamp.sec, m.header.stamp.nanosec)
            out["trajectories"].append({"stamp": st[0] + 1e-9 * st[1], "run": run_of_stamp.get(st)})
        n = len(valid(effort.take(N=100)))
        if time.monotonic() - start < a.ignore_until:
            out["dropped"] += n
            return 0
        answered_total += n
        return n

    for run, count in enumerate(int(c) for c in a.syncs.split(",")):
        for k in range(count):
            t = k * a.sync
            stamp = stamp_of(t)
            run_of_stamp[(stamp.sec, stamp.nanosec)] = run
            before = answered_total
            limit = a.first_wait if answered_total == 0 else a.wait
            t0 = time.monotonic()
            last_pub = None
            while time.monotonic() - t0 < limit:
                now = time.monotonic()
                # Publish again every 0.5 s until the node answers (it may still be starting).
                if last_pub is None or now - last_pub > 0.2:
                    lead = run == 0 and k == 0 and now - t0 < a.clock_lead
                    if not lead:
                        js_writer.write(JointState(header=Header(stamp=stamp, frame_id=""), name=list(joints),
                                                   position=list(q0), velocity=[0.0] * len(joints), effort=[]))
                    clock.write(Clock(clock=stamp))
                    last_pub = now
                drain()
                if answered_total > before:
                    break
                time.sleep(0.0005)
            out["syncs"].append({"run": run, "t": t, "answered": answered_total > before,
                                 "wait": round(time.monotonic() - t0, 4)})
    drain()
    json.dump(out, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
