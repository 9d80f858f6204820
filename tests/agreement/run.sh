#!/usr/bin/env bash
# perfbench and Criterion on the same routines (src/lib.rs: 50-byte ones,
# allocating, arithmetic, memory-bound, µs-scale), one right after the
# other on this machine, and an oracle running the very same machine code
# outside both: `perf stat -e task-clock` on a process that runs one
# `#[inline(never)]` routine N times in a plain loop, less its run of 0
# times, over N (median and range of ORACLE_RUNS=5 pairs of about
# ORACLE_SECONDS=1 each; the process has had a second thread, as both
# harnesses' have: glibc's calloc and free take a lock from then on).
# Prints, per alternation, the load average and one row per routine: the
# oracle's ns per iteration, perfbench's figure and 95 % interval,
# Criterion's, each harness's ratio to the oracle and theirs; once for
# wall time and once for CPU time (perfbench's task-clock, Criterion
# timing the thread's CPU time). CPU time holds on a machine other work
# shares; wall time is what each prints by default. `same-code.sh` checks
# that the binaries hold the same routines, byte for byte.
#
#   bash tests/agreement/run.sh [FILTER]     (ALTERNATIONS=3 by default)
#
# PERFBENCH_ARGS adds options to perfbench's command line, e.g.
# `--subtract-overhead`, which takes off its loop's calibrated cost.
# Criterion's closures drop each output themselves, as perfbench's `iter`
# does; AGREEMENT_RETURN_OUTPUT=1 has them return it to Criterion's `iter`,
# as users write it, which costs some routines a store-forwarding stall
# (with_criterion.rs).
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

# task-clock in ns of `plain-loop "$@"` under `perf stat`.
task_clock() {
  perf stat -x, -e task-clock -o "$out/stat" "$bin/plain-loop" "$@" >/dev/null
  awk -F, '/task-clock/ { printf "%.0f", $1 * 1e6 }' "$out/stat"
}

# The oracle for routine $1: `NAME MEDIAN MIN MAX`, ns per iteration of
# the plain loop over ORACLE_RUNS pairs of runs, each the task-clock of N
# iterations (about ORACLE_SECONDS) less that of 0, over N.
oracle() {
  local n runs=${ORACLE_RUNS:-5} k full none per=()
  n=$("$bin/plain-loop" "$1" 0.1)
  n=$(awk -v n="$n" -v s="${ORACLE_SECONDS:-1}" 'BEGIN { printf "%.0f", n * s / 0.1 }')
  for k in $(seq "$runs"); do
    full=$(task_clock "$1" -n "$n")
    none=$(task_clock "$1" -n 0)
    per+=("$(awk -v f="$full" -v z="$none" -v n="$n" 'BEGIN { printf "%.4f", (f - z) / n }')")
  done
  printf '%s\n' "${per[@]}" | sort -g |
    awk -v name="$1" '{ v[NR] = $1 } END { printf "%s %s %s %s\n", name, v[int((NR + 1) / 2)], v[1], v[NR] }'
}

for round in $(seq "$alternations"); do
  echo "== alternation $round of $alternations, $(date -u +%H:%M) UTC"
  before=$(cut -d' ' -f1-3 /proc/loadavg)
  PERFBENCH_HOME=$out/perfbench cargo bench -q --bench with_perfbench -- \
    --output-format json ${PERFBENCH_ARGS:-} "$@" >"$out/perfbench.json" 2>"$out/perfbench.err" ||
    { cat "$out/perfbench.err" >&2; exit 1; }
  CRITERION_HOME=$out/criterion cargo bench -q --bench with_criterion -- \
    "$@" >"$out/criterion.out" 2>&1 ||
    { cat "$out/criterion.out" >&2; exit 1; }
  : >"$out/oracle"
  if perf stat -e task-clock true >/dev/null 2>&1; then
    for name in $routines; do
      if [ $# -gt 0 ] && [[ $name != *$1* ]]; then continue; fi
      oracle "$name" >>"$out/oracle"
    done
  fi
  echo "load: $before before, $(cut -d' ' -f1-3 /proc/loadavg) after"
  "$bin/agreement-table" "$out/perfbench.json" "$out/criterion" "$out/oracle"
done
