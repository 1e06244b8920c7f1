#!/usr/bin/env python3
"""Test peer of tools/mujoco_sim.py (stands in for the node): publishes a constant
`/fesdj_mpc/effort_command` for a while and records every `joint_states` it receives.

    python3 tools/mujoco_test_peer.py --effort 0,12 --effort-after 1 --effort-for 1 --duration 10
        [--domain-id 0]

Prints one JSON object: arrivals split into segments at gaps longer than --gap s (a bridge
restart shows as two segments), each with its message count, rate (Hz) and the names seen;
whether every value was finite; the first and last positions of each segment; commands sent.
"""

import argparse
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cyclonedds.domain import DomainParticipant  # noqa: E402
from cyclonedds.pub import DataWriter  # noqa: E402
from cyclonedds.sub import DataReader  # noqa: E402
from cyclonedds.topic import Topic  # noqa: E402

import ros_idl as I  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--effort", default="0,0")
    ap.add_argument("--effort-after", type=float, default=0.0, help="start, s after the first joint_states")
    ap.add_argument("--effort-for", type=float, default=1.0, help="how long (s)")
    ap.add_argument("--effort-rate", type=float, default=100.0)
    ap.add_argument("--duration", type=float, default=10.0)
    ap.add_argument("--gap", type=float, default=0.5)
    ap.add_argument("--domain-id", type=int, default=0)
    ap.add_argument("--odom", action="store_true", help="also record odom")
    a = ap.parse_args()
    effort = [float(x) for x in a.effort.split(",")]
    dp = DomainParticipant(a.domain_id)
    q = I.qos()
    js = DataReader(dp, Topic(dp, "rt/joint_states", I.JointState, qos=q), qos=q)
    odom = DataReader(dp, Topic(dp, "rt/odom", I.Odometry, qos=q), qos=q) if a.odom else None
    odoms = []
    cmd = DataWriter(dp, Topic(dp, "rt/fesdj_mpc/effort_command", I.Float64MultiArray, qos=q), qos=q)
    t0 = time.monotonic()
    first = None
    next_cmd = t0
    sent = 0
    arrivals = []  # (t, names, position, velocity)
    while time.monotonic() - t0 < a.duration:
        now = time.monotonic()
        if first is not None and a.effort_after <= now - first < a.effort_after + a.effort_for and now >= next_cmd:
            cmd.write(I.Float64MultiArray(data=effort))
            sent += 1
            next_cmd = now + 1.0 / a.effort_rate
        for m in js.take(N=50):
            if not isinstance(m, I.JointState):  # an instance-state change (writer gone)
                continue
            t = time.monotonic()
            if first is None:
                first = t
            arrivals.append((t, tuple(m.name), list(m.position), list(m.velocity), list(m.effort)))
        if odom is not None:
            for m in odom.take(N=50):
                if isinstance(m, I.Odometry):
                    p, o = m.pose.pose.position, m.pose.pose.orientation
                    odoms.append((time.monotonic(), m.header.frame_id, m.child_frame_id,
                                  [p.x, p.y, p.z, o.x, o.y, o.z, o.w]))
        time.sleep(0.0005)
    segments = []
    for t, names, pos, vel, eff in arrivals:
        if not segments or t - segments[-1]["t_last"] > a.gap:
            segments.append({"t_first": t, "t_last": t, "count": 0, "names": [], "first_position": pos})
        s = segments[-1]
        s["t_last"] = t
        s["count"] += 1
        s["last_position"] = pos
        if list(names) not in s["names"]:
            s["names"].append(list(names))
    for s in segments:
        span = s["t_last"] - s["t_first"]
        s["rate_hz"] = (s["count"] - 1) / span if span > 0 else 0.0
        s["t_first"] = round(s["t_first"] - t0, 4)
        s["t_last"] = round(s["t_last"] - t0, 4)
    finite = all(math.isfinite(x) for _, _, p, v, e in arrivals for x in p + v + e)
    consistent = all(len(n) == len(p) == len(v) for _, n, p, v, _ in arrivals)
    od = {}
    if odoms:
        span = odoms[-1][0] - odoms[0][0]
        od = {"count": len(odoms), "rate_hz": (len(odoms) - 1) / span if span > 0 else 0.0,
              "frame_id": odoms[0][1], "child_frame_id": odoms[0][2], "first_pose": odoms[0][3],
              "max_quaternion_norm_error": max(abs(math.sqrt(sum(x * x for x in o[3][3:])) - 1) for o in odoms)}
    print(json.dumps({"odom": od, "received": len(arrivals), "segments": segments, "all_finite": finite,
                      "lengths_consistent": consistent, "commands_sent": sent,
                      "first_arrival": None if first is None else round(first - t0, 4)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
