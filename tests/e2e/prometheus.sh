# A real Prometheus server for e2e scenarios (Debian's `prometheus`, /usr/bin/prometheus): it
# scrapes the controller's /metrics and evaluates deploy/monitoring/rules.yaml, so a scenario can
# prove that an alert fires in /api/v1/alerts and resolves again. Source it after lib.sh:
#
#   . "$(dirname "$0")/../prometheus.sh"
#   prom_start "127.0.0.1:$port"              # early: it starts in the background (no wait)
#   ...                                       # the rest of the scenario
#   prom_wait_target_up                       # every target scraped, `up` 1
#   prom_wait_alert CronwardenControllerDown firing "" 30
#   prom_wait_alert CronwardenScheduleRunFailed resolved 'kind=RecurringJob,name=backup-hourly' 30
#   prom_query 'cronwarden_controller_leader'  # .data.result of an instant query, as JSON
#
# What runs: scrape and rule evaluation every second (CW_PROM_INTERVAL), one scrape job named
# cronwarden-controller with honor_labels (docs/status.md's example) whose targets prom_targets
# can change, the rules of
# deploy/monitoring/rules.yaml with every `for:` set to CW_PROM_FOR (prom_rules_fast), storage,
# config and rules under $CW_E2E_DIR/prometheus; loopback only, a free port; stopped by PID at
# the end (e2e_bg). Its log, configuration, rules and a last look at its API (targets, rules,
# alerts) are in $CW_E2E_DIR/logs/prometheus*, copied to the artifacts when a scenario fails.
# Timings on the 2-core machine: ready in about 0.1 s, but targets are first scraped about 5 s
# after the start (Prometheus hands discovered targets to the scrape loop every 5 s): start it
# early, off the critical path.
# shellcheck shell=bash

: "${CW_PROMETHEUS:=/usr/bin/prometheus}"
: "${CW_PROM_INTERVAL:=1s}"
: "${CW_PROM_FOR:=2s}"
PROM_JOB=cronwarden-controller
PROM_URL=""
PROM_ALERTS="[]"

# prom_rules_fast SRC DST [FOR]: SRC with the duration of every `for:` replaced by FOR (default
# CW_PROM_FOR), so an alert of `for: 15m` (or 1d) fires within seconds in a test; nothing else
# changes — expressions, labels and annotations are SRC's. Fails when SRC has a `for:` it cannot read. tests/unit/monitoring/
# fast_rules.sh proves the output is SRC line for line but for those durations, and that promtool
# accepts it. The shipped file is never changed: DST must be another path.
prom_rules_fast() {
  local src=$1 dst=$2 for=${3:-$CW_PROM_FOR}
  [ "$src" != "$dst" ] || { echo "prom_rules_fast: will not write over $src" >&2; return 1; }
  if awk -v d="$for" '
    /^[ \t]*for:/ {
      if ($0 !~ /^[ \t]*for:[ \t]+[0-9][0-9smhdwy]*[ \t]*$/) { bad = NR ": " $0; exit 2 }
      sub(/for:[ \t]+[0-9][0-9smhdwy]*/, "for: " d)
    }
    { print }
    END { if (bad) { print "prom_rules_fast: cannot read the duration at line " bad > "/dev/stderr"; exit 2 } }
  ' "$src" > "$dst.tmp"; then
    mv "$dst.tmp" "$dst"
  else
    rm -f "$dst.tmp"; return 1
  fi
}

# prom_start TARGET...: write the configuration (TARGETs are host:port of plain-HTTP /metrics,
# e.g. the controller's --metrics-listen) and start Prometheus on a free loopback port in the
# background; PROM_URL is its base URL. Returns at once: prom_wait_ready (which the other helpers
# call) waits for it.
prom_start() {
  [ $# -gt 0 ] || e2e_fail "prom_start: name at least one target (host:port)"
  [ -x "$CW_PROMETHEUS" ] ||
    e2e_fail "$CW_PROMETHEUS is missing: install Debian's prometheus (scripts/test does; CW_PROMETHEUS names another)"
  local dir=$CW_E2E_DIR/prometheus
  mkdir -p "$dir/data" "$CW_E2E_DIR/logs"
  prom_rules_fast "$CW_SOURCE_DIR/deploy/monitoring/rules.yaml" "$dir/rules.yaml" ||
    e2e_fail "could not shorten the for: durations of deploy/monitoring/rules.yaml"
  prom_targets "$@"
  # The job name is the one docs/status.md's plain-Prometheus example uses. No rule reads `job`
  # (CronwardenControllerDown is absent(cronwarden_controller_leader == 1), not up{job=...}), so
  # the rules hold for this job and for the one prometheus-operator gives the PodMonitor
  # (`cronwarden/cronwarden-controller`, its namespace/name) alike; prom_wait_target_up checks
  # this job's targets. honor_labels as the PodMonitor: the schedules' own `namespace` label wins.
  cat > "$dir/prometheus.yml" <<YAML
global:
  scrape_interval: $CW_PROM_INTERVAL
  scrape_timeout: $CW_PROM_INTERVAL
  evaluation_interval: $CW_PROM_INTERVAL
rule_files: [$dir/rules.yaml]
scrape_configs:
- job_name: $PROM_JOB
  honor_labels: true
  file_sd_configs: [{files: [$dir/targets.json], refresh_interval: 1s}]
YAML
  cp "$dir/prometheus.yml" "$CW_E2E_DIR/logs/prometheus.yml"
  cp "$dir/rules.yaml" "$CW_E2E_DIR/logs/prometheus-rules.yaml"
  prom__spawn
  # Runs before e2e_bg's stop (last in, first out): what Prometheus saw, for the artifacts.
  e2e_on_exit prom__snapshot
}

# prom_targets TARGET...: scrape these instead (a controller restarted on another port, e.g.
# --metrics-listen 127.0.0.1:0 and the metrics_port of its log). The job reads them from a file
# (file_sd); Prometheus scrapes the new ones within about 5 s (its discovery hands targets over
# every 5 s), the ones dropped end with staleness markers, as a pod that goes away.
prom_targets() {
  local dir=$CW_E2E_DIR/prometheus
  [ $# -gt 0 ] || e2e_fail "prom_targets: name at least one target (host:port)"
  if ! jq -n '[{targets: $ARGS.positional}]' --args "$@" > "$dir/targets.json.tmp" ||
     ! mv "$dir/targets.json.tmp" "$dir/targets.json"; then
    e2e_fail "cannot write $dir/targets.json"
  fi
  PROM_TARGETS="$*"
}

prom__spawn() {
  local port
  cwc_take_port port || e2e_fail "no free loopback port for Prometheus"
  PROM_URL=http://127.0.0.1:$port
  e2e_bg prometheus "$CW_PROMETHEUS" --config.file="$CW_E2E_DIR/prometheus/prometheus.yml" \
    --storage.tsdb.path="$CW_E2E_DIR/prometheus/data" --web.listen-address="127.0.0.1:$port" \
    --log.level=info
}

prom__snapshot() {
  local what
  [ -n "$PROM_URL" ] || return 0
  for what in targets rules alerts; do
    curl -fsS --max-time 2 "$PROM_URL/api/v1/$what" > "$CW_E2E_DIR/logs/prometheus-$what.json" 2>/dev/null || true
  done
}

# prom_wait_ready: Prometheus answers /-/ready (within CW_PROM_START_TIMEOUT, 30 s). A port taken
# meanwhile (it exits at once: "address already in use") gets another port, up to 3 times.
prom_wait_ready() {
  local secs=${CW_PROM_START_TIMEOUT:-30} deadline _
  [ -n "$PROM_URL" ] || e2e_fail "prom_start was not called"
  [ -z "${PROM_READY:-}" ] || return 0
  for _ in 1 2 3; do
    deadline=$(( $(date +%s%3N) + secs * 1000 ))
    while [ "$(date +%s%3N)" -lt "$deadline" ]; do
      if curl -fsS --max-time 2 "$PROM_URL/-/ready" >/dev/null 2>&1; then
        PROM_READY=1
        e2e_log "Prometheus ready at $PROM_URL$(prom__startup_ms)"
        return 0
      fi
      cwc_alive "$CW_E2E_DIR" prometheus || break
      sleep 0.1
    done
    if ! cwc_alive "$CW_E2E_DIR" prometheus && grep -q 'address already in use' "$CW_E2E_DIR/logs/prometheus.log"; then
      e2e_log "Prometheus: port clash on $PROM_URL; another port"
      prom__spawn
      continue
    fi
    break
  done
  cwc_tail_log "$CW_E2E_DIR/logs/prometheus.log" 30
  e2e_fail "Prometheus did not become ready at $PROM_URL within ${secs}s (its log above)"
}

# prom__startup_ms: " (ready N ms after its start)", from the timestamps of its log.
prom__startup_ms() {
  awk '/msg="Starting Prometheus Server"/ {s = $1} /msg="Server is ready to receive web requests."/ {r = $1}
    END { if (s && r) { gsub(/ts=/, "", s); gsub(/ts=/, "", r); print s; print r } }' \
    "$CW_E2E_DIR/logs/prometheus.log" 2>/dev/null | date -f - +%s%3N 2>/dev/null |
    awk 'NR == 1 {s = $1} NR == 2 {printf " (ready %d ms after its start)", $1 - s}'
}

# prom__api PATH [CURL ARGS...]: the `data` of a Prometheus API answer (GET), as JSON; on failure
# (status 1) what went wrong, on stdout too.
prom__api() {
  local path=$1 out
  shift
  out=$(curl -sS --max-time 5 -G "$@" "$PROM_URL$path" 2>&1) || { echo "GET $path: $out"; return 1; }
  jq -ce 'if .status == "success" then .data else error(.error) end' <<<"$out" 2>/dev/null ||
    { echo "GET $path: $(head -c 500 <<<"$out")"; return 1; }
}

# prom__show PATH FILTER: a jq view of an API answer, or what went wrong.
prom__show() {
  local d
  if d=$(prom__api "$1"); then jq -c "$2" <<<"$d"; else printf '%s' "$d"; fi
}

# prom_query EXPR: an instant query; prints .data.result (JSON; a vector is a list of
# {metric, value: [time, "value"]}). Fails on a bad expression with Prometheus's error.
prom_query() {
  prom_wait_ready
  local out
  out=$(prom__api /api/v1/query --data-urlencode "query=$1") || e2e_fail "query '$1' failed: $out"
  jq -c .result <<<"$out"
}

# prom_value EXPR: the value of a one-element instant vector (empty when it has none).
prom_value() {
  local r
  r=$(prom_query "$1")
  [ "$(jq length <<<"$r")" -le 1 ] || e2e_fail "query '$1' gave more than one series: $r"
  jq -r '.[0].value[1] // empty' <<<"$r"
}

# prom_wait_value EXPR VALUE [SECONDS]: wait until EXPR is one series of value VALUE (as
# Prometheus prints it: 1, 0.5, NaN) — default 30 s; a timeout shows the last result.
prom_wait_value() {
  local expr=$1 want=$2 secs=${3:-30} deadline r=""
  prom_wait_ready
  deadline=$(( $(date +%s%3N) + secs * 1000 ))
  while :; do
    r=$(prom__api /api/v1/query --data-urlencode "query=$expr") &&
      jq -e --arg v "$want" '.result | length == 1 and .[0].value[1] == $v' <<<"$r" >/dev/null && return 0
    [ "$(date +%s%3N)" -lt "$deadline" ] ||
      e2e_fail "timed out after ${secs}s waiting for $expr to be $want; last result: $r$(prom__why)"
    sleep 0.5
  done
}

# prom__why: the state of things when a wait times out — the targets (health, last error), the
# active alerts and the named rule's state and last error.
prom__why() {
  local rule=${1:-}
  printf '\n  targets: %s' "$(prom__show /api/v1/targets '[.activeTargets[] | {scrapeUrl, health, lastError, lastScrape}]')"
  printf '\n  active alerts: %s' "$(prom__show /api/v1/alerts '[.alerts[] | {alertname: .labels.alertname, state, labels: (.labels | del(.alertname, .severity)), activeAt}]')"
  [ -z "$rule" ] || printf '\n  rule %s: %s' "$rule" "$(prom__show /api/v1/rules "[.groups[].rules[] | select(.name == \"$rule\") | {state, health, lastError, lastEvaluation, query}]")"
  printf '\n  Prometheus log: %s/logs/prometheus.log' "$CW_E2E_DIR"
}

# prom_wait_target_up [SECONDS]: every target of the job scraped successfully (up, `health`
# "up") — default 30 s, the first scrape coming about 5 s after Prometheus starts.
prom_wait_target_up() {
  local secs=${1:-30} deadline t
  prom_wait_ready
  deadline=$(( $(date +%s%3N) + secs * 1000 ))
  while :; do
    t=$(prom__api /api/v1/targets --data-urlencode state=active) &&
      jq -e --arg j "$PROM_JOB" '[.activeTargets[] | select(.labels.job == $j)] |
        length > 0 and all(.health == "up")' <<<"$t" >/dev/null && return 0
    [ "$(date +%s%3N)" -lt "$deadline" ] ||
      e2e_fail "timed out after ${secs}s waiting for Prometheus to scrape $PROM_TARGETS (job $PROM_JOB)$(prom__why)"
    sleep 0.5
  done
}

# prom__matcher "k=v,k2=v2": the JSON object of those labels ({} for "").
prom__matcher() {
  local kv out="{}"
  local IFS=,
  for kv in $1; do
    [[ $kv == *=* ]] || e2e_fail "label matcher '$kv' is not key=value"
    out=$(jq -c --arg k "${kv%%=*}" --arg v "${kv#*=}" '. + {($k): $v}' <<<"$out")
  done
  printf '%s\n' "$out"
}

# prom_wait_alert NAME STATE [LABELS] [SECONDS]: wait until the alerting rule NAME has, among the
# alerts whose labels include LABELS ("k=v,k2=v2", exact values; "" for any), one in STATE:
#   firing, pending    — such an alert is in /api/v1/alerts in that state;
#   inactive, resolved — none is in /api/v1/alerts (it lists active alerts only: a resolved one
#                        leaves it), read after an evaluation of the rule that is newer than the
#                        one of this call's start, so that a rule never evaluated never passes.
# Default 30 s. The matching alerts are left in PROM_ALERTS (a JSON list of /api/v1/alerts'
# objects) for assertions on their labels and annotations. A rule Prometheus has not loaded fails
# at once; a timeout prints the targets, every active alert and the rule's state and last error.
prom_wait_alert() {
  local name=$1 state=$2 labels=${3:-} secs=${4:-30} match eval0 ev deadline a
  case $state in firing | pending | inactive | resolved) ;; *) e2e_fail "prom_wait_alert: unknown state '$state'" ;; esac
  prom_wait_ready
  match=$(prom__matcher "$labels")
  deadline=$(( $(date +%s%3N) + secs * 1000 ))
  eval0=$(prom__last_eval "$name") || e2e_fail "$eval0"
  while :; do
    ev=$(prom__last_eval "$name") || ev=""
    if a=$(prom__api /api/v1/alerts); then
      PROM_ALERTS=$(jq -c --arg n "$name" --argjson m "$match" '[.alerts[] |
        select(.labels.alertname == $n and (.labels as $l | $m | to_entries | all(.value == $l[.key])))]' <<<"$a")
      case $state in
        firing | pending) jq -e --arg s "$state" 'any(.state == $s)' <<<"$PROM_ALERTS" >/dev/null && return 0 ;;
        *) [ "$PROM_ALERTS" = "[]" ] && [ -n "$ev" ] && [ "$ev" != "$eval0" ] && return 0 ;;
      esac
    fi
    [ "$(date +%s%3N)" -lt "$deadline" ] ||
      e2e_fail "timed out after ${secs}s waiting for alert $name${labels:+ {$labels\}} to be $state$(prom__why "$name")"
    sleep 0.5
  done
}

# prom__last_eval NAME: the start of the alerting rule NAME's last evaluation (as Prometheus
# prints it); fails, saying which rules are loaded, when there is no such rule.
prom__last_eval() {
  local r
  r=$(prom__api /api/v1/rules --data-urlencode type=alert) || { echo "Prometheus's rules: $r"; return 1; }
  jq -er --arg n "$1" '[.groups[].rules[] | select(.name == $n)] | if length == 1 then .[0].lastEvaluation else empty end' <<<"$r" ||
    { echo "Prometheus has no alerting rule $1 (loaded: $(jq -c '[.groups[].rules[].name]' <<<"$r"))"; return 1; }
}

# prom_wait_series EXPR [SECONDS] [HINT]: wait until the instant query EXPR returns a series
# (default 30 s); a timeout names the query, HINT (what to check) and the targets — a metric not
# exported is said so, rather than an alert that never fires.
prom_wait_series() {
  local expr=$1 secs=${2:-30} hint=${3:-} deadline
  prom_wait_ready
  deadline=$(( $(date +%s%3N) + secs * 1000 ))
  until prom__api /api/v1/query --data-urlencode "query=$expr" | jq -e '.result | length > 0' >/dev/null 2>&1; do
    [ "$(date +%s%3N)" -lt "$deadline" ] ||
      e2e_fail "Prometheus has no $expr after ${secs}s${hint:+: $hint}$(prom__why)"
    sleep 0.5
  done
}

# ---- schedule health alerts: the schedule-health reconciler's series -----------------------------
# For a controller that exports the cronwarden_schedule_* and cronwarden_volumes_* series of
# docs/status.md ("Metrics"), i.e. runs the schedule-health reconciler, scraped by prom_start.
# First the series the alert reads must be there for the schedule — else the failure says the
# reconciler exports none, rather than that an alert never fired —, then the alert itself,
# matched on its labels.

PROM_HEALTH_HINT="does the controller run the schedule-health reconciler, lead, and see that object?"

# prom_schedule_alert ALERT KIND NAMESPACE NAME firing|resolved [SECONDS]: the schedule alert
# ALERT (CronwardenScheduleRunFailed, ...Failing, ...MissedRun, ...RunningLong, ...NoNextRun) for
# the RecurringJob or Schedule KIND NAMESPACE/NAME. Default 30 s. A firing alert must say what to
# run next. PROM_ALERTS holds the matched alerts.
prom_schedule_alert() {
  local alert=$1 kind=$2 ns=$3 name=$4 state=$5 secs=${6:-} metric sel
  case $alert in
    CronwardenScheduleRunFailed | CronwardenScheduleFailing) metric=cronwarden_schedule_consecutive_failures ;;
    CronwardenScheduleMissedRun) metric=cronwarden_schedule_last_missed_timestamp_seconds ;;
    CronwardenScheduleRunningLong) metric=cronwarden_schedule_running_seconds ;;
    CronwardenScheduleNoNextRun) metric=cronwarden_schedule_next_run_timestamp_seconds ;;
    *) e2e_fail "prom_schedule_alert: $alert is not a schedule alert of deploy/monitoring/rules.yaml" ;;
  esac
  sel="kind=\"$kind\",namespace=\"$ns\",name=\"$name\""
  if [ "$state" = firing ]; then
    prom_wait_series "$metric{$sel}" "${secs:-30}" "$PROM_HEALTH_HINT"
  fi
  prom_wait_alert "$alert" "$state" "kind=$kind,namespace=$ns,name=$name" "${secs:-30}"
  [ "$state" != firing ] || prom__says_next "$alert"
}

# prom_volumes_alert ALERT NAMESPACE firing|resolved [SECONDS]: CronwardenVolumesUnprotected or
# CronwardenVolumesStale for the Longhorn namespace NAMESPACE (default 30 s; their `for: 15m` is
# CW_PROM_FOR here).
prom_volumes_alert() {
  local alert=$1 ns=$2 state=$3 secs=${4:-30} metric
  case $alert in
    CronwardenVolumesUnprotected) metric=cronwarden_volumes_unprotected ;;
    CronwardenVolumesStale) metric=cronwarden_volumes_stale ;;
    *) e2e_fail "prom_volumes_alert: $alert is not a volumes alert of deploy/monitoring/rules.yaml" ;;
  esac
  [ "$state" != firing ] || prom_wait_series "$metric{namespace=\"$ns\"}" "$secs" "$PROM_HEALTH_HINT"
  prom_wait_alert "$alert" "$state" "namespace=$ns" "$secs"
  [ "$state" != firing ] || prom__says_next "$alert"
}

# prom__says_next ALERT: every matched alert's description tells what to run next.
prom__says_next() {
  jq -e 'length > 0 and all(.annotations.description | test("Run next: "))' <<<"$PROM_ALERTS" >/dev/null ||
    e2e_fail "$1: an alert without 'Run next:' in its description: $PROM_ALERTS"
}
