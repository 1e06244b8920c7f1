#!/usr/bin/env python3
"""Write the periodic trot reference of urdf/quadruped.urdf as `ocp.x_ref` waypoints (YAML).

Two gaits: `trot`, the diagonal pairs (FL, HR) and (FR, HL) swing in turn, each for half a period;
`walk`, one leg at a time (HL, FL, HR, FR) for a quarter of the period each, three feet down. A
foot in stance moves backwards under its hip at the body's speed; in swing it comes forward
again and is lifted by `--height` at mid-swing ((1 - cos)/2 in the swing's phase: it leaves and touches the
ground with zero vertical speed). Joint angles come from the sagittal inverse
kinematics of the leg (thigh and shank 0.2 m, abduction 0), joint speeds from central
differences over the period, body speed `--speed` forward at `--body-height`. Which feet touch the
ground and when is not part of it: the MPC decides contacts; this only says where the legs
should be.

    python3 tools/quadruped_gait.py --period 0.5 --speed 0.2 > /tmp/gait.yaml
"""

import argparse
import math

THIGH = 0.2
SHANK = 0.2
LEGS = ["FL", "FR", "HL", "HR"]
# Fraction of the period a leg swings, and where in the period each leg's swing begins.
GAITS = {
    "trot": (0.5, {"FL": 0.0, "FR": 0.5, "HL": 0.5, "HR": 0.0}),
    "walk": (0.25, {"HL": 0.0, "FL": 0.25, "HR": 0.5, "FR": 0.75}),
}


def leg_ik(x, depth):
    """Flexion and knee angles placing the foot `x` ahead of and `depth` below the hip."""
    d2 = x * x + depth * depth
    c = (d2 - THIGH**2 - SHANK**2) / (2 * THIGH * SHANK)
    if not -1.0 <= c <= 1.0:
        raise SystemExit(f"foot at x={x:.3f}, depth={depth:.3f} is out of the leg's reach")
    knee = -math.acos(c)
    # A positive flexion turns the leg backwards: the foot is at -(x) along the body axis.
    flex = math.atan2(-x, depth) - math.atan2(SHANK * math.sin(knee), THIGH + SHANK * math.cos(knee))
    return flex, knee


def foot(phase, offset, swing, stride, lift):
    """Foot (x ahead of the hip, lift above the ground) at `phase` of the period, for a leg whose
    swing (a fraction `swing` of the period) begins at `offset`."""
    s = (phase - offset) % 1.0
    if s < swing:  # swing: from -stride/2 to +stride/2, lifted
        a = s / swing
        return -stride / 2 + stride * a, lift * 0.5 * (1.0 - math.cos(2.0 * math.pi * a))
    a = (s - swing) / (1.0 - swing)  # stance: from +stride/2 back to -stride/2 on the ground
    return stride / 2 - stride * a, 0.0


def number(x):
    """`x` to 4 decimals without trailing zeros ("0" for anything that rounds to zero)."""
    text = f"{x:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gait", choices=sorted(GAITS), default="trot")
    ap.add_argument("--period", type=float, default=0.5, help="gait period (s)")
    ap.add_argument("--speed", type=float, default=0.2, help="forward speed (m/s)")
    ap.add_argument("--height", type=float, default=0.05, help="foot lift at mid-swing (m)")
    ap.add_argument("--body-height", type=float, default=0.33, help="hip height (m)")
    ap.add_argument("--points", type=int, default=10, help="waypoints per period")
    a = ap.parse_args()
    if a.period <= 0 or a.points < 2:
        raise SystemExit("--period must be > 0 and --points at least 2")
    swing, offsets = GAITS[a.gait]
    stride = a.speed * a.period * (1.0 - swing)  # the body's travel during one stance

    def joints(phase):
        out = []
        for leg in LEGS:
            x, lift = foot(phase % 1.0, offsets[leg], swing, stride, a.height)
            flex, knee = leg_ik(x, a.body_height - lift)
            out += [0.0, flex, knee]
        return out

    dt = a.period / a.points
    print(f"  # tools/quadruped_gait.py --gait {a.gait} --period {a.period} --speed {a.speed} --height {a.height}"
          f" --body-height {a.body_height} --points {a.points}")
    print(f"  x_ref_period: {a.period}")
    print("  x_ref:")
    qs = [joints(i / a.points) for i in range(a.points)]
    for i, q in enumerate(qs):
        # Central differences over the period (its waypoints wrap around).
        dq = [(p - m) / (2 * dt) for p, m in zip(qs[(i + 1) % a.points], qs[i - 1])]
        base_q = [0.0, 0.0, a.body_height, 0.0, 0.0, 0.0]
        base_v = [a.speed, 0.0, 0.0, 0.0, 0.0, 0.0]
        row = base_q + q + base_v + dq
        print("    - [" + ", ".join(number(x) for x in row) + "]")


if __name__ == "__main__":
    main()
