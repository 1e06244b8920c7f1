#!/usr/bin/env bash
# Make a private pkg-config folder so that the `ipopt` crate links only the shared libipopt of
# Debian's coinor-libipopt-dev (its build script otherwise asks for static libraries and fails).
#
#   apt-get install -y coinor-libipopt-dev pkg-config cmake libclang-dev
#   eval "$(tools/ipopt_pkgconfig.sh)"        # prints: export PKG_CONFIG_PATH=...
#   cargo bench --bench solver --features ipopt-baseline
#
# The folder defaults to target/ipopt-pkgconfig (override with the first argument). Nothing
# machine specific is committed: the paths are found at run time.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${1:-$here/target/ipopt-pkgconfig}"
lib=""
for cand in /usr/lib/x86_64-linux-gnu/libipopt.so /usr/lib/libipopt.so /usr/lib64/libipopt.so; do
    if [ -e "$cand" ]; then lib="$cand"; break; fi
done
if [ -z "$lib" ]; then
    lib="$(ldconfig -p 2>/dev/null | awk '/libipopt\.so /{print $NF; exit}')"
fi
if [ -z "$lib" ]; then
    echo "libipopt.so not found: apt-get install -y coinor-libipopt-dev" >&2
    exit 1
fi
inc=/usr/include/coin
[ -e "$inc/IpStdCInterface.h" ] || { echo "IpStdCInterface.h not found under $inc" >&2; exit 1; }
version="$(pkg-config --modversion ipopt 2>/dev/null || echo 3.11)"
mkdir -p "$dir/lib"
ln -sf "$lib" "$dir/lib/libipopt.so"
cat > "$dir/ipopt.pc" <<PC
Name: ipopt
Description: Interior Point Optimizer (shared library only)
Version: $version
Libs: -L$dir/lib -lipopt
Cflags: -I$inc
PC
echo "export PKG_CONFIG_PATH=$dir"
