#!/usr/bin/env bash
# The README's two commands as a newcomer runs them (opt-in, not part of CI): a fresh
# clone of this repository's committed HEAD (or the commit given) in a scratch folder,
# with an empty CARGO_HOME, an empty R user library and empty cache folders, then the
# two commands at the top of README.md exactly as written there. Fails loudly on either.
# System packages cannot be uninstalled for the check: setup.sh's apt step sees what
# this machine has (read its package list as a newcomer would).
#
# Usage: scripts/fresh-check.sh [COMMIT]     (VR_FRESH_KEEP=1 keeps the scratch folder)
# Uncommitted changes are not part of the clone: commit first.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
commit=${1:-HEAD}
scratch=$(mktemp -d /tmp/vr-fresh.XXXXXX)
if [ "${VR_FRESH_KEEP:-0}" != 1 ]; then
  trap 'rm -rf "$scratch"' EXIT
fi
mkdir -p "$scratch/cargo-home" "$scratch/r-library" "$scratch/cache" "$scratch/config" "$scratch/data" "$scratch/logs"

git clone --quiet --no-local "$repo" "$scratch/repo"
git -C "$scratch/repo" checkout --quiet "$(git -C "$repo" rev-parse "$commit")"
# CI runs with the steering repository's shared/ beside the checkout.
[ -d "$repo/../shared" ] && ln -s "$(cd "$repo/../shared" && pwd)" "$scratch/shared"

# The toolchain stays (rustup's, as a newcomer installs it); everything cargo downloads
# or caches starts empty, and so do R's user library and every cache the project uses.
export RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}"
export PATH="$HOME/.cargo/bin:$PATH"
export CARGO_HOME="$scratch/cargo-home"
unset CARGO_TARGET_DIR VR_CACHE_DIR VR_R_CARGO_HOME VR_R_CARGO_TARGET_DIR
export R_LIBS="$scratch/r-library" R_LIBS_USER="$scratch/r-library"
export XDG_CACHE_HOME="$scratch/cache" R_USER_CACHE_DIR="$scratch/cache/R"
export XDG_CONFIG_HOME="$scratch/config" XDG_DATA_HOME="$scratch/data"

# The two commands: the first two lines of README.md's first code block.
mapfile -t commands < <(awk '/^```/ { if (inside) exit; inside = 1; next } inside && NF' "$scratch/repo/README.md" | head -2)
[ "${#commands[@]}" -eq 2 ] || { echo "fresh-check: README.md's first code block does not hold two commands" >&2; exit 1; }

cd "$scratch/repo"
status=0
for k in 0 1; do
  cmd=${commands[$k]}
  log="$scratch/logs/command$((k + 1)).log"
  echo "fresh-check: [$((k + 1))/2] $cmd   (log: $log)"
  t0=$(date +%s)
  if bash -c "$cmd" >"$log" 2>&1; then
    echo "fresh-check: [$((k + 1))/2] passed in $(( $(date +%s) - t0 )) s"
  else
    rc=$?
    echo "fresh-check: [$((k + 1))/2] FAILED (exit $rc) after $(( $(date +%s) - t0 )) s; the end of its log:" >&2
    tail -n 40 "$log" >&2
    status=1
    break
  fi
done
if [ "$status" -ne 0 ] && [ "${VR_FRESH_KEEP:-0}" != 1 ]; then
  cp -r "$scratch/logs" "/tmp/vr-fresh-logs.$$" && echo "fresh-check: logs kept in /tmp/vr-fresh-logs.$$" >&2
fi
[ "$status" -eq 0 ] && echo "fresh-check: both README commands passed on a cold clone ($(git rev-parse --short HEAD))"
exit "$status"
