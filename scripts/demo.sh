#!/usr/bin/env bash
# The main job: build `vr`, compile an ordinary R function (examples/heat.R: 2-D heat
# diffusion with loops over a matrix) from its R source and run it, check the result
# against R itself, then run a VRIR kernel (examples/nbody1d.vrir, a 1-D n-body
# simulation) and check it against NumPy's values.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

cargo build --release --quiet -p velociraptor --bin vr
VR=target/release/vr

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
echo "== an R function compiled from its source: heat(100, 200) from examples/heat.R"
echo "   vr run examples/heat.R heat --args '[100, 200]' --backend cpu"
t0=$(now)
VR_RESULT=$("$VR" run examples/heat.R heat --args '[100, 200]' --backend cpu)
t1=$(now)
echo "   vr process (parse R, infer types, VRIR, LLVM, run): $VR_RESULT in $(secs "$t0" "$t1") s"
if command -v Rscript >/dev/null; then
  t0=$(now)
  R_RESULT=$(Rscript -e 'source("examples/heat.R"); cat(sprintf("%.17g", heat(100, 200)))')
  t1=$(now)
  echo "   Rscript process (R itself):                       $R_RESULT in $(secs "$t0" "$t1") s"
  # R's sum() accumulates in long double, ours in double: equal to 1e-12 relative.
  python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if abs(a - b) <= 1e-12 * abs(b) else 1)" \
    "$VR_RESULT" "$R_RESULT" && echo "   same result as R"
fi

ARGS='[[-4.0, -2.0, 0.0, 2.0, 4.0], [-0.5, -0.3, 0.0, 0.3, 0.5], [1.0, 2.0, 1.5, 1.0, 0.5], 0.01, 100]'
echo "== vr check examples/nbody1d.vrir"
"$VR" check examples/nbody1d.vrir
echo "== 5 bodies, 100 steps of dt = 0.01 (positions, velocities):"
echo "   vr run examples/nbody1d.vrir nbody --args '$ARGS'"
"$VR" run examples/nbody1d.vrir nbody --args "$ARGS" --backend "${VR_BACKEND:-auto}"
echo "== the same file as a conformance test against NumPy's values:"
"$VR" test examples/nbody1d.vrir --backend "${VR_BACKEND:-auto}"
