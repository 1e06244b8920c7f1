"""One lockstep run of `fesdj_node` against the MuJoCo bridge, in a private network namespace.

Shared by `tools/quadruped_push_sweep.py` and `tools/quadruped_cmd_sequence.py`: the node
(`sim: false`, `start_enabled`, `floating_base`, `use_sim_time`) on `config`, the bridge on
`tools/scenarios/quadruped.yaml` in lockstep (0.05 s) with extra arguments, and the
re-execution of the calling script under `unshare -n` (loopback up, multicast routed on it), as
the DDS tests do: never DDS traffic on the host network.
"""

import os
import signal
import subprocess
import sys
import time

TOOLS = os.path.dirname(os.path.abspath(__file__))
NETNS_ENV = "FESDJ_TEST_NETNS"
SETUP = ("set -e; ip link set lo up; ip link set lo multicast on; ip route add 224.0.0.0/4 dev lo; "
         'exec "$0" "$@"')


def reexec_in_private_netns():
    """None inside the namespace; outside, re-run this script in a new one and return its exit status."""
    if os.environ.get(NETNS_ENV) is not None:
        return None
    flags = ["-n"] if os.geteuid() == 0 else ["-r", "-n"]
    env = dict(os.environ, **{NETNS_ENV: "1"})
    return subprocess.call(["unshare", *flags, "bash", "-c", SETUP, sys.executable, *sys.argv], env=env)


def run_lockstep(node_bin, config, out_dir, log, duration, bridge_args, limit):
    """Run node and bridge for `duration` simulated seconds (at most `limit` wall seconds);
    `(bridge exit status, bridge stderr, the node's "shutting down after" line, wall seconds)`."""
    bridge = subprocess.Popen(
        [sys.executable, os.path.join(TOOLS, "mujoco_sim.py"), "--scenario",
         os.path.join(TOOLS, "scenarios", "quadruped.yaml"), "--config", config, "--lockstep", "0.05",
         "--duration", str(duration), "--log", log, *bridge_args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    node = subprocess.Popen(
        [node_bin, "--ros-args", "-p", f"config_file:={config}", "-p", "sim:=false", "-p", "start_enabled:=true",
         "-p", "floating_base:=true", "-p", "use_sim_time:=true"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=out_dir)
    t0 = time.monotonic()
    try:
        _, berr = bridge.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        bridge.kill()
        _, berr = bridge.communicate()
    wall = time.monotonic() - t0
    node.send_signal(signal.SIGINT)
    try:
        _, nerr = node.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        node.kill()
        _, nerr = node.communicate()
    node_summary = next((l.strip() for l in nerr.splitlines() if "shutting down after" in l), "")
    return bridge.returncode, berr, node_summary, wall
