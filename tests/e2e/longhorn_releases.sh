# Helpers of the two scenarios that run cronwarden's Longhorn reconcilers against each release's own
# CRDs and DaemonSet (scenarios/longhorn_versions.sh on Kubernetes 1.20, longhorn_current.sh on the
# current one). Source after lib.sh, with NS set to the Longhorn namespace.
# shellcheck shell=bash

# rj VERSION NAME [SPEC-NAME]: a RecurringJob in longhorn.io/VERSION, with spec.name when given.
rj() {
  jq -n --arg v "$1" --arg n "$2" --arg ns "$NS" --arg sn "${3:-}" \
    '{apiVersion: "longhorn.io/\($v)", kind: "RecurringJob", metadata: {name: $n, namespace: $ns},
      spec: ({task: "snapshot", cron: "0 1 * * *", retain: 2, concurrency: 1, groups: [], labels: {}}
             + (if $sn == "" then {} else {name: $sn} end))}'
}
spec_name() { kc get "recurringjobs.$1.longhorn.io" -n "$NS" "$2" -o json | jq -c '.spec.name'; }

FIXED=(backup-7-7bc5443b-4fc79c10 snapshot-4-0520073e-8a390c6d) # the fixtures' two jobs
# fixture_jobs API-VERSION: the RecurringJobs of tests/fixtures/longhorn-*/cronjob-*.json (kubectl's
# own field validation: strict on the current Kubernetes).
fixture_jobs() {
  kc apply -n "$NS" -f - >/dev/null <<YAML || e2e_fail "the fixtures' RecurringJobs were refused"
apiVersion: longhorn.io/$1
kind: RecurringJob
metadata: {name: ${FIXED[0]}}
spec: {task: backup, cron: "0 2 * * *", retain: 7, concurrency: 10, groups: [], labels: {}}
---
apiVersion: longhorn.io/$1
kind: RecurringJob
metadata: {name: ${FIXED[1]}}
spec: {task: snapshot, cron: "0 */6 * * *", retain: 4, concurrency: 10, groups: [], labels: {}}
YAML
}
ctl() { # ctl NAME ARGS...: cronwarden's Longhorn reconcilers, alone (no election), in the background
  local name=$1; shift
  e2e_bg "$name" "$CW_BINARY" controller --controllers recurringjob,volume --leader-elect=false \
    --metrics-listen 127.0.0.1:0 "$@"
  wait_for 10 "$name's metrics port" port_of "$name"
}
# The CronJob in the version the server serves (batch/v1beta1 on 1.20, batch/v1 on the current).
cj() { kc get cronjobs.batch -n "$NS" "$1" -o json; }
has_cj() { cj "$1" >/dev/null 2>&1; }
no_cj() { ! has_cj "$1"; }
# like_fixture VERSION [IMAGE]: the CronJobs of the fixtures' two jobs are what
# tests/fixtures/longhorn-VERSION/ holds, made with the manager image IMAGE (lh_like_fixture).
like_fixture() {
  local j
  for j in "${FIXED[@]}"; do lh_like_fixture "$1" "$NS" "$j" "${2:-}"; done
}
info() { metric_sum "$1" cronwarden_controller_longhorn_version_info "version=\"$2\",minor=\"$3\",source=\"$4\""; }
standing() { metric_sum "$1" cronwarden_controller_standing_down "controller=\"$2\",reason=\"$3\""; }
