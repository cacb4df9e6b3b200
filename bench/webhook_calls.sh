#!/usr/bin/env bash
# What the webhooks' matchConditions save: ordinary Volume updates on a real kube-apiserver (the
# current Kubernetes, started here and stopped at the end) with `cronwarden webhook` running on
# this machine, registered by URL with the shipped configurations: "before" is
# deploy/kube-1.29/base's (no matchConditions: every CREATE and UPDATE is sent), "after" is
# deploy/base's. The two alternate round by round (the order rotating), so background load hits
# both. Per round: UPDATES merge patches of an annotation on Volumes that carry their job label
# and no legacy jobs (what Longhorn's manager and users do all day), CONCURRENCY at a time through
# one curl (HTTP/2 to the apiserver); the webhook's calls counted from its /metrics
# (cronwarden_webhook_requests_total, both routes), latency per update from curl, throughput.
# Printed: per round, then min / median / max of the rounds: calls per 1,000 updates, p50 and p99
# latency, updates/s. The load average before the run is printed first.
#
#   bench/webhook_calls.sh [UPDATES]        (default 1000)
#   env: CW_BENCH_ROUNDS (3), CW_BENCH_CONCURRENCY (4), CW_BENCH_VOLUMES (100),
#        CW_BUILD_DIR (build/)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${CW_BUILD_DIR:-$root/build}
updates=${1:-1000}
rounds=${CW_BENCH_ROUNDS:-3}
conc=${CW_BENCH_CONCURRENCY:-4}
nvol=${CW_BENCH_VOLUMES:-100}
bin=$build/cmd/cronwarden
ns=longhorn-system
[ -x "$bin" ] || { echo "no $bin: build the cronwarden target first" >&2; exit 1; }
command -v jq >/dev/null && command -v curl >/dev/null || { echo "needs jq and curl" >&2; exit 1; }

echo "load average before the run: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
dir=$(mktemp -d /tmp/cw-bench-webhook-calls.XXXXXX)
wpid=""
cleanup() {
  if [ -n "$wpid" ]; then kill "$wpid" 2>/dev/null || true; wait "$wpid" 2>/dev/null || true; fi
  "$root/tests/e2e/cluster.sh" down "$dir" >/dev/null 2>&1
  rm -rf "$dir"
}
trap cleanup EXIT
"$root/tests/e2e/cluster.sh" up "$dir" current >/dev/null 2>"$dir/up.log" || { cat "$dir/up.log" >&2; exit 1; }
. "$dir/env"
kc() { "$CW_KUBECTL" --cache-dir "$dir/kube-cache" "$@"; }
echo "Kubernetes $CW_E2E_K8S_VERSION at $CW_E2E_API_URL; $(
  "$bin" version 2>/dev/null | head -1)"
kc apply -k "$root/crds" >/dev/null
kc wait --for=condition=Established crd/volumes.longhorn.io crd/recurringjobs.longhorn.io crd/schedules.velero.io >/dev/null
kc create namespace "$ns" >/dev/null

# The volumes, labelled as the webhook (or Longhorn) leaves them, stored before any webhook.
jq -nc --arg ns "$ns" --argjson n "$nvol" '{apiVersion: "v1", kind: "List", items: [range($n) | {
    apiVersion: "longhorn.io/v1beta2", kind: "Volume",
    metadata: {name: "pvc-\(. | tostring | ("0000" + .)[-4:])", namespace: $ns,
      labels: {"recurring-job-group.longhorn.io/default": "enabled"}},
    spec: {size: "10737418240", numberOfReplicas: 3}}]}' | kc create -f - >/dev/null

# The webhook: a serving certificate signed by the cluster's CA, as the tests' e2e_issue_cert.
openssl req -newkey rsa:2048 -nodes -sha256 -keyout "$dir/wh.key" -out "$dir/wh.csr" -subj /CN=webhook 2>/dev/null
printf '%s\n' basicConstraints=CA:FALSE keyUsage=critical,digitalSignature,keyEncipherment \
  extendedKeyUsage=serverAuth subjectAltName=IP:127.0.0.1 > "$dir/wh.ext"
openssl x509 -req -in "$dir/wh.csr" -CA "$CW_E2E_CA" -CAkey "$CW_E2E_CA_KEY" -CAcreateserial -days 2 \
  -sha256 -extfile "$dir/wh.ext" -out "$dir/wh.crt" 2>/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin" webhook --listen "127.0.0.1:$port" --tls-cert-file "$dir/wh.crt" --tls-private-key-file "$dir/wh.key" \
  2>"$dir/webhook.log" &
wpid=$!
for i in $(seq 100); do
  curl -fsS --cacert "$CW_E2E_CA" "https://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
  sleep 0.1
done

# The two registrations: the shipped configurations with their clientConfig pointing here.
ca=$(base64 -w0 < "$CW_E2E_CA")
for set in before:kube-1.29/base after:base; do
  kc kustomize "$root/deploy/${set#*:}" | kc create --dry-run=client -o json -f - |
    jq -c --arg url "https://127.0.0.1:$port" --arg ca "$ca" '(.items // [.])[] | select(.kind | test("WebhookConfiguration$"))
      | del(.metadata.annotations) | .webhooks[] |= (.clientConfig = {url: ($url + .clientConfig.service.path), caBundle: $ca})' \
    > "$dir/${set%%:*}.json"
done
jq -e -s '[.[].webhooks[] | has("matchConditions")] | any | not' "$dir/before.json" >/dev/null
jq -e -s '[.[].webhooks[] | has("matchConditions")] | all' "$dir/after.json" >/dev/null

calls() { # the webhook's admission calls so far (both routes, every kind)
  curl -fsS --cacert "$CW_E2E_CA" "https://127.0.0.1:$port/metrics" |
    awk '$1 ~ /^cronwarden_webhook_requests_total\{/ {s += $2} END {printf "%d", s}'
}
register() { # register before|after, then wait until the apiserver goes by it
  kc replace -f "$dir/$1.json" >/dev/null 2>&1 || kc create -f "$dir/$1.json" >/dev/null
  local want=1 c0 i
  [ "$1" = after ] && want=0
  # A probe update of a labelled volume: sent (2 calls) before, skipped after.
  for i in $(seq 100); do
    c0=$(calls)
    kc annotate --overwrite volumes.longhorn.io -n "$ns" pvc-0000 bench/probe="$RANDOM$i" >/dev/null
    if [ "$want" = 1 ] && [ "$(calls)" -gt "$c0" ]; then return 0; fi
    if [ "$want" = 0 ] && [ "$(calls)" = "$c0" ]; then return 0; fi
    sleep 0.2
  done
  echo "the apiserver did not take the '$1' registration" >&2; exit 1
}
# run ROUND SET: UPDATES merge patches, CONCURRENCY at a time; prints one line and keeps the figures.
token=$CW_E2E_TOKEN
run() {
  local round=$1 set=$2 cfg=$dir/curl.cfg c0 c1 t0 t1 i v
  register "$set"
  : > "$cfg"
  for ((i = 0; i < updates; i++)); do
    v=$(printf 'pvc-%04d' $((i % nvol)))
    [ "$i" = 0 ] || echo next >> "$cfg"
    cat >> "$cfg" <<EOF
url = "$CW_E2E_API_URL/apis/longhorn.io/v1beta2/namespaces/$ns/volumes/$v"
request = "PATCH"
cacert = "$CW_E2E_CA"
header = "Authorization: Bearer $token"
header = "Content-Type: application/merge-patch+json"
data = "{\"metadata\":{\"annotations\":{\"example.com/touched\":\"$set-$round-$i\"}}}"
output = "/dev/null"
write-out = "%{http_code} %{time_total} %{errormsg}\n"
EOF
  done
  c0=$(calls)
  t0=$(date +%s%N)
  curl -sS --no-progress-meter --parallel --parallel-max "$conc" -K "$cfg" > "$dir/times" 2>"$dir/curl.err" || true
  t1=$(date +%s%N)
  sleep 1 # the apiserver's last answers are in; so are the webhook's counters
  c1=$(calls)
  local bad
  bad=$(awk '$1 != 200' "$dir/times" | wc -l)
  [ "$bad" = 0 ] && [ "$(wc -l < "$dir/times")" = "$updates" ] ||
    { echo "round $round $set: $bad of $(wc -l < "$dir/times") updates failed: $(awk '$1 != 200' "$dir/times" | head -3) $(head -3 "$dir/curl.err")" >&2; exit 1; }
  sort -n -k2 "$dir/times" | awk -v n="$updates" -v calls=$((c1 - c0)) -v ns=$((t1 - t0)) -v set="$set" -v r="$round" '
    { t[NR] = $2 * 1000 }
    END {
      p50 = t[int(n * 0.50 + 0.5)]; p99 = t[int(n * 0.99 + 0.5)]; per = calls * 1000 / n; ups = n / (ns / 1e9)
      printf "round %d %-6s  %6d webhook calls (%6.0f per 1,000 updates)  p50 %6.2f ms  p99 %6.2f ms  %7.1f updates/s\n", r, set, calls, per, p50, p99, ups
      printf "%s %.1f %.3f %.3f %.1f\n", set, per, p50, p99, ups > "/dev/stderr"
    }' 2>>"$dir/figures"
}

echo "$updates merge patches of an annotation per round on $nvol labelled Volumes, $conc at a time, $rounds rounds"
for ((r = 1; r <= rounds; r++)); do
  if [ $((r % 2)) = 1 ]; then order="before after"; else order="after before"; fi
  for set in $order; do run "$r" "$set"; done
done
echo
echo "over $rounds alternating rounds (min / median / max):"
for set in before after; do
  awk -v s="$set" '$1 == s' "$dir/figures" > "$dir/f-$set"
  col() { cut -d' ' -f"$1" "$dir/f-$set" | sort -n | awk '{a[NR] = $1} END {printf "%s / %s / %s", a[1], a[int((NR + 1) / 2)], a[NR]}'; }
  printf '  %-6s calls per 1,000 updates %s   p50 %s ms   p99 %s ms   updates/s %s\n' "$set" "$(col 2)" "$(col 3)" "$(col 4)" "$(col 5)"
done
echo "webhook peak RSS: $(awk '/VmHWM/ {printf "%.1f MiB", $2 / 1024}' "/proc/$wpid/status")"
