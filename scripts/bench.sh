#!/usr/bin/env bash
# Benchmarks: builds vr-bench in release and runs it (arguments pass through, e.g.
# --quick or --kernel matmul_loops). Prints the table that bench/RESULTS.md records.
# Then the R benchmark (bench/r/run.R: R vs vr_compile vs C; R vs C only when the
# velociraptor R package is not installed; VR_R_LIB names a private library), and the
# Julia kernels through the Julia front end against the VRIR ones (vr-bench-julia), and the
# random-number benchmark (bench/r/random.R: R vs compiled code drawing R's stream).
#
# --report: one new run of everything into target/bench-runs/<date>-<commit>/ (vr-bench
# with a thread sweep over 1, 2, 4, ... up to this machine's cores, the R benchmarks, the
# Julia kernels, the compile latencies (vr-bench-compile) and the disk-cache benchmark;
# each writes its CSV there next to its Markdown table), then the charts
# (bench/report/*.png) and bench/REPORT.md from it
# (bench/report/report.R; needs R's ggplot2, installed by scripts/setup.sh). The Octave
# benchmark (scripts/bench-octave.sh) joins the run where octave-cli and mkoctfile are
# installed, and `vr-bench --gpu` where the OpenCL device is a GPU (`vr-bench
# --gpu-present`; a CPU OpenCL such as PoCL says nothing about GPUs); each says so when
# it is left out, and the report then says which charts are missing. VR_REPORT_DIR=DIR
# puts the charts and REPORT.md into DIR instead (a trial run that leaves the committed
# report alone). random.R,
# array_style.R and first_call.R need the velociraptor R package and are left out, saying
# so, without it.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
report=0
pass=()
for a in "$@"; do
  if [ "$a" = "--report" ]; then report=1; else pass+=("$a"); fi
done
cargo build --release --locked --quiet -p velociraptor-bench --bin vr-bench --bin vr-bench-julia --bin vr-bench-compile
quick=""
for a in "${pass[@]}"; do [ "$a" = "--quick" ] && quick="--quick"; done
# Whether R finds the velociraptor package (where run.R looks: $VR_R_LIB, then R's libraries).
have_r_package() {
  Rscript -e 'q(status = !requireNamespace("velociraptor", lib.loc = c(Sys.getenv("VR_R_LIB", "/tmp/rbench-lib"), .libPaths()), quietly = TRUE))'
}
no_r_package="the velociraptor R package is not installed; VR_R_LIB names a private library"
if [ "$report" = 0 ]; then
  target/release/vr-bench "${pass[@]}"
  Rscript bench/r/run.R $quick
  target/release/vr-bench-julia $quick
  if have_r_package; then Rscript bench/r/random.R $quick; else echo "bench: random.R left out ($no_r_package)"; fi
  exit 0
fi
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
run="target/bench-runs/$(date -u +%Y%m%dT%H%M%SZ)-$commit"
mkdir -p "$run"
threads=1
sweep=""
while [ "$threads" -le "$(nproc)" ]; do sweep="$sweep${sweep:+,}$threads"; threads=$((threads * 2)); done
echo "bench: run folder $run (thread sweep $sweep)"
target/release/vr-bench "${pass[@]}" --threads "$sweep" --out "$run" | tee "$run/vr-bench.md"
target/release/vr-bench-julia $quick --out "$run" | tee "$run/vr-bench-julia.md"
target/release/vr-bench-compile $quick --out "$run" | tee "$run/vr-bench-compile.md"
Rscript bench/r/run.R $quick --out="$run" | tee "$run/r-bench.md"
if have_r_package; then
  Rscript bench/r/random.R $quick --out="$run" | tee "$run/r-random.md"
  Rscript bench/r/array_style.R $quick --out="$run" | tee "$run/r-array-style.md"
  # Cold first calls under each tiers setting (--quick: the small sizes alone).
  first_sizes="small,full,long"
  [ -n "$quick" ] && first_sizes="small"
  Rscript bench/r/first_call.R --sizes="$first_sizes" --out="$run" | tee "$run/r-first-call.md"
else
  echo "bench: random.R, array_style.R and first_call.R left out ($no_r_package)"
fi
bash scripts/bench_cache.sh --out "$run" | tee "$run/cache.md"
if command -v octave-cli >/dev/null && command -v mkoctfile >/dev/null; then
  VR_BENCH_COMMIT=$commit bash scripts/bench-octave.sh $quick --out "$run"
else
  echo "bench: Octave benchmark left out (octave-cli or mkoctfile not installed)"
fi
if gpu=$(target/release/vr-bench --gpu-present); then
  echo "bench: GPU benchmark on $gpu"
  target/release/vr-bench --gpu $quick --out "$run" | tee "$run/vr-bench-gpu.md"
else
  echo "bench: GPU benchmark left out ($gpu)"
fi
if [ -n "${VR_REPORT_DIR:-}" ]; then
  Rscript bench/report/report.R --charts "$VR_REPORT_DIR" --report "$VR_REPORT_DIR/REPORT.md" "$run"
else
  Rscript bench/report/report.R "$run"
fi
