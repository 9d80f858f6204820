#!/usr/bin/env bash
# Hardware counters counted for real, without hardware: runs perfbench's
# PMU checks on Linux's own armv8_pmuv3 driver in an arm64 machine emulated
# by QEMU with `-icount shift=0`, where instruction counts are exact and
# deterministic.
#
#   bash tests/pmu-vm/run.sh
#
# 1. A Debian trixie chroot with rustc 1.85, the arm64 std, the aarch64 gcc
#    and QEMU (debootstrap; cached).
# 2. An arm64 cloud kernel and a static busybox (cached).
# 3. Cross-builds, in the chroot, perfbench's unit tests and the crate in
#    tests/pmu-vm/guest as a user's crate would be built (static binaries).
# 4. Packs them into an initramfs whose /init runs them, boots the guest,
#    and reads the results back from the serial console.
# 5. Fails loudly unless every unit test (the ones that need a PMU
#    included) and every check passed.
#
# Needs root (chroot, mounts), network to Debian's mirror and crates.io on
# the first run. Everything is cached under $PERFBENCH_PMU_VM_CACHE
# (default /var/cache/perfbench-pmu-vm), outside the clone.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cache="${PERFBENCH_PMU_VM_CACHE:-/var/cache/perfbench-pmu-vm}"
mirror="${PERFBENCH_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
root="$cache/chroot"
target=aarch64-unknown-linux-gnu
# Bump when the packages below change, so that a cached chroot is renewed.
packages_stamp="$root/.perfbench-packages-1"

say() { echo "pmu-vm: $*" >&2; }
die() { say "error: $*"; exit 1; }
# Runs a network step again once if it fails: a mirror may drop a request.
retry() { "$@" || { say "retrying: $1 failed once"; sleep 5; "$@"; }; }

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mounts)"

# A minimal trixie system in $root.tmp, from scratch.
bootstrap() {
  rm -rf "$root.tmp"
  debootstrap --variant=minbase --include=ca-certificates trixie "$root.tmp" "$mirror"
}

# The chroot, with what the build and the guest need.
make_chroot() {
  if [ ! -x "$root/usr/bin/apt-get" ]; then
    command -v debootstrap >/dev/null || {
      say "installing debootstrap"
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
    }
    say "making a Debian trixie chroot in $root (once)"
    mkdir -p "$cache"
    retry bootstrap >"$cache/debootstrap.log" 2>&1 || die "debootstrap failed; see $cache/debootstrap.log"
    mv "$root.tmp" "$root"
  fi
  [ -e "$packages_stamp" ] && return
  say "installing rustc, the arm64 std, gcc-aarch64-linux-gnu and QEMU in the chroot (once)"
  retry in_chroot "dpkg --add-architecture arm64 && apt-get update -qq && \
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      rustc cargo libstd-rust-dev:arm64 gcc-aarch64-linux-gnu libc6-dev:arm64 \
      qemu-system-arm cpio ca-certificates" >"$cache/apt.log" 2>&1 \
    || die "installing the chroot's packages failed; see $cache/apt.log"
  touch "$packages_stamp"
}

# The guest's kernel (with CONFIG_ARM_PMUV3) and busybox, unpacked from
# Debian's arm64 packages.
fetch_guest() {
  [ -e "$root/guest-root/.perfbench-ready" ] && return
  say "fetching the arm64 cloud kernel and busybox (once)"
  retry in_chroot 'rm -rf /guest-debs /guest-root && mkdir -p /guest-debs /guest-root && cd /guest-debs && \
    kernel=$(apt-cache search --names-only "^linux-image-6\.12\..*-cloud-arm64$" | cut -d" " -f1 | sort -V | tail -1) && \
    [ -n "$kernel" ] && apt-get download -qq "$kernel:arm64" busybox-static:arm64 2>/dev/null && \
    for deb in *.deb; do dpkg-deb -x "$deb" /guest-root; done' >"$cache/fetch.log" 2>&1 \
    || die "fetching the guest kernel failed; see $cache/fetch.log"
  grep -q '^CONFIG_ARM_PMUV3=y' "$root"/guest-root/boot/config-* || die "the kernel lacks CONFIG_ARM_PMUV3"
  touch "$root/guest-root/.perfbench-ready"
}

# The build folder of this clone in the chroot: one per clone, because
# cargo trusts file times, and another clone's sources can be older than
# what was built from a newer one at the same path.
build_dir="/build/$(printf %s "$repo" | md5sum | cut -c1-12)"

# Runs a shell command in the chroot, in the repository, with the cross
# build's settings. Cargo reaches the registry through the host's CA bundle.
in_chroot() {
  chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/root \
    SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
    CARGO_HOME=/cargo-home CARGO_TARGET_DIR="$build_dir" \
    CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc \
    CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUSTFLAGS="-C target-feature=+crt-static" \
    /bin/sh -c "cd /src 2>/dev/null || cd /; $1"
}

mounts=()
mount_all() {
  mkdir -p "$root/src" "$root/build" "$root/cargo-home" "$root/etc/ssl/certs"
  cp "${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}" "$root/etc/ssl/certs/ca-certificates.crt"
  mount --bind "$repo" "$root/src" && mounts+=("$root/src")
  mount -t proc proc "$root/proc" && mounts+=("$root/proc")
  mount --bind /dev "$root/dev" && mounts+=("$root/dev")
}
unmount_all() {
  local m
  for m in "${mounts[@]}"; do umount "$m" 2>/dev/null || umount -l "$m" || true; done
}

# Cross-builds the unit tests and the guest crate; prints the paths, in the
# chroot, of the unit-test binary, the bench binary and the checker.
build() {
  say "cross-building for $target with rustc 1.85 (cached in $root$build_dir)"
  local log="$cache/build.log"
  retry in_chroot "cargo test -p perfbench --lib --release --locked --no-run --target $target && \
    cargo bench -p perfbench-pmu-guest --bench exact --bench exact_criterion --locked --no-run --target $target && \
    cargo build -p perfbench-pmu-guest --bin perfbench-pmu-guest --release --locked --target $target" \
    >"$log" 2>&1 || { tail -30 "$log" >&2; die "the cross build failed; see $log"; }
  local unit exact criterion
  unit=$(sed -n 's/.*Executable unittests src\/lib.rs (\(.*\))/\1/p' "$log" | tail -1)
  exact=$(sed -n 's/.*Executable benches\/exact.rs (\(.*\))/\1/p' "$log" | tail -1)
  criterion=$(sed -n 's/.*Executable benches\/exact_criterion.rs (\(.*\))/\1/p' "$log" | tail -1)
  [ -n "$unit" ] && [ -n "$exact" ] && [ -n "$criterion" ] || die "cannot find the built binaries in $log"
  echo "$unit $exact $build_dir/$target/release/perfbench-pmu-guest $criterion"
}

# The initramfs: busybox, the binaries, and an /init that runs them.
pack() {
  local unit="$1" exact="$2" checks="$3" criterion="$4" dir="$root/initramfs"
  rm -rf "$dir"
  mkdir -p "$dir"/{bin,checks,proc,sys,tmp,dev}
  cp "$root/guest-root/usr/bin/busybox" "$dir/bin/"
  cp "$root$unit" "$dir/checks/unit"
  cp "$root$exact" "$dir/checks/exact"
  cp "$root$criterion" "$dir/checks/exact-criterion"
  cp "$root$checks" "$dir/checks/pmu-checks"
  cp "$here/init" "$dir/init"
  chmod +x "$dir/init"
  in_chroot 'cd /initramfs && find . | cpio -o -H newc 2>/dev/null | gzip -1 > /initrd.gz'
}

# Boots the guest; its console goes to $cache/guest.log.
boot() {
  say "booting the emulated arm64 machine (armv8_pmuv3, -icount shift=0)"
  timeout 1200 chroot "$root" /bin/sh -c 'qemu-system-aarch64 -M virt -cpu max,pmu=on -m 1024 \
      -nographic -no-reboot -nic none -icount shift=0 \
      -kernel /guest-root/boot/vmlinuz-* -initrd /initrd.gz \
      -append "console=ttyAMA0 quiet rdinit=/init"' </dev/null >"$cache/guest.log" 2>&1 \
    || say "qemu exited with $? (the guest's verdict follows)"
}

# Reads the guest's verdict; fails unless everything passed.
verdict() {
  local log="$cache/guest.log" ok=1
  grep -q '^PMUVM-END' "$log" || { say "the guest did not finish"; ok=0; }
  grep -a '^PMUVM-UNIT test result:' "$log" >&2 || { say "no unit-test result"; ok=0; }
  grep -aq '^PMUVM-UNIT test result: ok\.' "$log" || {
    grep -a '^PMUVM-UNIT' "$log" | grep -aE 'FAILED|panicked|^PMUVM-UNIT  |left:|right:' >&2 || true
    ok=0
  }
  grep -a '^PMUVM-CHECK' "$log" >&2 || true
  grep -aq '^PMUVM-CHECKS [0-9]* passed, 0 failed' "$log" || ok=0
  # The closing line CI reads: unit tests and checks together.
  local unit checks passed failed
  unit=$(sed -n 's/^PMUVM-UNIT test result: [a-zA-Z]*\. \([0-9]*\) passed; \([0-9]*\) failed.*/\1 \2/p' "$log")
  checks=$(sed -n 's/^PMUVM-CHECKS \([0-9]*\) passed, \([0-9]*\) failed.*/\1 \2/p' "$log")
  passed=$(( ${unit%% *} + ${checks%% *} ))
  failed=$(( ${unit##* } + ${checks##* } ))
  [ "$ok" = 1 ] || { tail -20 "$log" >&2; echo "pmu-vm: $passed passed, $failed failed"; die "the PMU checks failed; the console is in $log"; }
  echo "pmu-vm: $passed passed, $failed failed"
}

main() {
  local started=$SECONDS
  make_chroot
  fetch_guest
  trap unmount_all EXIT
  mount_all
  local binaries
  binaries=$(build)
  # shellcheck disable=SC2086
  pack $binaries
  unmount_all
  mounts=()
  boot
  verdict
  say "took $((SECONDS - started)) s"
}

main "$@"
