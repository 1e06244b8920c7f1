#!/usr/bin/env python3
"""Cyclone DDS peer for `fesdj_node` on a floating-base robot (tests/ros/ros_plan_view.rs).

Usage: python3 tools/dds_plan_view_peer.py --joints J1,...,J12 --q CROUCH(12) --base X,Y,Z,YAW
           [--node /fesdj_mpc] [--duration 12] [--phases good:4,big:2,nan:2,good:2]

Publishes at 50 Hz a resting robot: joint_states (the joints at --q, zero velocity) and odom
(base at X, Y, Z with yaw YAW, level, zero twist; frame odom, child base), both stamped now, and
at 10 Hz a cmd_vel per phase `name:seconds`: good (0.2 m/s forward, 0.05 m/s lateral, 0.3 rad/s
yaw rate), big (1 m/s forward, 2 rad/s: beyond the default limits), nan (linear.x NaN), none
(nothing: the command goes stale). Receives ~/planned_trajectory, ~/planned_path,
~/planned_markers and /diagnostics. Prints one JSON object: trajectories [{stamp, n}], paths
[{stamp, frame, n, poses: [[x, y, z, qx, qy, qz, qw, stamp]]}], markers [{markers: [{ns, id,
type, action, frame, stamp, position, points}]}], cmd_vel (every diagnostics cmd_vel entry:
[{phase, message, level, key: value}]).
"""

import argparse
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ros_idl import (  # noqa: E402
    DiagnosticArray,
    Header,
    JointState,
    JointTrajectory,
    MarkerArray,
    Odometry,
    Path,
    Twist,
    now_stamp,
    qos,
)
from cyclonedds.domain import DomainParticipant  # noqa: E402
from cyclonedds.internal import InvalidSample  # noqa: E402
from cyclonedds.pub import DataWriter  # noqa: E402
from cyclonedds.sub import DataReader  # noqa: E402
from cyclonedds.topic import Topic  # noqa: E402


def t_of(stamp):
    return stamp.sec + stamp.nanosec * 1e-9


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--node", default="/fesdj_mpc")
    ap.add_argument("--joints", required=True)
    ap.add_argument("--q", required=True)
    ap.add_argument("--base", required=True)
    ap.add_argument("--duration", type=float, default=12.0)
    ap.add_argument("--phases", default="good:12")
    ap.add_argument("--domain", type=int, default=0)
    a = ap.parse_args()
    joints = a.joints.split(",")
    q = [float(x) for x in a.q.split(",")]
    bx, by, bz, yaw = (float(x) for x in a.base.split(","))
    phases = []
    start_t = 0.0
    for p in a.phases.split(","):
        name, secs = p.split(":")
        phases.append((name, start_t, start_t + float(secs)))
        start_t += float(secs)

    dp = DomainParticipant(a.domain)
    qq = qos()
    node = a.node.rstrip("/")

    def writer(name, ty):
        return DataWriter(dp, Topic(dp, name, ty, qos=qq), qos=qq)

    def reader(name, ty):
        return DataReader(dp, Topic(dp, name, ty, qos=qq), qos=qq)

    js_w = writer("rt/joint_states", JointState)
    odom_w = writer("rt/odom", Odometry)
    cmd_w = writer("rt/cmd_vel", Twist)
    traj_r = reader(f"rt{node}/planned_trajectory", JointTrajectory)
    path_r = reader(f"rt{node}/planned_path", Path)
    mark_r = reader(f"rt{node}/planned_markers", MarkerArray)
    diag_r = reader("rt/diagnostics", DiagnosticArray)

    out = {"trajectories": [], "paths": [], "markers": [], "cmd_vel": []}
    t0 = time.monotonic()
    next_state = t0
    next_cmd = t0
    while True:
        now = time.monotonic()
        el = now - t0
        if el > a.duration:
            break
        phase = next((n for n, s, e in phases if s <= el < e), "none")
        if now >= next_state:
            stamp = now_stamp()
            js_w.write(JointState(header=Header(stamp=stamp, frame_id=""), name=joints, position=q,
                                  velocity=[0.0] * len(q), effort=[]))
            o = Odometry(header=Header(stamp=stamp, frame_id="odom"), child_frame_id="base")
            o.pose.pose.position.x, o.pose.pose.position.y, o.pose.pose.position.z = bx, by, bz
            o.pose.pose.orientation.z = math.sin(yaw / 2)
            o.pose.pose.orientation.w = math.cos(yaw / 2)
            odom_w.write(o)
            next_state += 0.02
        if now >= next_cmd:
            tw = Twist()
            if phase == "good":
                tw.linear.x, tw.linear.y, tw.angular.z = 0.2, 0.05, 0.3
            elif phase == "big":
                tw.linear.x, tw.angular.z = 1.0, 2.0
            elif phase == "nan":
                tw.linear.x = float("nan")
            if phase != "none":
                cmd_w.write(tw)
            next_cmd += 0.1
        for m in traj_r.take(N=50):
            if not isinstance(m, InvalidSample):
                out["trajectories"].append({"stamp": t_of(m.header.stamp), "n": len(m.points)})
        for m in path_r.take(N=50):
            if isinstance(m, InvalidSample):
                continue
            out["paths"].append({
                "stamp": t_of(m.header.stamp),
                "frame": m.header.frame_id,
                "n": len(m.poses),
                "poses": [[p.pose.position.x, p.pose.position.y, p.pose.position.z,
                           p.pose.orientation.x, p.pose.orientation.y, p.pose.orientation.z,
                           p.pose.orientation.w, t_of(p.header.stamp)] for p in m.poses],
            })
        for m in mark_r.take(N=50):
            if isinstance(m, InvalidSample):
                continue
            out["markers"].append({"markers": [{
                "ns": k.ns, "id": k.id, "type": k.type, "action": k.action,
                "frame": k.header.frame_id, "stamp": t_of(k.header.stamp),
                "position": [k.pose.position.x, k.pose.position.y, k.pose.position.z],
                "points": [[p.x, p.y, p.z] for p in k.points],
            } for k in m.markers]})
        for m in diag_r.take(N=20):
            if isinstance(m, InvalidSample):
                continue
            for s in m.status:
                if s.name.endswith(": cmd_vel"):
                    entry = {kv.key: kv.value for kv in s.values}
                    entry["message"] = s.message
                    entry["level"] = int(s.level)
                    entry["phase"] = phase
                    out["cmd_vel"].append(entry)
        time.sleep(0.002)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
