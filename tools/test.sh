#!/usr/bin/env bash
# The test command (README): formatting, lints and the whole test suite in release mode.
# Installs the Python reference tools the tests use (PyPI) when they are missing, and generates
# the reference data they compare against into target/reference.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! python3 -c 'import importlib.metadata as m, casadi, pinocchio, cyclonedds, rosbags, mujoco; m.version("example-robot-data"); m.version("cmeel-eigen"); m.version("cmeel-urdfdom-headers")' >/dev/null 2>&1; then
  echo "== installing Python reference tools (tools/requirements.txt)"
  python3 -m pip install --quiet -r tools/requirements.txt
fi

if [ -f tools/pinocchio_reference.py ]; then
  echo "== generating Pinocchio reference data"
  python3 tools/pinocchio_reference.py target/reference
fi

echo "== formulation references (tools/check_formulation_refs.py)"
python3 tools/check_formulation_refs.py
echo "== import circles between files (tools/check_import_cycles.py)"
python3 tools/check_import_cycles.py
echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --release --all-targets -- -D warnings
echo "== cargo test --release"
log=$(mktemp)
set +e
cargo test --release --no-fail-fast 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
echo "== colcon build + colcon test (tools/colcon_check.sh)"
colcon_start=$(date +%s)
set +e
tools/colcon_check.sh
colcon_status=$?
set -e
echo "colcon stage: exit status $colcon_status, $(( $(date +%s) - colcon_start )) s"
echo "== summary"
passed=$(grep -E '^test result:' "$log" | awk '{s+=$4} END {print s+0}')
failed=$(grep -E '^test result:' "$log" | awk '{s+=$6} END {print s+0}')
ignored=$(grep -E '^test result:' "$log" | awk '{s+=$8} END {print s+0}')
echo "tests passed: $passed, failed: $failed, ignored: $ignored, cargo exit status: $status, colcon exit status: $colcon_status"
rm -f "$log"
if [ "$status" -eq 0 ] && [ "$colcon_status" -ne 0 ]; then
  status=$colcon_status
fi
exit "$status"
