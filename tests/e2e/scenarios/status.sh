#!/usr/bin/env bash
# cronwarden cron status against a live cluster: the test plays Kubernetes' CronJob and Job
# controllers and Velero (it writes the Jobs' and Backups' status itself; kube-controller-manager
# runs neither controller here), then reads the cluster as a user bound to nothing but
# deploy/monitoring/status-rbac.yaml: a failed and a missed run, a suspended CronJob, a
# RecurringJob without its CronJob, a PartiallyFailed Backup, a Backup in progress, a long Velero
# schedule name, an unprotected and a stale volume; more Jobs than one LIST page; the same objects
# exported to files give the same report; nothing is written; a user without the role is refused.
# Then the controller's schedule-health reconciler, as a user bound to deploy/controller/
# rbac-schedulehealth.yaml only, on the real clock: a failed run, a run missed while the CronJob
# is suspended (on its timer, with no object changing), a stuck Velero Backup, an unprotected
# volume: its exact series on /metrics (SH_METRICS: the address a Prometheus scrapes) and one
# Warning Event per run, not posted again by a restarted controller; ready without Velero.
# And a real Prometheus (tests/e2e/prometheus.sh) scraping a schedule-health controller of its own
# namespaces and evaluating deploy/monitoring/rules.yaml: a failed run, a stuck Backup, an
# unprotected volume, a run missed while its CronJob was suspended — each alert firing in
# /api/v1/alerts, then resolved after the test plays the recovery; CronwardenControllerDown fires
# when the controller is killed and resolves when it is back.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../prometheus.sh"
# no CronJob or Job controller: the runs are the ones this test writes
export CRONWARDEN_E2E_CONTROLLERS=garbagecollector,namespace,serviceaccount-token
e2e_start current
# Prometheus scrapes the controller's fixed port from now on (the controller starts at the end):
# its start and first scrapes (about 5 s) overlap the rest of the scenario.
cwc_take_port CTL_PORT || e2e_fail "no free port for the controller's metrics"
prom_start "127.0.0.1:$CTL_PORT"
apply_crds
e2e_require_users nobody controller
assert_ok kc apply -f "$CW_SOURCE_DIR/tests/e2e/fixtures/longhorn-1.2.6-crds/"
kc wait --for=condition=Established crd/backups.longhorn.io crd/backupvolumes.longhorn.io --timeout=60s >/dev/null

# Judged 3h10m after the last full hour: fire times F1, F2 and F3 on the hour after the objects
# are made (fire times before a CronJob's creation are never judged).
T0=$(( $(date +%s) / 3600 * 3600 ))
F1=$((T0 + 3600)) F2=$((T0 + 7200)) F3=$((T0 + 10800))
NOW=$(date -u -d "@$((F3 + 600))" +%Y-%m-%dT%H:%M:%SZ)
at() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
LONG=shop-production-postgres-and-redis-and-object-storage-every-four-hours
LONG_LABEL=shop-production-postgres-and-redis-and-object-storage-eve588aa6

# status_of PATH STATUS_JSON: writes .status of the object at the API path (its /status when the
# resource has the subresource, else the object itself).
status_of() {
  local path=$1 status=$2 sub=${3-/status}
  kc get --raw "$path" | jq --argjson s "$status" '.status = $s' > "$E2E_DIR/obj.json"
  kc replace --raw "$path$sub" -f "$E2E_DIR/obj.json" >/dev/null ||
    e2e_fail "could not write the status of $path"
}
JOB_NS=longhorn-system BACKUP_NS=velero # where job() and backup() write
CRONJOBS=/apis/batch/v1/namespaces/longhorn-system/cronjobs
# job CRONJOB FIRE [STATUS_JSON]: the Job Kubernetes 1.21+ makes for that fire time (name in
# minutes), in JOB_NS
job() { cronjob_job "$JOB_NS" "$1" "$1-$(($2 / 60))" "${3:-}"; }
done_status() { # START END
  # As the Job controller of Kubernetes 1.31+ writes it: SuccessCriteriaMet before Complete (the
  # apiserver refuses Complete=True without it: "cannot set Complete=True condition without the
  # SuccessCriteriaMet=true condition"; 1.20 had neither rule nor condition).
  echo "{\"startTime\":\"$(at "$1")\",\"completionTime\":\"$(at "$2")\",\"succeeded\":1,\"conditions\":[{\"type\":\"SuccessCriteriaMet\",\"status\":\"True\",\"reason\":\"CompletionsReached\",\"message\":\"Reached expected number of succeeded pods\",\"lastProbeTime\":\"$(at "$2")\",\"lastTransitionTime\":\"$(at "$2")\"},{\"type\":\"Complete\",\"status\":\"True\",\"reason\":\"CompletionsReached\",\"message\":\"Reached expected number of succeeded pods\",\"lastProbeTime\":\"$(at "$2")\",\"lastTransitionTime\":\"$(at "$2")\"}]}"
}
failed_status() { # START END
  # FailureTarget before Failed, as for Complete above ("cannot set Failed=True condition without
  # the FailureTarget=true condition").
  echo "{\"startTime\":\"$(at "$1")\",\"failed\":4,\"conditions\":[{\"type\":\"FailureTarget\",\"status\":\"True\",\"reason\":\"BackoffLimitExceeded\",\"message\":\"Job has reached the specified backoff limit\",\"lastProbeTime\":\"$(at "$2")\",\"lastTransitionTime\":\"$(at "$2")\"},{\"type\":\"Failed\",\"status\":\"True\",\"reason\":\"BackoffLimitExceeded\",\"message\":\"Job has reached the specified backoff limit\",\"lastProbeTime\":\"$(at "$2")\",\"lastTransitionTime\":\"$(at "$2")\"}]}"
}
# cronjob NS NAME SCHEDULE SUSPEND [HISTORY]: the CronJob Longhorn makes for RecurringJob NAME
# (Forbid, its labels); HISTORY sets both Jobs history limits (else Kubernetes' defaults)
cronjob() {
  local hist=""
  [ -z "${5:-}" ] || hist="successfulJobsHistoryLimit: $5, failedJobsHistoryLimit: $5, "
  assert_ok kc apply -f - <<YAML
apiVersion: batch/v1
kind: CronJob
metadata:
  name: $2
  namespace: $1
  labels: {longhorn.io/managed-by: longhorn-manager, recurring-job.longhorn.io: $2}
spec: {schedule: "$3", concurrencyPolicy: Forbid, suspend: $4, $hist
  jobTemplate: {spec: {template: {spec: {restartPolicy: OnFailure, containers: [{name: $2, image: "longhornio/longhorn-manager:v1.2.6"}]}}}}}
YAML
}
# cronjob_job NS CRONJOB NAME STATUS_JSON [manual]: a Job of CRONJOB in NS, owned by it as the
# CronJob controller makes it — or, with `manual`, as `kubectl create job --from` does (annotation
# cronjob.kubernetes.io/instantiate: manual) —, with that status
cronjob_job() {
  local ns=$1 cj=$2 name=$3 ann="{}"
  [ "${5:-}" != manual ] || ann="{cronjob.kubernetes.io/instantiate: manual}"
  kc create -f - >/dev/null <<YAML || e2e_fail "could not create Job $name"
apiVersion: batch/v1
kind: Job
metadata:
  name: $name
  namespace: $ns
  annotations: $ann
  labels: {longhorn.io/managed-by: longhorn-manager, recurring-job.longhorn.io: $cj}
  ownerReferences: [{apiVersion: batch/v1, kind: CronJob, name: $cj, uid: $(kc get cronjob -n "$ns" "$cj" -o jsonpath='{.metadata.uid}'), controller: true}]
spec:
  backoffLimit: 3
  template:
    metadata: {labels: {longhorn.io/managed-by: longhorn-manager, recurring-job.longhorn.io: $cj}}
    spec:
      restartPolicy: OnFailure
      containers: [{name: $cj, image: "longhornio/longhorn-manager:v1.2.6", command: [longhorn-manager, -d, recurring-job, $cj]}]
YAML
  [ -z "${4:-}" ] || status_of "/apis/batch/v1/namespaces/$ns/jobs/$name" "$4"
}
# backup SCHEDULE LABEL FIRE STATUS_JSON (Velero's Backups have no status subresource), in
# BACKUP_NS (default velero)
backup() {
  local name="$1-$(date -u -d "@$3" +%Y%m%d%H%M%S)" ns=${BACKUP_NS:-velero}
  kc create -f - >/dev/null <<YAML || e2e_fail "could not create Backup $name"
apiVersion: velero.io/v1
kind: Backup
metadata:
  name: $name
  namespace: $ns
  labels: {velero.io/schedule-name: $2, velero.io/storage-location: default}
spec: {includedNamespaces: [shop], ttl: 720h0m0s, storageLocation: default}
YAML
  status_of "/apis/velero.io/v1/namespaces/$ns/backups/$name" "$4" ""
}
completed() { echo "{\"phase\":\"Completed\",\"startTimestamp\":\"$(at "$1")\",\"completionTimestamp\":\"$(at "$2")\"}"; }

e2e_step "for Prometheus (the last steps): a CronJob suspended over its one fire time, PFIRE"
# Made now so that PFIRE (the next minute at least 5 s away; cron has minutes) passes while the
# steps below run. Its own namespaces PL and PV, read by the schedule-health reconciler only.
PL=$(e2e_namespace prom-lh) PV=$(e2e_namespace prom-velero)
PFIRE=$(( ($(date +%s) + 65) / 60 * 60 ))
assert_ok kc apply -f - <<YAML
apiVersion: longhorn.io/v1beta2
kind: RecurringJob
metadata: {name: snap-suspended, namespace: $PL}
spec: {name: snap-suspended, task: snapshot, cron: "$(date -u -d "@$PFIRE" +'%-M %-H') * * *", groups: [], retain: 3, concurrency: 1, labels: {}}
YAML
cronjob "$PL" snap-suspended "$(date -u -d "@$PFIRE" +'%-M %-H') * * *" true
# Issue 33 (5): a Velero Schedule due at PFIRE whose only Backup comes from Velero's backup sync
# after PFIRE (a new creationTimestamp, the startTimestamp of a run three days ago): PFIRE missed.
assert_ok kc apply -f - <<YAML
apiVersion: velero.io/v1
kind: Schedule
metadata: {name: synced, namespace: $PV}
spec: {schedule: "$(date -u -d "@$PFIRE" +'%-M %-H') * * *", template: {includedNamespaces: [shop], ttl: 720h0m0s}}
YAML

e2e_step "Longhorn: RecurringJobs, their CronJobs (one suspended, one missing) and Jobs"
assert_ok kc create namespace longhorn-system
assert_ok kc create namespace velero
assert_ok kc apply -f - <<'YAML'
apiVersion: longhorn.io/v1beta2
kind: RecurringJob
metadata: {name: backup-hourly, namespace: longhorn-system}
spec: {name: backup-hourly, task: backup, cron: "0 * * * *", groups: [default], retain: 24, concurrency: 5, labels: {}}
---
apiVersion: longhorn.io/v1beta2
kind: RecurringJob
metadata: {name: snap-paused, namespace: longhorn-system}
spec: {name: snap-paused, task: snapshot, cron: "0 * * * *", groups: [], retain: 3, concurrency: 5, labels: {}}
---
apiVersion: longhorn.io/v1beta2
kind: RecurringJob
metadata: {name: backup-orphan, namespace: longhorn-system}
spec: {name: backup-orphan, task: backup, cron: "30 * * * *", groups: [archive], retain: 3, concurrency: 5, labels: {}}
---
apiVersion: longhorn.io/v1beta2
kind: RecurringJob
metadata: {name: snap-many, namespace: longhorn-system}
spec: {name: snap-many, task: snapshot, cron: "0 * * * *", groups: [], retain: 3, concurrency: 5, labels: {}}
YAML
for cj in backup-hourly snap-paused snap-many; do
  suspend=false
  [ "$cj" = snap-paused ] && suspend=true
  cronjob longhorn-system "$cj" "0 * * * *" "$suspend" 1000
done
job backup-hourly "$F1" "$(done_status $((F1 + 3)) $((F1 + 63)))"
job backup-hourly "$F2" "$(failed_status $((F2 + 3)) $((F2 + 303)))"
status_of "$CRONJOBS/backup-hourly" "{\"lastScheduleTime\":\"$(at "$F2")\"}"
job snap-paused "$F1" "$(done_status $((F1 + 3)) $((F1 + 13)))"
status_of "$CRONJOBS/snap-paused" "{\"lastScheduleTime\":\"$(at "$F1")\"}"

e2e_step "more Jobs than one LIST page (500): 520 of no RecurringJob, named to come first"
# The LIST returns Jobs by name: every Job of the schedules above and below is on the second page,
# so a report that misses them read one page only.
for i in $(seq 1 520); do
  echo "---
apiVersion: batch/v1
kind: Job
metadata: {name: a-filler-$i, namespace: longhorn-system, labels: {app: filler}}
spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}}}"
done > "$E2E_DIR/many.yaml"
assert_ok kc create -f "$E2E_DIR/many.yaml"
job snap-many "$F1" "$(done_status $((F1 + 3)) $((F1 + 33)))"
job snap-many "$F2" "$(done_status $((F2 + 3)) $((F2 + 33)))"
job snap-many "$F3" "$(done_status $((F3 + 3)) $((F3 + 33)))"

e2e_step "volumes: one in the default group backed up, one with only a snapshot job, one new"
assert_ok kc apply -f - <<'YAML'
apiVersion: longhorn.io/v1beta2
kind: Volume
metadata: {name: pvc-default, namespace: longhorn-system, labels: {recurring-job-group.longhorn.io/default: enabled}}
spec: {size: "10737418240", numberOfReplicas: 3}
---
apiVersion: longhorn.io/v1beta2
kind: Volume
metadata: {name: pvc-scratch, namespace: longhorn-system, labels: {recurring-job.longhorn.io/snap-many: enabled}}
spec: {size: "10737418240", numberOfReplicas: 3}
---
apiVersion: longhorn.io/v1beta2
kind: Volume
metadata: {name: pvc-new, namespace: longhorn-system}
spec: {size: "10737418240", numberOfReplicas: 3}
---
apiVersion: longhorn.io/v1beta1
kind: BackupVolume
metadata: {name: pvc-default, namespace: longhorn-system}
spec: {}
YAML
status_of /apis/longhorn.io/v1beta1/namespaces/longhorn-system/backupvolumes/pvc-default \
  "{\"lastBackupName\":\"backup-1\",\"lastBackupAt\":\"$(at $((F2 + 60)))\"}"

e2e_step "Velero: a schedule whose last Backup PartiallyFailed and the next runs, a long name"
assert_ok kc apply -f - <<YAML
apiVersion: velero.io/v1
kind: Schedule
metadata: {name: nightly, namespace: velero}
spec: {schedule: "0 * * * *", template: {includedNamespaces: [shop], ttl: 720h0m0s}}
---
apiVersion: velero.io/v1
kind: Schedule
metadata: {name: $LONG, namespace: velero}
spec: {schedule: "0 * * * *", template: {includedNamespaces: [shop], ttl: 720h0m0s}}
YAML
backup nightly nightly "$F1" "$(completed $((F1 + 1)) $((F1 + 61)))"
backup nightly nightly "$F2" "{\"phase\":\"PartiallyFailed\",\"startTimestamp\":\"$(at $((F2 + 1)))\",\"completionTimestamp\":\"$(at $((F2 + 90)))\",\"errors\":2,\"warnings\":1}"
backup nightly nightly "$F3" "{\"phase\":\"InProgress\",\"startTimestamp\":\"$(at $((F3 + 1)))\"}"
for f in "$F1" "$F2" "$F3"; do backup "$LONG" "$LONG_LABEL" "$f" "$(completed $((f + 1)) $((f + 41)))"; done
# a Backup of no schedule is not listed (label selector) and changes nothing
assert_ok kc apply -f - <<'YAML'
apiVersion: velero.io/v1
kind: Backup
metadata: {name: manual-1, namespace: velero}
spec: {includedNamespaces: [shop]}
YAML

e2e_step "the ClusterRole of deploy/monitoring/status-rbac.yaml is all cron status needs"
assert_ok kc apply -f "$CW_SOURCE_DIR/deploy/monitoring/status-rbac.yaml"
assert_ok kc create clusterrolebinding cronwarden-schedule-status-nobody \
  --clusterrole=cronwarden-schedule-status --user=nobody
# every object's resourceVersion: a list's own moves with any write anywhere in the cluster
versions() {
  kc get recurringjobs.longhorn.io,cronjobs,jobs,volumes.longhorn.io,backupvolumes.longhorn.io \
    -n longhorn-system -o jsonpath='{range .items[*]}{.metadata.name} {.metadata.resourceVersion}{"\n"}{end}'
  kc get schedules.velero.io,backups.velero.io -n velero \
    -o jsonpath='{range .items[*]}{.metadata.name} {.metadata.resourceVersion}{"\n"}{end}'
}
RV_BEFORE=$(versions | md5sum)
# exit 1: unhealthy schedules and an unprotected volume
assert_fails cw cron status --kubeconfig "$CW_E2E_DIR/kubeconfig-nobody" --now "$NOW" -o json --volumes
LIVE=$(printf '%s\n' "$E2E_OUT" | sed -n '/^{/,$p')
state() { jq -r --arg n "$1" '.schedules[] | select(.name == $n) | "\(.state) \(.missedRuns) \(.consecutiveFailures)"' <<<"$LIVE"; }
assert_eq "Failing 1 1" "$(state backup-hourly)" "backup-hourly: F2 failed, F3 missed"
assert_eq "controller-down $(at "$F3")" "$(jq -r '.schedules[] | select(.name == "backup-hourly") | .missed[0] | "\(.reason) \(.at)"' <<<"$LIVE")" "F3 without a Job"
assert_eq "Suspended 2 0" "$(state snap-paused)" "snap-paused: F2 and F3 missed while suspended"
assert_eq "suspended suspended" "$(jq -r '[.schedules[] | select(.name == "snap-paused") | .missed[].reason] | join(" ")' <<<"$LIVE")" "missed while suspended"
assert_eq "NoCronJob" "$(state backup-orphan | cut -d' ' -f1)" "a RecurringJob without its CronJob"
assert_eq "Healthy 0 0" "$(state snap-many)" "snap-many: three runs on time, read from the second page"
assert_eq "Failing 0 1" "$(state nightly)" "nightly: PartiallyFailed, then one in progress"
assert_eq "PartiallyFailed: 2 errors, 1 warning" "$(jq -r '.schedules[] | select(.name == "nightly") | .lastFailure.reason' <<<"$LIVE")" "Velero's counts"
assert_eq "1" "$(jq '.schedules[] | select(.name == "nightly") | .running.count' <<<"$LIVE")" "the InProgress Backup"
assert_eq "Healthy 0 0" "$(state "$LONG")" "a long schedule name and Velero's hashed label"
assert_eq '[3,1,1]' "$(jq -c '[.summary.volumes, .summary.unprotected, .summary.stale]' <<<"$LIVE")" "three volumes"
# pvc-new has had an hourly backup job for over 3 hours and no backup: stale
assert_eq "Protected Stale Unprotected" "$(jq -r '[.volumes[] | .state] | join(" ")' <<<"$LIVE")" "pvc-default, pvc-new, pvc-scratch"
assert_eq "$RV_BEFORE" "$(versions | md5sum)" "nothing written"

e2e_step "the same objects exported to files give the same report"
mkdir -p "$E2E_DIR/export"
kc get recurringjobs.longhorn.io,cronjobs,jobs,volumes.longhorn.io,backupvolumes.longhorn.io,backups.longhorn.io \
  -n longhorn-system -o yaml > "$E2E_DIR/export/longhorn.yaml"
kc get schedules.velero.io -n velero -o yaml > "$E2E_DIR/export/schedules.yaml"
kc get backups.velero.io -n velero -l velero.io/schedule-name -o yaml > "$E2E_DIR/export/backups.yaml"
assert_fails cw cron status -f "$E2E_DIR/export" --now "$NOW" -o json --volumes
FILES=$(printf '%s\n' "$E2E_OUT" | sed -n '/^{/,$p')
assert_eq "$(jq -cS . <<<"$FILES")" "$(jq -cS . <<<"$LIVE")" "live report equals the files' report"
assert_fails --match "6 schedules, 4 unhealthy; 3 volumes, 1 unprotected, 1 stale" \
  cw cron status --kubeconfig "$CW_E2E_DIR/kubeconfig-nobody" --now "$NOW"

e2e_step "the controller's schedule-health reconciler: a failed run, a missed run, a stuck backup, an unprotected volume"
# Its own namespaces (--longhorn-namespace, --namespace), so its series and Events are exactly
# these; judged on the real clock (the controller has no --now): FIRE is the next minute at least
# 20 s away, the grace 30 s (--schedule-health-grace). The test plays the CronJob controller (the
# Job of FIRE, failed) and Velero (a Backup running for 2 hours where 10 minutes is usual).
SH_LH=lh-health SH_VE=velero-health
FIRE=$(( ($(date +%s) + 80) / 60 * 60 ))
AT_FIRE="$(date -u -d "@$FIRE" +'%-M %-H') * * *"
AT_NOON="$(date -u -d "@$FIRE" +'%-M') $(( ($(date -u -d "@$FIRE" +%-H) + 12) % 24 )) * * *"
assert_ok kc create namespace "$SH_LH"
assert_ok kc create namespace "$SH_VE"
sed "s/namespace: longhorn-system/namespace: $SH_LH/" "$CW_SOURCE_DIR/deploy/controller/rbac-schedulehealth.yaml" > "$E2E_DIR/rbac-sh.yaml"
assert_ok kc apply -f "$E2E_DIR/rbac-sh.yaml"
assert_ok kc create clusterrolebinding sh-controller --clusterrole=cronwarden-controller-schedulehealth --user=controller
assert_ok kc create rolebinding sh-controller -n "$SH_LH" --role=cronwarden-controller-schedulehealth --user=controller
assert_ok kc apply -f - <<YAML
apiVersion: longhorn.io/v1beta2
kind: RecurringJob
metadata: {name: backup-failing, namespace: $SH_LH}
spec: {name: backup-failing, task: backup, cron: "$AT_FIRE", groups: [default], retain: 3, concurrency: 1, labels: {}}
---
apiVersion: longhorn.io/v1beta2
kind: RecurringJob
metadata: {name: snap-suspended, namespace: $SH_LH}
spec: {name: snap-suspended, task: snapshot, cron: "$AT_FIRE", groups: [], retain: 3, concurrency: 1, labels: {}}
---
apiVersion: longhorn.io/v1beta2
kind: Volume
metadata: {name: pvc-default, namespace: $SH_LH}
spec: {numberOfReplicas: 3, size: "1073741824"}
---
apiVersion: longhorn.io/v1beta2
kind: Volume
metadata: {name: pvc-snap-only, namespace: $SH_LH, labels: {recurring-job.longhorn.io/snap-suspended: enabled}}
spec: {numberOfReplicas: 3, size: "1073741824"}
---
apiVersion: velero.io/v1
kind: Schedule
metadata: {name: nightly-stuck, namespace: $SH_VE}
spec: {schedule: "$AT_NOON", template: {includedNamespaces: [shop], ttl: 720h0m0s}}
YAML
for cj in backup-failing snap-suspended; do
  suspend=false
  [ "$cj" = snap-suspended ] && suspend=true
  cronjob "$SH_LH" "$cj" "$AT_FIRE" "$suspend"
done
# Velero's runs: yesterday's took 10 minutes; today's has run for 2 hours (stuck after 25m).
NOW_S=$(date +%s)
OK_START=$((NOW_S - 86400)) RUN_START=$((NOW_S - 7200))
BACKUP_NS=$SH_VE
backup nightly-stuck nightly-stuck "$OK_START" "$(completed "$OK_START" $((OK_START + 600)))"
backup nightly-stuck nightly-stuck "$RUN_START" "{\"phase\":\"InProgress\",\"startTimestamp\":\"$(at "$RUN_START")\"}"

# sh_ctl NAME: the controller as user controller (the roles above only), metrics on a free port;
# SH_METRICS: its address (what a Prometheus of tests/e2e/prometheus.sh scrapes).
sh_ctl() {
  e2e_bg "$1" "$CW_BINARY" controller --controllers schedule-health \
    --kubeconfig "$CW_E2E_DIR/kubeconfig-controller" --longhorn-namespace "$SH_LH" --namespace "$SH_VE" \
    --schedule-health-grace 30s --leader-elect=false --metrics-listen 127.0.0.1:0 --log-level debug
  wait_for 30 "$1 to listen" grep -q 'metrics_port=' "$CW_E2E_DIR/logs/$1.log"
  SH_METRICS=127.0.0.1:$(grep -o 'metrics_port=[0-9]*' "$CW_E2E_DIR/logs/$1.log" | sed -n 1p | cut -d= -f2)
  wait_for 30 "$1 /readyz" curl -fsS "http://$SH_METRICS/readyz"
}
# the schedule-health series, "name{labels} value" a line, sorted
sh_series() { curl -fsS "http://$SH_METRICS/metrics" | grep -E '^cronwarden_(schedule|volumes)_' | sort; }
sh_value() { sh_series | awk -v s="$1" '$1 == s {printf "%.0f\n", $2}'; }
# every series but the moving ones (the stuck run's seconds, nightly-stuck's next fire)
sh_fixed() { sh_series | grep -v -e "running_seconds{$SCH" -e "next_run_timestamp_seconds{$SCH" | awk '{printf "%s %.0f\n", $1, $2}'; }
# for wait_for (which runs a command again and again, so the reading happens inside it)
sh_has() { [ -n "$(sh_value "$1")" ]; }
sh_is() { [ "$(sh_value "$1")" = "$2" ]; }
sh_all() { [ "$(sh_fixed | wc -l)" = "$1" ]; }
sh_said() { [ -n "$(sh_events "$1" "$2")" ]; }
sh_events() { # NAMESPACE REASON: "Kind/name type count: message" of its Events, sorted
  kc get events -n "$1" --field-selector "reason=$2" -o json |
    jq -r '.items[] | "\(.involvedObject.kind)/\(.involvedObject.name) \(.type) \(.count): \(.message)"' | sort
}
RJS='kind="RecurringJob",namespace="lh-health"'
SCH='kind="Schedule",namespace="velero-health"'
sh_ctl sh-ctl
wait_for 20 "the stuck Backup's series" sh_has "cronwarden_schedule_running_seconds{$SCH,name=\"nightly-stuck\"}"
running=$(sh_value "cronwarden_schedule_running_seconds{$SCH,name=\"nightly-stuck\"}")
[ "$running" -ge 7200 ] && [ "$running" -lt 7500 ] || e2e_fail "running_seconds $running, want 2h and a little"
assert_eq 1500 "$(sh_value "cronwarden_schedule_stuck_after_seconds{$SCH,name=\"nightly-stuck\"}")" "stuck after twice 10m, at least 10m + 15m"
assert_eq 1 "$(sh_value "cronwarden_volumes_unprotected{namespace=\"lh-health\"}")" "pvc-snap-only: only a snapshot job"

# FIRE: the test plays the CronJob controller for backup-failing (its Job fails); snap-suspended's
# CronJob is suspended, so nothing runs for it.
while [ "$(date +%s)" -le "$FIRE" ]; do sleep 1; done
JOB_NS=$SH_LH
job backup-failing "$FIRE" "$(failed_status $((FIRE + 1)) $((FIRE + 3)))"
wait_for 60 "the missed run of snap-suspended (FIRE + 30s grace, on the controller's timer)" \
  sh_is "cronwarden_schedule_missed_runs_total{$RJS,name=\"snap-suspended\"}" 1
cat > "$E2E_DIR/sh-want" <<WANT
cronwarden_schedule_consecutive_failures{$RJS,name="backup-failing"} 1
cronwarden_schedule_consecutive_failures{$RJS,name="snap-suspended"} 0
cronwarden_schedule_consecutive_failures{$SCH,name="nightly-stuck"} 0
cronwarden_schedule_last_failure_timestamp_seconds{$RJS,name="backup-failing"} $((FIRE + 3))
cronwarden_schedule_last_failure_timestamp_seconds{$RJS,name="snap-suspended"} 0
cronwarden_schedule_last_failure_timestamp_seconds{$SCH,name="nightly-stuck"} 0
cronwarden_schedule_last_missed_timestamp_seconds{$RJS,name="backup-failing"} 0
cronwarden_schedule_last_missed_timestamp_seconds{$RJS,name="snap-suspended"} $FIRE
cronwarden_schedule_last_missed_timestamp_seconds{$SCH,name="nightly-stuck"} 0
cronwarden_schedule_last_success_timestamp_seconds{$RJS,name="backup-failing"} 0
cronwarden_schedule_last_success_timestamp_seconds{$RJS,name="snap-suspended"} 0
cronwarden_schedule_last_success_timestamp_seconds{$SCH,name="nightly-stuck"} $((OK_START + 600))
cronwarden_schedule_missed_runs_total{$RJS,name="backup-failing"} 0
cronwarden_schedule_missed_runs_total{$RJS,name="snap-suspended"} 1
cronwarden_schedule_missed_runs_total{$SCH,name="nightly-stuck"} 0
cronwarden_schedule_next_run_timestamp_seconds{$RJS,name="backup-failing"} $((FIRE + 86400))
cronwarden_schedule_next_run_timestamp_seconds{$RJS,name="snap-suspended"} 0
cronwarden_schedule_running_seconds{$RJS,name="backup-failing"} 0
cronwarden_schedule_running_seconds{$RJS,name="snap-suspended"} 0
cronwarden_schedule_stuck_after_seconds{$RJS,name="backup-failing"} 86400
cronwarden_schedule_stuck_after_seconds{$RJS,name="snap-suspended"} 86400
cronwarden_schedule_stuck_after_seconds{$SCH,name="nightly-stuck"} 1500
cronwarden_volumes_stale{namespace="lh-health"} 0
cronwarden_volumes_unprotected{namespace="lh-health"} 1
WANT
assert_eq "$(sort "$E2E_DIR/sh-want")" "$(sh_fixed)" "the series of the three schedules and the volumes"
FAILED_MSG="run backup-failing-$((FIRE / 60)) failed at $(at $((FIRE + 3))): BackoffLimitExceeded: Job has reached the specified backoff limit (1 failed in a row)"
MISSED_MSG="missed the run of $(at "$FIRE") (suspended): the CronJob is suspended"
wait_for 10 "the Events" sh_said "$SH_LH" ScheduleMissedRun
assert_eq "RecurringJob/backup-failing Warning 1: $FAILED_MSG" "$(sh_events "$SH_LH" ScheduleRunFailed)" "one Event for the failed run"
assert_eq "RecurringJob/snap-suspended Warning 1: $MISSED_MSG" "$(sh_events "$SH_LH" ScheduleMissedRun)" "one Event for the missed run"

e2e_step "schedule-health restarted: the same series, no Event posted twice"
e2e_stop sh-ctl
sh_ctl sh-ctl-2
wait_for 20 "the restarted controller's series" sh_all "$(wc -l < "$E2E_DIR/sh-want")"
assert_eq "$(sort "$E2E_DIR/sh-want")" "$(sh_fixed)" "after a restart: the missed run (none succeeded since) counted again"
assert_eq "RecurringJob/backup-failing Warning 1: $FAILED_MSG" "$(sh_events "$SH_LH" ScheduleRunFailed)" "the failed run: still one Event"
assert_eq "RecurringJob/snap-suspended Warning 1: $MISSED_MSG" "$(sh_events "$SH_LH" ScheduleMissedRun)" "the missed run: still one Event"
assert_eq 0 "$(kc get events -n "$SH_VE" -o json | jq '.items | length')" "a stuck run says no Event"

e2e_step "Prometheus: the schedule-health reconciler scraped; a failed run, a stuck Backup, an unprotected volume"
# The controller (schedule-health only, in PL and PV, grace 2 s) on CTL_PORT, which Prometheus has
# scraped since the start. The test plays the CronJob controller and Velero: a Job of
# backup-failing made by hand and failed; nightly-stuck's last Backup took 10 minutes, this one has
# run for 2 hours (stuck after 25 minutes); bare has only a snapshot job. Daily fire times 12
# hours away: none passes during the test.
NOW_S=$(date +%s)
AWAY="0 $(( ($(date -u +%-H) + 12) % 24 )) * * *"
STUCK=$((NOW_S - 7200))
assert_ok kc apply -f - <<YAML
apiVersion: longhorn.io/v1beta2
kind: RecurringJob
metadata: {name: backup-failing, namespace: $PL}
spec: {name: backup-failing, task: backup, cron: "$AWAY", groups: [], retain: 3, concurrency: 1, labels: {}}
---
apiVersion: longhorn.io/v1beta2
kind: Volume
metadata: {name: bare, namespace: $PL, labels: {recurring-job.longhorn.io/snap-suspended: enabled}}
spec: {size: "10737418240", numberOfReplicas: 3}
---
apiVersion: velero.io/v1
kind: Schedule
metadata: {name: nightly-stuck, namespace: $PV}
spec: {schedule: "$AWAY", template: {includedNamespaces: [shop], ttl: 720h0m0s}}
YAML
# manual_job CRONJOB NAME STATUS_JSON: a Job of CRONJOB in PL as `kubectl create job --from` makes it
manual_job() { cronjob_job "$PL" "$1" "$2" "$3" manual; }
cronjob "$PL" backup-failing "$AWAY" false
manual_job backup-failing backup-failing-1 "$(failed_status $((NOW_S - 300)) $((NOW_S - 60)))"
BACKUP_NS=$PV backup nightly-stuck nightly-stuck $((NOW_S - 86400)) "$(completed $((NOW_S - 86400)) $((NOW_S - 86400 + 600)))"
BACKUP_NS=$PV backup nightly-stuck nightly-stuck "$STUCK" "{\"phase\":\"InProgress\",\"startTimestamp\":\"$(at "$STUCK")\"}"
# the synced Backup, made after PFIRE as backup sync would make it
while [ "$(date +%s)" -le "$PFIRE" ]; do sleep 1; done
SYNCED_START=$((PFIRE - 3 * 86400))
BACKUP_NS=$PV backup synced synced "$SYNCED_START" "$(completed "$SYNCED_START" $((SYNCED_START + 600)))"
prom_ctl() {
  e2e_bg "$1" "$CW_BINARY" controller --controllers schedule-health --longhorn-namespace "$PL" --namespace "$PV" \
    --schedule-health-grace 2s --kubeconfig "$CW_E2E_DIR/kubeconfig" --leader-election-namespace "$PL" \
    --lease-duration 3s --metrics-listen "127.0.0.1:$CTL_PORT"
}
prom_ctl prom-ctl1
prom_targets "127.0.0.1:$CTL_PORT" # again, in case a step before pointed Prometheus elsewhere
prom_wait_target_up 30
prom_wait_value "cronwarden_controller_leader{job=\"$PROM_JOB\"}" 1 20
prom_wait_alert CronwardenControllerDown inactive "" 20
prom_schedule_alert CronwardenScheduleRunFailed RecurringJob "$PL" backup-failing firing
prom_schedule_alert CronwardenScheduleRunningLong Schedule "$PV" nightly-stuck firing
assert_contains "$(jq -r '.[0].annotations.summary' <<<"$PROM_ALERTS")" "Schedule $PV/nightly-stuck has been running for 2h" "RunningLong's summary"
prom_volumes_alert CronwardenVolumesUnprotected "$PL" firing
assert_contains "$(jq -r '.[0].annotations.summary' <<<"$PROM_ALERTS")" "1 Longhorn volumes in $PL have no backup job" "Unprotected's summary"
prom_schedule_alert CronwardenScheduleNoNextRun RecurringJob "$PL" snap-suspended firing

e2e_step "Prometheus: recovery — a run succeeds, the Backup completes, the volume gets a backup job: resolved"
NOW_S=$(date +%s)
manual_job backup-failing backup-failing-2 "$(done_status $((NOW_S - 30)) "$NOW_S")"
status_of "/apis/velero.io/v1/namespaces/$PV/backups/nightly-stuck-$(date -u -d "@$STUCK" +%Y%m%d%H%M%S)" "$(completed "$STUCK" "$NOW_S")" ""
assert_ok kc label volumes.longhorn.io -n "$PL" bare recurring-job.longhorn.io/backup-failing=enabled
prom_schedule_alert CronwardenScheduleRunFailed RecurringJob "$PL" backup-failing resolved
prom_schedule_alert CronwardenScheduleRunningLong Schedule "$PV" nightly-stuck resolved
prom_volumes_alert CronwardenVolumesUnprotected "$PL" resolved

e2e_step "Prometheus: CronwardenControllerDown fires when the controller dies, resolves when a new one leads"
PID=$(e2e_bg_pid prom-ctl1)
kill -KILL "$PID" && { wait "$PID" || true; } 2>/dev/null
prom_wait_alert CronwardenControllerDown firing "" 30
assert_eq critical "$(jq -r '.[0].labels.severity' <<<"$PROM_ALERTS")" "ControllerDown's severity"
assert_contains "$(jq -r '.[0].annotations.description' <<<"$PROM_ALERTS")" "Run next:" "ControllerDown says what to run"
assert_eq 0 "$(prom_value "up{job=\"$PROM_JOB\"}")" "the target is down"
prom_ctl prom-ctl2
prom_wait_alert CronwardenControllerDown resolved "" 30
assert_eq 1 "$(prom_value "cronwarden_controller_leader{job=\"$PROM_JOB\"}")" "the restarted controller leads"

e2e_step "Prometheus: PFIRE missed while snap-suspended's CronJob was suspended; resumed and a run succeeds: resolved"
# Found by the controller once PFIRE's grace is over (on its timer, or on a first look after it);
# the rule compares PFIRE with the last success's end, so a run that succeeds in the same minute
# the alert fires resolves it (a rule that took the minute the miss was seen for its time did not).
# The synced Backup is no run of PFIRE: its time is its startTimestamp (docs/status.md).
prom_schedule_alert CronwardenScheduleMissedRun Schedule "$PV" synced firing 30
assert_eq 1 "$(prom_value "cronwarden_schedule_missed_runs_total{kind=\"Schedule\",namespace=\"$PV\",name=\"synced\"}")" "synced: PFIRE missed, once"
assert_eq "$PFIRE" "$(prom_value "cronwarden_schedule_last_missed_timestamp_seconds{kind=\"Schedule\",namespace=\"$PV\",name=\"synced\"}")" "synced: the fire time missed"
assert_eq "$((SYNCED_START + 600))" "$(prom_value "cronwarden_schedule_last_success_timestamp_seconds{kind=\"Schedule\",namespace=\"$PV\",name=\"synced\"}")" "synced: the last success three days ago"
assert_eq "Schedule/synced Warning" "$(kc get events -n "$PV" --field-selector reason=ScheduleMissedRun -o json | jq -r '.items[] | "\(.involvedObject.kind)/\(.involvedObject.name) \(.type)"')" "synced: the missed run's Event"
prom_schedule_alert CronwardenScheduleMissedRun RecurringJob "$PL" snap-suspended firing \
  $(( PFIRE > $(date +%s) ? PFIRE - $(date +%s) + 30 : 30 ))
FIRED_S=$(date +%s)
assert_eq 1 "$(prom_value "cronwarden_schedule_missed_runs_total{kind=\"RecurringJob\",namespace=\"$PL\",name=\"snap-suspended\"}")" "PFIRE missed, once"
assert_eq "$PFIRE" "$(prom_value "cronwarden_schedule_last_missed_timestamp_seconds{kind=\"RecurringJob\",namespace=\"$PL\",name=\"snap-suspended\"}")" "the fire time missed"
assert_ok kc patch cronjobs.batch -n "$PL" snap-suspended --type merge -p '{"spec":{"suspend":false}}'
NOW_S=$(date +%s)
manual_job snap-suspended snap-suspended-1 "$(done_status "$NOW_S" "$NOW_S")"
[ $((NOW_S - FIRED_S)) -lt 60 ] || e2e_fail "the success came $((NOW_S - FIRED_S)) s after the alert fired, not within its minute"
prom_schedule_alert CronwardenScheduleMissedRun RecurringJob "$PL" snap-suspended resolved
prom_schedule_alert CronwardenScheduleNoNextRun RecurringJob "$PL" snap-suspended resolved
# the restarted process exports the recovered schedules and keeps their alerts quiet
prom_wait_series "cronwarden_schedule_consecutive_failures{namespace=\"$PL\",name=\"backup-failing\"}" 20
for a in CronwardenScheduleRunFailed CronwardenScheduleRunningLong CronwardenVolumesUnprotected; do
  prom_wait_alert "$a" inactive "" 10
done
e2e_stop prom-ctl2 # before Velero's CRDs go

e2e_step "the default reconcilers: one informer per resource, namespace and selectors; no two /metrics series the same"
# Namespaces with nothing in them: the reconcilers find nothing to write, their informers run all
# the same (the RecurringJobs read by three reconcilers, Volumes and the DaemonSet by two).
# Issue 33 (4): two Velero Schedules whose names share their first 250 characters, each with a
# Backup failed in the same second: two Warning Events, not one (their names hash the whole
# identity). Velero labels a Backup with its schedule's name, cut to 57 characters and six hex
# digits of its sha256 past 63 (label.GetValidName), which cron status reads already ($LONG).
assert_ok kc create namespace dflt-ve
TWIN=nightly-$(printf 'a%.0s' $(seq 242))
FAILED_AT=$(( ($(date +%s) - 60) / 3600 * 3600 )) # a fire time at least a minute past
for t in 1 2; do
  label=${TWIN:0:57}$(printf '%s' "$TWIN-$t" | sha256sum | cut -c1-6)
  assert_ok kc apply -f - <<YAML
apiVersion: velero.io/v1
kind: Schedule
metadata: {name: $TWIN-$t, namespace: dflt-ve}
spec: {schedule: "0 * * * *", template: {includedNamespaces: [shop], ttl: 720h0m0s}}
---
apiVersion: velero.io/v1
kind: Backup
metadata: {name: twin-$t, namespace: dflt-ve, labels: {velero.io/schedule-name: $label, velero.io/storage-location: default}}
spec: {includedNamespaces: [shop]}
YAML
  status_of "/apis/velero.io/v1/namespaces/dflt-ve/backups/twin-$t" \
    "{\"phase\":\"Failed\",\"startTimestamp\":\"$(at $((FAILED_AT + 1)))\",\"completionTimestamp\":\"$(at $((FAILED_AT + 20)))\",\"failureReason\":\"the storage location is unavailable\"}" ""
done
e2e_bg dflt-ctl "$CW_BINARY" controller --longhorn-namespace dflt-lh --namespace dflt-ve \
  --kubeconfig "$CW_E2E_DIR/kubeconfig" --leader-elect=false --metrics-listen 127.0.0.1:0
wait_for 30 "dflt-ctl to listen" grep -q 'metrics_port=' "$(log_of dflt-ctl)"
wait_for 30 "dflt-ctl /readyz" curl -fsS "http://127.0.0.1:$(port_of dflt-ctl)/readyz"
curl -fsS "http://127.0.0.1:$(port_of dflt-ctl)/metrics" >"$E2E_DIR/dflt-metrics"
DUPS=$(grep -v '^#' "$E2E_DIR/dflt-metrics" | awk '{print $1}' | sort | uniq -d)
[ -z "$DUPS" ] || e2e_fail "series written twice: $DUPS"
# one series per informer started (each says "cache synced" once): none overwritten by another
STARTED=$(grep -c 'msg="cache synced"' "$(log_of dflt-ctl)")
assert_eq 11 "$STARTED" "informers of the default reconcilers: $(grep -h '^cronwarden_controller_informer_synced' "$E2E_DIR/dflt-metrics")"
for family in synced objects missing; do
  assert_eq "$STARTED" "$(grep -c "^cronwarden_controller_informer_$family{" "$E2E_DIR/dflt-metrics")" "informer_$family series"
done
assert_eq "$STARTED" "$(metric_sum dflt-ctl cronwarden_controller_informer_synced)" "every informer synced"
assert_eq 1 "$(grep -c '^cronwarden_controller_informer_synced{resource="recurringjobs",group="longhorn.io",version="v1beta[12]",namespace="dflt-lh",label_selector="",field_selector=""} 1$' "$E2E_DIR/dflt-metrics")" "the RecurringJobs, once"
twins() { kc get events -n dflt-ve --field-selector reason=ScheduleRunFailed -o json |
  jq -r '[.items[] | select(.involvedObject.name | startswith("nightly-aaa"))] | "\(length) \(map(.metadata.name) | unique | length) \(map(.involvedObject.name[-2:]) | sort | join(" ")) \(map(.metadata.name | length <= 253) | all)"'; }
twins_posted() { [ "$(kc get events -n dflt-ve --field-selector reason=ScheduleRunFailed -o name | wc -l)" -ge 2 ]; }
wait_for 30 "the two Schedules' Events" twins_posted
assert_eq "2 2 -1 -2 true" "$(twins)" "two Events, two names of at most 253 characters, one per Schedule"
e2e_stop dflt-ctl

e2e_step "a cluster without Velero: its rows are left out, not an error"
assert_ok kc delete crd schedules.velero.io backups.velero.io
kc wait --for=delete crd/schedules.velero.io crd/backups.velero.io --timeout=60s >/dev/null 2>&1 || true
OUT=$(cw cron status --kubeconfig "$CW_E2E_DIR/kubeconfig-nobody" --now "$NOW" -o json 2>"$E2E_DIR/err") || true
assert_eq "0" "$(jq '[.schedules[] | select(.kind == "Schedule")] | length' <<<"$OUT")" "no Velero Schedules"
assert_contains "$(cat "$E2E_DIR/err")" 'msg="not served, skipped" resource=schedules group=velero.io' "said at info level"
# the controller keeps serving without Velero (its half is optional): ready, Longhorn's series stay
assert_ok curl -fsS "http://$SH_METRICS/readyz"
assert_eq 1 "$(sh_value "cronwarden_volumes_unprotected{namespace=\"lh-health\"}")" "Longhorn's half still reported"

e2e_step "a user without the role is refused with the API server's reason"
assert_ok kc delete clusterrolebinding cronwarden-schedule-status-nobody
assert_fails --match forbidden cw cron status --kubeconfig "$CW_E2E_DIR/kubeconfig-nobody" --now "$NOW"
