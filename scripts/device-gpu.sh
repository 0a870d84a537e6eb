#!/usr/bin/env bash
# The GPU backend on a machine with NVIDIA's OpenCL (the `device` tool's H100), run from
# the repository root there. Registers NVIDIA's ICD (a folder holding nvidia.icd that
# names libnvidia-opencl.so.1, OCL_ICD_VENDORS pointing at it), prints the device, then:
#   1. the conformance suite with every function body wrapped in a GPU section, and the
#      bench kernels the same way;
#   2. the R functions with gpu({ ... }) sections (examples/gpu.R, and the library
#      kernels' case of r-package/tests/testthat/test-gpu.R) as the VRIR `vr dump`
#      printed for them here, against R's own results (R is not on the device);
#   3. the same suite with VR_OPENCL_DEVICE=off (the CPU path);
#   4. `vr-bench --gpu`: each bench kernel in a GPU section next to cpu-par (wall time
#      with transfers, the device's time in kernels and in transfers); the bench kernels'
#      GPU peers (bench/peers/gpu_peers.py: numba-cuda and CuPy, the same inputs and sizes,
#      into the same folder as peers-gpu.csv) where python3 has numba-cuda (the image's,
#      or a site-packages tarball carried as .devpy/*.tar.xz, unpacked onto PYTHONPATH);
#      and the seeds' GPU anchors (shared/anchors/gpu_seeds.py) when the checkout carries them.
#
# Prepare here (the device machine has no Rust toolchain, no R and no network):
#   scripts/device-bundle.sh .device/bundle.tar.xz     # release vr + vr-bench + their libraries
#   scripts/device-gpu.sh --prepare                    # .device/r-gpu/*.vrir: R functions, R's results
#   (cd .device && apt-get download ocl-icd-libopencl1) # the ICD loader, if the device lacks it
#   echo /.device/ >> "$(git rev-parse --git-common-dir)/info/exclude"
# Then: device run with carry [".device"] and command
#   bash scripts/device-gpu.sh .device/bundle.tar.xz
#
# usage: scripts/device-gpu.sh [BUNDLE.tar.xz | VR_BINARY]   (default target/release/vr)
#        scripts/device-gpu.sh --prepare [VR_BINARY]         (here: needs R and vr)
set -u
here=$(pwd)

if [ "${1:-}" = "--prepare" ]; then
    set -e
    VR=${2:-target/release/vr}
    [ -x "$VR" ] || cargo build --release --quiet -p velociraptor --bin vr
    out=.device/r-gpu
    mkdir -p "$out"
    # Each case: an R file, its function, arguments (R expressions), and R's result.
    case_file() { # NAME FILE FUNCTION ARGS_R
        local name=$1 file=$2 func=$3 args=$4
        local json
        json=$(Rscript -e "source('$file'); gpu <- function(e) invisible(e); prange <- function(n) seq_len(n);
            a <- list($args); r <- do.call($func, a)
            num <- function(x) {
                if (is.matrix(x)) paste0('[', paste(apply(x, 1, function(row) paste0('[', paste(sprintf('%.17g', row), collapse = ', '), ']')), collapse = ', '), ']')
                else if (length(x) == 1) sprintf('%.17g', x)
                else paste0('[', paste(sprintf('%.17g', x), collapse = ', '), ']')
            }
            cat(paste(vapply(a, num, ''), collapse = ', '), '\n')
            cat(num(r), '\n')")
        local call_args result
        call_args=$(echo "$json" | sed -n 1p | sed 's/ *$//')
        result=$(echo "$json" | sed -n 2p | sed 's/ *$//')
        {
            echo "; $func from $file, as \`vr dump\` compiles it for these arguments; its gpu({ ... })"
            echo "; section runs as OpenCL kernels with --backend gpu. Expected: R's own result."
            echo "; expected: r"
            echo "; run: $func($call_args) == $result"
            "$VR" dump "$file" "$func" --args "[$call_args]" 2>/dev/null
        } > "$out/$name.vrir"
        echo "$out/$name.vrir"
    }
    case_file smooth examples/gpu.R smooth "sin(seq_len(300) / 20)^2, 20, 0.2"
    sed -n '/^scale_rows <- function/,/^}/p' r-package/tests/testthat/test-gpu.R > "$out/scale_rows.R"
    case_file scale_rows "$out/scale_rows.R" scale_rows "matrix(as.double((1:12) %% 5 - 2), 4, 3), 3"
    "$VR" test "$out" --backend gpu
    exit 0
fi

VR=${1:-target/release/vr}
BENCH=$(dirname "$VR")/vr-bench
case "$VR" in
    *.tar.xz)
        unpack=$(mktemp -d)
        tar -C "$unpack" -xJf "$VR"
        export LD_LIBRARY_PATH="$unpack/bundle/lib:${LD_LIBRARY_PATH:-}"
        VR=$unpack/bundle/bin/vr
        BENCH=$unpack/bundle/bin/vr-bench
        ;;
esac
icd=$(mktemp -d)
echo libnvidia-opencl.so.1 > "$icd/nvidia.icd"
export OCL_ICD_VENDORS=$icd
# Program binaries for this run only (the kernel cache's counts then show the builds).
export VR_CACHE_DIR=$(mktemp -d)
if ! ldconfig -p 2>/dev/null | grep -q 'libOpenCL.so.1'; then
    deb=$(ls "$here"/.device/ocl-icd-libopencl1_*.deb "$here"/.devgpu/ocl-icd-libopencl1_*.deb 2>/dev/null | head -1)
    if [ -n "$deb" ]; then
        loader=$(mktemp -d)
        dpkg -x "$deb" "$loader"
        export LD_LIBRARY_PATH="$(dirname "$(find "$loader" -name 'libOpenCL.so.1' | head -1)"):${LD_LIBRARY_PATH:-}"
    else
        echo "no libOpenCL.so.1 and no ocl-icd-libopencl1 .deb in .device/: sections will run on the CPU" >&2
    fi
fi
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
status=0
echo "== vr test tests/vrir --backend gpu --wrap-gpu"
"$VR" test tests/vrir --backend gpu --wrap-gpu --verbose || status=1
echo "== vr test bench/kernels --backend gpu --wrap-gpu"
"$VR" test bench/kernels --backend gpu --wrap-gpu || status=1
if [ -d .device/r-gpu ]; then
    echo "== R functions with gpu({ ... }) sections (VRIR from vr dump; R's results)"
    "$VR" test .device/r-gpu --backend gpu || status=1
else
    echo "(no .device/r-gpu: run scripts/device-gpu.sh --prepare where R is)"
fi
echo "== the same suite with VR_OPENCL_DEVICE=off (the CPU path)"
VR_OPENCL_DEVICE=off "$VR" test tests/vrir --backend gpu --wrap-gpu || status=1
bench_out=${OUT:-$(mktemp -d)}
if [ -x "$BENCH" ]; then
    echo "== vr-bench --gpu (each kernel in a GPU section, next to cpu-par)"
    "$BENCH" --gpu --out "$bench_out" || status=1
fi
if command -v python3 >/dev/null; then
    for t in "$here"/.devpy/*.tar.xz; do
        [ -f "$t" ] || continue
        py=$(mktemp -d)
        tar -C "$py" -xJf "$t" && export PYTHONPATH="$py${PYTHONPATH:+:$PYTHONPATH}"
    done
    echo "== the bench kernels' GPU peers (bench/peers/gpu_peers.py: numba-cuda, CuPy)"
    # A peer that fails its check is left out of peers-gpu.csv and named; our status is ours.
    (set -o pipefail; python3 bench/peers/gpu_peers.py --no-fma --out "$bench_out" | tee "$bench_out/peers-gpu.md") ||
        echo "(the peers did not all run or verify: see above)"
fi
if [ -f shared/anchors/gpu_seeds.py ] && command -v python3 >/dev/null; then
    echo "== peers on the GPU (shared/anchors/gpu_seeds.py: numba-cuda, CuPy)"
    python3 shared/anchors/gpu_seeds.py || true
fi
exit $status
