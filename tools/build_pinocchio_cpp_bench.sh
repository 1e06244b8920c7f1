#!/usr/bin/env bash
# Build tools/pinocchio_cpp_bench.cpp against the C++ headers and shared libraries of the PyPI
# `pin` wheel (Pinocchio), for `cargo run --release --example pinocchio_anchor` (issue 26).
#
#   tools/build_pinocchio_cpp_bench.sh [OUT]      (default OUT: target/pinocchio_cpp_bench/pinocchio_cpp_bench)
#
# The wheel's install prefix (`cmeel.prefix`, holding include/pinocchio and lib/) is found from
# Python, or taken from $PINOCCHIO_PREFIX. Pinocchio's headers also need Eigen and urdfdom's
# headers, which `pin` does not pull in: the PyPI packages `cmeel-eigen` and
# `cmeel-urdfdom-headers` (tools/requirements.txt) install them into the same prefix;
# $EIGEN3_INCLUDE_DIR or /usr/include/eigen3 are used for Eigen when that is not there.
# Compiled with g++ -O3 -march=native (plain -O3 if g++ rejects -march=native; other flags with
# $PINOCCHIO_BENCH_CXXFLAGS), the lib folder as rpath. Rebuilds only when the source or this
# script is newer than OUT (or the flags differ from the last build's). OUT.flags records the flags.
#
# Prints the path of the program on the last line. Exit status: 0 built (or up to date);
# 3 the C++ headers of `pin` are absent (callers may skip); 1 any other failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
src="$root/tools/pinocchio_cpp_bench.cpp"
out="${1:-$root/target/pinocchio_cpp_bench/pinocchio_cpp_bench}"

if [ -z "${PINOCCHIO_PREFIX:-}" ]; then
  PINOCCHIO_PREFIX="$(python3 - <<'EOF' 2>/dev/null || true
import os, site, sys
dirs = list(site.getsitepackages()) + [site.getusersitepackages()]
try:
    import pinocchio
    # .../cmeel.prefix/lib/python3.X/site-packages/pinocchio/__init__.py
    d = os.path.dirname(os.path.abspath(pinocchio.__file__))
    while d != os.path.dirname(d):
        dirs.insert(0, d)
        d = os.path.dirname(d)
except Exception:
    pass
for d in dirs:
    for cand in (d, os.path.join(d, "cmeel.prefix")):
        if os.path.isfile(os.path.join(cand, "include", "pinocchio", "config.hpp")):
            print(cand)
            sys.exit(0)
sys.exit(1)
EOF
)"
fi
if [ -z "$PINOCCHIO_PREFIX" ] || [ ! -f "$PINOCCHIO_PREFIX/include/pinocchio/config.hpp" ]; then
  echo "build_pinocchio_cpp_bench: the C++ headers of PyPI pin (Pinocchio) are absent" \
    "(no include/pinocchio/config.hpp in a cmeel.prefix; pip install -r tools/requirements.txt)" >&2
  exit 3
fi
inc="$PINOCCHIO_PREFIX/include"
lib="$PINOCCHIO_PREFIX/lib"

eigen=""
for cand in "${EIGEN3_INCLUDE_DIR:-}" "$inc/eigen3" /usr/include/eigen3; do
  if [ -n "$cand" ] && [ -f "$cand/Eigen/Core" ]; then eigen="$cand"; break; fi
done
if [ -z "$eigen" ]; then
  echo "build_pinocchio_cpp_bench: Eigen headers not found (pip install cmeel-eigen, or set EIGEN3_INCLUDE_DIR)" >&2
  exit 1
fi
urdf_headers="$inc/urdfdom_headers"
if [ ! -f "$urdf_headers/urdf_model/model.h" ]; then
  if [ -f /usr/include/urdf_model/model.h ]; then
    urdf_headers=/usr/include
  else
    echo "build_pinocchio_cpp_bench: urdfdom headers (urdf_model/model.h) not found (pip install cmeel-urdfdom-headers)" >&2
    exit 1
  fi
fi
command -v g++ >/dev/null || { echo "build_pinocchio_cpp_bench: g++ not found" >&2; exit 1; }

# -march=native lets Eigen use AVX (and AVX-512) in Pinocchio's algorithms, which are compiled
# here. The wheel's libraries are built for baseline x86-64 (16-byte alignment, plain malloc)
# and the URDF parser in them fills and allocates the Model this program later frees: Eigen's
# alignment and allocator must stay those of the wheel, or the program crashes in free().
native_abi=(-march=native -DEIGEN_MAX_ALIGN_BYTES=16 -DEIGEN_MAX_STATIC_ALIGN_BYTES=16 -DEIGEN_MALLOC_ALREADY_ALIGNED=1)
if [ -n "${PINOCCHIO_BENCH_CXXFLAGS:-}" ]; then
  # shellcheck disable=SC2206
  arch=($PINOCCHIO_BENCH_CXXFLAGS)
elif echo 'int main() { return 0; }' | g++ -march=native -x c++ - -o /dev/null 2>/dev/null; then
  arch=(-O3 "${native_abi[@]}")
else
  echo "build_pinocchio_cpp_bench: g++ rejects -march=native, using plain -O3" >&2
  arch=(-O3)
fi
flags="${arch[*]}"
version="$(sed -n 's/^# define PINOCCHIO_VERSION "\(.*\)"/\1/p' "$inc/pinocchio/config.hpp")"
record="g++ $flags (Pinocchio $version headers from $PINOCCHIO_PREFIX, Eigen from $eigen)"
if [ -x "$out" ] && [ "$out" -nt "$src" ] && [ "$out" -nt "$0" ] && [ "$(cat "$out.flags" 2>/dev/null)" = "$record" ]; then
  echo "$out"
  exit 0
fi
mkdir -p "$(dirname "$out")"
tmp="$out.tmp.$$"
trap 'rm -f "$tmp" "$tmp.log"' EXIT
common=(-std=c++17 -DNDEBUG -DBOOST_MPL_CFG_NO_PREPROCESSED_HEADERS -DBOOST_MPL_LIMIT_LIST_SIZE=30
  -DBOOST_MPL_LIMIT_VECTOR_SIZE=30 -DBOOST_FUSION_INVOKE_MAX_ARITY=12
  -isystem "$inc" -isystem "$eigen" -isystem "$urdf_headers" -isystem "$inc/urdfdom"
  "$src" -o "$tmp"
  -L"$lib" -Wl,-rpath,"$lib" -lpinocchio_parsers -lpinocchio_default -lurdfdom_model)
if ! g++ "${arch[@]}" "${common[@]}" 2>"$tmp.log"; then
  cat "$tmp.log" >&2
  rm -f "$tmp.log"
  echo "build_pinocchio_cpp_bench: compiling $src failed" >&2
  exit 1
fi
rm -f "$tmp.log"
mv -f "$tmp" "$out"
echo "$record" >"$out.flags"
echo "$out"
