#!/usr/bin/env bash
# cronwarden controller, the Longhorn reconcilers (recurringjob, volume), on a real kube-apiserver
# 1.20 with kube-controller-manager (garbage collection), on the CRDs Longhorn 1.2.6 itself
# installs (tests/fixtures/longhorn-1.2.6/: spec.name is pruned), run as a user bound to exactly
# deploy/controller/rbac.yaml + rbac-longhorn.yaml (no request of it refused): the version read
# from the longhorn-manager DaemonSet, logged and exported; a CronJob per RecurringJob within
# seconds, batch/v1beta1 as discovery finds on 1.20, its last-applied annotation byte for byte the
# one Longhorn 1.2.6 wrote; an invalid job gets no
# CronJob and a Warning Event; a cron edit updates the CronJob; a CronJob deleted by hand comes
# back; a deleted RecurringJob takes its CronJob with it; Settings shape the CronJobs; a volume
# written past the webhook with legacy spec.recurringJobs ends with the labels `cronwarden
# migrate` gives it; a volume stripped of its job labels gets the default group back; leader
# failover makes no duplicate; another writer rewriting a CronJob with another minor's bytes is
# answered three times, then left alone with a WriteWar Event naming it; a restarted controller
# with everything in sync writes nothing; settings.longhorn.io removed (or missing at start) makes
# /readyz 503 naming it, logged as one error, until it is there again.
. "$(dirname "$0")/../lib.sh"
e2e_start 1.20   # Longhorn 1.1 -> 1.2 and 1.2/1.3 clusters ran on Kubernetes <= 1.2x (tests/README.md)
e2e_require_users controller
lh_apply_crds 1.2.6
LH=longhorn-system
LEASE_NS=cronwarden
FIXTURES=$CW_SOURCE_DIR/tests/fixtures/longhorn-1.2.6

e2e_step "RBAC as shipped (deploy/controller/rbac.yaml + rbac-longhorn.yaml), bound to user controller"
kc create namespace "$LEASE_NS" >/dev/null
kc create namespace "$LH" >/dev/null
assert_ok kc apply -f "$CW_SOURCE_DIR/deploy/controller/rbac.yaml"
assert_ok kc apply -f "$CW_SOURCE_DIR/deploy/controller/rbac-longhorn.yaml"
assert_ok kc create rolebinding cronwarden-longhorn-user -n "$LH" --role=cronwarden-controller-longhorn --user=controller
assert_ok kc create rolebinding cronwarden-controller-user -n "$LEASE_NS" --role=cronwarden-controller-leader-election --user=controller

# ctl NAME [VAR=VALUE...]: a controller replica as user controller, in the background.
ctl() {
  local name=$1; shift
  e2e_bg "$name" env "$@" "$CW_BINARY" controller --controllers "${CONTROLLERS:-recurringjob,volume}" --name-scheme longhorn \
    --kubeconfig "$CW_E2E_DIR/kubeconfig-controller" --leader-election-namespace "$LEASE_NS" \
    --lease-duration 3s --metrics-listen 127.0.0.1:0 --log-level debug
}
readyz() { curl -sS "http://127.0.0.1:$(port_of "$1")/readyz"; }
cj() { kc get cronjobs.v1beta1.batch -n "$LH" "$1" -o json; }
cj_count() { kc get cronjobs.v1beta1.batch -n "$LH" -l "recurring-job.longhorn.io=$1" -o json | jq '.items | length'; }
has_cj() { [ "$(cj_count "$1")" = 1 ]; }
no_cj() { [ "$(cj_count "$1")" = 0 ]; }
vol_labels() { kc get volumes.v1beta1.longhorn.io -n "$LH" "$1" -o json | jq -cS '.metadata.labels // {}'; }

e2e_step "Longhorn as a fresh 1.2.6 install: the longhorn-manager DaemonSet (its image is the jobs')"
kc apply -n "$LH" -f "$CW_SOURCE_DIR/tests/e2e/fixtures/longhorn-manager.yaml" >/dev/null

e2e_step "RecurringJobs as Longhorn 1.2 writes them (no spec.name): the two of the fixtures, one more, one the policy refuses"
kc apply -n "$LH" -f - >/dev/null <<'EOF2'
apiVersion: longhorn.io/v1beta1
kind: RecurringJob
metadata: {name: backup-7-7bc5443b-4fc79c10}
spec: {task: backup, cron: "0 2 * * *", retain: 7, concurrency: 10, groups: [], labels: {}}
---
apiVersion: longhorn.io/v1beta1
kind: RecurringJob
metadata: {name: snapshot-4-0520073e-8a390c6d}
spec: {task: snapshot, cron: "0 */6 * * *", retain: 4, concurrency: 10}
---
apiVersion: longhorn.io/v1beta1
kind: RecurringJob
metadata: {name: hourly}
spec: {task: snapshot, cron: "0 * * * *", retain: 2, concurrency: 1, groups: [default]}
---
apiVersion: longhorn.io/v1beta1
kind: RecurringJob
metadata: {name: broken}
spec: {task: snapshot, cron: "61 * * * *", retain: 1, concurrency: 1}
EOF2

e2e_step "Volumes: legacy spec.recurringJobs (written past the webhook), none, one job label"
kc apply -n "$LH" -f - >/dev/null <<'EOF2'
apiVersion: longhorn.io/v1beta1
kind: Volume
metadata: {name: legacy, labels: {app: db}}
spec:
  numberOfReplicas: 3
  recurringJobs:
  - {name: snap, task: snapshot, cron: "*/1 * * * *", retain: 1}
---
apiVersion: longhorn.io/v1beta1
kind: Volume
metadata: {name: bare}
spec: {numberOfReplicas: 1}
---
apiVersion: longhorn.io/v1beta1
kind: Volume
metadata: {name: labelled, labels: {recurring-job.longhorn.io/hourly: enabled}}
spec: {numberOfReplicas: 1}
EOF2
# What the migrator gives the legacy volume, offline, from the same object.
kc get volumes.v1beta1.longhorn.io -n "$LH" legacy -o json > "$CW_E2E_DIR/legacy.json"
assert_ok cw migrate --from-file "$CW_E2E_DIR/legacy.json" --name-scheme longhorn --output-dir "$CW_E2E_DIR/offline"
want_legacy=$(jq -cS '.metadata.labels' "$CW_E2E_DIR/offline/legacy.json")
e2e_log "the migrator labels the legacy volume $want_legacy"

e2e_step "the controller: every CronJob within seconds, volumes labelled"
t0=$(date +%s%3N)
ctl ctl1
for j in backup-7-7bc5443b-4fc79c10 snapshot-4-0520073e-8a390c6d hourly; do
  wait_for 20 "the CronJob of $j" has_cj "$j"
done
e2e_log "three CronJobs $(( $(date +%s%3N) - t0 )) ms after the controller started"
assert_eq "$(metric_sum ctl1 cronwarden_controller_longhorn_version_info 'version="v1.2.6",minor="1.2",source="daemonset"')" 1 \
  "longhorn_version_info: 1.2 from the DaemonSet"
assert_eq "$(metric_sum ctl1 cronwarden_controller_standing_down)" 0 "standing down: no"
for c in recurringjob volume; do
  grep -q "msg=\"Longhorn version\" controller=$c version=v1.2.6 minor=1.2 source=daemonset" "$(log_of ctl1)" ||
    e2e_fail "no 'Longhorn version' line of $c in $(log_of ctl1)"
done
wait_for 20 "the legacy volume migrated" eval '[ "$(vol_labels legacy)" = "$want_legacy" ]'
assert_json "$(kc get volumes.v1beta1.longhorn.io -n "$LH" legacy -o json)" '.spec.recurringJobs' null
assert_json "$(vol_labels legacy)" '.app' db "the volume's own label stays"
wait_for 20 "the migrated job's RecurringJob and CronJob" has_cj snapshot-1-97893a05-77074ba4
DEFAULT='{"recurring-job-group.longhorn.io/default":"enabled"}'
wait_for 20 "the bare volume's default group" eval '[ "$(vol_labels bare)" = "$DEFAULT" ]'
assert_eq "$(vol_labels labelled)" '{"recurring-job.longhorn.io/hourly":"enabled"}' "a volume with a job label is left as it is"

e2e_step "byte for byte what Longhorn 1.2.6 wrote, in the discovered batch/v1beta1"
for f in "$FIXTURES"/cronjob-*.json; do
  j=$(jq -r .metadata.name "$f")
  lh_like_fixture 1.2.6 "$LH" "$j"
  got=$(cj "$j")
  assert_json "$got" .apiVersion batch/v1beta1
  assert_json "$got" '.metadata.ownerReferences[0] | [.kind, .name, (.uid | length > 0)] | join(",")' "RecurringJob,$j,true"
done

e2e_step "the policy refuses a job: no CronJob, a Warning Event; no other job refused (none has spec.name)"
no_cj broken || e2e_fail "a CronJob was made for the invalid job"
assert_eq "$(grep 'RecurringJob refused by the policy' "$(log_of ctl1)" | grep -vc 'recurringjob=longhorn-system/broken ')" 0 \
  "refusals of jobs other than broken"
wait_for 10 "the InvalidRecurringJob Event" eval 'kc get events -n "$LH" --field-selector involvedObject.name=broken,reason=InvalidRecurringJob -o json |
  jq -e ".items[0] | .type == \"Warning\" and (.message | startswith(\"spec.cron: invalid cron expression\"))" >/dev/null'

e2e_step "editing the cron updates the CronJob"
kc patch recurringjobs.v1beta1.longhorn.io -n "$LH" hourly --type merge -p '{"spec":{"cron":"30 * * * *"}}' >/dev/null
wait_for 10 "the new schedule" eval 'cj hourly | jq -e ".spec.schedule == \"30 * * * *\"" >/dev/null'

e2e_step "a CronJob deleted by hand comes back"
kc delete cronjobs.v1beta1.batch -n "$LH" hourly >/dev/null
wait_for 10 "hourly's CronJob again" has_cj hourly

e2e_step "Settings shape every CronJob (taint-toleration, priority-class, node selector)"
kc apply -n "$LH" -f - >/dev/null <<'EOF2'
apiVersion: longhorn.io/v1beta1
kind: Setting
metadata: {name: taint-toleration}
value: "key1=value1:NoSchedule; key2:NoExecute"
---
apiVersion: longhorn.io/v1beta1
kind: Setting
metadata: {name: priority-class}
value: "longhorn-critical"
EOF2
wait_for 10 "tolerations and priority class on the CronJobs" eval 'cj hourly |
  jq -e ".spec.jobTemplate.spec.template.spec | .priorityClassName == \"longhorn-critical\" and (.tolerations | length) == 2" >/dev/null'
kc apply -n "$LH" -f - >/dev/null <<'EOF2'
apiVersion: longhorn.io/v1beta1
kind: Setting
metadata: {name: system-managed-components-node-selector}
value: "zone"
EOF2
wait_for 10 "a warning naming the malformed setting" grep -q 'Error while unmarshal node selector: invalid label zone' "$(log_of ctl1)"
kc delete settings.longhorn.io -n "$LH" system-managed-components-node-selector >/dev/null

e2e_step "a deleted RecurringJob takes its CronJob with it (cronwarden's own DELETE, not the garbage collector's)"
# --cascade=orphan: kube-controller-manager's garbage collector strips the CronJob's owner reference
# instead of deleting it, so only cronwarden's DELETE can make it go.
DELETES='verb="delete_cronjob",result="ok"'
deletes=$(metric_sum ctl1 cronwarden_controller_recurringjob_writes_total "$DELETES")
kc delete recurringjobs.v1beta1.longhorn.io -n "$LH" snapshot-4-0520073e-8a390c6d --cascade=orphan >/dev/null
# The orphan finalizer waits for the garbage collector to watch RecurringJobs, which it starts at
# its next discovery of new resources (every 30 s): up to half a minute after the CRDs appeared.
wait_for 40 "snapshot-4's CronJob gone" no_cj snapshot-4-0520073e-8a390c6d
assert_eq "$(metric_sum ctl1 cronwarden_controller_recurringjob_writes_total "$DELETES")" "$((deletes + 1))" "cronwarden's own DELETE of the CronJob"

e2e_step "a volume stripped of every job label gets the default group back"
kc label volumes.v1beta1.longhorn.io -n "$LH" labelled recurring-job.longhorn.io/hourly- >/dev/null
wait_for 10 "the default group on 'labelled'" eval '[ "$(vol_labels labelled)" = "$DEFAULT" ]'

e2e_step "leader failover: a standby takes over, no duplicate CronJob"
ctl ctl2
wait_for 20 "ctl2 to be ready as a standby" grep -q 'controller running' "$(log_of ctl2)"
kill -9 "$(e2e_bg_pid ctl1)"
wait_for 30 "ctl2 to lead" grep -q 'became the leader' "$(log_of ctl2)"
kc apply -n "$LH" -f - >/dev/null <<'EOF2'
apiVersion: longhorn.io/v1beta1
kind: RecurringJob
metadata: {name: after-failover}
spec: {task: backup, cron: "0 4 * * *", retain: 3, concurrency: 2}
EOF2
wait_for 20 "the new leader's CronJob" has_cj after-failover
for j in backup-7-7bc5443b-4fc79c10 hourly snapshot-1-97893a05-77074ba4 after-failover; do
  assert_eq "$(cj_count "$j")" 1 "CronJobs labelled for $j"
done
assert_eq "$(kc get cronjobs.v1beta1.batch -n "$LH" -o json | jq '.items | length')" 4 "CronJobs in all"

e2e_step "another writer keeps rewriting a CronJob with another minor's bytes: answered three times, then left alone"
kc apply -n "$LH" -f - >/dev/null <<'EOF2'
apiVersion: longhorn.io/v1beta1
kind: RecurringJob
metadata: {name: contested}
spec: {task: snapshot, cron: "0 0 1 1 *", retain: 1, concurrency: 1}
EOF2
wait_for 20 "contested's CronJob" has_cj contested
ours=$(cj contested | jq -r "$LH_ANN")
theirs=$(jq -r "$LH_ANN" "$CW_SOURCE_DIR/tests/fixtures/longhorn-1.4.4/cronjob-snapshot-4-0520073e-8a390c6d.json")
annotation() { cj contested | jq -r "$LH_ANN"; }
rewrite() { # as a Longhorn 1.4 manager would: its own bytes, under its own field manager
  kc patch cronjobs.v1beta1.batch -n "$LH" contested --type merge --field-manager longhorn-manager \
    -p "$(jq -n --arg a "$theirs" '{metadata: {annotations: {"longhorn.io/last-applied-cronjob-spec": $a}}}')" >/dev/null
}
UPDATES='verb="update_cronjob",result="ok"'
updates=$(metric_sum ctl2 cronwarden_controller_recurringjob_writes_total "$UPDATES")
for i in 1 2 3; do
  rewrite
  wait_for 10 "cronwarden's rewrite $i" eval '[ "$(annotation)" = "$ours" ]'
done
rewrite
wait_for 10 "the WriteWar Event" eval 'kc get events -n "$LH" --field-selector involvedObject.name=contested,reason=WriteWar -o json |
  jq -e ".items[0] | .type == \"Warning\" and (.message | startswith(\"longhorn-manager keeps rewriting this object after cronwarden'"'"'s recurringjob reconciler writes it\"))" >/dev/null'
sleep 2
assert_eq "$(annotation)" "$theirs" "the fourth rewrite stays: cronwarden stopped writing it"
assert_eq "$(metric_sum ctl2 cronwarden_controller_recurringjob_writes_total "$UPDATES")" "$((updates + 3))" "cronwarden's updates: three"
assert_eq "$(metric_sum ctl2 cronwarden_controller_write_wars_total 'controller="recurringjob"')" 1 "write_wars_total"
grep -q 'another writer keeps undoing.*object=cronjobs.batch/longhorn-system/contested other_writer=longhorn-manager' "$(log_of ctl2)" ||
  e2e_fail "no write-war line in $(log_of ctl2)"
kc delete recurringjobs.v1beta1.longhorn.io -n "$LH" contested >/dev/null
wait_for 20 "contested's CronJob gone" no_cj contested

e2e_step "everything in sync: a restarted controller reconciles every key and writes nothing"
e2e_stop ctl2
ctl ctl3
wait_for 30 "ctl3 to lead" grep -q 'became the leader' "$(log_of ctl3)"
wait_for 20 "every key reconciled" eval '[ "$(metric_sum ctl3 cronwarden_controller_reconciles_total)" -ge 8 ]'
sleep 2
assert_eq "$(metric_sum ctl3 cronwarden_controller_recurringjob_writes_total)" 0 "recurringjob writes after a restart in sync"
assert_eq "$(metric_sum ctl3 cronwarden_controller_volume_writes_total)" 0 "volume writes after a restart in sync"

e2e_step "migrate --wait-for-controller finds the controller's CronJob by its label"
e2e_stop ctl3
CONTROLLERS=recurringjob ctl ctl4
wait_for 30 "ctl4 to lead" grep -q 'became the leader' "$(log_of ctl4)"
kc apply -n "$LH" -f - >/dev/null <<'EOF2'
apiVersion: longhorn.io/v1beta1
kind: Volume
metadata: {name: legacy2}
spec:
  numberOfReplicas: 1
  recurringJobs:
  - {name: nightly, task: backup, cron: "5 5 * * *", retain: 3}
EOF2
assert_ok cw migrate --kubeconfig "$CW_E2E_DIR/kubeconfig" --name-scheme longhorn --wait-for-controller --wait-timeout 30s
case $E2E_OUT in *"not ready in time"*) e2e_fail "migrate did not see the CronJob: $E2E_OUT" ;; esac
new_job=$(kc get volumes.v1beta1.longhorn.io -n "$LH" legacy2 -o json | jq -r '.metadata.labels | keys[] | select(startswith("recurring-job.longhorn.io/")) | sub("recurring-job.longhorn.io/"; "")')
[ -n "$new_job" ] || e2e_fail "legacy2 was not migrated"
has_cj "$new_job" || e2e_fail "no CronJob for $new_job"

e2e_step "the role refuses what the controller never does, and nothing the controller did"
for l in "$CW_E2E_DIR"/logs/ctl*.log; do
  assert_eq "$(grep -c 'status=403' "$l")" 0 "requests refused with 403 in $(basename "$l")"
done
assert_fails --match forbidden kc_as controller get secrets -n "$LH"
assert_fails --match forbidden kc_as controller delete volumes.longhorn.io -n "$LH" bare
assert_fails --match forbidden kc_as controller delete recurringjobs.longhorn.io -n "$LH" hourly

e2e_step "settings.longhorn.io removed under a running controller, then missing at start: /readyz names it, one error a minute"
NOT_SERVED='recurringjob: the API server does not serve settings.longhorn.io/v1beta1 (LIST answers 404)'
assert_ok kc delete crd settings.longhorn.io
wait_for 30 "ctl4's /readyz to name settings.longhorn.io" eval '[ "$(readyz ctl4)" = "$NOT_SERVED" ]'
e2e_stop ctl4
CONTROLLERS=recurringjob ctl ctl5
wait_for 20 "ctl5's /readyz to name settings.longhorn.io" eval '[ "$(readyz ctl5)" = "$NOT_SERVED" ]'
assert_eq "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$(port_of ctl5)/readyz")" 503 "/readyz status"
wait_for 20 "three LISTs of the settings to fail" eval \
  '[ "$(metric_sum ctl5 cronwarden_controller_informer_lists_total "resource=\"settings\",reason=\"error\"")" -ge 3 ]'
assert_eq "$(metric_sum ctl5 cronwarden_controller_informer_missing 'resource="settings"')" 1 "informer_missing{settings}"
assert_eq "$(grep -c 'level=error msg="the API server does not serve a resource this reconciler needs.*resource=settings.longhorn.io/v1beta1' "$(log_of ctl5)")" 1 \
  "one error line for the missing resource, not one per retry"
assert_eq "$(grep -c 'list failed; retrying.*informer=settings' "$(log_of ctl5)")" 0 "no warning per retry"
assert_ok kc create -f <(lh_crd_doc 1.2.6 settings.longhorn.io)
wait_for 40 "/readyz once the CRD is there" eval '[ "$(readyz ctl5)" = ok ]'
assert_eq "$(metric_sum ctl5 cronwarden_controller_informer_missing 'resource="settings"')" 0 "informer_missing{settings} after"
