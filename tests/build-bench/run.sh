#!/usr/bin/env bash
# A user's builds, measured, under each harness (perfbench,
# perfbench-criterion with a Criterion bench file, divan, Criterion 0.8
# with html_reports), one after the other on this machine, downloads
# fetched first and not counted; then the ratios to divan's:
# - the cold build: a one-benchmark crate, `cargo bench --no-run` from an
#   empty target folder;
# - the rebuild: a crate whose one bench file holds 100 benchmarks, built
#   once, then one benchmark's body edited and `cargo bench --no-run`
#   timed, as a user's edit-and-run loop goes.
# A benchmark to quote, not a test (issues 38, 39).
#
#   bash tests/build-bench/run.sh [ROUNDS]        # from anywhere
#
# BUILD_BENCH_WORK is the scratch folder (default /tmp/perfbench-build-bench).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=${BUILD_BENCH_WORK:-/tmp/perfbench-build-bench}
rounds=${1:-1}
rm -rf "$work" && mkdir -p "$work"

criterion_bench='use criterion::{criterion_group, criterion_main, Criterion};
fn sum(c: &mut Criterion) {
    c.bench_function("sum", |b| b.iter(|| (0..criterion::black_box(100u64)).sum::<u64>()));
}
criterion_group!(g, sum);
criterion_main!(g);'

# crate NAME DEPENDENCY-LINE BENCH-SOURCE
crate() {
  mkdir -p "$work/$1/benches" "$work/$1/src"
  : > "$work/$1/src/lib.rs"
  cat > "$work/$1/Cargo.toml" <<TOML
[package]
name = "build-bench-$1"
version = "0.0.0"
edition = "2021"

[lib]
bench = false

[dev-dependencies]
$2

[[bench]]
name = "one"
harness = false

[workspace]
TOML
  printf '%s\n' "$3" > "$work/$1/benches/one.rs"
}

crate perfbench "perfbench = { path = \"$repo/perfbench\" }" \
'#[perfbench::perfbench]
fn sum() -> u64 {
    (0..perfbench::black_box(100u64)).sum()
}
perfbench::main!();'
crate perfbench-criterion \
  "criterion = { package = \"perfbench-criterion\", path = \"$repo/perfbench-criterion\" }" \
  "$criterion_bench"
crate divan 'divan = "0.1"' \
'#[divan::bench]
fn sum() -> u64 {
    (0..divan::black_box(100u64)).sum()
}
fn main() {
    divan::main();
}'
crate criterion 'criterion = { version = "0.8", features = ["html_reports"] }' "$criterion_bench"

# 100 benchmarks in the harness $1's form, each summing with its own
# constant (`x ^ N`), so that each is code of its own.
hundred() {
  local i
  case $1 in
    perfbench)
      for i in $(seq 100); do
        echo "#[perfbench::perfbench] fn sum_$i() -> u64 { (0..perfbench::black_box(100u64)).map(|x| x ^ $i).sum() }"
      done
      echo 'perfbench::main!();' ;;
    divan)
      for i in $(seq 100); do
        echo "#[divan::bench] fn sum_$i() -> u64 { (0..divan::black_box(100u64)).map(|x| x ^ $i).sum() }"
      done
      echo 'fn main() { divan::main(); }' ;;
    *)
      echo 'use criterion::{criterion_group, criterion_main, Criterion};'
      for i in $(seq 100); do
        echo "fn sum_$i(c: &mut Criterion) { c.bench_function(\"sum_$i\", |b| b.iter(|| (0..criterion::black_box(100u64)).map(|x| x ^ $i).sum::<u64>())); }"
      done
      echo "criterion_group!(g, $(seq -f 'sum_%g' -s ', ' 100));"
      echo 'criterion_main!(g);' ;;
  esac
}

harnesses=(perfbench perfbench-criterion divan criterion)
for h in "${harnesses[@]}"; do
  crate "$h-100" "$(sed -n '/^\[dev-dependencies\]/{n;p}' "$work/$h/Cargo.toml")" "$(hundred "$h")"
  (cd "$work/$h" && cargo fetch -q)
  (cd "$work/$h-100" && cargo fetch -q)
done
# Runs `cargo bench --no-run` in the crate $1, its output in $1.log;
# stops the script with the log's tail if the build fails.
build() {
  (cd "$work/$1" && CARGO_TARGET_DIR="$work/$1/target" cargo bench --no-run -q --offline) \
    >"$work/$1.log" 2>&1 || { tail -20 "$work/$1.log"; exit 1; }
}

# Builds the crate $1 (`build`), adds its seconds to the entry $1 of the
# associative array named $2 and its CPU seconds (user and system, every
# process) to the entry $1 of `cpu`, prints both, then $3. Not in a
# subshell: the sums would be lost. The CPU seconds over the cores are
# the wall time no scheduling of the same work can beat.
declare -A cpu
timed_build() {
  local times took user sys used
  local -n sums=$2
  times=$( { TIMEFORMAT='%R %U %S'; time build "$1"; } 2>&1 ) || { echo "$times"; exit 1; }
  read -r took user sys <<<"$times"
  used=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')
  sums[$1]=$(awk -v a="${sums[$1]:-0}" -v b="$took" 'BEGIN { print a + b }')
  cpu[$1]=$(awk -v a="${cpu[$1]:-0}" -v b="$used" 'BEGIN { print a + b }')
  printf '%6.1f s, CPU %6.1f s%s\n' "$took" "$used" "${3:-}"
}

# Prints the mean of the sums in the array named $1 (entries HARNESS$2)
# per harness and its ratio to divan's, and the mean CPU seconds.
summary() {
  local -n sums=$1
  local h
  for h in "${harnesses[@]}"; do
    awk -v h="$h" -v t="${sums[$h$2]}" -v d="${sums[divan$2]}" -v n="$rounds" -v c="${cpu[$h$2]}" \
      'BEGIN { printf "  %-20s %6.1f s  %5.2fx divan  CPU %6.1f s\n", h, t / n, t / d, c / n }'
  done
}

declare -A total
for ((r = 1; r <= rounds; r++)); do
  for h in "${harnesses[@]}"; do
    rm -rf "$work/$h/target"
    printf 'round %d  %-20s ' "$r" "$h"
    timed_build "$h" total
  done
done
echo "cold build, mean of $rounds round(s), load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores:"
summary total ''

# The rebuild: each 100-benchmark crate built once (not timed), then per
# round benchmark 50's constant changed (to 1050 and back) and rebuilt.
for h in "${harnesses[@]}"; do
  build "$h-100"
done
declare -A rebuilt
for ((r = 1; r <= rounds; r++)); do
  for h in "${harnesses[@]}"; do
    file=$work/$h-100/benches/one.rs
    if grep -q 'x ^ 50)' "$file"; then
      sed -i 's/x ^ 50)/x ^ 1050)/' "$file"
    else
      sed -i 's/x ^ 1050)/x ^ 50)/' "$file"
    fi
    printf 'round %d  %-20s ' "$r" "$h"
    timed_build "$h-100" rebuilt ' (rebuild, 100 benchmarks)'
  done
done
echo "rebuild after one edit in a file of 100 benchmarks, mean of $rounds round(s), load $(cut -d' ' -f1-3 /proc/loadavg):"
summary rebuilt -100
