#!/usr/bin/env bash
# The main job: an ordinary R function (examples/heat.R: 2-D heat diffusion with loops
# over a matrix) compiled by the R package (`vr_compile()`, installed by
# scripts/setup.sh), checked against R's own result, with R's time and the compiled
# time side by side (examples/heat-demo.R). Then an R function with a `gpu({ ... })`
# section (examples/gpu.R), its section run on an OpenCL device (a GPU, else PoCL's CPU
# device, else the CPU: the output says which), checked against R (examples/gpu-demo.R).
# Then the VRIR side in one line: a 1-D n-body kernel written in VRIR, checked against
# NumPy's values.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

echo "== the R package: vr_compile(heat) from examples/heat.R"
Rscript examples/heat-demo.R

echo "== the R package: a gpu({ ... }) section (examples/gpu.R) on OpenCL"
Rscript examples/gpu-demo.R

echo "== VRIR: vr test examples/nbody1d.vrir (5 bodies, 100 steps, against NumPy)"
cargo build --release --quiet -p velociraptor --bin vr
target/release/vr test examples/nbody1d.vrir --backend "${VR_BACKEND:-auto}"
