#!/usr/bin/env bash
# cronwarden controller, the Velero Schedule reconciler, on a real kube-apiserver, run as a user
# bound to exactly deploy/controller/rbac.yaml: Backups on time with Velero's names, labels and
# spec; skipImmediately true/absent/false; paused, invalid and empty schedules; a Backup that is
# not finished holds its schedule back; unpausing with and without skipImmediately; a crash between
# the Backup and the status write, a graceful restart and a second replica, all without duplicate
# Backups; and the role refuses what the controller never does. A stand-in for Velero marks Backups
# Completed (except those labelled hold=true). Beside it all, a slowloris on the probe port of a
# controller of its own (issue 33): /healthz keeps answering within the liveness probe's 2 s.
. "$(dirname "$0")/../lib.sh"
e2e_start current
apply_crds
e2e_require_users controller nobody
NS=$(e2e_namespace velero)
LEASE_NS=cronwarden

e2e_step "RBAC as shipped (deploy/controller/rbac.yaml), bound to the static user controller"
kc create namespace "$LEASE_NS" >/dev/null
assert_ok kc apply -f "$CW_SOURCE_DIR/deploy/controller/rbac.yaml"
assert_ok kc create clusterrolebinding cronwarden-controller-user --clusterrole=cronwarden-controller --user=controller
assert_ok kc create rolebinding cronwarden-controller-user -n "$LEASE_NS" --role=cronwarden-controller-leader-election --user=controller

# The probe port under a slowloris (issue 33): 70 connections trickling one byte every 9 s for
# 65 s, from 127.0.0.2 (an attacking pod's address; the kubelet probes from the node's), while a
# probe GETs /healthz with the liveness probe's 2 s timeout every 2.5 s. It runs beside the steps
# below against a controller of its own that only reads (schedule-health, no lease), and is judged
# at the end. The attack tool is tests/soak/slowclients, built once with Debian's Go.
e2e_step "a slowloris on a controller's probe port starts (judged at the end)"
slowclients=${XDG_CACHE_HOME:-$HOME/.cache}/cronwarden/slowclients-$(sha256sum "$CW_SOURCE_DIR/tests/soak/slowclients/main.go" | cut -c1-12)
if [ ! -x "$slowclients" ]; then
  mkdir -p "$(dirname "$slowclients")" "$CW_E2E_DIR/go"
  PATH=/usr/lib/go/bin:$PATH GOCACHE="$CW_E2E_DIR/go" GO111MODULE=off CGO_ENABLED=0 HOME="$CW_E2E_DIR" \
    go build -o "$slowclients.tmp" "$CW_SOURCE_DIR/tests/soak/slowclients/main.go"
  mv "$slowclients.tmp" "$slowclients"
fi
e2e_bg edge "$CW_BINARY" controller --controllers schedule-health --leader-elect=false --metrics-listen 127.0.0.1:0
wait_for 15 "the edge controller's port" grep -q 'metrics_port=' "$(log_of edge)"
EDGE_PORT=$(grep -o 'metrics_port=[0-9]*' "$(log_of edge)" | sed -n 1p | cut -d= -f2)
e2e_bg slowloris "$slowclients" -addr "127.0.0.1:$EDGE_PORT" -n 70 -interval 9s -plain -get /healthz -from 127.0.0.2
e2e_bg probes bash -c 'end=$(( $(date +%s) + 65 )); while [ "$(date +%s)" -lt "$end" ]; do
    curl -s -o /dev/null -m 2 -w "%{http_code} %{time_total}\n" "http://127.0.0.1:'"$EDGE_PORT"'/healthz" || true
    sleep 2.5; done; echo done'

# ctl NAME [VAR=VALUE...]: a controller replica as user controller, in the background.
ctl() {
  local name=$1; shift
  e2e_bg "$name" env "$@" "$CW_BINARY" controller --controllers schedule --kubeconfig "$CW_E2E_DIR/kubeconfig-controller" \
    --leader-election-namespace "$LEASE_NS" --lease-duration 3s --metrics-listen 127.0.0.1:0 --log-level debug
}
log_of() { printf '%s/logs/%s.log' "$CW_E2E_DIR" "$1"; }
port_of() { grep -o 'metrics_port=[0-9]*' "$(log_of "$1")" | sed -n 1p | cut -d= -f2; }
identity_of() { grep -o 'identity=[^ ]*' "$(log_of "$1")" | sed -n 1p | cut -d= -f2; }
metric() { curl -fsS "http://127.0.0.1:$(port_of "$1")/metrics" | awk -v m="$2" '$1 == m {print $2}'; }
sched() { kc get schedules.velero.io -n "$NS" "$1" -o json; }
# The Backups of a schedule, by name (sorted = by run time).
backups_of() { kc get backups.velero.io -n "$NS" -l "velero.io/schedule-name=$1" -o json | jq -r '[.items[].metadata.name] | sort | .[]'; }
count_of() { backups_of "$1" | grep -c . || true; }
# stamp RFC3339 [+SECONDS]: the YYYYMMDDhhmmss of a time, as in Backup names.
stamp() { local e; e=$(date -u -d "$1" +%s); date -u -d "@$((e + ${2:-0}))" +%Y%m%d%H%M%S; }
created() { sched "$1" | jq -r .metadata.creationTimestamp; }
lease_holder() { kc get lease -n "$LEASE_NS" cronwarden-controller -o jsonpath='{.spec.holderIdentity}'; }
ready() { curl -fsS "http://127.0.0.1:$(port_of "$1")/readyz" >/dev/null; }
started() { [ -n "$(port_of "$1")" ]; }

e2e_step "a stand-in for Velero: Backups without a phase become Completed (hold=true ones stay New)"
# (Every second, one curl and one jq a look: at twice a second with kubectl's formatting it cost
# a quarter of a core for the whole scenario.)
e2e_bg fake-velero bash -c '
  ns=$1
  while :; do
    kc get --raw "/apis/velero.io/v1/namespaces/$ns/backups" |
      jq -r ".items[] | select((.status.phase // \"\") == \"\" and .metadata.labels.hold != \"true\") | .metadata.name" |
      while read -r b; do
        kc patch backups.velero.io -n "$ns" "$b" --type merge -p "{\"status\":{\"phase\":\"Completed\"}}" >/dev/null
      done
    sleep 1
  done' fake-velero "$NS"

e2e_step "Schedules: skipImmediately absent/true/false, paused (two), invalid, empty, held"
kc apply -n "$NS" -f - >/dev/null <<'EOF'
apiVersion: velero.io/v1
kind: Schedule
metadata: {name: plain, annotations: {note: from-the-schedule}}
spec:
  schedule: "@every 5s"
  template:
    includedNamespaces: [app]
    ttl: 1h0m0s
    metadata: {labels: {team: a}}
---
apiVersion: velero.io/v1
kind: Schedule
metadata: {name: skip}
spec: {schedule: "@every 5s", skipImmediately: true, template: {}}
---
apiVersion: velero.io/v1
kind: Schedule
metadata: {name: noskip}
spec: {schedule: "@every 5s", skipImmediately: false, template: {}}
---
apiVersion: velero.io/v1
kind: Schedule
metadata: {name: paused}
spec: {schedule: "@every 5s", paused: true, template: {}}
---
apiVersion: velero.io/v1
kind: Schedule
metadata: {name: paused2}
spec: {schedule: "@every 5s", paused: true, template: {}}
---
apiVersion: velero.io/v1
kind: Schedule
metadata: {name: invalid}
spec: {schedule: "61 * * * *", template: {}}
---
apiVersion: velero.io/v1
kind: Schedule
metadata: {name: empty}
spec: {schedule: "", template: {}}
---
apiVersion: velero.io/v1
kind: Schedule
metadata: {name: held}
spec: {schedule: "@every 5s", template: {metadata: {labels: {hold: "true"}}}}
EOF
for s in plain skip noskip paused paused2 held; do eval "C_$s=\$(created $s)"; done
# Two seconds before the controller starts, so that skip's lastSkipped differs from its creation.
sleep 2

e2e_step "a controller that crashes right after its third Backup, before writing the status"
ctl ctl1 CRONWARDEN_FAILPOINTS=schedule-backup-created=kill@3
wait_for 30 "ctl1 to die at the failpoint" grep -q 'failpoint: killing this process' "$(log_of ctl1)"
wait "$(e2e_bg_pid ctl1)" 2>/dev/null || true # reap it
unrecorded=$(for s in plain skip noskip held; do
  if [ "$(count_of "$s")" -ge 1 ] && [ "$(sched "$s" | jq -r '.status.lastBackup // ""')" = "" ]; then echo "$s"; fi
done | sed -n 1p)
[ -n "$unrecorded" ] || e2e_fail "the crash left no Backup without its status write"
e2e_log "created but not recorded before the crash: $unrecorded ($(backups_of "$unrecorded"))"

e2e_step "a new controller records that run (its Backup exists: 409 is success), no second Backup"
ctl ctl2
wait_for 30 "ctl2 to lead (the crashed holder's lease expires first)" grep -q 'became the leader' "$(log_of ctl2)"
# A new schedule does not fire at creation: the first runs are named creation + 5 s.
for s in plain noskip held; do
  eval "c=\$C_$s"
  wait_for 10 "$s's first Backup" bash -c "[ \"\$(kc get backups.velero.io -n $NS -l velero.io/schedule-name=$s -o name)\" != '' ]"
  assert_eq "$s-$(stamp "$c" 5)" "$(backups_of "$s" | sed -n 1p)" "$s's first Backup (creation + 5 s)"
done
wait_for 15 "$unrecorded's lastBackup" bash -c "kc get schedules.velero.io -n $NS $unrecorded -o jsonpath='{.status.lastBackup}' | grep -q ."
assert_contains "$(cat "$(log_of ctl2)")" "schedule=$NS/$unrecorded outcome=recorded"
first=$(backups_of "$unrecorded" | sed -n 1p)
assert_eq 1 "$(backups_of "$unrecorded" | grep -c -- "^$first\$")" "Backups of $unrecorded's first run"
wait_for 15 "ctl2 ready" ready ctl2

e2e_step "skipImmediately true: consumed, reset to false, lastSkipped; runs count from it"
wait_for 15 "skip's first Backup" bash -c "[ \"\$(kc get backups.velero.io -n $NS -l velero.io/schedule-name=skip -o name)\" != '' ]"
obj=$(sched skip)
assert_json "$obj" .spec.skipImmediately false
skipped=$(jq -r .status.lastSkipped <<<"$obj")
[ "$skipped" != null ] || e2e_fail "skip has no lastSkipped"
assert_eq "skip-$(stamp "$skipped" 5)" "$(backups_of skip | sed -n 1p)" "skip's first Backup (lastSkipped + 5 s)"
assert_eq 0 "$(backups_of skip | grep -c -- "-$(stamp "$C_skip" 5)\$" || true)" "skip ran at creation + 5 s"

e2e_step "absent stays absent (server default false), false stays false; neither skips"
obj=$(sched plain)
assert_json "$obj" '.spec | has("skipImmediately")' false
assert_json "$obj" '.status | has("lastSkipped")' false
assert_json "$obj" .status.phase Enabled
LB_plain=$(jq -r .status.lastBackup <<<"$obj")
[ "$(date -u -d "$LB_plain" +%s)" -ge "$(( $(date -u -d "$C_plain" +%s) + 5 ))" ] || e2e_fail "plain's lastBackup $LB_plain is before its first run"
obj=$(sched noskip)
assert_json "$obj" .spec.skipImmediately false
assert_json "$obj" '.status | has("lastSkipped")' false

e2e_step "the Backup: Velero's name, labels from the template, spec = template, the schedule's annotations"
b=$(kc get backups.velero.io -n "$NS" "plain-$(stamp "$C_plain" 5)" -o json)
assert_json "$b" .metadata.labels '{"team":"a","velero.io/schedule-name":"plain"}'
assert_json "$b" .metadata.annotations.note from-the-schedule
assert_json "$b" '.spec | [.includedNamespaces, .ttl, .metadata.labels.team]' '[["app"],"1h0m0s","a"]'

e2e_step "paused: untouched; invalid and empty: FailedValidation with Velero's messages"
assert_json "$(sched paused)" '.status // {} | length' 0
assert_eq 0 "$(count_of paused)" "Backups of the paused schedule"
wait_for 10 "invalid's status" bash -c "kc get schedules.velero.io -n $NS invalid -o jsonpath='{.status.phase}' | grep -q FailedValidation"
assert_json "$(sched invalid)" .status.validationErrors '["invalid schedule: end of range (61) above maximum (59): 61"]'
assert_json "$(sched empty)" .status '{"phase":"FailedValidation","validationErrors":["Schedule must be a non-empty valid Cron expression"]}'
assert_eq 0 "$(( $(count_of invalid) + $(count_of empty) ))" "Backups of invalid schedules"

e2e_step "a Backup still New holds its schedule back; once Completed the due run goes at once"
first_held=held-$(stamp "$C_held" 5)
wait_for 20 "held to be due while blocked" grep -q "schedule=$NS/held outcome=blocked backup=$first_held" "$(log_of ctl2)"
sleep 5
assert_eq "$first_held" "$(backups_of held)" "held's only Backup while its first is New"
assert_ok kc patch backups.velero.io -n "$NS" "$first_held" --type merge -p '{"status":{"phase":"Completed"}}'
wait_for 5 "held's second Backup, woken by the Backup's watch event" bash -c "[ \"\$(kc get backups.velero.io -n $NS -l velero.io/schedule-name=held -o name | wc -l)\" = 2 ]"

e2e_step "unpause with skipImmediately true: skipped, no catch-up; without: one catch-up run, not one per missed run"
assert_ok kc patch schedules.velero.io -n "$NS" paused --type merge -p '{"spec":{"paused":false,"skipImmediately":true}}'
unpaused=$(date -u +%Y%m%d%H%M%S) # fire times before it were missed while paused
assert_ok kc patch schedules.velero.io -n "$NS" paused2 --type merge -p '{"spec":{"paused":false}}'
wait_for 10 "paused's lastSkipped" bash -c "kc get schedules.velero.io -n $NS paused -o jsonpath='{.status.lastSkipped}' | grep -q ."
wait_for 10 "paused2's catch-up Backup" bash -c "[ \"\$(kc get backups.velero.io -n $NS -l velero.io/schedule-name=paused2 -o name)\" != '' ]"
assert_eq "paused2-$(stamp "$C_paused2" 5)" "$(backups_of paused2 | sed -n 1p)" "paused2's catch-up Backup (its first missed run)"
obj=$(sched paused)
assert_json "$obj" .spec.skipImmediately false
assert_eq 0 "$(backups_of paused | grep -c -- "-$(stamp "$C_paused" 5)\$" || true)" "paused ran its missed runs"
sleep 3
# One Backup for all the runs missed while paused; the due runs after the unpause are its own
# (every 5 s: under load more than one may come before this check).
missed=$(backups_of paused2 | awk -F- -v t="$unpaused" '$NF < t' | grep -c . || true)
[ "$missed" = 1 ] || e2e_fail "paused2 caught up $missed missed runs: $(backups_of paused2 | tr '\n' ' ') (unpaused at $unpaused)"

e2e_step "graceful restart: the Lease is released at once, the next controller goes on"
before=$(count_of plain)
e2e_stop ctl2
assert_contains "$(cat "$(log_of ctl2)")" 'lease released'
assert_eq "" "$(lease_holder)" "lease holder after SIGTERM"
ctl ctl3
wait_for 10 "ctl3 to lead" grep -q 'became the leader' "$(log_of ctl3)"
wait_for 15 "plain's next Backup" bash -c "[ \"\$(kc get backups.velero.io -n $NS -l velero.io/schedule-name=plain -o name | wc -l)\" -gt $before ]"

e2e_step "two replicas: only the leader acts; the standby is ready and takes over when it leaves"
ctl ctl4
wait_for 15 "ctl4 started" started ctl4
wait_for 15 "ctl4 ready (standby, caches synced)" ready ctl4
assert_eq "$(identity_of ctl3)" "$(lease_holder)" "lease holder"
assert_eq 1 "$(metric ctl3 cronwarden_controller_leader)" "ctl3 leads"
assert_eq 0 "$(metric ctl4 cronwarden_controller_leader)" "ctl4 stands by"
sleep 6
if grep -q 'backup submitted' "$(log_of ctl4)"; then e2e_fail "the standby submitted a Backup"; fi
[ "$(metric ctl3 'cronwarden_controller_schedule_backups_total{result="created"}')" -ge 1 ] || e2e_fail "ctl3 created nothing"
before=$(count_of plain)
e2e_stop ctl3
wait_for 10 "ctl4 to lead" grep -q 'became the leader' "$(log_of ctl4)"
assert_eq "$(identity_of ctl4)" "$(lease_holder)" "lease holder after the leader left"
wait_for 15 "plain's next Backup under ctl4" bash -c "[ \"\$(kc get backups.velero.io -n $NS -l velero.io/schedule-name=plain -o name | wc -l)\" -gt $before ]"

e2e_step "lastBackup moved on, and is when the newest Backup was submitted"
obj=$(sched plain)
lb=$(jq -r .status.lastBackup <<<"$obj")
[ "$(date -u -d "$lb" +%s)" -gt "$(date -u -d "$LB_plain" +%s)" ] || e2e_fail "plain's lastBackup stayed at $LB_plain"
newest=$(kc get backups.velero.io -n "$NS" -l velero.io/schedule-name=plain -o json | jq '[.items[].metadata.creationTimestamp | fromdate] | max')
d=$(( $(date -u -d "$lb" +%s) - newest )); d=${d#-}
[ "$d" -le 2 ] || e2e_fail "plain's lastBackup $lb is ${d}s from its newest Backup's creation"

e2e_step "no duplicates: per schedule, every run once, runs at least a period apart"
for s in plain skip noskip held paused paused2; do
  names=$(backups_of "$s")
  [ -n "$names" ] || e2e_fail "$s has no Backups"
  assert_eq "$(sort -u <<<"$names" | wc -l)" "$(wc -l <<<"$names")" "distinct runs of $s"
  # Creation times (whole seconds) of consecutive Backups are at least a period (5 s) minus the
  # truncation apart; a duplicate would be seconds or less apart.
  gaps=$(kc get backups.velero.io -n "$NS" -l "velero.io/schedule-name=$s" -o json |
    jq '[.items[].metadata.creationTimestamp | fromdate] | sort | [range(1; length) as $i | .[$i] - .[$i - 1]] | min // 99')
  [ "$gaps" -ge 4 ] || e2e_fail "$s has Backups $gaps s apart: $(tr '\n' ' ' <<<"$names")"
  e2e_log "$s: $(wc -l <<<"$names") Backups, closest $gaps s apart"
done

e2e_step "the slowloris: /healthz answered every probe within 2 s"
wait_for 70 "the probe loop's end" grep -q '^done' "$(log_of probes)"
e2e_stop slowloris
probes=$(grep -v '^done' "$(log_of probes)")
e2e_log "slowloris: $(grep slowclients "$(log_of slowloris)" | tail -1); edge: $(grep -c 'reason="too slow"\|reason=too slow' "$(log_of edge)") connections cut"
e2e_log "probes: $(wc -l <<<"$probes"), latency max $(awk '{print $2}' <<<"$probes" | sort -g | tail -1) s, p50 $(awk '{print $2}' <<<"$probes" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}') s"
[ "$(wc -l <<<"$probes")" -ge 20 ] || e2e_fail "only $(wc -l <<<"$probes") probes in 65 s"
failed=$(grep -vc '^200 ' <<<"$probes" || true)
assert_eq 0 "$failed" "failed /healthz probes under the slowloris: $(grep -v '^200 ' <<<"$probes" | tr '\n' ';')"
grep -q 'too slow' "$(log_of edge)" || e2e_fail "the edge cut no slow connection: was there an attack?"

e2e_step "RBAC is minimal: what the controller never does is refused"
if grep -qi forbidden "$CW_E2E_DIR"/logs/ctl*.log; then e2e_fail "a controller was refused something: $(grep -hi forbidden "$CW_E2E_DIR"/logs/ctl*.log | head -3)"; fi
assert_fails --match forbidden kc_as controller delete backups.velero.io -n "$NS" --all
assert_fails --match forbidden kc_as controller delete schedules.velero.io -n "$NS" plain
assert_fails --match forbidden kc_as controller create -n "$NS" -f - <<'EOF'
apiVersion: velero.io/v1
kind: Schedule
metadata: {name: intruder}
spec: {schedule: "@daily", template: {}}
EOF
sched plain | jq 'del(.metadata.managedFields) | .spec.paused = true' > "$E2E_DIR/plain.json"
assert_fails --match forbidden kc_as controller replace -f "$E2E_DIR/plain.json"
assert_fails --match forbidden kc_as controller patch backups.velero.io -n "$NS" "plain-$(stamp "$C_plain" 5)" --type merge -p '{"status":{"phase":"Failed"}}'
assert_fails --match forbidden kc_as controller get secrets -n "$NS"
assert_fails --match forbidden kc_as controller delete lease -n "$LEASE_NS" cronwarden-controller
assert_fails --match forbidden kc_as controller get leases -n kube-system
assert_fails --match forbidden kc_as nobody get schedules.velero.io -n "$NS"
