#!/usr/bin/env bash
# cronwarden controller, the backup-queue reconciler (issue 14), on a real kube-apiserver, run as
# a user bound to exactly deploy/controller/rbac-backupqueue.yaml (+ rbac.yaml's leader
# election). The test plays Velero's backup controller: it moves ReadyToStart -> InProgress ->
# Completed itself.
#   - seed 002's worked example, concurrency 2: backup5 runs first, then backup2, then backup3 and
#     backup4 together, with every intermediate queue position, Events (Queued with the position,
#     ReadyToStart with the wait, Waiting naming the blocker once) and metrics;
#   - 200 Backups over 20 namespaces, concurrency 3, random completion times, created in waves:
#     a watch records every change; never more than 3 running, every Backup ends Completed,
#     overlapping Backups start in queue order and one passes another only while that one is held
#     by an overlap; the leader killed between a dequeue and its renumbering (positions have a
#     gap), the standby takes over and closes it (1..n, no duplicate); later a graceful hand-over.
. "$(dirname "$0")/../lib.sh"
e2e_start current
apply_crds
e2e_require_users controller
NS=velero
LEASE_NS=cronwarden
HELPER=$CW_SOURCE_DIR/tests/e2e/fixtures/backupqueue.py
WS=$(seq -f 'w%02g' 1 20)
{ for ns in "$LEASE_NS" "$NS" ns1 ns2 ns3 ns4 ns5 ns6 ns7 ns8 ns9 $WS; do
    printf 'apiVersion: v1\nkind: Namespace\nmetadata: {name: %s}\n---\n' "$ns"
  done; } | kc create -f - >/dev/null

e2e_step "RBAC as shipped (rbac-backupqueue.yaml, rbac.yaml's leader election) bound to the user controller"
assert_ok kc apply -f "$CW_SOURCE_DIR/deploy/controller/rbac.yaml"
assert_ok kc apply -f "$CW_SOURCE_DIR/deploy/controller/rbac-backupqueue.yaml"
assert_ok kc create clusterrolebinding bq-user --clusterrole=cronwarden-controller-backupqueue --user=controller
assert_ok kc create clusterrolebinding bq-ns-user --clusterrole=cronwarden-controller-namespaces --user=controller
assert_ok kc create rolebinding leader-user -n "$LEASE_NS" --role=cronwarden-controller-leader-election --user=controller
can() { kc --as=controller auth can-i "$@" 2>/dev/null || true; }
for v in list watch patch; do assert_eq yes "$(can "$v" backups.velero.io -n "$NS")" "controller may $v backups"; done
for v in get create update delete; do assert_eq no "$(can "$v" backups.velero.io -n "$NS")" "controller may $v backups"; done
assert_eq no "$(can update backups.velero.io/status -n "$NS")" "controller may update backups/status"
assert_eq yes "$(can create events -n "$NS")" "controller may create events"
assert_eq no "$(can delete events -n "$NS")" "controller may delete events"
assert_eq yes "$(can watch namespaces)" "controller may watch namespaces"
assert_eq no "$(can get namespaces)" "controller may get namespaces"

# ctl NAME CONCURRENCY [VAR=VALUE...]: a controller replica as user controller, in the background.
ctl() {
  local name=$1 c=$2; shift 2
  e2e_bg "$name" env "$@" "$CW_BINARY" controller --controllers backup-queue --namespace "$NS" \
    --concurrent-backups "$c" --kubeconfig "$CW_E2E_DIR/kubeconfig-controller" \
    --leader-election-namespace "$LEASE_NS" --lease-duration 3s --metrics-listen 127.0.0.1:0
}
log_of() { printf '%s/logs/%s.log' "$CW_E2E_DIR" "$1"; }
port_of() { grep -o 'metrics_port=[0-9]*' "$(log_of "$1")" | sed -n 1p | cut -d= -f2; }
metric() { curl -fsS "http://127.0.0.1:$(port_of "$1")/metrics" | awk -v m="$2" '$1 == m {print $2}'; }
# The queue as "name=phase/position ..." for the named Backups, in that order.
queue() {
  kc get backups.velero.io -n "$NS" -o json |
    jq -r --arg names "$*" '($names | split(" ")) as $n | [.items[] | select(.metadata.name as $m | $n | index($m))]
      | sort_by(.metadata.name as $m | $n | index($m)) | map("\(.metadata.name)=\(.status.phase // "")/\(.status.queuePosition // 0)") | join(" ")'
}
queue_is() { local want=$1; shift; [ "$(queue "$@")" = "$want" ]; }
phase() { kc patch backups.velero.io -n "$NS" "$1" --type merge -p "{\"status\":{\"phase\":\"$2\"}}" >/dev/null; }
# The Events of a Backup as "reason: message" lines, oldest first.
events() {
  kc get events -n "$NS" --field-selector "involvedObject.name=$1" -o json |
    jq -r '.items | sort_by(.metadata.name) | .[] | "\(.reason): \(.message)"'
}
events_are() { [ "$(events "$1")" = "$2" ]; }

e2e_step "seed 002's worked example, as Velero's queue left it (backup3 and backup4 both at position 2)"
bk() { # name phase position namespaces...
  local name=$1 ph=$2 pos=$3; shift 3
  printf 'apiVersion: velero.io/v1\nkind: Backup\nmetadata: {name: %s, namespace: %s}\nspec: {includedNamespaces: [%s]}\nstatus: {phase: %s, queuePosition: %s}\n---\n' \
    "$name" "$NS" "$(IFS=,; echo "$*")" "$ph" "$pos"
}
{ bk backup1 InProgress 0 ns1 ns2; bk backup2 Queued 1 ns2 ns3 ns5; bk backup3 Queued 2 ns4 ns3
  bk backup4 Queued 2 ns5 ns6; bk backup5 Queued 3 ns8 ns9; } | kc create -f - >/dev/null
W="backup1 backup2 backup3 backup4 backup5"
ctl ctl1 2
wait_for 30 "backup5 to start, the rest renumbered" queue_is \
  "backup1=InProgress/0 backup2=Queued/1 backup3=Queued/2 backup4=Queued/3 backup5=ReadyToStart/0" $W
assert_contains "$(events backup5)" "ReadyToStart: Backup is ready to start after waiting"
assert_eq "Waiting: Backup waits for Backup backup1: both include namespace ns2 (Backups whose namespaces overlap never run together)" \
  "$(events backup2)" "backup2's Events"
assert_contains "$(events backup3)" "Waiting: Backup waits for Backup backup2: both include namespace ns3"
assert_contains "$(events backup4)" "Waiting: Backup waits for Backup backup2: both include namespace ns5"

e2e_step "Velero starts backup5 and finishes backup1: backup2 runs, backup3 and backup4 move up"
phase backup5 InProgress
phase backup1 Completed
wait_for 10 "backup2 to start" queue_is \
  "backup1=Completed/0 backup2=ReadyToStart/0 backup3=Queued/1 backup4=Queued/2 backup5=InProgress/0" $W

e2e_step "backup5 finishes: a slot is free, but backup3 and backup4 still overlap running backup2"
phase backup2 InProgress
phase backup5 Completed
sleep 2
assert_eq "backup1=Completed/0 backup2=InProgress/0 backup3=Queued/1 backup4=Queued/2 backup5=Completed/0" "$(queue $W)" "the queue"

e2e_step "a new Backup is queued behind them (Event Queued with its position), held by backup3 (ns4)"
kc create -f - >/dev/null <<EOF2
apiVersion: velero.io/v1
kind: Backup
metadata: {name: backup6, namespace: $NS}
spec: {includedNamespaces: [ns4, ns7]}
EOF2
wait_for 10 "backup6 queued at 3" queue_is "backup6=Queued/3" backup6
B6="Queued: Backup is queued at position 3
Waiting: Backup waits for Backup backup3: both include namespace ns4 (Backups whose namespaces overlap never run together)"
wait_for 10 "backup6's Events" events_are backup6 "$B6"

e2e_step "backup2 finishes: backup3 and backup4 overlap nothing running and start together; backup6 waits on"
phase backup2 Completed
wait_for 10 "backup3 and backup4 to start" queue_is \
  "backup3=ReadyToStart/0 backup4=ReadyToStart/0 backup6=Queued/1" backup3 backup4 backup6
assert_eq 1 "$(events backup3 | grep -c '^Waiting: Backup waits for Backup backup2')" "Waiting Events of backup3 naming backup2 (once, after many decisions)"
sleep 1
assert_eq "$B6" "$(events backup6)" "backup6's Events (the same blocker, now running: no second Waiting)"
assert_eq 2 "$(metric ctl1 'cronwarden_controller_backupqueue_running{namespace="velero"}')" "running gauge"
assert_eq 1 "$(metric ctl1 'cronwarden_controller_backupqueue_queued{namespace="velero"}')" "queued gauge"
assert_eq 4 "$(metric ctl1 'cronwarden_controller_backupqueue_wait_seconds_count{namespace="velero"}')" "waits observed"
e2e_stop ctl1
kc delete backups.velero.io -n "$NS" --all >/dev/null

e2e_step "200 Backups over 20 namespaces, concurrency 3: Velero played by the helper, every change recorded by its watch"
TRACE=$CW_E2E_DIR/trace.jsonl
PAUSE=$CW_E2E_DIR/velero-paused
e2e_bg velero env CW_E2E_API_URL="$CW_E2E_API_URL" CW_E2E_CA="$CW_E2E_CA" CW_E2E_TOKEN="$CW_E2E_TOKEN" \
  python3 "$HELPER" velero "$NS" "$TRACE" "$PAUSE" 0.2 1.2 14
# wave FIRST COUNT: Backups load-FIRST.. in one request; one in ten covers two namespaces, one in
# twenty-five the wildcard w1? (w10..w19).
wave() {
  local i spec
  for ((i = $1; i < $1 + $2; i++)); do
    if ((i % 25 == 7)); then spec="['w1?']"
    elif ((i % 10 == 3)); then spec="[w$(printf %02d $((i * 7 % 20 + 1))), w$(printf %02d $((i * 3 % 20 + 1)))]"
    else spec="[w$(printf %02d $((i * 7 % 20 + 1)))]"; fi
    printf 'apiVersion: velero.io/v1\nkind: Backup\nmetadata: {name: load-%03d, namespace: %s, labels: {load: "true"}}\nspec: {includedNamespaces: %s}\n---\n' "$i" "$NS" "$spec"
  done | kc create -f - >/dev/null
}
waiting() { kc get backups.velero.io -n "$NS" -o json | jq '[.items[] | select((.status.phase // "New") | . == "New" or . == "Queued")] | length'; }
positions() { kc get backups.velero.io -n "$NS" -o json | jq -c '[.items[] | select(.status.phase == "Queued") | .status.queuePosition] | sort'; }
dense() { local p; p=$(positions); [ "$p" = "$(jq -c '[range(1; length + 1)]' <<<"$p")" ]; }
drained() { [ "$(waiting)" -lt "$1" ]; }
all_completed() { [ "$(kc get backups.velero.io -n "$NS" -o json | jq '[.items[] | select(.status.phase != "Completed")] | length')" = 0 ]; }
running() { kc get backups.velero.io -n "$NS" -o json | jq '[.items[] | select(.status.phase == "InProgress" or .status.phase == "ReadyToStart")] | length'; }

ctl ctlA 3 CRONWARDEN_FAILPOINTS=backupqueue-dequeued=kill@25
wait_for 15 "ctlA to lead" grep -q 'became the leader' "$(log_of ctlA)"
ctl ctlB 3
wave 0 40
wave 40 40

e2e_step "the leader dies between a dequeue and the renumbering; the standby closes the gap"
wait_for 60 "ctlA to die at the failpoint" grep -q 'failpoint: killing this process' "$(log_of ctlA)"
touch "$PAUSE" # Velero finishes nothing meanwhile: the queue holds still
wait "$(e2e_bg_pid ctlA)" 2>/dev/null || true
gap=$(positions)
if dense; then # the standby may have taken over and closed the gap already
  grep -q 'became the leader' "$(log_of ctlB)" || e2e_fail "no gap in the positions after the kill: $gap"
  e2e_log "positions after the kill: the standby had already closed the gap"
else
  e2e_log "positions after the kill: $gap"
fi
wait_for 20 "ctlB to lead" grep -q 'became the leader' "$(log_of ctlB)"
wait_for 10 "positions 1..n, no gap, no duplicate" dense
[ "$(running)" -le 3 ] || e2e_fail "more than 3 running after the failover"
rm -f "$PAUSE"

e2e_step "more waves; a graceful hand-over to a third replica in the middle"
ctl ctlC 3
created=80
while [ "$created" -lt 200 ]; do
  wait_for 60 "the queue to drain below 15" drained 15
  wave "$created" 40
  created=$((created + 40))
  if [ "$created" = 160 ]; then
    e2e_stop ctlB
    wait_for 10 "ctlC to lead" grep -q 'became the leader' "$(log_of ctlC)"
  fi
done
wait_for 120 "every Backup Completed" all_completed
sleep 1 # the last events reach the trace
e2e_stop velero

e2e_step "the trace: at most 3 running at any change, FIFO, all Completed"
live=$(kc get namespaces -o json | jq -r '[.items[].metadata.name] | join(",")')
out=$(python3 "$HELPER" check "$TRACE" 3 "$live") || e2e_fail "trace check: $out"
e2e_log "$out"
assert_contains "$out" "backups=200 started=200 max_running=3 problems=0"
e2e_log "writes by ctlC: dequeue $(metric ctlC 'cronwarden_controller_backupqueue_writes_total{verb="dequeue",result="ok"}'), renumber $(metric ctlC 'cronwarden_controller_backupqueue_writes_total{verb="renumber",result="ok"}'), events $(metric ctlC 'cronwarden_controller_backupqueue_writes_total{verb="create_event",result="ok"}')"
