#!/usr/bin/env bash
# The R package as its users get it: build the source tarball with every crate vendored
# (scripts/build-r-tarball.sh), then `R CMD check --no-manual` on it, which installs it
# from the tarball offline, runs the examples, the testthat tests and the vignette.
# Fails on any ERROR or WARNING; NOTEs are explained in r-package/cran-comments.md.
# Rust builds share target/r-package (dev profile) from one run to the next.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
export VR_R_CARGO_TARGET_DIR="$PWD/target/r-package" VR_R_CARGO_PROFILE=dev
OUT="$PWD/target/r-tarball"
rm -rf "$OUT" && mkdir -p "$OUT"

t0=$(date +%s)
TARBALL=$(bash scripts/build-r-tarball.sh "$OUT")
t1=$(date +%s)
echo "check-r: built $TARBALL in $((t1 - t0)) s"

# CRAN cannot be reached: R CMD check gets an empty local repository.
REPO="$OUT/empty-repo"
mkdir -p "$REPO/src/contrib"
Rscript -e "tools::write_PACKAGES('$REPO/src/contrib', type = 'source')"
cat > "$OUT/Rprofile" <<PROFILE
options(repos = c(CRAN = "file://$REPO"))
PROFILE
(cd "$OUT" && R_PROFILE_USER="$OUT/Rprofile" _R_CHECK_CRAN_INCOMING_REMOTE_=false \
  _R_CHECK_FORCE_SUGGESTS_=false R CMD check --no-manual "$TARBALL") || {
  cat "$OUT"/velociraptor.Rcheck/00install.out 2>/dev/null | tail -40
  cat "$OUT"/velociraptor.Rcheck/tests/testthat.Rout.fail 2>/dev/null | tail -60
  exit 1
}
t2=$(date +%s)
LOG="$OUT/velociraptor.Rcheck/00check.log"
if grep -E "^\* .*\.\.\. *(WARNING|ERROR)" "$LOG"; then
  echo "check-r: R CMD check found warnings or errors (above; log: $LOG)" >&2
  exit 1
fi
echo "check-r: R CMD check in $((t2 - t1)) s: $(tail -1 "$LOG")"
