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
from dataclasses import dataclass, field

from cyclonedds.core import Policy, Qos
from cyclonedds.domain import DomainParticipant
from cyclonedds.idl import IdlStruct
from cyclonedds.idl.types import array, float64, int32, int64, sequence, uint8, uint32, uint64
from cyclonedds.pub import DataWriter
from cyclonedds.sub import DataReader
from cyclonedds.topic import Topic
from cyclonedds.util import duration


# --- message types, fields in .msg order -------------------------------------------------------
@dataclass
class Time(IdlStruct, typename="builtin_interfaces::msg::dds_::Time_"):
    sec: int32 = 0
    nanosec: uint32 = 0


@dataclass
class Duration(IdlStruct, typename="builtin_interfaces::msg::dds_::Duration_"):
    sec: int32 = 0
    nanosec: uint32 = 0


@dataclass
class Header(IdlStruct, typename="std_msgs::msg::dds_::Header_"):
    stamp: Time = field(default_factory=Time)
    frame_id: str = ""


@dataclass
class JointState(IdlStruct, typename="sensor_msgs::msg::dds_::JointState_"):
    header: Header = field(default_factory=Header)
    name: sequence[str] = field(default_factory=list)
    position: sequence[float64] = field(default_factory=list)
    velocity: sequence[float64] = field(default_factory=list)
    effort: sequence[float64] = field(default_factory=list)


@dataclass
class JointTrajectoryPoint(IdlStruct, typename="trajectory_msgs::msg::dds_::JointTrajectoryPoint_"):
    positions: sequence[float64] = field(default_factory=list)
    velocities: sequence[float64] = field(default_factory=list)
    accelerations: sequence[float64] = field(default_factory=list)
    effort: sequence[float64] = field(default_factory=list)
    time_from_start: Duration = field(default_factory=Duration)


@dataclass
class JointTrajectory(IdlStruct, typename="trajectory_msgs::msg::dds_::JointTrajectory_"):
    header: Header = field(default_factory=Header)
    joint_names: sequence[str] = field(default_factory=list)
    points: sequence[JointTrajectoryPoint] = field(default_factory=list)


@dataclass
class MultiArrayDimension(IdlStruct, typename="std_msgs::msg::dds_::MultiArrayDimension_"):
    label: str = ""
    size: uint32 = 0
    stride: uint32 = 0


@dataclass
class MultiArrayLayout(IdlStruct, typename="std_msgs::msg::dds_::MultiArrayLayout_"):
    dim: sequence[MultiArrayDimension] = field(default_factory=list)
    data_offset: uint32 = 0


@dataclass
class Float64MultiArray(IdlStruct, typename="std_msgs::msg::dds_::Float64MultiArray_"):
    layout: MultiArrayLayout = field(default_factory=MultiArrayLayout)
    data: sequence[float64] = field(default_factory=list)


@dataclass
class KeyValue(IdlStruct, typename="diagnostic_msgs::msg::dds_::KeyValue_"):
    key: str = ""
    value: str = ""


@dataclass
class DiagnosticStatus(IdlStruct, typename="diagnostic_msgs::msg::dds_::DiagnosticStatus_"):
    level: uint8 = 0
    name: str = ""
    message: str = ""
    hardware_id: str = ""
    values: sequence[KeyValue] = field(default_factory=list)


@dataclass
class DiagnosticArray(IdlStruct, typename="diagnostic_msgs::msg::dds_::DiagnosticArray_"):
    header: Header = field(default_factory=Header)
    status: sequence[DiagnosticStatus] = field(default_factory=list)


# std_srvs, plain (fastrtps convention) and with the rmw_cyclonedds request header.
@dataclass
class TriggerRequest(IdlStruct, typename="std_srvs::srv::dds_::Trigger_Request_"):
    structure_needs_at_least_one_member: uint8 = 0


@dataclass
class TriggerResponse(IdlStruct, typename="std_srvs::srv::dds_::Trigger_Response_"):
    success: bool = False
    message: str = ""


@dataclass
class SetBoolRequest(IdlStruct, typename="std_srvs::srv::dds_::SetBool_Request_"):
    data: bool = False


@dataclass
class SetBoolResponse(IdlStruct, typename="std_srvs::srv::dds_::SetBool_Response_"):
    success: bool = False
    message: str = ""


@dataclass
class CycTriggerRequest(IdlStruct, typename="std_srvs::srv::dds_::Trigger_Request_"):
    client_guid: uint64 = 0
    sequence_number: int64 = 0
    structure_needs_at_least_one_member: uint8 = 0


@dataclass
class CycTriggerResponse(IdlStruct, typename="std_srvs::srv::dds_::Trigger_Response_"):
    client_guid: uint64 = 0
    sequence_number: int64 = 0
    success: bool = False
    message: str = ""


@dataclass
class CycSetBoolRequest(IdlStruct, typename="std_srvs::srv::dds_::SetBool_Request_"):
    client_guid: uint64 = 0
    sequence_number: int64 = 0
    data: bool = False


@dataclass
class CycSetBoolResponse(IdlStruct, typename="std_srvs::srv::dds_::SetBool_Response_"):
    client_guid: uint64 = 0
    sequence_number: int64 = 0
    success: bool = False
    message: str = ""


# rcl_interfaces parameter services (fastrtps convention).
@dataclass
class ParameterValue(IdlStruct, typename="rcl_interfaces::msg::dds_::ParameterValue_"):
    type: uint8 = 0
    bool_value: bool = False
    integer_value: int64 = 0
    double_value: float64 = 0.0
    string_value: str = ""
    byte_array_value: sequence[uint8] = field(default_factory=list)
    bool_array_value: sequence[bool] = field(default_factory=list)
    integer_array_value: sequence[int64] = field(default_factory=list)
    double_array_value: sequence[float64] = field(default_factory=list)
    string_array_value: sequence[str] = field(default_factory=list)


@dataclass
class ListParametersRequest(IdlStruct, typename="rcl_interfaces::srv::dds_::ListParameters_Request_"):
    prefixes: sequence[str] = field(default_factory=list)
    depth: uint64 = 0


@dataclass
class ListParametersResult(IdlStruct, typename="rcl_interfaces::msg::dds_::ListParametersResult_"):
    names: sequence[str] = field(default_factory=list)
    prefixes: sequence[str] = field(default_factory=list)


@dataclass
class ListParametersResponse(IdlStruct, typename="rcl_interfaces::srv::dds_::ListParameters_Response_"):
    result: ListParametersResult = field(default_factory=ListParametersResult)


@dataclass
class GetParametersRequest(IdlStruct, typename="rcl_interfaces::srv::dds_::GetParameters_Request_"):
    names: sequence[str] = field(default_factory=list)


@dataclass
class GetParametersResponse(IdlStruct, typename="rcl_interfaces::srv::dds_::GetParameters_Response_"):
    values: sequence[ParameterValue] = field(default_factory=list)


def qos():
    return Qos(
        Policy.Reliability.Reliable(max_blocking_time=duration(milliseconds=100)),
        Policy.History.KeepLast(10),
        Policy.Durability.Volatile,
        Policy.DataRepresentation(use_cdrv0_representation=True),
    )


def now_stamp(offset_s=0.0):
    ns = time.time_ns() + int(offset_s * 1e9)
    return Time(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)


def duration_s(d):
    return d.sec + d.nanosec * 1e-9


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
