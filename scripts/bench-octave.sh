#!/usr/bin/env bash
# The Octave benchmark: builds the package (release), installs it into a scratch Octave
# user directory, builds the C references (bench/octave/c/crefs.c) as a MEX file, and
# runs bench/octave/run_bench.m, which prints the table of bench/RESULTS.md.
#   scripts/bench-octave.sh [--quick] [--out DIR]
# The table also goes to DIR/octave-bench.md and every timed configuration to
# DIR/octave-bench.csv (the columns of vr-bench.csv; bench/report/report.R charts it);
# DIR: --out, else $VR_BENCH_OUT, else target/bench-runs/<date>-<commit>, as bench.sh and
# bench/r/run.R name a run. The commit is $VR_BENCH_COMMIT, else git's.
# Compiled code runs serially (VR_OCTAVE_BACKEND=cpu) unless VR_OCTAVE_BACKEND is set;
# VR_OCTAVE_BACKEND=cpu-par shows the parfor kernel on every core.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=false
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=true ;;
    --out) out=${2:?--out needs a directory}; shift ;;
    --out=*) out=${1#--out=} ;;
    *) echo "usage: scripts/bench-octave.sh [--quick] [--out DIR]" >&2; exit 2 ;;
  esac
  shift
done
export VR_BENCH_COMMIT=${VR_BENCH_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
out=${out:-${VR_BENCH_OUT:-target/bench-runs/$(date -u +%Y%m%dT%H%M%SZ)-$VR_BENCH_COMMIT}}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tarball=$(readlink -f "$(bash scripts/build-octave-pkg.sh "$work/build" | tail -1)")
export HOME="$work/home" VR_CACHE_DIR="$work/cache" VR_OCTAVE_BACKEND=${VR_OCTAVE_BACKEND:-cpu}
mkdir -p "$HOME" "$work/c"
cp bench/octave/c/crefs.c "$work/c/"
(cd "$work/c" && CFLAGS="-O2 -march=native -ffp-contract=off -fPIC" mkoctfile --mex crefs.c -o crefs.mex)
prologue="pkg prefix '$work/pkgs' '$work/pkgs'; pkg local_list '$work/octave_packages';"
octave-cli --no-history --no-init-file --quiet --eval "$prologue pkg install -local -nodeps '$tarball'" >/dev/null 2>&1
{
echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); Octave $(octave-cli --version | head -1 | awk '{print $NF}'); backend $VR_OCTAVE_BACKEND"
octave-cli --no-history --no-init-file --quiet --eval "$prologue pkg load velociraptor; addpath('$PWD/bench/octave'); addpath('$work/c'); run_bench($quick, '$out')"
} | tee "$out/octave-bench.md"
