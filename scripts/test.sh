#!/usr/bin/env bash
# Every test: the cargo tests of the workspace (unit, conformance, CLI, property tests),
# then the conformance suite through `vr test`, the way a user runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
export CARGO_TERM_COLOR=never RUST_BACKTRACE=1

# The R package's crate has its own lock file (bindings/r/Cargo.toml says why): it must
# agree with the workspace's crates, or the package would not build offline. `cargo
# metadata` reads every crate of a lock (all platforms', not only those a build of this
# one downloads), so it runs online: on a new machine it fetches what is missing. A lock
# that needs updating and a crate that cannot be fetched are different failures.
bash scripts/check-lock.sh bindings/r/Cargo.toml

cargo test --workspace --locked --no-fail-fast

cargo build --locked --quiet -p velociraptor --bin vr
if [ -d tests/vrir ]; then
  target/debug/vr test tests/vrir --backend interp
  target/debug/vr test tests/vrir --backend cpu
  target/debug/vr test tests/vrir --backend cpu-par
  # every function body in a GPU section: parfors as OpenCL kernels on PoCL, the GPU
  # code generator's passes on (unset, they are off on a CPU device: docs/gpu.md)
  VR_GPU_PASSES=all target/debug/vr test tests/vrir --backend gpu --wrap-gpu
  # the same with each task placed by the cost model (device or CPU, per task)
  target/debug/vr test tests/vrir --backend auto --wrap-gpu
else
  echo "note: tests/vrir does not exist yet"
fi
# the benchmark kernels are conformance files too
target/debug/vr test bench/kernels --backend interp
target/debug/vr test bench/kernels --backend cpu
# the optimizer switched off through the environment (cargo test covers each pass off)
VR_PASSES=none target/debug/vr test tests/vrir/opt bench/kernels --backend cpu
target/debug/vr test bench/kernels --backend cpu-par
VR_GPU_PASSES=all target/debug/vr test bench/kernels --backend gpu --wrap-gpu
target/debug/vr test bench/kernels --backend gpu --wrap-gpu
target/debug/vr test bench/kernels --backend auto --wrap-gpu
# no OpenCL at all (an empty ICD folder): the CPU's results
OCL_ICD_VENDORS="$(mktemp -d)" target/debug/vr test tests/vrir/parfor --backend gpu --wrap-gpu

# The C API as hosts use it: the C example built with gcc against the shared library and
# run (also under valgrind: no invalid access, no definite leak), then the ctypes example
# with the system python3 and NumPy.
cargo build --locked --quiet -p velociraptor-capi
gcc -Wall -Wextra -Werror -Icapi/include capi/examples/c/example.c \
  -Ltarget/debug -lvelociraptor_capi -Wl,-rpath,"$PWD/target/debug" -o target/example_c
target/example_c capi/examples/example.vrir
if command -v valgrind >/dev/null; then
  valgrind --quiet --error-exitcode=1 --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite \
    target/example_c capi/examples/example.vrir >/dev/null
  echo "ok: C example clean under valgrind"
else
  echo "note: valgrind is not installed (scripts/setup.sh installs it); C example not checked for leaks"
fi
# The same under AddressSanitizer (the C side instrumented; the library's malloc and free
# are intercepted, so its leaks and bad frees show too): no invalid access, no leak.
if echo 'int main(void){return 0;}' | gcc -fsanitize=address -x c - -o target/asan_probe 2>/dev/null; then
  gcc -fsanitize=address -fno-omit-frame-pointer -g -Wall -Wextra -Werror -Icapi/include \
    capi/examples/c/example.c -Ltarget/debug -lvelociraptor_capi -Wl,-rpath,"$PWD/target/debug" \
    -o target/example_c_asan
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=1 \
    target/example_c_asan capi/examples/example.vrir >/dev/null
  echo "ok: C example clean under AddressSanitizer"
  # The C API tests with the ASan runtime preloaded (a runner, so cargo and rustc are
  # not): every malloc and free of the library checked, leaks reported at exit. The Rust
  # code is not instrumented (that needs a nightly compiler), so this finds bad frees,
  # double frees and leaks, not stray reads. use_sigaltstack=0: ASan's own alternate
  # signal stack clashes with the one Rust gives each thread. Left out: header.rs (runs
  # cargo) and memory_faults.rs (measures resident memory, which ASan's quarantine of
  # freed blocks inflates by design).
  CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER="env LD_PRELOAD=$(gcc -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=1:use_sigaltstack=0:allocator_may_return_null=1" \
    cargo test --locked --quiet -p velociraptor-capi --test api --test cache_trust --test cache_faults \
    --test interrupt --test interrupt_parallel --test random --test julia --test matlab
  echo "ok: C API tests clean under AddressSanitizer (preloaded)"
else
  echo "SKIPPED: C example and C API tests under AddressSanitizer (gcc cannot link -fsanitize=address: libasan missing)"
fi
PYTHON=/usr/bin/python3
[ -x "$PYTHON" ] || PYTHON=python3
"$PYTHON" capi/examples/python/example.py target/debug/libvelociraptor_capi.so capi/examples/example.vrir

# The Octave package: its tarball installed with `pkg install` into a fresh Octave user
# directory, then its tests in octave-cli (bindings/octave/tests), Ctrl-C included.
bash scripts/test-octave.sh
# Velociraptor.jl: its Julia tests where Julia is installed, against the library just built.
if command -v julia >/dev/null; then
  VELOCIRAPTOR_LIB="$PWD/target/debug/libvelociraptor_capi.so" julia --project=julia-package -e 'using Pkg; Pkg.test()'
else
  echo "SKIPPED: julia-package tests (Julia is not installed; cargo test covers the Julia front end and the C calls the package makes)"
fi

# The R package: source tarball with the crates vendored, R CMD check on it (installs it
# offline, runs the examples, the testthat tests and the vignette).
bash scripts/check-r.sh
