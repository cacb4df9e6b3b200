#!/usr/bin/env bash
# Webhook soak (hardening): MINUTES (default 10) at 80 % of the measured peak throughput with 500
# idle slow TLS connections trickling bytes at the same time; then SIGTERM under full load.
# Passes when: no error answers and no failed requests, RSS flat (growth after the first minute
# under 2 MiB), p99 stable (every minute within 3x the median minute), and the server exits 0 on
# SIGTERM with no request lost (wrk: no read/status/timeout errors; refused connects after the
# listener closed are expected and counted separately).
#   tests/soak/webhook_soak.sh [BUILD_DIR]      env: CW_SOAK_MINUTES, CW_SOAK_SLOW (500)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/scripts/lib.sh"
build=${1:-$root/build}
minutes=${CW_SOAK_MINUTES:-10}
slow=${CW_SOAK_SLOW:-500}
command -v wrk >/dev/null || cw_ensure_pkgs wrk
[ -x "$build/cmd/cronwarden" ] || cw_build "$build"
tmp=$(mktemp -d /tmp/cw-soak.XXXXXX)
pids=()
cleanup() { local p; for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
log() { printf '[soak] %s\n' "$*" >&2; }

mkdir -p "$tmp/go"
# Debian's Go (golang-go, 1.19) in GOPATH mode; the Go in /usr/local/go, first on PATH, is for
# the module-built control plane (tests/k8s) only.
PATH=/usr/lib/go/bin:$PATH GOCACHE="$tmp/go" GO111MODULE=off CGO_ENABLED=0 HOME="$tmp" go build -o "$tmp/slowclients" "$root/tests/soak/slowclients/main.go"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=soak \
  -addext subjectAltName=IP:127.0.0.1 -keyout "$tmp/key.pem" -out "$tmp/cert.pem" 2>/dev/null
port=$(( 20000 + RANDOM % 10000 ))
"$build/cmd/cronwarden" webhook --listen "127.0.0.1:$port" --tls-cert-file "$tmp/cert.pem" \
  --tls-private-key-file "$tmp/key.pem" --max-connections 2000 --log-level warn 2>"$tmp/webhook.log" &
wpid=$!; pids+=("$wpid")
for i in $(seq 100); do curl -sfk "https://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done

run_wrk() { # SECONDS CONNECTIONS [DELAY_MS] -> RESULT fields
  CW_WRK_DELAY_MS=${3:-0} wrk -t1 -c"$2" -d"$1"s --timeout 5s -s "$root/bench/webhook.lua" \
    "https://127.0.0.1:$port" -- "$root/bench/webhook" 2>&1 | sed -n 's/^RESULT //p'
}
field() { sed -n "s/.*\b$1=\([0-9.]*\).*/\1/p" <<<"$2"; }
rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$wpid/status"; }

run_wrk 3 16 >/dev/null
peak=$(field rps "$(run_wrk 8 16)")
target=$(( peak * 8 / 10 ))
log "peak $peak req/s; soaking at about $target req/s for $minutes min with $slow slow connections"
"$tmp/slowclients" -addr "127.0.0.1:$port" -n "$slow" -interval 5s > "$tmp/slow.log" &
spid=$!; pids+=("$spid")
sleep 5
# Pace connections to the target rate (calibrated once).
delay=2; n=$(( target * (delay + 1) / 1000 )); [ "$n" -ge 1 ] || n=1
for _ in 1 2; do # the rate is not linear in connections: a second probe corrects the first
  probe=$(run_wrk 5 "$n" "$delay"); rate=$(field rps "$probe")
  [ "${rate:-0}" -gt 0 ] && n=$(( n * target / rate )); [ "$n" -ge 1 ] || n=1
done

( while kill -0 "$wpid" 2>/dev/null; do echo "$(date +%s) $(rss_kib)"; sleep 10; done ) > "$tmp/rss.log" &
pids+=("$!")
printf '%6s %8s %8s %8s %6s %9s\n' minute req/s p50_ms p99_ms errors rss_MiB
errors=0; : > "$tmp/p99"
for m in $(seq "$minutes"); do
  r=$(run_wrk 60 "$n" "$delay")
  e=$(field errors "$r"); errors=$(( errors + e ))
  field p99_us "$r" >> "$tmp/p99"
  printf '%6s %8s %8.2f %8.2f %6s %9.1f\n' "$m" "$(field rps "$r")" "$(awk -v v="$(field p50_us "$r")" 'BEGIN{print v/1000}')" \
    "$(awk -v v="$(field p99_us "$r")" 'BEGIN{print v/1000}')" "$e" "$(awk -v k="$(rss_kib)" 'BEGIN{print k/1024}')"
  [ "$m" = 1 ] && rss1=$(rss_kib)
done
rss_end=$(rss_kib)
grep -q . "$tmp/slow.log" || true
kill -TERM "$spid" 2>/dev/null; wait "$spid" 2>/dev/null || true
log "$(tail -1 "$tmp/slow.log")"
median=$(sort -n "$tmp/p99" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
worst=$(sort -n "$tmp/p99" | tail -1)
growth=$(( (rss_end - rss1) ))

log "SIGTERM under full load"
wrk -t1 -c16 -d10s --timeout 5s -s "$root/bench/webhook.lua" "https://127.0.0.1:$port" -- "$root/bench/webhook" \
  > "$tmp/term.txt" 2>&1 &
wrkpid=$!
sleep 4
kill -TERM "$wpid"
rc=0; wait "$wpid" || rc=$?
wait "$wrkpid" || true
pids=()
term=$(sed -n 's/^RESULT //p' "$tmp/term.txt")
sock=$(grep -o 'Socket errors: .*' "$tmp/term.txt" || echo "Socket errors: none")
non2xx=$(grep -o 'Non-2xx or 3xx responses: [0-9]*' "$tmp/term.txt" | grep -o '[0-9]*$' || echo 0)
read_err=$(sed -n 's/.*read \([0-9]*\).*/\1/p' <<<"$sock"); read_err=${read_err:-0}
timeouts=$(sed -n 's/.*timeout \([0-9]*\).*/\1/p' <<<"$sock"); timeouts=${timeouts:-0}

echo
echo "soak: $minutes min at ~$target req/s (80 % of $peak) + $slow slow connections"
echo "  errors: $errors; p99 median $(awk -v v="$median" 'BEGIN{print v/1000}') ms, worst minute $(awk -v v="$worst" 'BEGIN{print v/1000}') ms"
echo "  RSS after minute 1: $(awk -v k="$rss1" 'BEGIN{print k/1024}') MiB, at the end: $(awk -v k="$rss_end" 'BEGIN{print k/1024}') MiB (growth $growth KiB)"
echo "  SIGTERM under load: exit $rc; requests $(field requests "$term"); non-2xx $non2xx; $sock"
ok=1
[ "$errors" = 0 ] || { echo "FAIL: $errors errors during the soak"; ok=0; }
[ "$growth" -lt 2048 ] || { echo "FAIL: RSS grew by $growth KiB"; ok=0; }
[ "$worst" -le $(( median * 3 )) ] || { echo "FAIL: p99 not stable (worst $worst us, median $median us)"; ok=0; }
[ "$rc" = 0 ] || { echo "FAIL: exit $rc after SIGTERM"; ok=0; }
[ "$non2xx" = 0 ] && [ "$read_err" = 0 ] && [ "$timeouts" = 0 ] || { echo "FAIL: requests failed during the drain"; ok=0; }
[ "$ok" = 1 ] && echo "PASS"
