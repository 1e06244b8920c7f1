#!/usr/bin/env bash
# colcon build + colcon test of this package as a ROS 2 (ament_cargo) package, with PyPI
# colcon-core, colcon-cargo, colcon-ros-cargo and cargo-ament-build (tools/requirements-colcon.txt)
# in a virtual environment; no ROS 2 installation is needed.
#
# A temporary workspace gets src/fesdj_mpc -> this repository (symlink). colcon-ros-cargo passes
# `--target-dir build/fesdj_mpc` to cargo, so that directory is made a symlink to this
# repository's target directory ($CARGO_TARGET_DIR or ./target): the build shares the release
# artifacts of the main build instead of compiling everything again. `colcon test` runs only the
# tests given by COLCON_TEST_ARGS (default: the launch-file tests, module `launch_files` of the
# `ros` test binary), not the whole suite again, plus colcon-cargo's `cargo fmt --check`; a test
# failure fails this script.
#
# Then the install layout is checked: install/fesdj_mpc/lib/fesdj_mpc/fesdj_node and
# share/fesdj_mpc/{package.xml,launch,config,urdf}.
#
# Environment: COLCON_VENV (default target/colcon-venv), COLCON_WS (default a fresh temp dir),
# COLCON_TEST_ARGS (default "--release --test ros launch_files::": cargo's test-name filter).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$repo/target}"
mkdir -p "$target"
target="$(cd "$target" && pwd)"
venv="${COLCON_VENV:-$target/colcon-venv}"
test_args="${COLCON_TEST_ARGS:---release --test ros launch_files::}"
start=$(date +%s)

if [ ! -x "$venv/bin/colcon" ] || [ ! -x "$venv/bin/cargo-ament-build" ]; then
  echo "== colcon: installing tools/requirements-colcon.txt into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet -r "$repo/tools/requirements-colcon.txt"
fi
# Appended, not prepended: the tests run by `colcon test` keep the system python3 (with the
# reference tools of tools/requirements.txt), not the venv's.
export PATH="$PATH:$venv/bin"

ws="${COLCON_WS:-$(mktemp -d /tmp/fesdj_colcon_ws.XXXXXX)}"
mkdir -p "$ws/src" "$ws/build"
ln -sfn "$repo" "$ws/src/fesdj_mpc"
ln -sfn "$target" "$ws/build/fesdj_mpc"
cd "$ws"

echo "== colcon build (workspace $ws, target dir $target)"
# `cargo build --release --bins --test ros`, not a plain `cargo build --release`: selecting
# a test target makes cargo resolve features with the dev-dependencies, as `cargo test --release`
# (tools/test.sh, before this script) and `colcon test` below do. A plain `cargo build --release`
# resolves serde, serde_core and rustix with fewer features and so recompiles them and this crate,
# although the `cargo test --release` build is fresh. The installed binaries are the same ones
# `cargo test` runs (CARGO_BIN_EXE_*).
colcon build --event-handlers console_direct+ \
  --cargo-args " --release" " --bins" " --test" "ros"

echo "== colcon test (cargo test $test_args; cargo fmt --check)"
# colcon's --cargo-args takes values that would look like options with a leading space (it
# strips it): " --release" " --test" "ros" "launch_files::".
cargo_args=()
for a in $test_args; do cargo_args+=(" $a"); done
colcon test --event-handlers console_direct+ --return-code-on-test-failure \
  --cargo-args "${cargo_args[@]}"
colcon test-result --verbose

echo "== install layout"
inst="$ws/install/fesdj_mpc"
fail=0
for f in lib/fesdj_mpc/fesdj_node lib/fesdj_mpc/fesdj share/fesdj_mpc/package.xml \
         share/fesdj_mpc/launch/fesdj_mpc.launch.py share/fesdj_mpc/launch/fesdj_mpc.launch.xml \
         share/fesdj_mpc/config/fesdj_mpc.params.yaml share/fesdj_mpc/config/sliding_block_mpc.yaml \
         share/fesdj_mpc/urdf/hopper.urdf; do
  if [ -e "$inst/$f" ]; then
    echo "ok   $f"
  else
    echo "MISSING $f"
    fail=1
  fi
done
[ -x "$inst/lib/fesdj_mpc/fesdj_node" ] || { echo "fesdj_node is not executable"; fail=1; }
"$inst/lib/fesdj_mpc/fesdj_node" --help >/dev/null || { echo "installed fesdj_node --help failed"; fail=1; }
echo "== colcon check: $(( $(date +%s) - start )) s"
exit "$fail"
