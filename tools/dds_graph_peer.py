#!/usr/bin/env python3
"""Discovers the ROS 2 graph by plain DDS discovery on Eclipse Cyclone DDS (PyPI `cyclonedds`).

Usage: python3 tools/dds_graph_peer.py [--duration 6] [--domain 0]

Reads the DDS builtin topics DCPSPublication and DCPSSubscription for --duration seconds and
prints one JSON object: {"endpoints": [{"kind": "writer"|"reader", "topic": ..., "type": ...}]},
one entry per endpoint of every other participant (its own are left out), sorted. This is what
`ros2 topic list -t` and `ros2 node info` are made of, seen independently of ros2-client.
"""

import argparse
import json
import time

from cyclonedds.builtin import (
    BuiltinDataReader,
    BuiltinTopicDcpsPublication,
    BuiltinTopicDcpsSubscription,
)
from cyclonedds.domain import DomainParticipant
from cyclonedds.internal import InvalidSample


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=6.0)
    ap.add_argument("--domain", type=int, default=0)
    a = ap.parse_args()
    dp = DomainParticipant(a.domain)
    own = dp.guid
    readers = {
        "writer": BuiltinDataReader(dp, BuiltinTopicDcpsPublication),
        "reader": BuiltinDataReader(dp, BuiltinTopicDcpsSubscription),
    }
    seen = {}
    end = time.monotonic() + a.duration
    while time.monotonic() < end:
        for kind, r in readers.items():
            for s in r.take(N=100):
                if isinstance(s, InvalidSample):
                    continue
                if s.participant_key == own:
                    continue
                seen[(kind, str(s.key))] = {"kind": kind, "topic": s.topic_name, "type": s.type_name}
        time.sleep(0.05)
    endpoints = sorted(seen.values(), key=lambda e: (e["kind"], e["topic"], e["type"]))
    print(json.dumps({"endpoints": endpoints}))


if __name__ == "__main__":
    main()
