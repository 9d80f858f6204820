#!/bin/sh
# as-nobody.sh SCRATCH COMMAND [ARGS...]
#
# Runs COMMAND as an ordinary user (uid and gid 65534, no groups, no
# capabilities), as perfbench runs on a user's account: perf events at the
# kernel's perf_event_paranoid, without CAP_PERFMON. The end-to-end tests
# use it as cargo's runner when E2E_UNDER=nobody (tests/tests/common). The
# tests themselves run as root and make their files there, so SCRATCH, the
# tests' scratch space, is handed to that user first.
set -eu
scratch="$1"
shift
# Other tests make and remove files there meanwhile, and some mount a
# read-only disk in it: a file gone or read-only mid-walk is not this run's,
# so chown's complaints about them are not a failure.
chown -R 65534:65534 "$scratch" 2>/dev/null || true
exec setpriv --reuid=65534 --regid=65534 --clear-groups \
  --inh-caps=-all --bounding-set=-all -- "$@"
