#!/usr/bin/env python3
"""The integration tests of tests/ by binary, and a check that a regrouping kept every one.

    python3 tools/list_tests.py list OUT.json [CARGO_ARGS...]
        Builds the integration test binaries (`cargo test --release --no-run
        --message-format=json CARGO_ARGS`), runs each with `--list` and with `--list --ignored`
        (libtest's `name: test` lines) and writes {binary: {"tests": [...], "ignored": [...]}}.

    python3 tools/list_tests.py compare OLD.json NEW.json
        OLD: one binary per former file (tests/<file>.rs); NEW: one binary per layer
        (tests/<layer>/main.rs with `mod <file>;`). Every old `<file>` test `t` must be exactly
        one new test `<file>::t` (in whichever layer binary), ignored in NEW exactly when it was
        ignored in OLD, and NEW must hold no other test. Prints the counts; exit status 1 on any
        difference.

`tests` are all the tests a binary lists (ignored ones included, as `--list` shows them);
`ignored` are the ones `--list --ignored` shows.
"""

import json
import os
import subprocess
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def listed(exe, *extra):
    out = subprocess.run(
        [exe, "--list", "--format", "terse", *extra],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    names = []
    for line in out.splitlines():
        if line.endswith(": test"):
            names.append(line[: -len(": test")])
        elif line.endswith(": bench"):
            names.append(line[: -len(": bench")])
    return sorted(names)


def build(cargo_args):
    cmd = ["cargo", "test", "--release", "--no-run", "--message-format=json", *cargo_args]
    out = subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.PIPE, text=True).stdout
    exes = {}
    for line in out.splitlines():
        try:
            msg = json.loads(line)
        except json.JSONDecodeError:
            continue
        if msg.get("reason") != "compiler-artifact" or not msg.get("executable"):
            continue
        target = msg["target"]
        if target["kind"] == ["test"]:
            exes[target["name"]] = msg["executable"]
    return exes


def cmd_list(out_path, cargo_args):
    exes = build(cargo_args)
    result = {}
    for name in sorted(exes):
        result[name] = {
            "tests": listed(exes[name]),
            "ignored": listed(exes[name], "--ignored"),
        }
    with open(out_path, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")
    n = sum(len(v["tests"]) for v in result.values())
    i = sum(len(v["ignored"]) for v in result.values())
    print(f"{len(result)} test binaries, {n} tests, {i} of them ignored -> {out_path}")


def cmd_compare(old_path, new_path):
    with open(old_path) as f:
        old = json.load(f)
    with open(new_path) as f:
        new = json.load(f)
    # new test name -> [(binary, ignored)]
    found = defaultdict(list)
    for binary, v in new.items():
        ignored = set(v["ignored"])
        for t in v["tests"]:
            found[t].append((binary, t in ignored))
    problems = []
    used = set()
    mapping = defaultdict(int)
    for binary, v in sorted(old.items()):
        ignored = set(v["ignored"])
        for t in v["tests"]:
            want = f"{binary}::{t}"
            hits = found.get(want, [])
            if len(hits) != 1:
                problems.append(f"{binary} {t}: {len(hits)} new tests named {want} {hits}")
                continue
            layer, new_ignored = hits[0]
            used.add(want)
            mapping[(binary, layer)] += 1
            if new_ignored != (t in ignored):
                problems.append(f"{binary} {t}: ignored {t in ignored} before, {new_ignored} now")
    for t, hits in sorted(found.items()):
        if t not in used:
            problems.append(f"new test {t} in {[b for b, _ in hits]} has no old counterpart")
    n_old = sum(len(v["tests"]) for v in old.values())
    n_new = sum(len(v["tests"]) for v in new.values())
    i_old = sum(len(v["ignored"]) for v in old.values())
    i_new = sum(len(v["ignored"]) for v in new.values())
    layers = defaultdict(list)
    for (binary, layer), n in sorted(mapping.items()):
        layers[layer].append(f"{binary} ({n})")
    for layer in sorted(layers):
        print(f"{layer}: {', '.join(layers[layer])}")
    empty = [b for b, v in sorted(old.items()) if not v["tests"]]
    if empty:
        print(f"old binaries without tests (in this build): {', '.join(empty)}")
    print(f"old: {len(old)} binaries, {n_old} tests, {i_old} ignored")
    print(f"new: {len(new)} binaries, {n_new} tests, {i_new} ignored")
    for p in problems:
        print("MISMATCH", p)
    if problems or n_old != n_new or i_old != i_new:
        print(f"{len(problems)} mismatches")
        return 1
    print("every old test is exactly one new test (same name under its file's module, same ignored state)")
    return 0


def main(argv):
    if len(argv) >= 2 and argv[0] == "list":
        cmd_list(argv[1], argv[2:])
        return 0
    if len(argv) == 3 and argv[0] == "compare":
        return cmd_compare(argv[1], argv[2])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
