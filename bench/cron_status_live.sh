#!/usr/bin/env bash
# `cronwarden cron status` against a real kube-apiserver (started here, stopped at the end): the
# cluster of bench_cron_status (10,000 volumes, 500 RecurringJobs with 30 days of Jobs, 200
# Schedules with 5,000 Backups by default) is created in it, then the whole command reads it
# with paged LISTs (wall time, CPU, peak RSS of 5 runs). No controller runs in the cluster (no
# garbage collector, CronJob or Job controller): the objects stay as created.
#   bench/cron_status_live.sh [VOLUMES JOBS SCHEDULES BACKUPS [DAYS]]
# CW_BENCH_KEEP=1 leaves the cluster up (it says how to reach it and take it down); under
# `flock /tmp/cw-heavy.lock` its processes hold the lock until it is taken down.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${CW_BUILD_DIR:-$root/build}
dir=$(mktemp -d /tmp/cw-bench-status.XXXXXX)
cleanup() {
  if [ -n "${CW_BENCH_KEEP:-}" ]; then echo "cluster kept: . $dir/env; tests/e2e/cluster.sh down $dir"; return; fi
  "$root/tests/e2e/cluster.sh" down "$dir" >/dev/null 2>&1
  rm -rf "$dir"
}
trap cleanup EXIT
CRONWARDEN_E2E_CONTROLLERS=namespace,serviceaccount-token "$root/tests/e2e/cluster.sh" up "$dir" >/dev/null
. "$dir/env"
kc() { "$CW_KUBECTL" "$@"; }
kc apply -k "$root/crds" >/dev/null
kc apply -f "$root/tests/e2e/fixtures/longhorn-1.2.6-crds/" >/dev/null
kc wait --for=condition=Established crd --all >/dev/null
kc create namespace longhorn-system >/dev/null
kc create namespace velero >/dev/null
"$build/bench/bench_cron_status" --live "$dir/kubeconfig" "$@"
