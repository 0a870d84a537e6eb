#!/usr/bin/env bash
# Check that a crate's Cargo.lock agrees with its manifests (and so with the workspace's
# crates), fetching any crate of the lock this machine has not downloaded yet.
# Usage: scripts/check-lock.sh MANIFEST   (e.g. bindings/r/Cargo.toml)
# Exit 1 with a message that says which of the two failures it is: a stale lock (run
# `cargo update -w --manifest-path MANIFEST` and commit the lock) or a download that
# failed (network, registry).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
manifest=${1:?usage: scripts/check-lock.sh MANIFEST}
lock="$(dirname "$manifest")/Cargo.lock"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if cargo metadata --locked --format-version 1 --manifest-path "$manifest" >/dev/null 2>"$log"; then
  exit 0
fi
if grep -qE "needs to be updated but --locked was passed|cannot update the lock file .* because --locked was passed" "$log"; then
  echo "$lock is stale: it no longer matches the manifests. Run" >&2
  echo "  cargo update -w --manifest-path $manifest" >&2
  echo "and commit $lock." >&2
else
  echo "could not read the crates of $lock (a download failed?); cargo said:" >&2
  sed 's/^/  /' "$log" >&2
fi
exit 1
