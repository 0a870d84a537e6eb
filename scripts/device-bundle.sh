#!/usr/bin/env bash
# Pack release binaries with the shared libraries they need beyond glibc and libstdc++
# (libLLVM, libz3, libicu, libxml2, ...) into one xz tarball, for a machine that has
# neither Rust nor these libraries (the device machine: Ubuntu 24.04). There:
#   tar -xJf bundle.tar.xz && export LD_LIBRARY_PATH=$PWD/bundle/lib && bundle/bin/vr-bench ...
# Usage: scripts/device-bundle.sh OUT.tar.xz BINARY...   (default binaries: vr, vr-bench)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
out=${1:?usage: scripts/device-bundle.sh OUT.tar.xz [BINARY...]}
shift
bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then
  cargo build --release --locked --quiet -p velociraptor --bin vr -p velociraptor-bench --bin vr-bench
  bins=(target/release/vr target/release/vr-bench)
fi
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bundle/bin" "$stage/bundle/lib"
cp "${bins[@]}" "$stage/bundle/bin/"
# Every library the binaries load, except the C runtime and the C++ runtime, which the
# target system has in a version at least as new.
for b in "${bins[@]}"; do ldd "$b"; done | awk '/=> \// { print $3 }' | sort -u |
  grep -vE '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*|libgcc_s|libstdc\+\+)\.so' |
  while read -r lib; do cp -L "$lib" "$stage/bundle/lib/"; done
tar -C "$stage" -cf - bundle | xz -T0 -6 >"$out"
echo "$out: $(du -h "$out" | cut -f1) ($(ls "$stage/bundle/lib" | wc -l) libraries)"
