#!/usr/bin/env bash
# Coverage-guided fuzzing with AFL++ through cargo-afl, on stable Rust (docs/testing.md,
# "Fuzzing"). The target bodies are velociraptor::fuzz_targets; fuzz/ is the harness.
#
#   scripts/fuzz.sh TARGET SECONDS   build, fuzz TARGET for SECONDS from tests/fuzz/TARGET,
#                                    print executions, exec/s, crashes and hangs
#                                    (VR_FUZZ_EXECS=N: stop after N executions instead,
#                                    if that comes first)
#   scripts/fuzz.sh seeds            rebuild every corpus from the test sources (minimised)
#   scripts/fuzz.sh cmin TARGET      fold the last run's queue into tests/fuzz/TARGET
#   scripts/fuzz.sh list             the targets
#
# Installs what it needs when missing: cargo-afl into the user's cargo home, and the
# AFL++ it builds from its bundled source (`cargo afl config --build`; make and a C
# compiler). Not part of scripts/test.sh: CI replays the corpora only
# (core/tests/fuzz_corpus.rs). Runs at the lowest priority (nice 19); a run's output
# goes to fuzz/out/TARGET (ignored by git). Crashes and hangs are kept there, under
# default/crashes and default/hangs.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export PATH="$HOME/.cargo/bin:$PATH"
export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-1}"
# A container has no CPU frequency governor to read, and no core-dump pipe to check.
export AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1
# A shared machine: no pinning to a core another process uses; plain status lines.
export AFL_NO_AFFINITY=1 AFL_NO_UI=1
TARGETS="vrir_text vrir_json vrir_verify r_parser r_frontend matlab_frontend julia_frontend"
BIN=fuzz/target/release/vr-fuzz
# An input that runs longer than this (ms) is a hang. The inputs take well under a
# millisecond; the margin is for a loaded machine.
TIMEOUT_MS="${VR_FUZZ_TIMEOUT_MS:-2000}"

usage() {
  sed -n '5,12p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

ensure_tools() {
  if ! cargo afl --version >/dev/null 2>&1; then
    echo "installing cargo-afl into ${CARGO_HOME:-$HOME/.cargo}"
    cargo install cargo-afl --locked
  fi
  # `cargo afl config --build` refuses when AFL++ is already built for this rustc.
  cargo afl config --build >/dev/null 2>&1 || true
  if ! ls "$HOME"/.local/share/afl.rs/rustc-*/afl.rs-*/afl/bin/afl-fuzz >/dev/null 2>&1; then
    echo "error: cargo afl cannot run afl-fuzz (\`cargo afl config --build --force --verbose\` says why)" >&2
    exit 1
  fi
}

build() {
  (cd fuzz && nice -n 19 cargo afl build --release --quiet)
}

check_target() {
  case " $TARGETS " in
    *" $1 "*) ;;
    *) echo "error: unknown target \`$1\` (targets: $TARGETS)" >&2; exit 2 ;;
  esac
}

# The raw seeds of every target, one small file per function or module, into $1/TARGET.
raw_seeds() {
  local out=$1
  for t in $TARGETS; do mkdir -p "$out/$t"; done
  # VRIR: the conformance files in text form, and each in JSON (`vr dump --json`).
  cargo build --quiet -p velociraptor --bin vr
  local n=0
  while IFS= read -r f; do
    n=$((n + 1))
    cp "$f" "$out/vrir_text/$n.vrir"
    cp "$f" "$out/vrir_verify/$n.vrir"
    target/debug/vr dump --json "$f" >"$out/vrir_json/$n.json" 2>/dev/null || rm -f "$out/vrir_json/$n.json"
  done < <(find tests/vrir -name '*.vrir' | sort)
  # Compact JSON: the same structure in a third of the bytes (AFL++ mutates fewer).
  python3 - "$out/vrir_json" <<'PY'
import json, pathlib, sys
for p in pathlib.Path(sys.argv[1]).glob("*.json"):
    p.write_text(json.dumps(json.loads(p.read_text()), separators=(",", ":")))
PY
  # The front ends: the functions of their test files, one function per seed (the
  # target compiles a file's first function).
  python3 - "$out" <<'PY'
import re, sys, pathlib
out = pathlib.Path(sys.argv[1])
def split(path, start, dests, ext):
    chunk, k = [], 0
    def flush():
        nonlocal chunk, k
        text = "".join(chunk)
        if re.search(r"function|=", text):
            for d in dests:
                k += 1
                (out / d / f"{path.stem}_{k}.{ext}").write_text(text)
        chunk = []
    for line in path.read_text().splitlines(keepends=True):
        if start.match(line):
            flush()
        chunk.append(line)
    flush()
r_start = re.compile(r"^[A-Za-z._][A-Za-z0-9._]*\s*(<-|=)\s*function")
for p in sorted(pathlib.Path("core/tests/frontend_r").glob("*.R")):
    split(p, r_start, ["r_parser", "r_frontend"], "R")
for p in sorted(pathlib.Path("core/tests/frontend_matlab").glob("*.m")):
    split(p, re.compile(r"^function\b"), ["matlab_frontend"], "m")
jl_start = re.compile(r"^(function\b|[A-Za-z_][A-Za-z0-9_!]*\(.*\)\s*=[^=])")
for p in sorted(pathlib.Path("core/tests/frontend_julia").glob("*.jl")):
    split(p, jl_start, ["julia_frontend"], "jl")
PY
}

# Minimise $1 (a folder of inputs) for target $2 into tests/fuzz/$2: the smallest
# inputs that together reach every edge the folder reaches. afl-cmin's rule without its
# hit-count buckets (a smaller corpus). afl-cmin itself is not used: the one cargo-afl
# 0.18 installs (AFL++ 4.40c's Python version) fails here with "FileNotFoundError:
# .showmap.N", and its shell version takes minutes for a few hundred files.
# afl-showmap writes one map per input; the cover is chosen below.
minimise() {
  local from=$1 t=$2 tmp aflbin
  tmp=$(mktemp -d)
  aflbin=$(dirname "$(ls -d "$HOME"/.local/share/afl.rs/rustc-*/afl.rs-*/afl/bin/afl-showmap | tail -1)")
  nice -n 19 "$aflbin/afl-showmap" -i "$from" -o "$tmp/maps" -t "$TIMEOUT_MS" -m none -q -- "$BIN" "$t" >"$tmp/log" 2>&1 || true
  rm -rf "tests/fuzz/$t"
  mkdir -p "tests/fuzz/$t"
  python3 - "$from" "$tmp/maps" "tests/fuzz/$t" <<'PY'
import pathlib, shutil, sys
src, maps, dest = (pathlib.Path(a) for a in sys.argv[1:])
edges = {}
for m in maps.iterdir():
    edges[m.name] = {line.split(":")[0] for line in m.read_text().split()}
# Smallest first: each edge is kept by the smallest input that reaches it.
names = sorted(edges, key=lambda n: ((src / n).stat().st_size, n))
covered, kept = set(), []
for n in names:
    if edges[n] - covered:
        covered |= edges[n]
        kept.append(n)
for k, n in enumerate(sorted(kept)):
    shutil.copy(src / n, dest / n)
PY
  echo "$t: $(ls "tests/fuzz/$t" | wc -l) of $(ls "$from" | wc -l) inputs kept, $(du -sk --apparent-size "tests/fuzz/$t" | cut -f1) KiB"
  rm -rf "$tmp"
}

case "${1:-}" in
  list)
    echo "$TARGETS" | tr ' ' '\n'
    ;;
  seeds)
    ensure_tools
    build
    tmp=$(mktemp -d)
    raw_seeds "$tmp"
    for t in $TARGETS; do minimise "$tmp/$t" "$t"; done
    rm -rf "$tmp"
    ;;
  cmin)
    [ $# -eq 2 ] || usage
    check_target "$2"
    ensure_tools
    build
    tmp=$(mktemp -d)
    cp tests/fuzz/"$2"/* "$tmp/"
    # AFL++'s names have colons and commas; the kept copies get plain ones.
    k=0
    for f in fuzz/out/"$2"/default/queue/id:*; do
      [ -f "$f" ] && { k=$((k + 1)); cp "$f" "$tmp/found_$(date +%Y%m%d)_$k"; }
    done
    minimise "$tmp" "$2"
    rm -rf "$tmp"
    ;;
  *)
    [ $# -eq 2 ] || usage
    t=$1 seconds=$2
    check_target "$t"
    ensure_tools
    build
    out="fuzz/out/$t"
    rm -rf "$out"
    mkdir -p "$out"
    # -V: stop after SECONDS; -E: after VR_FUZZ_EXECS executions (a loaded machine's
    # rate varies tenfold); -m none: the harness maps LLVM's shared library.
    nice -n 19 cargo afl fuzz -V "$seconds" ${VR_FUZZ_EXECS:+-E "$VR_FUZZ_EXECS"} -t "$TIMEOUT_MS" -m none \
      -i "tests/fuzz/$t" -o "$out" -- "$ROOT/$BIN" "$t" >"$out/afl.log" 2>&1 ||
      { tail -40 "$out/afl.log" >&2; exit 1; }
    stats="$out/default/fuzzer_stats"
    stat() { sed -n "s/^$1 *: //p" "$stats"; }
    echo "target:     $t"
    echo "seconds:    $(stat run_time)"
    echo "executions: $(stat execs_done)"
    echo "exec/s:     $(awk -v e="$(stat execs_done)" -v s="$(stat run_time)" 'BEGIN { printf "%.0f", (s > 0 ? e / s : 0) }')"
    echo "corpus:     $(stat corpus_count) (edges found: $(stat edges_found))"
    echo "crashes:    $(stat saved_crashes)"
    echo "hangs:      $(stat saved_hangs)"
    if [ "$(stat saved_crashes)" != 0 ] || [ "$(stat saved_hangs)" != 0 ]; then
      echo "inputs kept in $out/default/crashes and $out/default/hangs"
      exit 1
    fi
    ;;
esac
