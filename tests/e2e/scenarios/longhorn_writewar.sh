#!/usr/bin/env bash
# Never fight (issue 34): cronwarden's recurringjob reconciler beside a writer that does what
# longhorn-manager's checkAndUpdateCronJob does (tests/e2e/fixtures/longhorn_writer.py: compare the
# last-applied annotation as a string, PUT the fresh object when it differs), whose fresh objects
# are upstream's own newCronJob output (tests/fixtures/longhorn-oracle/<tag>.json), on the current
# Kubernetes with each release's CRDs and DaemonSet image: Longhorn 1.4.4 (the manager's CronJobs
# there first, cronwarden arriving) and 1.12.1 (cronwarden's first, the manager arriving), default
# and odd Settings (a Longhorn namespace and a controller per Settings case). After convergence,
# 100 resyncs of every CronJob: 0 rewrites by the writer, 0 writes by anyone (the writer's own
# counter, the CronJobs' resourceVersions, the apiserver's audit log); over the whole run the
# writer rewrote nothing and every write was a create.
. "$(dirname "$0")/../lib.sh"
CW_E2E_POLL=${CW_E2E_POLL:-0.2}
# Every CronJob write (who, which, when): tests/e2e/fixtures/audit-cronjobs.yaml.
export CRONWARDEN_E2E_AUDIT_POLICY=$CW_SOURCE_DIR/tests/e2e/fixtures/audit-cronjobs.yaml
e2e_start current # Longhorn 1.4+ writes batch/v1 CronJobs; 1.2 and 1.3's batch/v1beta1 is not served
[ "${CW_E2E_EXTERNAL:-0}" != 1 ] || e2e_skip "reads the harness apiserver's audit log"
AUDIT=$CW_E2E_DIR/logs/audit.jsonl
ORACLE=$CW_SOURCE_DIR/tests/fixtures/longhorn-oracle
WRITER=$CW_SOURCE_DIR/tests/e2e/fixtures/longhorn_writer.py
RESYNCS=100 # counted resyncs of every CronJob after convergence
PERIOD=0.1  # seconds between two resyncs (upstream: 30 s)

# The oracle's cases whose CronJob the current apiserver stores, upstream writing one order of the
# tolerations only. Left out: upstream errors (no CronJob); CronJobs the apiserver refuses
# (cron-tz*, all-settings: CRON_TZ; cron-backspace; name-53; history-negative,
# history-int32-overflow; tol-empty-key-equal, tol-a-b-c); and the `orderVaries` cases
# (tol-two-keys, tol-several-effects, tol-spaces-around-list): with two or more distinct
# tolerations upstream's own newCronJob writes them in Go's map order, so its annotation differs
# from resync to resync and upstream rewrites its own CronJob; no writer can stop that. And
# retain-max-concurrency-large: retain 250 is over recurring-job-max-retention (100), which
# Longhorn's webhook refuses; name-52 (Longhorn's webhook: names of 40 characters at most) and
# params-backup-unknown (a backup task's unknown parameter): no such job exists where Longhorn's
# webhook runs (cronwarden's controller would write their CronJobs as upstream's does:
# tests/unit/longhorn/test_rjctl.c, test_oracle_decide).
DEFAULTS=(task-snapshot task-backup task-snapshot-force-create task-backup-force-create
  task-snapshot-cleanup task-snapshot-delete retain-concurrency-labels-groups retain-zero-concurrency-zero
  labels-html-unicode cron-formfeed cron-tab cron-descriptor cron-every)
# Tasks and fields 1.4.4's CRD does not have (filesystem-trim 1.5, system-backup 1.9, parameters 1.7).
DEFAULTS_1_12=(task-filesystem-trim task-system-backup params-snapshot params-backup params-snapshot-cleanup)
# Each in its own Longhorn namespace: Settings are per namespace.
SETTINGS=(tol-dup-equal-exists tol-exact-duplicates tol-spaces-inside tol-exists-everything priority-class
  node-selector-spaces registry-secret-spaces history-zero history-large history-failed-only)

ns_of() { # ns_of PREFIX CASE: the namespace of a case (defaults share one)
  case " ${DEFAULTS[*]} ${DEFAULTS_1_12[*]} " in *" $2 "*) echo "$1-defaults" ;; *) echo "$1-$2" ;; esac
}
# objects VERSION PREFIX CASE...: every object, as a stream kubectl creates: per namespace the
# Namespace and the longhorn-manager DaemonSet running the tag's image; every case's Settings and
# RecurringJob (cases.json, in the case's namespace, without the fixed uid).
objects() {
  local v=$1 p=$2 image ns c seen=" "; shift 2
  image=$(jq -r .image "$ORACLE/v$v.json")
  for c in "$@"; do
    ns=$(ns_of "$p" "$c")
    if [[ $seen != *" $ns "* ]]; then
      seen+="$ns "
      printf -- '---\n{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"%s"}}\n---\n' "$ns"
      sed -e "s|\"longhornio/longhorn-manager:v1.2.6\"|\"$image\"|" \
        -e "s|^metadata: {name: longhorn-manager,|metadata: {name: longhorn-manager, namespace: $ns,|" \
        "$CW_SOURCE_DIR/tests/e2e/fixtures/longhorn-manager.yaml"
    fi
    jq -c --arg c "$c" --arg ns "$ns" '.cases[] | select(.name == $c) |
      (.settings | to_entries[] | {apiVersion: "longhorn.io/v1beta2", kind: "Setting",
        metadata: {name: .key, namespace: $ns}, value: .value}),
      (.recurringJob | .metadata = {name: .metadata.name, namespace: $ns})' "$ORACLE/cases.json" |
      sed 's/^/---\n/'
  done
}
cj_count() { kc get cronjobs.batch -A -l longhorn.io/managed-by=longhorn-manager -o json | jq --arg p "$1-" '[.items[] | select(.metadata.namespace | startswith($p))] | length'; }
# writes PREFIX [FROM TO]: the audit log's successful CronJob writes in PREFIX-* namespaces (between
# the two audit times), one line each: "VERB[/SUBRESOURCE] AGENT" (the user agent less its version).
writes() {
  jq -r --arg p "$1-" --arg from "${2:-}" --arg to "${3:-9}" 'select((.objectRef.namespace // "" | startswith($p))
    and .responseStatus.code < 300 and .requestReceivedTimestamp >= $from and .requestReceivedTimestamp <= $to)
    | "\(.verb)\(if .objectRef.subresource then "/" + .objectRef.subresource else "" end) \(.userAgent | split("/")[0])"' "$AUDIT"
}

# release VERSION PREFIX ORDER CASE...: VERSION's CRDs, its objects in PREFIX-* namespaces, the
# writer and one controller per namespace; ORDER manager-first: the writer's CronJobs exist before
# cronwarden starts; cronwarden-first: the other way round.
release() {
  local v=$1 p=$2 order=$3 c ns t0 wall; shift 3
  local -a jobs=("$@") nss=()
  mapfile -t nss < <(for c in "${jobs[@]}"; do ns_of "$p" "$c"; done | sort -u)
  e2e_step "Longhorn $v: its CRDs; ${#jobs[@]} RecurringJobs in ${#nss[@]} namespaces (Settings per namespace), the DaemonSet's image $(jq -r .image "$ORACLE/v$v.json")"
  lh_apply_crds "$v"
  objects "$v" "$p" "${jobs[@]}" > "$CW_E2E_DIR/objects-$p.yaml"
  assert_ok kc create --validate=strict -f "$CW_E2E_DIR/objects-$p.yaml"
  # The plan: upstream's CronJob and annotation of every case, byte for byte from the fixture.
  for c in "${jobs[@]}"; do
    jq -c --arg c "$c" --arg ns "$(ns_of "$p" "$c")" '.results[$c] |
      if .error or .orderVaries then error("\($c): not a case upstream writes one CronJob for") else . end |
      {namespace: $ns, name: .cronJob.metadata.name, cronJob, annotation}' "$ORACLE/v$v.json" || e2e_fail "v$v.json: $c"
  done | jq -s --argjson n "$RESYNCS" --argjson period "$PERIOD" --arg armed "$CW_E2E_DIR/armed-$p" \
    '{period: $period, resyncs: $n, quiet: 20, timeout: 60, armed: $armed, jobs: .}' > "$CW_E2E_DIR/plan-$p.json"
  rm -f "$CW_E2E_DIR/armed-$p"
  controllers() {
    for ns in "${nss[@]}"; do
      e2e_bg "ctl-$ns" "$CW_BINARY" controller --controllers recurringjob --longhorn-namespace "$ns" \
        --leader-elect=false --metrics-listen 127.0.0.1:0
    done
    for ns in "${nss[@]}"; do wait_for 20 "ctl-$ns's metrics port" port_of "ctl-$ns"; done
  }
  t0=$(date +%s%3N)
  if [ "$order" = cronwarden-first ]; then
    controllers
    wait_for 30 "cronwarden's ${#jobs[@]} CronJobs" eval 'n=$(cj_count "$p"); [ "$n" = ${#jobs[@]} ] || ! echo "$n"'
    touch "$CW_E2E_DIR/armed-$p"
  fi
  python3 "$WRITER" "$CW_E2E_DIR/plan-$p.json" "$CW_E2E_DIR/result-$p.json" > "$CW_E2E_DIR/logs/writer-$p.log" 2>&1 &
  local writer=$!
  if [ "$order" = manager-first ]; then
    wait_for 30 "the manager's ${#jobs[@]} CronJobs" eval 'n=$(cj_count "$p"); [ "$n" = ${#jobs[@]} ] || ! echo "$n"'
    controllers
    touch "$CW_E2E_DIR/armed-$p"
  fi
  wait "$writer" || e2e_fail "the writer failed: $(cat "$CW_E2E_DIR/logs/writer-$p.log")"
  wall=$(( $(date +%s%3N) - t0 ))
  e2e_log "$(cat "$CW_E2E_DIR/logs/writer-$p.log") in ${wall} ms"
  for ns in "${nss[@]}"; do kill -TERM "$(e2e_bg_pid "ctl-$ns")"; done # all at once, then reaped
  for ns in "${nss[@]}"; do e2e_stop "ctl-$ns"; done

  local r=$CW_E2E_DIR/result-$p.json
  jq -e .converged "$r" >/dev/null ||
    e2e_fail "Longhorn $v: no convergence in 60 s, a write war: $(jq -c '{total, rewrites, errors}' "$r")"
  # A war cronwarden gives up (three rewrites, then a WriteWar Event) ends quiet: the whole run counts.
  [ "$(jq .total.rewrites "$r")" = 0 ] || e2e_fail "Longhorn $v: a write war: upstream's checkAndUpdateCronJob rewrote \
$(jq .total.rewrites "$r") times, another writer changed $(jq .total.foreign "$r") resourceVersions; the first rewrite of each job:
$(jq -r '.rewrites[] | "\(.job):\n  stored \(.stored)\n  fresh  \(.fresh)"' "$r")"
  assert_eq "${#jobs[@]}" "$(jq .jobs "$r")" "Longhorn $v: CronJobs the writer keeps"
  assert_eq "$RESYNCS" "$(jq .window_resyncs "$r")" "Longhorn $v: resyncs of every CronJob after convergence"
  assert_eq '{"creates":0,"rewrites":0,"foreign":0,"errors":0}' "$(jq -c .window "$r")" \
    "Longhorn $v: after convergence, the writer's creates and rewrites, resourceVersions changed by another writer, errors"
  assert_eq 0 "$(writes "$p" "$(jq -r .window_start "$r")" "$(jq -r .window_end "$r")" | wc -l)" \
    "Longhorn $v: CronJob writes in the audit log after convergence ($(jq -r '"\(.window_start) to \(.window_end)"' "$r"))"
  # Whoever came first created every CronJob; the other wrote nothing at all.
  local first=cronwarden
  [ "$order" = manager-first ] && first=longhorn-manager-writer
  assert_eq "${#jobs[@]} create $first" "$(writes "$p" | sort | uniq -c | awk '{print $1, $2, $3}' | paste -sd,)" \
    "Longhorn $v: every CronJob write in the audit log (count, verb, agent)"
  e2e_log "Longhorn $v: ${#jobs[@]} CronJobs, $(jq .resyncs "$r") resyncs ($RESYNCS after convergence), audit: $(writes "$p" | sort | uniq -c | awk '{print $1, $2, $3}' | paste -sd,)"
}

release 1.4.4 lh144 manager-first "${DEFAULTS[@]}" "${SETTINGS[@]}"
release 1.12.1 lh1121 cronwarden-first "${DEFAULTS[@]}" "${DEFAULTS_1_12[@]}" "${SETTINGS[@]}"
