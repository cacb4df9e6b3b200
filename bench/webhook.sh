#!/usr/bin/env bash
# Webhook throughput and latency over TLS keep-alive on loopback, with wrk (Debian package wrk)
# posting realistic AdmissionReviews (RecurringJob, Volume and Schedule creates, bench/webhook/).
#
# Three servers, measured the same way and interleaved round by round (the order rotating) so that
# background load hits all of them:
#   decision  - `cronwarden webhook` (decode, policy, encode, one info log line per request)
#   peer      - the Go webhook a user would run instead (net/http, encoding/json, robfig/cron; the
#               same decisions), built from ../shared/peers/gowebhook with Debian's Go; skipped
#               when that directory is absent (CW_BENCH_PEER_DIR names another)
#   ceiling   - cronwarden's transport answering a constant body (bench/webhook_ceiling.c)
# Per round and server: requests/s and the server's own CPU per request (user + system from
# /proc, steadier than req/s when wrk shares the cores). Printed: min / median / max over the
# rounds of each, of decision/peer and decision/ceiling (req/s) and of peer/decision CPU per
# request; latency p50/p99/p99.9 at peak (the best round) and at half of the decision path's peak
# (open loop, bench/webhook_paced.c); peak RSS (VmHWM). Targets (issue 16): >= 3x the peer,
# >= 0.8x the ceiling, p99 < 1 ms at half load, RSS < 20 MiB.
#
#   bench/webhook.sh [BUILD_DIR]     (default: build/, built if needed)
#   env: CW_BENCH_SECONDS (8), CW_BENCH_ROUNDS (3), CW_BENCH_CONNECTIONS (16),
#        CW_BENCH_WRK_THREADS (1), CW_BENCH_SERVER_THREADS (0 = one per core),
#        CW_BENCH_PEER_DIR (../shared/peers/gowebhook next to the repository)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../scripts/lib.sh
. "$root/scripts/lib.sh"
build=${1:-$root/build}
secs=${CW_BENCH_SECONDS:-8}
rounds=${CW_BENCH_ROUNDS:-3}
conns=${CW_BENCH_CONNECTIONS:-16}
wthreads=${CW_BENCH_WRK_THREADS:-1}
sthreads=${CW_BENCH_SERVER_THREADS:-0}
peer_dir=${CW_BENCH_PEER_DIR:-$root/../shared/peers/gowebhook}

command -v wrk >/dev/null || cw_ensure_pkgs wrk
command -v wrk >/dev/null || { echo "wrk is missing (Debian package wrk)" >&2; exit 1; }
[ -x "$build/cmd/cronwarden" ] && [ -x "$build/bench/cw_bench_webhook_ceiling" ] &&
  [ -x "$build/bench/cw_bench_webhook_paced" ] || cw_build "$build"
bin=$build/cmd/cronwarden
ceiling_bin=$build/bench/cw_bench_webhook_ceiling
paced_bin=$build/bench/cw_bench_webhook_paced

tmp=$(mktemp -d /tmp/cw-bench-webhook.XXXXXX)
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=bench \
  -addext subjectAltName=IP:127.0.0.1 -keyout "$tmp/key.pem" -out "$tmp/cert.pem" 2>/dev/null

# A loopback port below the ephemeral range that nobody listens on.
free_port() {
  local p i
  for i in $(seq 200); do
    p=$(( 20000 + RANDOM % 12000 ))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return 0; }
  done
  echo "no free port" >&2; return 1
}

wait_healthy() {
  local i
  for i in $(seq 100); do
    curl -sfk "https://127.0.0.1:$1/healthz" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "server on port $1 did not come up" >&2; return 1
}

# The decision path logs one info line per request, as in production (to /dev/null here).
dport=$(free_port)
"$bin" webhook --listen "127.0.0.1:$dport" --threads "$sthreads" --tls-cert-file "$tmp/cert.pem" \
  --tls-private-key-file "$tmp/key.pem" 2>/dev/null &
dpid=$!; pids+=("$dpid")

# run_wrk PORT SECONDS CONNECTIONS -> the RESULT line's fields
run_wrk() {
  wrk -t"$wthreads" -c"$3" -d"$2"s --timeout 5s -s "$root/bench/webhook.lua" \
    "https://127.0.0.1:$1" -- "$root/bench/webhook" 2>&1 | sed -n 's/^RESULT //p'
}
field() { sed -n "s/.*\b$1=\([0-9.]*\).*/\1/p" <<<"$2"; }
hwm_kib() { awk '/^VmHWM/ {print $2}' "/proc/$1/status"; }

stop() { # stop PID: SIGTERM, expect exit 0 (graceful drain)
  kill -TERM "$1"; local rc=0; wait "$1" || rc=$?
  [ "$rc" = 0 ] || { echo "server $1 exited $rc after SIGTERM" >&2; exit 1; }
}

wait_healthy "$dport"
# The ceiling answers what the decision path answers for the RecurringJob review.
curl -sk -H 'Content-Type: application/json' --data-binary @"$root/bench/webhook/recurringjob.json" \
  "https://127.0.0.1:$dport/mutate" >"$tmp/answer.json"
grep -q '"allowed":true' "$tmp/answer.json" || { echo "unexpected answer: $(cat "$tmp/answer.json")" >&2; exit 1; }
cport=$(free_port)
"$ceiling_bin" "127.0.0.1:$cport" "$tmp/cert.pem" "$tmp/key.pem" "$sthreads" "$tmp/answer.json" \
  2>"$tmp/ceiling.log" &
cpid=$!; pids+=("$cpid")
wait_healthy "$cport"

names=(decision ceiling); ports=("$dport" "$cport"); spids=("$dpid" "$cpid")
if [ -f "$peer_dir/main.go" ]; then
  command -v go >/dev/null && [ -d /usr/share/gocode/src/github.com/robfig/cron ] ||
    cw_ensure_pkgs golang-go golang-github-robfig-cron-dev
  (cd "$peer_dir" && PATH=/usr/lib/go/bin:$PATH GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE="$tmp/gocache" \
    go build -o "$tmp/gowebhook" .)
  pport=$(free_port)
  "$tmp/gowebhook" "127.0.0.1:$pport" "$tmp/cert.pem" "$tmp/key.pem" 2>/dev/null &
  ppid=$!; pids+=("$ppid")
  for i in $(seq 100); do
    curl -sk -o /dev/null --data-binary @"$root/bench/webhook/recurringjob.json" \
      "https://127.0.0.1:$pport/mutate" && break
    sleep 0.1
  done
  post() { curl -sk -H 'Content-Type: application/json' --data-binary @"$root/bench/webhook/$2.json" \
    "https://127.0.0.1:$1/mutate"; }
  # Same decisions: the three reviews get the same patches and warnings from both.
  for f in recurringjob volume schedule; do
    a=$(post "$dport" "$f" | jq -cS .response) || a="(not JSON)"
    b=$(post "$pport" "$f" | jq -cS .response) || b="(not JSON)"
    [ "$a" = "$b" ] || cw_log "note: the peer answers $f differently: $b (cronwarden: $a)"
  done
  names+=(peer); ports+=("$pport"); spids+=("$ppid")
else
  cw_log "no Go peer at $peer_dir: measuring cronwarden and the ceiling only"
fi
n=${#names[@]}

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# measure I -> "rps=… p50_us=… … cpu_us=…" for server I over one wrk run
measure() {
  local t0 t1 r req
  t0=$(cpu_ticks "${spids[$1]}")
  r=$(run_wrk "${ports[$1]}" "$secs" "$conns")
  t1=$(cpu_ticks "${spids[$1]}")
  req=$(field requests "$r")
  echo "$r cpu_us=$(awk -v t=$((t1 - t0)) -v n="$req" -v hz="$(getconf CLK_TCK)" \
    'BEGIN {printf "%.1f", n ? t * 1e6 / hz / n : 0}')"
}
stats() { # numbers on stdin -> "min / median / max"
  sort -g | awk '{v[NR] = $1} END {printf "%s / %s / %s", v[1], v[int((NR + 1) / 2)], v[NR]}'
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
cw_log "warm-up"
for i in $(seq 0 $((n - 1))); do run_wrk "${ports[$i]}" 2 "$conns" >/dev/null; done

declare -A res best
for r in $(seq "$rounds"); do
  line="round $r:"
  for k in $(seq 0 $((n - 1))); do
    i=$(( (k + r) % n ))
    res[$r,$i]=$(measure "$i")
    line+=" ${names[$i]} $(field rps "${res[$r,$i]}") req/s ($(field cpu_us "${res[$r,$i]}") µs CPU/req)"
    if [ -z "${best[$i]:-}" ] || [ "$(field rps "${res[$r,$i]}")" -gt "$(field rps "${best[$i]}")" ]; then
      best[$i]=${res[$r,$i]}
    fi
  done
  cw_log "$line"
done

# Half of the decision path's peak, offered open loop (bench/webhook_paced.c): requests due at even
# intervals, latency from when each was due, so a request waiting for a free connection counts.
half=$(( $(field rps "${best[0]}") / 2 ))
half_run() { # PORT -> RESULT fields at $half req/s
  "$paced_bin" "$1" "$half" "$secs" "$conns" "$root/bench/webhook" | sed -n 's/^RESULT //p'
}
scrape() { curl -sk "https://127.0.0.1:$1/metrics" | grep '^cronwarden_webhook_request_duration_seconds_bucket{route="mutate"'; }
# Server-side latency (request headers in -> answer queued) from the decision server's own
# histogram: the upper bound of the bucket holding the quantile, over the half-load run only.
bucket_quantile() { # BEFORE AFTER Q
  awk -v q="$3" 'NR == FNR { split($1, a, "le=\""); before[a[2]] = $2; next }
    { split($1, a, "le=\""); le = a[2]; sub(/".*/, "", le); n[++k] = le; c[k] = $2 - before[a[2]] }
    END { total = c[k]; for (i = 1; i <= k; i++) if (c[i] >= q * total) { print n[i]; exit } }' "$1" "$2"
}
scrape "$dport" >"$tmp/m0"
declare -A halfres rss
for i in $(seq 0 $((n - 1))); do
  halfres[$i]=$(half_run "${ports[$i]}")
  [ "$i" = 0 ] && scrape "$dport" >"$tmp/m1"
done
for i in $(seq 0 $((n - 1))); do rss[$i]=$(hwm_kib "${spids[$i]}"); done
stop "$dpid"; stop "$cpid"
[ -z "${ppid:-}" ] || kill "$ppid" 2>/dev/null || true
pids=()
errors=0
for i in $(seq 0 $((n - 1))); do
  errors=$(( errors + $(field errors "${halfres[$i]}") ))
  for r in $(seq "$rounds"); do errors=$(( errors + $(field errors "${res[$r,$i]}") )); done
done

us() { awk -v v="$1" 'BEGIN {printf "%.2f", v / 1000}'; }  # µs -> ms
printf '\nwebhook benchmark (latencies in ms): %s cores, %s server threads (0 = per core), wrk -t%s -c%s, %ss x %s rounds, TLS keep-alive on loopback\n' \
  "$(nproc)" "$sthreads" "$wthreads" "$conns" "$secs" "$rounds"
printf '%-20s | %28s | %34s | %7s\n' "" "peak load (best round)" "half of the decision peak" ""
printf '%-20s | %7s %6s %6s %6s | %7s %8s %8s %8s | %7s\n' "" "req/s" "p50" "p99" "p99.9" \
  "req/s" "p50" "p99" "p99.9" "RSS"
row() {
  printf '%-20s | %7s %6s %6s %6s | %7s %8s %8s %8s | %5sMi\n' "$1" "$(field rps "$2")" \
    "$(us "$(field p50_us "$2")")" "$(us "$(field p99_us "$2")")" "$(us "$(field p999_us "$2")")" \
    "$(field rps "$3")" "$(us "$(field p50_us "$3")")" "$(us "$(field p99_us "$3")")" \
    "$(us "$(field p999_us "$3")")" "$(awk -v k="$4" 'BEGIN {printf "%.1f", k / 1024}')"
}
label=("decision (/mutate)" "ceiling (constant)" "Go peer (/mutate)")
for i in $(seq 0 $((n - 1))); do row "${label[$i]}" "${best[$i]}" "${halfres[$i]}" "${rss[$i]}"; done

printf '\nover %s alternating rounds (min / median / max):\n' "$rounds"
per_round() { # FIELD I -> one value per round
  local r; for r in $(seq "$rounds"); do field "$1" "${res[$r,$2]}"; echo; done | sed '/^$/d'
}
ratio_rounds() { # FIELD A B -> A/B per round
  local r a b
  for r in $(seq "$rounds"); do
    a=$(field "$1" "${res[$r,$2]}"); b=$(field "$1" "${res[$r,$3]}")
    awk -v a="$a" -v b="$b" 'BEGIN {printf "%.2f\n", a / b}'
  done
}
for i in $(seq 0 $((n - 1))); do
  printf '  %-10s req/s %s   server CPU per request %s µs\n' "${names[$i]}" \
    "$(per_round rps "$i" | stats)" "$(per_round cpu_us "$i" | stats)"
done
printf '  decision / ceiling, req/s:           %s   (target >= 0.8)\n' "$(ratio_rounds rps 0 1 | stats)"
printf '  ceiling / decision, CPU per request: %s   (1.0: the decision costs nothing)\n' \
  "$(ratio_rounds cpu_us 1 0 | stats)"
if [ "$n" = 3 ]; then
  printf '  decision / Go peer, req/s:           %s   (target >= 3)\n' "$(ratio_rounds rps 0 2 | stats)"
  printf '  Go peer / decision, CPU per request: %s\n' "$(ratio_rounds cpu_us 2 0 | stats)"
fi
printf 'p99 at half load:   %s ms  (target < 1 ms; open loop, from when each request was due; the client shares the cores)\n' "$(us "$(field p99_us "${halfres[0]}")")"
printf '  server side:      p50 <= %s s, p99 <= %s s (histogram bucket bounds, headers in -> answer queued)\n' \
  "$(bucket_quantile "$tmp/m0" "$tmp/m1" 0.5)" "$(bucket_quantile "$tmp/m0" "$tmp/m1" 0.99)"
printf 'peak RSS:           %s MiB (target < 20 MiB)\n' "$(awk -v k="${rss[0]}" 'BEGIN {printf "%.1f", k / 1024}')"
printf 'errors:             %s\n' "$errors"
printf 'load average:       %s before, %s after (other work on this machine skews latency)\n' \
  "$load0" "$(cut -d' ' -f1-3 /proc/loadavg)"
[ "$errors" = 0 ]
