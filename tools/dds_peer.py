#!/usr/bin/env python3
"""Independent ROS 2 peer for the fesdj_mpc node, on Eclipse Cyclone DDS (PyPI `cyclonedds`).

Usage: python3 tools/dds_peer.py --mapping {fastrtps,cyclonedds} [--node /fesdj_mpc]
           [--joints hip,knee,ankle] [--effort-joints ankle,hip] [--rate 200] [--duration 3]
           [--horizon-n 10] [--horizon-t 0.5] [--kp 10] [--kd 1] [--domain 0]

Speaks the ROS 2 wire conventions with no ROS installation: DDS topic `rt/<name>`, types
`pkg::msg::dds_::Type_`, XCDR1 (classic CDR) data representation, services on
`rq/<name>Request` and `rr/<name>Reply`. In the `cyclonedds` convention (rmw_cyclonedds_cpp)
requests and replies carry a 16-byte header (client id, sequence number) in front of the
payload; in the `fastrtps` convention (rmw_fastrtps_cpp) the payload is plain and the request id
travels in the RTPS inline QoS, which this peer does not need. ros2-client serves the parameter
services in the fastrtps convention only.

Sequence: publish joint_states at --rate Hz throughout (stamp = now, analytic positions and
constant velocities, an extra joint first and the configured joints reversed); call ~/enable
(true); receive ~/planned_trajectory and ~/effort_command for --duration s and check every number
against the node's analytic test double (q_k = q0 + v0 t_k, u_k = -kp q_k - kd v0, effort =
-kp q0 - kd v0 in effort-joint order); call ~/plan and ~/reset; list and read parameters;
call ~/enable(false) and count effort commands afterwards. Prints one JSON object on stdout.
"""

import argparse
import json
import math
import sys
import time

from cyclonedds.domain import DomainParticipant
from cyclonedds.pub import DataWriter
from cyclonedds.sub import DataReader
from cyclonedds.topic import Topic

from ros_idl import (
    CycSetBoolRequest,
    CycSetBoolResponse,
    CycTriggerRequest,
    CycTriggerResponse,
    DiagnosticArray,
    Float64MultiArray,
    GetParametersRequest,
    GetParametersResponse,
    Header,
    JointState,
    JointTrajectory,
    ListParametersRequest,
    ListParametersResponse,
    SetBoolRequest,
    SetBoolResponse,
    TriggerRequest,
    TriggerResponse,
    duration_s,
    now_stamp,
    qos,
)


class Peer:
    def __init__(self, args):
        self.a = args
        self.dp = DomainParticipant(args.domain)
        node = args.node.rstrip("/")
        q = qos()

        def writer(name, ty):
            return DataWriter(self.dp, Topic(self.dp, name, ty, qos=q), qos=q)

        def reader(name, ty):
            return DataReader(self.dp, Topic(self.dp, name, ty, qos=q), qos=q)

        self.js = writer("rt/joint_states", JointState)
        self.traj = reader(f"rt{node}/planned_trajectory", JointTrajectory)
        self.effort = reader(f"rt{node}/effort_command", Float64MultiArray)
        self.diag = reader("rt/diagnostics", DiagnosticArray)
        cyc = args.mapping == "cyclonedds"
        self.cyc = cyc
        self.services = {}
        for srv, req, resp in [
            ("plan", CycTriggerRequest if cyc else TriggerRequest, CycTriggerResponse if cyc else TriggerResponse),
            ("reset", CycTriggerRequest if cyc else TriggerRequest, CycTriggerResponse if cyc else TriggerResponse),
            ("enable", CycSetBoolRequest if cyc else SetBoolRequest, CycSetBoolResponse if cyc else SetBoolResponse),
        ]:
            self.services[srv] = (
                writer(f"rq{node}/{srv}Request", req),
                reader(f"rr{node}/{srv}Reply", resp),
                req,
            )
        for srv, req, resp in [
            ("list_parameters", ListParametersRequest, ListParametersResponse),
            ("get_parameters", GetParametersRequest, GetParametersResponse),
        ]:
            self.services[srv] = (
                writer(f"rq{node}/{srv}Request", req),
                reader(f"rr{node}/{srv}Reply", resp),
                req,
            )
        self.client_guid = 0x1234_5678_9ABC_DEF0
        self.seq = 0
        self.joints = args.joints.split(",")
        self.effort_joints = args.effort_joints.split(",")
        self.v0 = [0.1 * (j + 1) for j in range(len(self.joints))]
        self.sent = {}  # (sec, nanosec) -> q0
        self.n_sent = 0
        self.period = 1.0 / args.rate
        self.next_pub = time.monotonic()
        self.trajectories = []  # (arrival, msg)
        self.efforts = []
        self.diagnostics = []

    # -- publishing and receiving ---------------------------------------------------------------
    def publish_state(self):
        i = self.n_sent
        q = [math.sin(0.01 * i + j) for j in range(len(self.joints))]
        stamp = now_stamp(-0.002)
        self.sent[(stamp.sec, stamp.nanosec)] = q
        names = ["extra"] + list(reversed(self.joints))
        self.js.write(
            JointState(
                header=Header(stamp=stamp, frame_id=""),
                name=names,
                position=[42.0] + list(reversed(q)),
                velocity=[42.0] + list(reversed(self.v0)),
                effort=[],
            )
        )
        self.n_sent += 1

    def step(self):
        """Publishes on schedule and drains readers; call often."""
        t = time.monotonic()
        if t >= self.next_pub:
            self.publish_state()
            self.next_pub += self.period
            if self.next_pub < t:
                self.next_pub = t + self.period
        arrival = time.monotonic()
        for m in self.traj.take(N=100):
            self.trajectories.append((arrival, m))
        for m in self.effort.take(N=100):
            self.efforts.append((arrival, list(m.data)))
        for m in self.diag.take(N=100):
            self.diagnostics.append(m)

    def run_for(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.step()
            time.sleep(0.0005)

    def call(self, srv, timeout=10.0, **fields):
        w, r, req_type = self.services[srv]
        plain = srv in ("list_parameters", "get_parameters") or not self.cyc
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.seq += 1
            if plain:
                w.write(req_type(**fields))
            else:
                w.write(req_type(client_guid=self.client_guid, sequence_number=self.seq, **fields))
            retry = time.monotonic() + 0.25
            while time.monotonic() < retry:
                self.step()
                for resp in r.take(N=10):
                    if plain or (resp.client_guid == self.client_guid and resp.sequence_number == self.seq):
                        return resp
                time.sleep(0.001)
        raise TimeoutError(f"{srv}: no reply in {timeout} s")

    # -- checks ---------------------------------------------------------------------------------
    def check_trajectory(self, m):
        key = (m.header.stamp.sec, m.header.stamp.nanosec)
        q0 = self.sent.get(key)
        if q0 is None:
            return "stamp of no sent state"
        if list(m.joint_names) != self.joints:
            return f"joint_names {list(m.joint_names)}"
        if len(m.points) != self.a.horizon_n + 1:
            return f"{len(m.points)} points"
        h = self.a.horizon_t / self.a.horizon_n
        for k, p in enumerate(m.points):
            tk = k * h
            if abs(duration_s(p.time_from_start) - tk) > 1e-9:
                return f"point {k}: time_from_start {duration_s(p.time_from_start)}"
            for j in range(len(self.joints)):
                qk = q0[j] + self.v0[j] * tk
                uk = -self.a.kp * qk - self.a.kd * self.v0[j]
                if (
                    abs(p.positions[j] - qk) > 1e-12
                    or abs(p.velocities[j] - self.v0[j]) > 1e-15
                    or abs(p.effort[j] - uk) > 1e-12
                ):
                    return f"point {k} joint {j}: {p}"
        return None

    def check_effort(self, data):
        idx = [self.joints.index(e) for e in self.effort_joints]
        if len(data) != len(idx):
            return f"{len(data)} values"
        for q0 in self.sent.values():
            want = [-self.a.kp * q0[j] - self.a.kd * self.v0[j] for j in idx]
            if all(abs(a - b) <= 1e-12 for a, b in zip(data, want)):
                return None
        return f"effort {data} from no sent state"


def parameter_value(v):
    return {
        1: lambda: v.bool_value,
        2: lambda: v.integer_value,
        3: lambda: v.double_value,
        4: lambda: v.string_value,
        7: lambda: list(v.integer_array_value),
        8: lambda: list(v.double_array_value),
        9: lambda: list(v.string_array_value),
    }.get(v.type, lambda: None)()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mapping", choices=["fastrtps", "cyclonedds"], required=True)
    ap.add_argument("--node", default="/fesdj_mpc")
    ap.add_argument("--joints", default="hip,knee,ankle")
    ap.add_argument("--effort-joints", default="ankle,hip")
    ap.add_argument("--rate", type=float, default=200.0)
    ap.add_argument("--duration", type=float, default=3.0)
    ap.add_argument("--horizon-n", type=int, default=10)
    ap.add_argument("--horizon-t", type=float, default=0.5)
    ap.add_argument("--kp", type=float, default=10.0)
    ap.add_argument("--kd", type=float, default=1.0)
    ap.add_argument("--domain", type=int, default=0)
    a = ap.parse_args()

    peer = Peer(a)
    out = {"mapping": a.mapping}
    t_start = time.monotonic()
    out["enable_true"] = vars_of(peer.call("enable", data=True))
    out["discovery_s"] = round(time.monotonic() - t_start, 3)

    t0 = time.monotonic()
    sent0 = peer.n_sent
    peer.run_for(a.duration)
    t1 = time.monotonic()
    window = [(t, m) for t, m in peer.trajectories if t > t0 + 0.2]
    efforts = [(t, d) for t, d in peer.efforts if t > t0 + 0.2]
    span = t1 - t0 - 0.2
    out["joint_states_sent"] = peer.n_sent - sent0
    out["joint_states_rate_hz"] = round((peer.n_sent - sent0) / (t1 - t0), 2)
    out["trajectories"] = len(window)
    out["trajectory_rate_hz"] = round(len(window) / span, 2)
    out["efforts"] = len(efforts)
    out["effort_rate_hz"] = round(len(efforts) / span, 2)
    out["points_per_trajectory"] = len(window[-1][1].points) if window else 0

    out["plan"] = vars_of(peer.call("plan"))
    out["reset"] = vars_of(peer.call("reset"))

    listed = peer.call("list_parameters", prefixes=[], depth=0)
    out["parameter_names"] = sorted(listed.result.names)
    wanted = ["rate_hz", "joint_names", "effort_joints", "service_mapping", "horizon.N", "horizon.T"]
    got = peer.call("get_parameters", names=wanted)
    out["parameters"] = {n: parameter_value(v) for n, v in zip(wanted, got.values)}

    out["enable_false"] = vars_of(peer.call("enable", data=False))
    t_off = time.monotonic()
    n_eff = len(peer.efforts)
    peer.run_for(0.5)
    out["efforts_after_disable"] = sum(1 for t, _ in peer.efforts[n_eff:] if t > t_off + 0.06)

    traj_errors = [e for e in (peer.check_trajectory(m) for _, m in peer.trajectories) if e]
    effort_errors = [e for e in (peer.check_effort(d) for _, d in peer.efforts) if e]
    out["trajectories_checked"] = len(peer.trajectories)
    out["trajectory_errors"] = traj_errors[:5]
    out["trajectory_error_count"] = len(traj_errors)
    out["efforts_checked"] = len(peer.efforts)
    out["effort_errors"] = effort_errors[:5]
    out["effort_error_count"] = len(effort_errors)
    out["diagnostics_received"] = len(peer.diagnostics)
    if peer.diagnostics:
        last = peer.diagnostics[-1]
        out["diagnostics_last"] = {s.name: {kv.key: kv.value for kv in s.values} for s in last.status}
    print(json.dumps(out))
    return 0


def vars_of(resp):
    return {"success": bool(resp.success), "message": resp.message}


if __name__ == "__main__":
    sys.exit(main())
