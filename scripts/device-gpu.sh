#!/usr/bin/env bash
# The GPU backend on a machine with NVIDIA's OpenCL (the `device` tool's H100), run from
# the repository root there. Registers NVIDIA's ICD (a folder holding nvidia.icd that
# names libnvidia-opencl.so.1, OCL_ICD_VENDORS pointing at it), prints the device, then
# runs the conformance suite with every function body wrapped in a GPU section, and the
# bench kernels the same way, through the release `vr` binary built here.
#
# Prepare here (the device machine has no Rust toolchain and no network):
#   cargo build --release -p velociraptor --bin vr
#   mkdir -p .devgpu && cp target/release/vr .devgpu/
#   # the ICD loader, in case the machine lacks libOpenCL.so.1:
#   (cd .devgpu && apt-get download ocl-icd-libopencl1)
#   echo /.devgpu/ >> .git/info/exclude
# Then: device run with carry [".devgpu"] and command `bash scripts/device-gpu.sh .devgpu/vr`.
#
# usage: scripts/device-gpu.sh [VR_BINARY]   (default target/release/vr)
set -u
VR=${1:-target/release/vr}
here=$(pwd)
icd=$(mktemp -d)
echo libnvidia-opencl.so.1 > "$icd/nvidia.icd"
export OCL_ICD_VENDORS=$icd
if ! ldconfig -p 2>/dev/null | grep -q 'libOpenCL.so.1'; then
    deb=$(ls "$here"/.devgpu/ocl-icd-libopencl1_*.deb 2>/dev/null | head -1)
    if [ -n "$deb" ]; then
        loader=$(mktemp -d)
        dpkg -x "$deb" "$loader"
        export LD_LIBRARY_PATH="$(dirname "$(find "$loader" -name 'libOpenCL.so.1' | head -1)"):${LD_LIBRARY_PATH:-}"
    else
        echo "no libOpenCL.so.1 and no ocl-icd-libopencl1 .deb in .devgpu/: sections will run on the CPU" >&2
    fi
fi
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
status=0
echo "== vr test tests/vrir --backend gpu --wrap-gpu"
"$VR" test tests/vrir --backend gpu --wrap-gpu --verbose || status=1
echo "== vr test bench/kernels --backend gpu --wrap-gpu"
"$VR" test bench/kernels --backend gpu --wrap-gpu || status=1
echo "== the same suite with VR_OPENCL_DEVICE=off (the CPU path)"
VR_OPENCL_DEVICE=off "$VR" test tests/vrir --backend gpu --wrap-gpu || status=1
exit $status
