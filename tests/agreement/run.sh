#!/usr/bin/env bash
# perfbench and Criterion on the same routines (src/lib.rs: allocating,
# arithmetic, memory-bound), one right after the other on this machine,
# and `perf stat` on a plain loop of each routine as a third opinion.
# Prints, per alternation, one row per routine: perfbench's figure and
# 95 % interval, Criterion's, and their ratio; once for wall time and
# once for CPU time (perfbench's task-clock, Criterion timing the thread's
# CPU time), the second beside the plain loop's ns per iteration
# (task-clock / iterations) in a process of one thread and of two (glibc's
# calloc and free take a lock once a process has had a second thread;
# both harnesses run with two). CPU time holds on a machine other work
# shares; wall time is what each prints by default.
#
#   bash tests/agreement/run.sh [FILTER]     (ALTERNATIONS=3 by default)
#
# A measurement, not a test: nothing here fails on a ratio.
set -euo pipefail
cd "$(dirname "$0")"
alternations=${ALTERNATIONS:-3}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

cargo build -q --release --bins
cargo bench -q --no-run
bin=$CARGO_TARGET_DIR/release
routines=$(sed -n 's/^ *"\([a-z0-9_]*\)" => (0\.\.n).*/\1/p' src/lib.rs)

# ns per iteration of the plain loop of routine $1 under `perf stat`:
# task-clock over the iterations it ran.
plain_loop() {
  local n ms
  n=$(perf stat -x, -e task-clock -o "$out/stat" "$bin/plain-loop" "$1" 1)
  ms=$(awk -F, '/task-clock/ { print $1 }' "$out/stat")
  awk -v ms="$ms" -v n="$n" 'BEGIN { printf "%.3f", ms * 1e6 / n }'
}

for round in $(seq "$alternations"); do
  echo "== alternation $round of $alternations"
  PERFBENCH_HOME=$out/perfbench cargo bench -q --bench with_perfbench -- \
    --output-format json "$@" >"$out/perfbench.json" 2>"$out/perfbench.err" ||
    { cat "$out/perfbench.err" >&2; exit 1; }
  CRITERION_HOME=$out/criterion cargo bench -q --bench with_criterion -- \
    "$@" >"$out/criterion.out" 2>&1 ||
    { cat "$out/criterion.out" >&2; exit 1; }
  : >"$out/plain"
  if perf stat -e task-clock true >/dev/null 2>&1; then
    for name in $routines; do
      if [ $# -gt 0 ] && [[ $name != *$1* ]]; then continue; fi
      echo "$name $(plain_loop "$name") $(PLAIN_LOOP_THREAD=1 plain_loop "$name")" \
        >>"$out/plain"
    done
  fi
  "$bin/agreement-table" "$out/perfbench.json" "$out/criterion" "$out/plain"
done
