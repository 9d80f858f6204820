#!/usr/bin/env bash
# What N benchmarks cost: generates a bench crate of N trivial benchmarks
# (10 per module, the first of every 10th module with `args` of 3 values)
# for HARNESS (perfbench, criterion 0.8 or divan 0.1), builds it with its
# dependencies prebuilt, and prints one line of figures:
#
#   tests/scale/scale.sh N HARNESS        # from the project root
#
#   harness=perfbench n=1000 build_s=… per_bench_s=… [run_s=… report_s=…
#   report_bytes=… largest_page_bytes=… store_bytes=… one_alone_s=…
#   one_in_store_s=…]
#
# build_s is `cargo bench --no-run` of the N-benchmark crate after a build
# of the same crate with one benchmark (so dependencies are built and
# cached); per_bench_s is (build_s - the one-benchmark rebuild) / (N - 1),
# what each benchmark adds. For perfbench the suite is then run with fast
# settings (--warm-up-time 0.01 --measurement-time 0.02, JSON lines), and
# run_s is the run up to its last result, report_s the writing of the
# report after it; one_alone_s and one_in_store_s time one quick
# benchmark's whole run alone and in the store the suite left. Everything
# is generated under $SCALE_WORK (default /tmp/perfbench-scale); nothing
# here is committed.
set -eu
[ $# -eq 2 ] || { echo "usage: tests/scale/scale.sh N perfbench|criterion|divan" >&2; exit 2; }
n=$1 harness=$2
case "$n" in '' | *[!0-9]*) echo "scale.sh: N must be a whole number, not \`$n\`" >&2; exit 2 ;; esac
[ "$n" -ge 2 ] || { echo "scale.sh: N must be 2 or more, not $n" >&2; exit 2; }
root="$(pwd)"
[ -f "$root/perfbench/Cargo.toml" ] || { echo "scale.sh: run me from the project root" >&2; exit 2; }
work="${SCALE_WORK:-/tmp/perfbench-scale}/$harness"
mkdir -p "$work/benches" "$work/src"
: > "$work/src/lib.rs"

case "$harness" in
perfbench) dep="perfbench = { path = \"$root/perfbench\" }" ;;
criterion) dep='criterion = { version = "0.8", features = ["html_reports"] }' ;;
divan) dep='divan = "0.1"' ;;
*) echo "scale.sh: HARNESS is perfbench, criterion or divan, not \`$harness\`" >&2; exit 2 ;;
esac
printf '[package]\nname = "scale-%s"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n[lib]\nbench = false\n\n[dev-dependencies]\n%s\n\n[[bench]]\nname = "scale"\nharness = false\n\n[workspace]\n' \
    "$harness" "$dep" > "$work/Cargo.toml"

# One benchmark, `k` of module `m`, in the harness's form; `args` where
# asked. Criterion's are functions registered in `main` below.
bench() { # m k args?
    local m=$1 k=$2 args=$3 body="(0..black_box(${k}u64 + 1)).sum::<u64>()"
    case "$harness:$args" in
    perfbench:0) echo "    #[perfbench] fn b$k() -> u64 { $body }" ;;
    perfbench:1) echo "    #[perfbench(args = [1, 2, 3])] fn b$k(b: &mut Bencher, n: u64) { b.iter(|| (0..black_box(n)).sum::<u64>()) }" ;;
    divan:0) echo "    #[divan::bench] fn b$k() -> u64 { $body }" ;;
    divan:1) echo "    #[divan::bench(args = [1, 2, 3])] fn b$k(n: u64) -> u64 { (0..black_box(n)).sum::<u64>() }" ;;
    criterion:0) echo "    pub fn b$k(c: &mut Criterion) { c.bench_function(\"m$m::b$k\", |b| b.iter(|| $body)); }" ;;
    criterion:1) echo "    pub fn b$k(c: &mut Criterion) { for n in [1u64, 2, 3] { c.bench_with_input(BenchmarkId::new(\"m$m::b$k\", n), &n, |b, &n| b.iter(|| (0..black_box(n)).sum::<u64>())); } }" ;;
    esac
}

# The bench target with `count` benchmarks.
generate() { # count
    local count=$1 file="$work/benches/scale.rs" m k
    {
        case "$harness" in
        perfbench) echo "use perfbench::{black_box, perfbench, Bencher};" ;;
        divan) echo "use divan::black_box;" ;;
        criterion) echo "use criterion::{black_box, BenchmarkId, Criterion};" ;;
        esac
        for ((m = 0; m * 10 < count; m++)); do
            echo "#[allow(unused_imports)] mod m$m {"
            echo "    use super::*;"
            for ((k = 0; k < 10 && m * 10 + k < count; k++)); do
                bench "$m" "$k" "$(( k == 0 && m % 10 == 0 ))"
            done
            echo "}"
        done
        case "$harness" in
        perfbench) echo "perfbench::main!();" ;;
        divan) echo "fn main() { divan::main(); }" ;;
        criterion)
            echo "fn main() { let mut c = Criterion::default().configure_from_args();"
            for ((m = 0; m * 10 < count; m++)); do
                for ((k = 0; k < 10 && m * 10 + k < count; k++)); do echo "    m$m::b$k(&mut c);"; done
            done
            echo "    c.final_summary(); }" ;;
        esac
    } > "$file"
}

export CARGO_TARGET_DIR="$work/target"
build() { # seconds of `cargo bench --no-run`
    local s e
    s=$(date +%s.%N)
    (cd "$work" && cargo bench --no-run -q >/dev/null 2>"$work/build.log") || { cat "$work/build.log" >&2; exit 1; }
    e=$(date +%s.%N)
    python3 -c "print(f'{$e - $s:.2f}')"
}

generate 1
build >/dev/null          # dependencies, once
generate 2; build >/dev/null # a change of the bench target alone, warm
generate 1; one=$(build)
generate "$n"; all=$(build)
per=$(python3 -c "print(f'{($all - $one) / ($n - 1):.4f}')")
line="harness=$harness n=$n build_s=$all per_bench_s=$per"

# One quick benchmark's whole run (`--exact m0::b1 --quick`, the report
# included), alone in an empty store and then in the store of N the suite
# left: the fastest and slowest of 5 runs each, in seconds, as
# one_alone_s=FAST-SLOW one_in_store_s=FAST-SLOW.
one_quick_benchmark() {
    local bin
    bin=$(find "$CARGO_TARGET_DIR/release/deps" -name 'scale-*' -type f -executable | head -1)
    python3 - "$bin" "$PERFBENCH_HOME" "$work/empty-home" <<'EOF'
import os, shutil, subprocess, sys, time
binary, store, empty = sys.argv[1:]
def runs(home, clear):
    times = []
    for _ in range(5):
        if clear:
            shutil.rmtree(home, ignore_errors=True)
        start = time.monotonic()
        subprocess.run([binary, "--bench", "--exact", "m0::b1", "--quick"], check=True,
                       env={**os.environ, "PERFBENCH_HOME": home},
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.monotonic() - start)
    return f"{min(times):.2f}-{max(times):.2f}"
print(f"one_alone_s={runs(empty, True)} one_in_store_s={runs(store, False)}")
EOF
}

if [ "$harness" = perfbench ]; then
    export PERFBENCH_HOME="$work/home"
    rm -rf "$PERFBENCH_HOME"
    timing=$(cd "$work" && python3 - <<'EOF'
import subprocess, time, sys
start = time.monotonic()
p = subprocess.Popen(
    ["cargo", "bench", "-q", "--bench", "scale", "--", "--warm-up-time", "0.01",
     "--measurement-time", "0.02", "--output-format", "json"],
    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
last = report = None
for line in p.stdout:
    now = time.monotonic()
    if line.startswith("{"):
        last = now
    elif line.startswith("perfbench: report:"):
        report = now
code = p.wait()
if code != 0 or last is None or report is None:
    sys.exit(f"scale.sh: the run failed (exit {code})")
print(f"run_s={last - start:.2f} report_s={report - last:.2f}")
EOF
)
    report="$PERFBENCH_HOME/report"
    bytes() { du -sb "$1" | cut -f1; }
    largest=$(find "$report" -type f -printf '%s\n' | sort -n | tail -1)
    store=$(( $(bytes "$PERFBENCH_HOME") - $(bytes "$report") ))
    line="$line $timing report_bytes=$(bytes "$report") largest_page_bytes=$largest store_bytes=$store"
    line="$line $(one_quick_benchmark)"
fi
echo "$line"
