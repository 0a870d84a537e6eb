#!/usr/bin/env bash
# The Octave package end to end: build its tarball, install it with `pkg install` into a
# fresh Octave user directory (offline), then run bindings/octave/tests in octave-cli:
# compiled results equal Octave's own, error identifiers, fallback warnings, inputs left
# unchanged, 1,000 failing calls then a correct answer, Ctrl-C stopping a compiled loop.
# Run by scripts/test.sh; on its own: scripts/test-octave.sh (VR_OCTAVE_PROFILE=release
# for an optimized library; the default here is the dev build test.sh already has).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v octave-cli >/dev/null || ! command -v mkoctfile >/dev/null; then
  echo "note: octave-cli or mkoctfile is missing (scripts/setup.sh installs octave and liboctave-dev); Octave tests skipped"
  exit 0
fi
export VR_OCTAVE_PROFILE=${VR_OCTAVE_PROFILE:-debug}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tarball=$(bash scripts/build-octave-pkg.sh "$work/build" | tail -1)
tarball=$(readlink -f "$tarball")
tests=$(readlink -f bindings/octave/tests)
# A fresh user: its own HOME, package prefix and package list; no network.
export HOME="$work/home" VR_CACHE_DIR="$work/cache"
mkdir -p "$HOME"
octave() { octave-cli --no-history --no-init-file --quiet "$@"; }
prologue="pkg prefix '$work/pkgs' '$work/pkgs'; pkg local_list '$work/octave_packages';"
octave --eval "$prologue pkg install -local -nodeps '$tarball'; l = pkg('list'); assert(numel(l) == 1 && strcmp(l{1}.name, 'velociraptor')); printf('ok: installed %s %s\n', l{1}.name, l{1}.version);"
octave --eval "$prologue pkg load velociraptor; addpath('$tests'); addpath('$tests/fns'); run_tests"
# Ctrl-C: SIGINT while a compiled loop runs stops it (within seconds) with an error.
# (Job control on, so that the background Octave does not start with SIGINT ignored.)
set -m
octave-cli --no-history --no-init-file --quiet --eval "$prologue pkg load velociraptor; addpath('$tests/fns'); f = vr_compile('spin'); f(3); printf('started\n'); fflush(stdout); try, f(1e12); printf('not interrupted\n'); catch e, printf('caught %s\n', e.identifier); end" > "$work/int.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do grep -q started "$work/int.log" && break; sleep 0.1; done
sleep 0.5
kill -INT "$pid"
for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$pid" 2>/dev/null; then
  kill -KILL "$pid"
  echo "FAIL: Ctrl-C did not stop the compiled loop"; cat "$work/int.log"; exit 1
fi
wait "$pid" || true
if grep -q "caught velociraptor:interrupted" "$work/int.log"; then
  echo "ok: Ctrl-C stops a compiled loop (velociraptor:interrupted)"
else
  echo "FAIL: no interrupt error"; cat "$work/int.log"; exit 1
fi
