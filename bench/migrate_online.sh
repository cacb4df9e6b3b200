#!/usr/bin/env bash
# Online migrate benchmark on a real kube-apiserver (started here, stopped at the end).
#   bench/migrate_online.sh [N ...]    default: 2000 10000
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${CW_BUILD_DIR:-$root/build}
dir=$(mktemp -d /tmp/cw-bench-online.XXXXXX)
trap '"$root/tests/e2e/cluster.sh" down "$dir" >/dev/null 2>&1; rm -rf "$dir"' EXIT
"$root/tests/e2e/cluster.sh" up "$dir" >/dev/null
. "$dir/env"
"$CW_KUBECTL" apply -k "$root/crds" >/dev/null
"$CW_KUBECTL" wait --for=condition=Established crd/volumes.longhorn.io crd/recurringjobs.longhorn.io >/dev/null
[ $# -gt 0 ] || set -- 2000
# The API server's and etcd's CPU per volume: what each write costs the server, the ceiling.
CW_BENCH_SERVER_PIDS="$(cat "$dir"/run/kube-apiserver.pid "$dir"/run/etcd.pid 2>/dev/null | tr '\n' ' ')" \
  "$build/bench/bench_migrate_online" "$dir/kubeconfig" "$@"
