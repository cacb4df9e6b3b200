#!/usr/bin/env bash
# cronwarden controller, the Longhorn reconcilers (recurringjob, volume), on a real kube-apiserver
# 1.20 with kube-controller-manager (garbage collection), run as a user bound to exactly
# deploy/controller/rbac.yaml + rbac-longhorn.yaml: a CronJob per RecurringJob within seconds,
# batch/v1beta1 as discovery finds on 1.20, its last-applied annotation byte for byte the one
# Longhorn 1.2.6 wrote (tests/fixtures/longhorn-1.2.6/); an invalid job gets no CronJob and a
# Warning Event; a cron edit updates the CronJob; a CronJob deleted by hand comes back; a deleted
# RecurringJob takes its CronJob with it; Settings shape the CronJobs; a volume written past the
# webhook with legacy spec.recurringJobs ends with the labels `cronwarden migrate` gives it; a
# volume stripped of its job labels gets the default group back; leader failover makes no
# duplicate; a restarted controller with everything in sync writes nothing.
. "$(dirname "$0")/../lib.sh"
e2e_start
apply_crds
e2e_require_users controller
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
log_of() { printf '%s/logs/%s.log' "$CW_E2E_DIR" "$1"; }
port_of() { grep -o 'metrics_port=[0-9]*' "$(log_of "$1")" | sed -n 1p | cut -d= -f2; }
# The sum of a metric family's samples whose labels contain FILTER; "missing" when the process
# does not export the family at all (a renamed or unregistered metric is no zero).
metric_sum() { curl -fsS "http://127.0.0.1:$(port_of "$1")/metrics" | awk -v m="$2" -v f="${3:-}" '$1 == "#" && $2 == "TYPE" && $3 == m {seen = 1} index($1, m) == 1 && index($1, f) {s += $2} END {if (seen) print s + 0; else print "missing"}'; }
cj() { kc get cronjobs.v1beta1.batch -n "$LH" "$1" -o json; }
cj_count() { kc get cronjobs.v1beta1.batch -n "$LH" -l "recurring-job.longhorn.io=$1" -o json | jq '.items | length'; }
has_cj() { [ "$(cj_count "$1")" = 1 ]; }
no_cj() { [ "$(cj_count "$1")" = 0 ]; }
vol_labels() { kc get volumes.v1beta1.longhorn.io -n "$LH" "$1" -o json | jq -cS '.metadata.labels // {}'; }

e2e_step "Longhorn as a fresh 1.2.6 install: the longhorn-manager DaemonSet (its image is the jobs')"
kc apply -n "$LH" -f "$CW_SOURCE_DIR/tests/e2e/fixtures/longhorn-manager.yaml" >/dev/null

e2e_step "RecurringJobs: the two of the fixtures, one more, one the policy refuses"
kc apply -n "$LH" -f - >/dev/null <<'EOF2'
apiVersion: longhorn.io/v1beta1
kind: RecurringJob
metadata: {name: backup-7-7bc5443b-4fc79c10}
spec: {name: backup-7-7bc5443b-4fc79c10, task: backup, cron: "0 2 * * *", retain: 7, concurrency: 10, groups: [], labels: {}}
---
apiVersion: longhorn.io/v1beta1
kind: RecurringJob
metadata: {name: snapshot-4-0520073e-8a390c6d}
spec: {name: snapshot-4-0520073e-8a390c6d, task: snapshot, cron: "0 */6 * * *", retain: 4, concurrency: 10}
---
apiVersion: longhorn.io/v1beta1
kind: RecurringJob
metadata: {name: hourly}
spec: {name: hourly, task: snapshot, cron: "0 * * * *", retain: 2, concurrency: 1, groups: [default]}
---
apiVersion: longhorn.io/v1beta1
kind: RecurringJob
metadata: {name: broken}
spec: {name: broken, task: snapshot, cron: "61 * * * *", retain: 1, concurrency: 1}
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
  got=$(cj "$j")
  assert_json "$got" .apiVersion batch/v1beta1
  assert_eq "$(jq -r '.metadata.annotations["longhorn.io/last-applied-cronjob-spec"]' <<<"$got")" \
    "$(jq -r '.metadata.annotations["longhorn.io/last-applied-cronjob-spec"]' "$f")" "$j: last-applied annotation"
  assert_eq "$(jq -cS .metadata.labels <<<"$got")" "$(jq -cS .metadata.labels "$f")" "$j: labels"
  assert_eq "$(jq -cS '.spec | del(.suspend, .jobTemplate.spec.template.spec.dnsPolicy, .jobTemplate.spec.template.spec.schedulerName,
      .jobTemplate.spec.template.spec.securityContext, .jobTemplate.spec.template.spec.terminationGracePeriodSeconds,
      .jobTemplate.spec.template.spec.containers[0].terminationMessagePath, .jobTemplate.spec.template.spec.containers[0].terminationMessagePolicy,
      .jobTemplate.spec.template.spec.containers[0].imagePullPolicy, .jobTemplate.spec.template.spec.volumes[0].hostPath.type,
      .jobTemplate.spec.template.spec.serviceAccount, .jobTemplate.spec.template.spec.containers[0].env[0].valueFrom.fieldRef.apiVersion,
      .failedJobsHistoryLimit)' <<<"$got")" "$(jq -cS .spec "$f")" "$j: spec (less the apiserver's defaults)"
  assert_json "$got" '.metadata.ownerReferences[0] | [.kind, .name, (.uid | length > 0)] | join(",")' "RecurringJob,$j,true"
done

e2e_step "the policy refuses a job: no CronJob, a Warning Event"
no_cj broken || e2e_fail "a CronJob was made for the invalid job"
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
wait_for 20 "snapshot-4's CronJob gone" no_cj snapshot-4-0520073e-8a390c6d
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
spec: {name: after-failover, task: backup, cron: "0 4 * * *", retain: 3, concurrency: 2}
EOF2
wait_for 20 "the new leader's CronJob" has_cj after-failover
for j in backup-7-7bc5443b-4fc79c10 hourly snapshot-1-97893a05-77074ba4 after-failover; do
  assert_eq "$(cj_count "$j")" 1 "CronJobs labelled for $j"
done
assert_eq "$(kc get cronjobs.v1beta1.batch -n "$LH" -o json | jq '.items | length')" 4 "CronJobs in all"

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

e2e_step "the role refuses what the controller never does"
assert_fails --match forbidden kc_as controller get secrets -n "$LH"
assert_fails --match forbidden kc_as controller delete volumes.longhorn.io -n "$LH" bare
assert_fails --match forbidden kc_as controller delete recurringjobs.longhorn.io -n "$LH" hourly
