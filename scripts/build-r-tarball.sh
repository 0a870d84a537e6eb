#!/usr/bin/env bash
# Build the R package's source tarball with everything it needs to install offline:
# r-package/ plus, under src/rust/, the crates it compiles (core, capi, bindings/r) and
# every crates.io dependency vendored (`cargo vendor`, packed as src/rust/vendor.tar.xz,
# unpacked by src/Makevars, which then runs cargo --offline). Then
#   install.packages("velociraptor_<version>.tar.gz", repos = NULL, type = "source")
# works on a machine without network (Rust, R and LLVM 19 installed: scripts/setup.sh).
#
# Usage: scripts/build-r-tarball.sh [OUTDIR]   (default target/r-tarball); prints the path.
# R CMD build builds the vignette, which installs the package once (set
# VR_R_CARGO_TARGET_DIR to reuse a target directory; scripts/test.sh does).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
ROOT=$PWD
OUT=${1:-target/r-tarball}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT

PKG=$STAGE/velociraptor
cp -a r-package "$PKG"
rm -rf "$PKG"/src/*.o "$PKG"/src/*.so "$PKG"/src/rust-target "$PKG"/src/rust-cargo-home "$PKG"/src/rust
RUST=$PKG/src/rust
mkdir -p "$RUST/core" "$RUST/capi" "$RUST/bindings"
# Only what the build reads: manifests and sources (no tests, no examples).
cp -a core/Cargo.toml core/src "$RUST/core/"
cp -a capi/Cargo.toml capi/src "$RUST/capi/"
cp -a bindings/r "$RUST/bindings/r"
rm -rf "$RUST/bindings/r/target"
# core and capi inherit version/edition/license from a workspace: a small one of just them.
python3 - "$ROOT/Cargo.toml" "$RUST/Cargo.toml" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
text = re.sub(r'members\s*=\s*\[[^\]]*\]', 'members = ["core", "capi"]', text)
open(sys.argv[2], "w").write("# Written by scripts/build-r-tarball.sh: the workspace core and capi belong to.\n" + text)
PY
# Every dependency, then packed: the vendored tree has hidden files (.cargo-checksum.json)
# and thousands of files that R CMD build should not see one by one.
(cd "$RUST/bindings/r" && cargo vendor --locked --versioned-dirs "$RUST/vendor" >/dev/null 2>"$STAGE/vendor.log") || { cat "$STAGE/vendor.log" >&2; exit 1; }
tar -C "$RUST" -cJf "$RUST/vendor.tar.xz" vendor
rm -rf "$RUST/vendor"

(cd "$STAGE" && R CMD build velociraptor >&2)
TARBALL=$(ls "$STAGE"/velociraptor_*.tar.gz)
mv "$TARBALL" "$OUT/"
echo "$OUT/$(basename "$TARBALL")"
