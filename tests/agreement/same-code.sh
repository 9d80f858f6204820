#!/usr/bin/env bash
# Whether the perfbench bench, the Criterion bench and the plain loop (the
# oracle) run the same machine code for each routine of src/lib.rs: the
# routine and every function it calls, directly or not, that is linked
# into the binary (calls into shared libraries, such as glibc's malloc,
# are the same library in every process).
#
# Per function, one line: its size, its start address modulo 64 (where it
# lies against a 64-byte fetch block), and a hash of its disassembly in
# each binary (`=` where it is the first binary's), with addresses made
# relative: jump and call targets by symbol and offset, and the
# displacements of `%rip`-relative operands, which differ between
# binaries only because the linker placed things elsewhere, left out.
# Byte-identical code then hashes alike; a different inlining, register
# choice or instruction does not.
#
#   bash tests/agreement/same-code.sh [ROUTINE...]   (after run.sh built)
#
# Exits 1 where a routine's code differs between the binaries.
set -euo pipefail
cd "$(dirname "$0")"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}
bin=$CARGO_TARGET_DIR/release
newest() { ls -t "$bin"/deps/"$1"-* | grep -v '\.d$' | head -n 1; }
binaries=("$bin/plain-loop" "$(newest with_perfbench)" "$(newest with_criterion)")
labels=(plain-loop perfbench criterion)
routines=("$@")
if [ ${#routines[@]} -eq 0 ]; then
  mapfile -t routines < <(sed -n 's/^ *"\([a-z0-9_]*\)" => (0\.\.n).*/\1/p' src/lib.rs)
fi
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

# `ADDRESS SIZE NAME` of every function defined in binary number i
# (names demangled, spaces kept), in $work/symbols.i.
for i in "${!binaries[@]}"; do
  nm -C -S --defined-only "${binaries[$i]}" |
    awk '$3 ~ /^[tTwW]$/ && NF >= 4 { name = $0; sub(/^[^ ]+ [^ ]+ [^ ]+ /, "", name); print $1, $2, name }' \
      >"$work/symbols.$i"
  # Rust calls functions through the global offset table: `SLOT TARGET`,
  # the function's address or, outside the binary, its name.
  readelf -rW "${binaries[$i]}" | awk '
    $3 == "R_X86_64_RELATIVE" { sub(/^0+/, "", $1); sub(/^0+/, "", $4); print $1, $4 }
    $3 == "R_X86_64_GLOB_DAT" { sub(/^0+/, "", $1); print $1, $5 }' >"$work/got.$i"
done

# `ADDRESS SIZE NAME` of the function of binary $1 at address $2, or named
# $2 (the first of that name).
symbol() {
  awk -v key="$2" '{ n = $0; sub(/^[^ ]+ [^ ]+ /, "", n) }
    n == key || ($1 ~ "^0*" key "$") { print; exit }' "$work/symbols.$1"
}

# The raw disassembly of the function of binary $1 at address $2 (hex),
# a call through the global offset table shown as `# got ADDRESS <NAME>`
# of the function it calls (`# got <NAME>` outside the binary).
raw() {
  local address size
  read -r address size _ <<<"$(symbol "$1" "$2")"
  objdump -d -C --no-show-raw-insn --start-address=$((16#$address)) \
    --stop-address=$((16#$address + 16#$size)) "${binaries[$1]}" |
    awk -F'\t' '
      FILENAME == ARGV[1] { split($0, w, " "); got[w[1]] = w[2]; next }
      FILENAME == ARGV[2] { split($0, w, " "); n = $0; sub(/^[^ ]+ [^ ]+ /, "", n)
                            a = w[1]; sub(/^0+/, "", a); if (!(a in name)) name[a] = n; next }
      /^ *[0-9a-f]+:\t/ {
        $1 = ""
        if ($0 ~ /^ *(call|jmp)/ && match($0, /# [0-9a-f]+ </)) {
          slot = substr($0, RSTART + 2, RLENGTH - 4)
          if (slot in got) {
            t = got[slot]
            $0 = substr($0, 1, RSTART - 1) "# got " ((t in name) ? t " <" name[t] ">" : "<" t ">")
          }
        }
        print
      }' "$work/got.$1" "$work/symbols.$1" -
}

# The same with addresses made relative: jump and call targets by name
# and offset; `%rip`-relative displacements, and the data they name, left
# out (constants, the same bytes wherever the linker put them); the
# hashes LLVM appends to local names left out.
normalized() {
  raw "$1" "$2" |
    sed -E 's/[0-9a-f]+ </</g; s/-?0x[0-9a-f]+\(%rip\)/(%rip)/; /^ *(call|jmp)/! s/#.*$//; s/\.llvm\.[0-9]+//g; s/ +$//'
}

# Addresses of the functions that function $2 of binary $1 calls or
# tail-calls, directly or through the global offset table, in order of
# first appearance: targets `ADDRESS <name>` without an offset, inside the
# binary (shared libraries are the same in every process), but not the
# paths to a panic or an allocation failure, which a routine that runs
# never takes.
callees() {
  raw "$1" "$2" | grep -E '^ *(call|jmp)' | grep -vE '@plt>$|\+0x[0-9a-f]+>$' |
    grep -vE '<[^>]*(panic|unwrap_failed|handle_error|handle_alloc_error|capacity_overflow|fmt::)' |
    sed -nE 's/^ *(call|jmp) +([0-9a-f]+) <.*>$/\2/p; s/.*# got ([0-9a-f]+) <.*>$/\1/p' |
    awk '!seen[$0]++'
}

# Every function reached from the function of binary $1 at address $2,
# itself first, depth first in call order: the same order in binaries
# that hold the same code.
reached() {
  local todo=("$2") seen=" " f more
  while [ ${#todo[@]} -gt 0 ]; do
    f=${todo[0]}
    todo=("${todo[@]:1}")
    [[ $seen == *" $f "* ]] && continue
    seen+="$f "
    echo "$f"
    mapfile -t more < <(callees "$1" "$f")
    todo=("${more[@]}" "${todo[@]}")
  done
}

status=0
printf '%-56s %5s' function bytes
for label in "${labels[@]}"; do printf ' %19s' "$label @mod64"; done
echo
for routine in "${routines[@]}"; do
  for i in "${!binaries[@]}"; do
    read -r address _ <<<"$(symbol "$i" "perfbench_agreement::$routine")"
    if [ -z "$address" ]; then
      echo "$routine: inlined (no function of its own in ${labels[$i]}): skipped"
      continue 2
    fi
    reached "$i" "$address" >"$work/reached.$i"
  done
  mapfile -t functions <"$work/reached.0"
  for k in "${!functions[@]}"; do
    read -r _ size name <<<"$(symbol 0 "${functions[$k]}")"
    printf '%-56.56s %5s' "$name" "$((16#$size))"
    first=""
    for i in "${!binaries[@]}"; do
      address=$(sed -n "$((k + 1))p" "$work/reached.$i")
      if [ -z "$address" ]; then
        hash=absent at=""
      else
        hash=$(normalized "$i" "$address" | sha256sum | cut -c1-12)
        at=$((16#$address % 64))
      fi
      if [ -z "$first" ]; then
        first=$hash
      elif [ "$hash" = "$first" ]; then
        hash="="
      else
        status=1
      fi
      printf ' %13s @%-4s' "$hash" "$at"
    done
    echo
  done
done
exit $status
