#!/usr/bin/env bash
# The benchmark run behind the report's 16-core and GPU charts, on a machine with many
# cores (and a GPU) but no Rust and no R: the `device` tool's machine. Runs the bench
# binaries of a bundle made here into one run folder (CSV and Markdown, the columns of
# bench/src/record.rs), which bench/report/report.R then turns into charts here.
#
# Prepare here:
#   cargo build --release -p velociraptor-bench
#   scripts/device-bundle.sh .device/bench.tar.xz target/release/vr-bench \
#       target/release/vr-bench-compile target/release/vr-bench-julia target/release/vr-bench-rvec
# There (repository root, `.device/bench.tar.xz` carried; OUT is the folder that comes back):
#   VR_BENCH_COMMIT=<commit> bash scripts/device-bench.sh .device/bench.tar.xz "$OUT/run" [--quick]
# The run folder is also packed as RUN_DIR.tar.xz next to it: the device tool brings back
# at most 8 files, and a run has more (unpack it here with tar -xJf).
# Then here, with a local run for the R, Octave and cache charts (R is not on the device):
#   Rscript bench/report/report.R LOCAL_RUN DEVICE_RUN
#
# What it runs, each left out with a line when its binary is not in the bundle:
# vr-bench with a thread sweep 1, 2, 4, ... up to the cores (the OpenMP column and
# STREAM); `vr-bench --gpu` where the OpenCL device is a GPU (NVIDIA's ICD registered as
# the machine notes say: a folder with nvidia.icd naming libnvidia-opencl.so.1); the
# bench kernels' GPU peers (bench/peers/gpu_peers.py) where python3 has numba-cuda;
# vr-bench-compile (cold compile latency), vr-bench-julia and vr-bench-rvec.
# usage: scripts/device-bench.sh BUNDLE.tar.xz RUN_DIR [--quick]
set -uo pipefail
bundle=${1:?usage: scripts/device-bench.sh BUNDLE.tar.xz RUN_DIR [--quick]}
run=${2:?usage: scripts/device-bench.sh BUNDLE.tar.xz RUN_DIR [--quick]}
quick=${3:-}
mkdir -p "$run"
run=$(cd "$run" && pwd)
unpack=$(mktemp -d)
tar -C "$unpack" -xJf "$bundle"
bin=$unpack/bundle/bin
export LD_LIBRARY_PATH="$unpack/bundle/lib:${LD_LIBRARY_PATH:-}"
if ls /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 >/dev/null 2>&1 && [ -z "${OCL_ICD_VENDORS:-}" ]; then
  icd=$(mktemp -d)
  echo libnvidia-opencl.so.1 >"$icd/nvidia.icd"
  export OCL_ICD_VENDORS=$icd
fi
export VR_CACHE_DIR=$(mktemp -d)
status=0
{ date -u; nproc; lscpu | grep 'Model name'; command -v nvidia-smi >/dev/null && nvidia-smi -L; } >"$run/machine.txt" 2>&1

sweep="" t=1
while [ "$t" -le "$(nproc)" ]; do sweep="$sweep${sweep:+,}$t"; t=$((t * 2)); done
echo "== vr-bench --threads $sweep"
"$bin/vr-bench" $quick --threads "$sweep" --out "$run" | tee "$run/vr-bench.md" || status=1
if gpu=$("$bin/vr-bench" --gpu-present); then
  echo "== vr-bench --gpu on $gpu"
  "$bin/vr-bench" --gpu $quick --out "$run" | tee "$run/vr-bench-gpu.md" || status=1
  if python3 -c 'import numba.cuda' 2>/dev/null; then
    echo "== GPU peers (bench/peers/gpu_peers.py)"
    python3 bench/peers/gpu_peers.py --no-fma --out "$run" | tee "$run/peers-gpu.md" ||
      echo "(the peers did not all run or verify: see above)"
  else
    echo "(GPU peers left out: python3 has no numba.cuda)"
  fi
else
  echo "(vr-bench --gpu left out: $gpu)"
fi
for b in vr-bench-compile vr-bench-julia vr-bench-rvec; do
  if [ -x "$bin/$b" ]; then
    echo "== $b"
    "$bin/$b" $quick --out "$run" | tee "$run/$b.md" || status=1
  else
    echo "($b left out: not in the bundle)"
  fi
done
tar -C "$(dirname "$run")" -cJf "$run.tar.xz" "$(basename "$run")" || status=1
exit $status
