#!/usr/bin/env bash
# The nonadminbackup reconciler's memory per cached NonAdminBackup (issue 33), on a real
# kube-apiserver (started here, stopped at the end), for two binaries in the same run: BEFORE
# (e.g. main's) and the build's. For each shape of object (spec.backupSpec of SMALL bytes; of the
# size limit, 16384 bytes; of the attack's 1.36 MB, both in the attack's shape: a hook command of
# empty strings) and each binary:
#   1. a controller starts on an empty namespace; COUNT NonAdminBackups are created that stay
#      BackingOff (they name another namespace: the controller keeps their spec, the worst case);
#      printed: time until all are BackingOff, objects/s, reconcile p50/p99 (histogram bucket
#      bounds), RSS before and after, RSS per object, peak RSS (VmHWM);
#   2. a second controller starts with them in place (a LIST, not a watch, fills its cache): RSS
#      per object and peak RSS.
#   CW_BENCH_BEFORE=/path/to/cronwarden-main bench/controller_nonadmin_memory.sh [COUNT [SMALL]]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${CW_BUILD_DIR:-$root/build}
count=${1:-100} small=${2:-300}
before=${CW_BENCH_BEFORE:-}
dir=$(mktemp -d /tmp/cw-bench-nonadmin.XXXXXX)
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
for f in "$root"/tests/fixtures/velero-1.18.1/*.yaml "$root"/tests/fixtures/oadp-non-admin-4e22229/*.yaml; do
  kc apply --server-side -f "$f" >/dev/null
done
kc wait --for=condition=Established --all crd >/dev/null
for ns in openshift-adp shop bank; do kc create namespace "$ns" >/dev/null; done

metrics() { curl -fsS "http://127.0.0.1:$port/metrics"; }
sum() { awk -v m="$1" -v f="${2:-}" 'index($1, m) == 1 && substr($1, length(m) + 1, 1) ~ /[{ ]|^$/ && index($1, f) {s += $2} END {printf "%d", s}' "$dir/m"; }
pct() {
  awk -v p="$1" '
    index($1, "cronwarden_controller_reconcile_duration_seconds_bucket") == 1 && index($1, "controller=\"nonadminbackup\"") {
      match($1, /le="[^"]*"/); le = substr($1, RSTART + 4, RLENGTH - 5); n++; les[n] = le; cum[n] = $2 }
    END { total = cum[n]; for (i = 1; i <= n; i++) if (cum[i] >= p * total) { printf "%s", (les[i] == "+Inf" ? "inf" : les[i] * 1000); exit } }' "$dir/m"
}
kib() { awk -v k="$2" '$1 == k ":" {print $2}' "/proc/$1/status"; }
backing_off() {
  kc get nonadminbackups.oadp.openshift.io -n shop -o json | jq '[.items[] | select(.status.phase == "BackingOff")] | length'
}
start() { # BINARY LOG
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  "$1" controller --controllers nonadminbackup --kubeconfig "$dir/kubeconfig" --oadp-namespace openshift-adp \
    --leader-elect=false --metrics-listen "127.0.0.1:$port" --log-level warn 2>"$2" &
  pid=$!
  until metrics >"$dir/m" 2>/dev/null && [ "$(sum cronwarden_controller_informer_synced)" -ge 2 ]; do sleep 0.1; done
  sleep 1
}
stop() { kill -TERM "$pid"; wait "$pid" || true; pid=""; }

run() { # LABEL BINARY BYTES COUNT
  local label=$1 bin=$2 bytes=$3 n=$4 t0 t1 rss0 rss1 hwm elapsed
  python3 "$root/tests/e2e/fixtures/nonadmin_sized.py" shop nab "$n" "$bytes" --refused >"$dir/list.json"
  start "$bin" "$dir/ctl.log"
  rss0=$(kib "$pid" VmRSS)
  t0=$(date +%s%N)
  kc create -f "$dir/list.json" >/dev/null
  until [ "$(backing_off)" -ge "$n" ]; do sleep 0.2; done
  t1=$(date +%s%N)
  sleep 1
  metrics >"$dir/m"
  rss1=$(kib "$pid" VmRSS) hwm=$(kib "$pid" VmHWM)
  elapsed=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", (b - a) / 1e9}')
  printf '%-7s %-16s %4d x %7d B  watch: %6s s %6.1f obj/s  p50 %5s ms  p99 %5s ms  RSS %6.1f -> %6.1f MiB  %8.1f KiB/obj  peak %6.1f MiB\n' \
    "$label" "$5" "$n" "$bytes" "$elapsed" "$(awk -v n="$n" -v e="$elapsed" 'BEGIN {print n / e}')" "$(pct 0.5)" "$(pct 0.99)" \
    "$(awk -v k="$rss0" 'BEGIN {print k / 1024}')" "$(awk -v k="$rss1" 'BEGIN {print k / 1024}')" \
    "$(awk -v a="$rss0" -v b="$rss1" -v n="$n" 'BEGIN {print (b - a) / n}')" "$(awk -v k="$hwm" 'BEGIN {print k / 1024}')"
  stop
  # A second controller lists them: its cache filled from LIST pages.
  start "$bin" "$dir/ctl2.log"
  rss1=$(kib "$pid" VmRSS) hwm=$(kib "$pid" VmHWM)
  printf '%-7s %-16s %4d x %7d B  list:  RSS %6.1f MiB  peak %6.1f MiB\n' "$label" "$5" "$n" "$bytes" \
    "$(awk -v k="$rss1" 'BEGIN {print k / 1024}')" "$(awk -v k="$hwm" 'BEGIN {print k / 1024}')"
  stop
  kc delete nonadminbackups.oadp.openshift.io -n shop --all --wait=true >/dev/null
}

echo "load: $(uptime)"
for shape in "small $small $count" "limit 16384 $count" "attack 1360000 4"; do
  set -- $shape
  [ -z "$before" ] || run before "$before" "$2" "$3" "$1"
  run after "$build/cmd/cronwarden" "$2" "$3" "$1"
done
