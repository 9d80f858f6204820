#!/usr/bin/env bash
# Real crates' own Criterion suites, as published on crates.io, built and
# run twice, one after the other on this machine: (a) as published, with
# Criterion; (b) with one change, the `criterion` dev-dependency renamed to
# perfbench-criterion (`criterion = { package = "perfbench-criterion",
# path = "…", features = [as they were] }`: src/rename.rs, which refuses
# what it cannot rename exactly). Every bench file stays as it is. Both
# copies also get an empty `[workspace]` table where they have none, so
# that each is a workspace of its own.
#
# Per crate it records, under target/criterion-suites/results/:
# - the cold build time of `cargo bench --no-run --bench X…` of each copy
#   (its own fresh target folder, so a first run only; `build-seconds`);
# - the ids, `cargo bench --bench X -- --list` of each copy, and their
#   diff (Criterion prints `ID: benchmark`, as perfbench-criterion does);
# - each bench target run under Criterion, then under perfbench, with the
#   same flags (SUITE_ARGS, Criterion's names, which perfbench accepts),
#   ROUNDS times (1 by default), and a table of the wall time per
#   iteration of each id in both (`suites table`: Criterion's slope, else
#   mean; perfbench's wall-time estimate from `--output-format json`; the
#   median of the rounds, with each harness's spread) with their ratio.
#
#   bash tests/criterion-suites/run.sh [CRATE...]     (all by default)
#
# SIDES="criterion" runs Criterion's half only (until perfbench-criterion
# exists); PERFBENCH_CRITERION is its folder (../../perfbench-criterion by
# default). SIDES="criterion perfbench plain" adds the third oracle,
# plain-criterion (./plain-criterion: each routine in a plain loop, ns per
# iteration, by the same rename; FuturesExecutor its only executor, so not
# deadpool), as a third column with each harness's ratio to it. FILTER
# runs only the ids containing it (Criterion reads it as a regex). A measurement, not a test: nothing here fails on a ratio, but
# it fails on a download that does not match its sha256, a manifest the
# rename refuses, a build, a run, or ids that differ.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${SUITES_CACHE:-$repo/target/criterion-suites}
sides=${SIDES:-criterion perfbench}
read -r -a suite_args <<<"${SUITE_ARGS:---warm-up-time 1 --measurement-time 2}"
# Each bench target runs ROUNDS times under each harness, alternating; the
# table gives each harness's median and its own spread over the rounds.
rounds=${ROUNDS:-1}
# Plots are drawn after measuring; skipping them changes no figure.
criterion_only_args=(--noplot)
filter=()
[ -z "${FILTER:-}" ] || filter=("$FILTER")

# name, version, sha256 of the .crate (as the crates.io index gives it),
# and the bench targets left out, with why (README.md says which crate
# was chosen for what: between them Criterion 0.5, 0.7 and 0.8 and the API
# listed there).
crates=(
  "deadpool 0.13.1 3e98a7e119cd347f4201e1159b19831029e203e2d8b790547708e8157b4acf1e"
  "futures-concurrency 7.7.1 175cd8cca9e1d45b87f18ffa75088f2099e3c4fe5e2f83e42de112560bea8ea6"
  "string-interner 0.20.0 ad3df9b59e2eded8d825c7c4363ad339a20fb6bc0b9a4778560f518f59910b15"
  # json: its bench.rs include_str!s third_party/nativejson-benchmark/,
  # which the published .crate does not hold, so it builds from git only.
  "winnow 1.0.5 8c3b93199df0ab874cdf0c6a94f0a0dc3423fe41f1cafb62b8bd7b1deb277aef json"
)

perfbench_criterion=${PERFBENCH_CRITERION:-$repo/perfbench-criterion}
# perfbench warns of a PERFBENCH_* variable it does not know.
unset PERFBENCH_CRITERION
if [[ " $sides " == *" perfbench "* && ! -f $perfbench_criterion/Cargo.toml ]]; then
  echo "run.sh: no perfbench-criterion at $perfbench_criterion (set PERFBENCH_CRITERION," \
    "or SIDES=criterion for Criterion's half only)" >&2
  exit 1
fi

cargo_() { nice -n 19 cargo "$@"; }
# Each copy builds into its own target/, so that its first build is cold.
unset CARGO_TARGET_DIR
(cd "$here" && cargo_ build -q --release)
suites=$here/target/release/suites
stamp=$(date -u +%Y%m%dT%H%M%SZ)
results=$cache/results/$stamp
mkdir -p "$cache/downloads" "$results"

# Downloads NAME-VERSION.crate once and checks its sha256 every time.
download() {
  local name=$1 version=$2 sum=$3 file=$cache/downloads/$1-$2.crate
  if [ ! -f "$file" ]; then
    curl -sSfL -o "$file.part" "https://static.crates.io/crates/$name/$name-$version.crate" ||
      { echo "run.sh: could not download $name $version from crates.io" >&2; exit 1; }
    mv "$file.part" "$file"
  fi
  echo "$sum  $file" | sha256sum -c --quiet - ||
    { echo "run.sh: $file does not match its sha256" >&2; exit 1; }
}

# Unpacks the crate into $cache/SIDE/NAME-VERSION once and prints that
# folder. A stamp marks a finished unpack and edit; it holds the path the
# rename wrote, so that another PERFBENCH_CRITERION unpacks afresh. The
# package renamed to is named here, not taken from its folder's name,
# which PERFBENCH_CRITERION may choose.
unpack() {
  local side=$1 name=$2 version=$3 dir=$cache/$1/$2-$3 renamed_to=- package
  case $side in
    perfbench) renamed_to=$perfbench_criterion package=perfbench-criterion ;;
    plain) renamed_to=$here/plain-criterion package=plain-criterion ;;
  esac
  if [ "$(cat "$dir.unpacked" 2>/dev/null)" != "$renamed_to" ]; then
    rm -rf "$dir"
    mkdir -p "$cache/$side"
    tar -xzf "$cache/downloads/$name-$version.crate" -C "$cache/$side"
    cp "$dir/Cargo.toml" "$dir/Cargo.toml.published"
    "$suites" own-workspace "$dir/Cargo.toml"
    if [ "$side" != criterion ]; then
      "$suites" rename "$dir/Cargo.toml" "$package" "$renamed_to"
      # The same versions of every other dependency as Criterion's copy.
      cp "$cache/criterion/$name-$version/Cargo.lock" "$dir/Cargo.lock"
    fi
    echo "$renamed_to" >"$dir.unpacked"
  fi
  echo "$dir"
}

# Builds the copy's bench targets kept ($bench_flags) with the features $2
# (`-`: the defaults), as `cargo bench` builds them: its `bench` profile,
# which a crate may set apart from `release` (futures-concurrency and
# winnow do), so `cargo build --release` would time another build. The
# first build, into a fresh target folder, is timed.
build() {
  local dir=$1 features=$2 out=$3 start with=()
  [ "$features" = - ] || with=(--features "$features")
  read -r -a with_benches <<<"$bench_flags"
  with+=("${with_benches[@]}")
  if [ ! -f "$dir/build-seconds" ]; then
    start=$(date +%s.%N)
    (cd "$dir" && cargo_ bench -q --no-run "${with[@]}" 2>"$out.build.err") ||
      build_failed "$out.build.err"
    awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.0f\n", e - s }' >"$dir/build-seconds"
  fi
  (cd "$dir" && cargo_ bench -q --no-run "${with[@]}" 2>"$out.build.err") ||
    build_failed "$out.build.err"
  cp "$dir/build-seconds" "$out.build-seconds"
}

build_failed() { cat "$1" >&2; exit 1; }

# Runs `cargo bench` in the copy $1 for bench target $2 with the features
# $3 (`-`: the defaults) and the arguments after them.
bench() {
  local dir=$1 target=$2 features=$3 with=()
  shift 3
  [ "$features" = - ] || with=(--features "$features")
  (cd "$dir" && cargo_ bench -q --bench "$target" "${with[@]}" -- "$@")
}

for entry in "${crates[@]}"; do
  read -r name version sum skipped <<<"$entry"
  if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]]; then continue; fi
  download "$name" "$version" "$sum"
  echo "== $name $version, $(date -u +%H:%M) UTC, load $(cut -d' ' -f1-3 /proc/loadavg)"
  # Criterion's copy first: the other takes its Cargo.lock.
  dir=$(unpack criterion "$name" "$version")
  [ -f "$dir/Cargo.lock" ] || (cd "$dir" && cargo_ generate-lockfile -q)
  # The bench targets, and every feature one of them requires: each build
  # and run is given them all, so that none rebuilds the crate.
  targets=$(cd "$dir" && cargo_ metadata -q --no-deps --format-version 1 | "$suites" bench-targets Cargo.toml)
  for target in ${skipped//,/ }; do
    echo "bench target \`$target\` left out (see run.sh)"
    targets=$(awk -v t="$target" '$1 != t' <<<"$targets")
  done
  # `--bench X` for each target kept: the build builds what runs.
  bench_flags=$(awk '{ printf "--bench %s ", $1 }' <<<"$targets")
  features=$(awk '$2 != "-" { print $2 }' <<<"$targets" | tr , '\n' | sort -u | paste -sd, -)
  features=${features:--}
  for side in $sides; do
    dir=$(unpack "$side" "$name" "$version")
    out=$results/$name-$side
    build "$dir" "$features" "$out"
    echo "$side: cold build $(cat "$out.build-seconds") s"
    if [ "$side" != criterion ]; then
      diff -u "$dir/Cargo.toml.published" "$dir/Cargo.toml" >"$out.rename.diff" || true
    fi
  done
  # fd 3: cargo and the benches must not read the list from stdin.
  while read -r target _ <&3; do
    for side in $sides; do
      dir=$cache/$side/$name-$version
      out=$results/$name-$side-$target
      bench "$dir" "$target" "$features" --list 2>"$out.list.err" |
        sed -n 's/: benchmark$//p' | sort >"$out.ids" || build_failed "$out.list.err"
      echo "$target: $side lists $(wc -l <"$out.ids") ids"
    done
    for side in $sides; do
      diff -u "$results/$name-criterion-$target.ids" "$results/$name-$side-$target.ids" ||
        { echo "run.sh: $name $target: $side's ids differ from Criterion's" >&2; exit 1; }
    done
    for round in $(seq "$rounds"); do
      for side in $sides; do
        dir=$cache/$side/$name-$version
        out=$results/$name-$side-$target-$round
        if [ "$side" = criterion ]; then
          CRITERION_HOME=$out.criterion-home bench "$dir" "$target" "$features" \
            "${suite_args[@]}" "${criterion_only_args[@]}" "${filter[@]}" >"$out.out" 2>&1 ||
            build_failed "$out.out"
        elif [ "$side" = plain ]; then
          bench "$dir" "$target" "$features" "${suite_args[@]}" "${filter[@]}" >"$out.plain" 2>&1 ||
            build_failed "$out.plain"
        else
          PERFBENCH_HOME=$out.perfbench-home bench "$dir" "$target" "$features" \
            "${suite_args[@]}" "${filter[@]}" --output-format json >"$out.json" 2>"$out.err" ||
            build_failed "$out.err"
        fi
      done
    done
    [ "$rounds" -gt 0 ] || continue
    if [ ! -d "$results/$name-criterion-$target-1.criterion-home" ]; then
      echo "$target: no id matches FILTER"
      continue
    fi
    homes=$(for r in $(seq "$rounds"); do echo "$results/$name-criterion-$target-$r.criterion-home"; done | paste -sd, -)
    jsons=-
    if [[ " $sides " == *" perfbench "* ]]; then
      jsons=$(for r in $(seq "$rounds"); do echo "$results/$name-perfbench-$target-$r.json"; done | paste -sd, -)
    fi
    plains=-
    if [[ " $sides " == *" plain "* ]]; then
      plains=$(for r in $(seq "$rounds"); do echo "$results/$name-plain-$target-$r.plain"; done | paste -sd, -)
    fi
    "$suites" table "$homes" "$jsons" "$plains" | tee "$results/$name-$target.table"
  done 3<<<"$targets"
done
echo "results: $results"
