#!/usr/bin/env bash
# Runs the reliability suite (src/test/java/dev/postbox/reliability, docs/reliability.md) and prints
# the one-line figures of every scenario.
#
#   scripts/reliability.sh          # the short version, as `mvn -B -Preliability verify` / .ci/run runs it
#   scripts/reliability.sh long     # the long version (about 45 minutes on 2 cores)
#
# Needs the local PostgreSQL and MariaDB of .ci/run (or POSTBOX_POSTGRES_URL / POSTBOX_MARIADB_URL;
# the database-restart scenario needs the local servers and root), and Debian's faketime for the
# clock-skew scenario. Extra arguments go to Maven, e.g. -Dpostbox.build.dir=/tmp/target.
set -euo pipefail
cd "$(dirname "$0")/.."

profile=short
if [ "${1:-}" = long ] || [ "${1:-}" = short ]; then
  profile=$1
  shift
fi

if [ ! -e /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 ]; then
  echo "libfaketime is missing: apt-get install -y faketime (the clock-skew scenario needs it)" >&2
  exit 1
fi

build_dir=target
for arg in "$@"; do
  case "$arg" in -Dpostbox.build.dir=*) build_dir=${arg#-Dpostbox.build.dir=} ;; esac
done
summary="$build_dir/reliability/summary.txt"
rm -f "$summary"

args=(-B verify -Dspotless.check.skip=true -Dtest='dev.postbox.reliability.**' -Dsurefire.failIfNoSpecifiedTests=false)
if [ "$profile" = long ]; then
  args+=(-Plong)
else
  args+=(-Preliability)
fi
status=0
mvn "${args[@]}" "$@" || status=$?

echo
echo "== reliability figures ($profile) =="
if [ -f "$summary" ]; then cat "$summary"; else echo "(no figures: see the Maven output above)"; fi
exit "$status"
