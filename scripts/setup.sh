#!/usr/bin/env bash
# Install what Velociraptor needs on Debian 12 and build it. Safe to run again: apt is
# touched only when a package is missing. Needs root (or sudo) only for that step.
# `--no-build` stops after the system packages (CI uses it before the tests).
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  llvm-19-dev libpolly-19-dev libzstd-dev zlib1g-dev libffi-dev   # CPU backend (LLVM 19)
  pocl-opencl-icd ocl-icd-libopencl1 ocl-icd-opencl-dev clinfo    # GPU backend, OpenCL on the CPU
  r-base-dev r-cran-testthat                                      # R package
  r-cran-roxygen2 r-cran-knitr r-cran-markdown                    # R package: help pages, vignette
  r-cran-ggplot2                                                  # benchmark charts (scripts/bench.sh --report)
  octave liboctave-dev                                            # Octave package
  python3-numpy                                                   # expected values of tests; the Python C-API example
  libopenblas0                                                    # matmul calls its ?gemm, loaded at run time (optional: without it a slower Rust gemm runs); also the dgemm reference of vr-bench-matmul
  valgrind                                                        # the C example runs under it (scripts/test.sh)
  build-essential
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  if [ "$(id -u)" -eq 0 ]; then
    SUDO=()
  elif command -v sudo >/dev/null; then
    SUDO=(sudo)
  else
    echo "setup: missing packages (${missing[*]}) and neither root nor sudo to install them" >&2
    exit 1
  fi
  "${SUDO[@]}" apt-get update
  DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
else
  echo "setup: all system packages present"
fi

# Rust comes from rustup (Debian's cargo is too old for this workspace).
export PATH="$HOME/.cargo/bin:$PATH"
if ! command -v cargo >/dev/null; then
  echo "setup: cargo not found. Install Rust with rustup (https://rustup.rs), toolchain 1.85 or newer," >&2
  echo "       then run this script again." >&2
  exit 1
fi

if [ "${1:-}" = "--no-build" ]; then
  exit 0
fi
echo "setup: building ($(cargo --version))"
cargo build --workspace --release
# The R package, from the repository, sharing the release build's dependencies.
RLIB=$(Rscript -e 'cat(.libPaths()[1])')
if [ ! -w "$RLIB" ]; then
  RLIB=$(Rscript -e 'cat(Sys.getenv("R_LIBS_USER"))')
  mkdir -p "$RLIB"
fi
echo "setup: installing the R package velociraptor into $RLIB"
t0=$(date +%s)
VR_R_CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}" VR_R_CARGO_TARGET_DIR="$PWD/target" \
  R CMD INSTALL --no-multiarch -l "$RLIB" r-package
echo "setup: R package installed in $(( $(date +%s) - t0 )) s"
echo "setup: done; try: bash scripts/demo.sh"
