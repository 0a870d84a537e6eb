#!/usr/bin/env bash
# The Octave package: target/octave/velociraptor-<version>.tar.gz, which
#   pkg install velociraptor-<version>.tar.gz
# accepts offline. It holds the .m files (bindings/octave/inst), the MEX shim's C source
# with its Makefile (pkg runs `make`, which calls `mkoctfile --mex`), and the C API
# library built here with its header: the MEX file finds the library next to itself
# ('-Wl,-rpath,$ORIGIN'), where pkg installs both (src/FILES lists them).
#   scripts/build-octave-pkg.sh [OUTDIR]    (VR_OCTAVE_PROFILE=debug for a dev build)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
profile=${VR_OCTAVE_PROFILE:-release}
out=${1:-target/octave}
version=$(sed -n 's/^Version: *//p' bindings/octave/DESCRIPTION)
if [ "$profile" = release ]; then
  cargo build --locked --quiet --release -p velociraptor-capi
else
  cargo build --locked --quiet -p velociraptor-capi
fi
lib=target/$profile/libvelociraptor_capi.so
stage="$out/stage/velociraptor"
rm -rf "$out/stage"
mkdir -p "$stage/src"
cp -r bindings/octave/DESCRIPTION bindings/octave/COPYING bindings/octave/INDEX bindings/octave/inst "$stage/"
cp bindings/octave/src/Makefile bindings/octave/src/FILES bindings/octave/src/vr_mex.c "$stage/src/"
cp capi/include/velociraptor.h "$stage/src/"
# Debug info is not needed to run; it is most of the file.
strip --strip-debug -o "$stage/src/libvelociraptor_capi.so" "$lib"
tarball="$out/velociraptor-$version.tar.gz"
tar -C "$out/stage" -czf "$tarball" velociraptor
rm -rf "$out/stage"
echo "$tarball"
