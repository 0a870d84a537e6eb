#!/usr/bin/env bash
# The main job: build `vr` and run a real numeric kernel, a 1-D n-body simulation
# written in VRIR (examples/nbody1d.vrir), printing its final positions and velocities.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

cargo build --release --quiet -p velociraptor --bin vr
VR=target/release/vr

ARGS='[[-4.0, -2.0, 0.0, 2.0, 4.0], [-0.5, -0.3, 0.0, 0.3, 0.5], [1.0, 2.0, 1.5, 1.0, 0.5], 0.01, 100]'
echo "== vr check examples/nbody1d.vrir"
"$VR" check examples/nbody1d.vrir
echo "== 5 bodies, 100 steps of dt = 0.01 (positions, velocities):"
echo "   vr run examples/nbody1d.vrir nbody --args '$ARGS'"
"$VR" run examples/nbody1d.vrir nbody --args "$ARGS" --backend "${VR_BACKEND:-auto}"
echo "== the same file as a conformance test against NumPy's values:"
"$VR" test examples/nbody1d.vrir --backend "${VR_BACKEND:-auto}"
