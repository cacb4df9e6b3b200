#!/usr/bin/env bash
# The Longhorn reconcilers (recurringjob, volume) at scale on a real kube-apiserver (started here,
# stopped at the end): VOLUMES Volumes and JOBS RecurringJobs seeded (bench/controller_seed.c:
# 80% labelled, 15% without a job label, 5% with legacy spec.recurringJobs), then
#   1. a controller starts at the defaults users get: time until every key is reconciled and the
#      queues are empty, keys/s, reconcile latency p50/p99 (histogram buckets), API requests,
#      writes, peak RSS (VmHWM);
#   2. a second controller starts on the reconciled cluster: the same figures; it must write
#      nothing (a no-op resync).
#   bench/controller_longhorn.sh [VOLUMES JOBS]     default: 10000 500
# CW_BENCH_CONTROLLERS: the --controllers of both (default recurringjob,volume; '*': every one).
# CW_BENCH_BASELINE=BINARY (e.g. main's): then CW_BENCH_ROUNDS (3) rounds of the restart on the
# reconciled cluster, alternating BINARY and this build, with min / median / max of the time and
# the peak RSS of each, and the ratio of the medians.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${CW_BUILD_DIR:-$root/build}
vols=${1:-10000} jobs=${2:-500}
controllers=${CW_BENCH_CONTROLLERS:-recurringjob,volume}
baseline=${CW_BENCH_BASELINE:-} rounds=${CW_BENCH_ROUNDS:-3}
ns=longhorn-system
dir=$(mktemp -d /tmp/cw-bench-controller.XXXXXX)
pid=""
cleanup() {
  [ -z "$pid" ] || kill "$pid" 2>/dev/null || true
  "$root/tests/e2e/cluster.sh" down "$dir" >/dev/null 2>&1
  rm -rf "$dir"
}
trap cleanup EXIT
"$root/tests/e2e/cluster.sh" up "$dir" >/dev/null
. "$dir/env"
kc() { "$CW_KUBECTL" "$@"; }
kc apply -k "$root/crds" >/dev/null
kc wait --for=condition=Established crd/volumes.longhorn.io crd/recurringjobs.longhorn.io crd/settings.longhorn.io >/dev/null
kc create namespace "$ns" >/dev/null
kc apply -n "$ns" -f "$root/tests/e2e/fixtures/longhorn-manager.yaml" >/dev/null
seed_s=$("$build/bench/bench_controller_seed" "$dir/kubeconfig" "$ns" "$vols" "$jobs")
echo "seeded $vols volumes and $jobs RecurringJobs in ${seed_s}s"

metrics() { curl -fsS "http://127.0.0.1:$port/metrics"; }
# sum NAME [LABEL-FILTER]: the sum of a family's samples (whose labels contain the filter).
sum() { awk -v m="$1" -v f="${2:-}" 'index($1, m) == 1 && substr($1, length(m) + 1, 1) ~ /[{ ]|^$/ && index($1, f) {s += $2} END {printf "%d", s}' "$dir/m"; }
# pct CONTROLLER P: the upper bound (ms) of the histogram bucket holding the P-quantile.
pct() {
  awk -v c="controller=\"$1\"" -v p="$2" '
    index($1, "cronwarden_controller_reconcile_duration_seconds_bucket") == 1 && index($1, c) {
      match($1, /le="[^"]*"/); le = substr($1, RSTART + 4, RLENGTH - 5); n++; les[n] = le; cum[n] = $2 }
    END { total = cum[n]; for (i = 1; i <= n; i++) if (cum[i] >= p * total) { printf "%s", (les[i] == "+Inf" ? "inf" : les[i] * 1000); exit } }' "$dir/m"
}

run() {
  local what=$1 bin=${2:-$build/cmd/cronwarden} t0 t elapsed quiet=0
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  t0=$(date +%s%N)
  "$bin" controller --controllers "$controllers" --kubeconfig "$dir/kubeconfig" \
    --leader-elect=false --metrics-listen "127.0.0.1:$port" --log-level warn 2>"$dir/$what.log" &
  pid=$!
  while :; do
    sleep 0.1
    metrics >"$dir/m" 2>/dev/null || continue
    if [ "$(sum cronwarden_controller_reconciles_total 'controller="volume"')" -ge "$vols" ] &&
       [ "$(sum cronwarden_controller_reconciles_total 'controller="recurringjob"')" -ge "$jobs" ] &&
       [ "$(( $(sum cronwarden_controller_queue_keys 'state="ready"') + $(sum cronwarden_controller_queue_keys 'state="processing"') ))" = 0 ]; then
      quiet=$((quiet + 1))
      [ "$quiet" -lt 3 ] || break
    else
      quiet=0
    fi
  done
  t=$(date +%s%N)
  elapsed=$(awk -v a="$t0" -v b="$t" 'BEGIN {printf "%.2f", (b - a - 200000000) / 1e9}')
  sleep 1.2 # the request counter is brought up to date every second
  metrics >"$dir/m"
  local keys rss
  keys=$(sum cronwarden_controller_reconciles_total)
  rss=$(awk '/VmHWM/ {printf "%.1f", $2 / 1024}' "/proc/$pid/status")
  last_s=$elapsed last_rss=$rss
  printf '%-22s %8s s %9s keys %9.0f keys/s  p50 %6s ms  p99 %6s ms  %7s requests  %6s writes  %6s MiB\n' \
    "$what" "$elapsed" "$keys" "$(awk -v k="$keys" -v e="$elapsed" 'BEGIN {print k / e}')" \
    "$(pct volume 0.5)" "$(pct volume 0.99)" "$(sum cronwarden_controller_api_requests_total)" \
    "$(( $(sum cronwarden_controller_recurringjob_writes_total) + $(sum cronwarden_controller_volume_writes_total) ))" "$rss"
  kill -TERM "$pid"
  wait "$pid" || true
  pid=""
}

echo "controller: --controllers $controllers at its defaults (workers 8, page size 100)"
run "start, cluster to fix"
# Every RecurringJob has its CronJob; every volume has a job label and no legacy list.
rjs=$(kc get recurringjobs.longhorn.io -n "$ns" -o name | wc -l)
cjs=$(kc get cronjobs.batch -n "$ns" -l recurring-job.longhorn.io -o name | wc -l)
unlabelled=$(kc get volumes.longhorn.io -n "$ns" -o json | jq '[.items[] | select(((.metadata.labels // {}) | keys | map(select(startswith("recurring-job"))) | length) == 0 or (.spec.recurringJobs // [] | length) > 0)] | length')
echo "checked: $rjs RecurringJobs, $cjs CronJobs, $unlabelled volumes without a job label or with legacy jobs"
[ "$rjs" = "$cjs" ] && [ "$unlabelled" = 0 ] || { echo "the controller did not finish the job" >&2; exit 1; }
run "restart, all in sync"
[ "$(sum cronwarden_controller_recurringjob_writes_total)" = 0 ] && [ "$(sum cronwarden_controller_volume_writes_total)" = 0 ] ||
  { echo "a no-op resync wrote" >&2; exit 1; }

[ -n "$baseline" ] || exit 0
# Alternating restarts on the reconciled cluster: the baseline, then this build, each round.
stats() { sort -n | awk '{v[NR] = $1} END {printf "%s / %s / %s", v[1], v[int((NR + 1) / 2)], v[NR]}'; }
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
: >"$dir/base" && : >"$dir/this"
for r in $(seq 1 "$rounds"); do
  run "round $r baseline" "$baseline"
  echo "$last_s $last_rss" >>"$dir/base"
  run "round $r this build" "$build/cmd/cronwarden"
  echo "$last_s $last_rss" >>"$dir/this"
done
for f in base this; do
  printf '%-10s restart in sync: %s s, peak RSS %s MiB (min / median / max of %s)\n' \
    "$([ $f = base ] && echo baseline || echo this)" "$(cut -d' ' -f1 "$dir/$f" | stats)" \
    "$(cut -d' ' -f2 "$dir/$f" | stats)" "$rounds"
done
awk -v a="$(cut -d' ' -f2 "$dir/this" | median)" -v b="$(cut -d' ' -f2 "$dir/base" | median)" \
  'BEGIN {printf "peak RSS, this build / baseline (medians): %.2f\n", a / b}'
