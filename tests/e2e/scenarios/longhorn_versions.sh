#!/usr/bin/env bash
# Longhorn's own CRDs, as each release cronwarden claims installs them (tests/fixtures/longhorn-*/),
# on a real kube-apiserver 1.20 — not cronwarden's copies in crds/:
#  - every release's CRDs are created and Established; a RecurringJob's spec.name is pruned by
#    1.2.6's v1beta1 schema and kept by every later release, in each version it serves;
#  - on Longhorn 1.2.6's CRDs with the webhook registered: a RecurringJob written as Longhorn 1.2's
#    documentation writes it (no spec.name) is admitted, defaulted and edited; `cronwarden
#    migrate` over legacy volumes creates RecurringJobs (named by metadata.name, no spec.name),
#    reuses one that is there under its name, labels the volumes, and a rerun writes nothing.
. "$(dirname "$0")/../lib.sh"

e2e_start
NS=longhorn-system
kc create namespace "$NS" >/dev/null || e2e_fail "cannot create namespace $NS"

# rj VERSION NAME [SPEC-NAME]: a RecurringJob in longhorn.io/VERSION, with spec.name when given.
rj() {
  cat <<EOF
{"apiVersion": "longhorn.io/$1", "kind": "RecurringJob", "metadata": {"name": "$2", "namespace": "$NS"},
 "spec": {${3:+"name": "$3", }"task": "snapshot", "cron": "0 1 * * *", "retain": 2, "concurrency": 1, "groups": [], "labels": {}}}
EOF
}
spec_name() { kc get "recurringjobs.$1.longhorn.io" -n "$NS" "$2" -o json | jq -c '.spec.name'; }

for v in 1.12.1 1.11.3 1.10.2 1.9.3 1.8.2 1.7.4 1.6.4 1.5.5 1.4.4 1.3.3 1.2.6; do
  e2e_step "Longhorn $v's CRDs: created, Established, and what happens to spec.name"
  lh_apply_crds "$v"
  served=$(kc get crd recurringjobs.longhorn.io -o json | jq -r '[.spec.versions[] | select(.served) | .name] | join(" ")')
  for av in $served; do
    assert_ok kc create -f <(rj "$av" "named-$av" "named-$av")
    want='"named-'$av'"'
    [ "$v" = 1.2.6 ] && want=null
    assert_eq "$want" "$(spec_name "$av" "named-$av")" "Longhorn $v, $av: spec.name after create"
  done
  case $v in
    1.2.6) assert_eq v1beta1 "$served" "1.2.6 serves v1beta1 only" ;;
    1.3.3 | 1.4.4 | 1.5.5 | 1.6.4 | 1.7.4 | 1.8.2) assert_eq "v1beta1 v1beta2" "$served" "$v serves both" ;;
    *) assert_eq v1beta2 "$served" "$v serves v1beta2 only" ;;
  esac
done

e2e_step "Longhorn 1.2.6: legacy volumes of a cluster being upgraded, one RecurringJob already there"
# Seeded before the webhook is registered, as on a cluster that ran Longhorn 1.1: the webhook
# refuses new legacy spec.recurringJobs.
vol() { # vol NAME JOBS-JSON
  echo '{"apiVersion": "longhorn.io/v1beta1", "kind": "Volume", "metadata": {"name": "'"$1"'", "namespace": "'"$NS"'"},
  "spec": {"size": "1073741824", "numberOfReplicas": 3, "recurringJobs": '"$2"'}}'
}
SNAP='{"name": "s6", "task": "snapshot", "cron": "0 */6 * * *", "retain": 4}'
GOLD='{"name": "gold", "task": "backup", "cron": "0 2 * * *", "retain": 7, "labels": {"tier": "gold"}}'
assert_ok kc create -f <(vol pvc-a "[$SNAP, $GOLD]")
assert_ok kc create -f <(vol pvc-b "[$SNAP]")
assert_eq 2 "$(kc get volumes.longhorn.io -n "$NS" pvc-a -o json | jq '.spec.recurringJobs | length')" \
  "1.2.6's Volume keeps legacy spec.recurringJobs"
# The snapshot job's migrated name, made by hand before the upgrade (spec.name pruned).
N_SNAP=snapshot-4-0520073e-8a390c6d
assert_ok kc create -f - <<EOF
apiVersion: longhorn.io/v1beta1
kind: RecurringJob
metadata: {name: $N_SNAP, namespace: $NS}
spec: {name: $N_SNAP, task: snapshot, cron: "0 */6 * * *", retain: 4, concurrency: 3, groups: [], labels: {}}
EOF
assert_eq null "$(spec_name v1beta1 "$N_SNAP")" "spec.name pruned"

e2e_step "the webhook, registered for Longhorn's RecurringJobs and Volumes"
e2e_issue_cert webhook IP:127.0.0.1
PORT=$(cwc_free_port)
e2e_bg webhook "$CW_BINARY" webhook --listen "127.0.0.1:$PORT" --tls-cert-file "$CW_E2E_DIR/pki/webhook.crt" \
  --tls-private-key-file "$CW_E2E_DIR/pki/webhook.key" --threads 2
wait_for 20 "webhook /readyz" curl -fsS --cacert "$CW_E2E_SIGNING_CA" "https://127.0.0.1:$PORT/readyz"
e2e_register_webhook "https://127.0.0.1:$PORT" "$(base64 -w0 < "$CW_E2E_SIGNING_CA")"
probe() { ! kc create --dry-run=server -f <(rj v1beta1 probe | jq '.spec.cron = "0 0 * *"') >/dev/null 2>&1; }
wait_for 30 "the webhook configurations to take effect" probe

e2e_step "a RecurringJob as Longhorn 1.2's documentation writes it: admitted, defaulted, edited"
assert_ok kc create -f - <<EOF
apiVersion: longhorn.io/v1beta1
kind: RecurringJob
metadata:
  name: snapshot-1
  namespace: $NS
spec:
  cron: "* * * * *"
  task: "snapshot"
  groups:
  - default
  - group1
  retain: 1
  concurrency: 2
  labels:
    label/1: a
    label/2: b
EOF
assert_json "$(kc get lhrj -n "$NS" snapshot-1 -o json)" .spec \
  '{"concurrency":2,"cron":"* * * * *","groups":["default","group1"],"labels":{"label/1":"a","label/2":"b"},"retain":1,"task":"snapshot"}'
assert_ok kc patch lhrj -n "$NS" snapshot-1 --type merge -p '{"spec":{"cron":"*/5 * * * *","concurrency":0}}'
assert_contains "$E2E_OUT" 'Warning: spec.concurrency: 0 changed to the default 10'
assert_json "$(kc get lhrj -n "$NS" snapshot-1 -o json)" '.spec | [.cron, .concurrency, .name]' '["*/5 * * * *",10,null]'
assert_fails --match 'denied the request: spec.cron: invalid cron expression "61 * * * *"' \
  kc patch lhrj -n "$NS" snapshot-1 --type merge -p '{"spec":{"cron":"61 * * * *"}}'
assert_fails --match 'spec.name: "weekly" differs from metadata.name "snapshot-2"' \
  kc create -f <(rj v1beta1 snapshot-2 weekly)

e2e_step "cronwarden migrate over the legacy volumes"
assert_ok cw migrate --namespace "$NS" --lease-duration 3s -o json
REPORT=$E2E_OUT
assert_json "$REPORT" '[.jobs[] | {name, action}] | sort_by(.name)' \
  '[{"action":"create","name":"backup-7-7bc5443b-4bdb46c2"},{"action":"exists","name":"'$N_SNAP'"}]'
assert_json "$(kc get lhrj -n "$NS" backup-7-7bc5443b-4bdb46c2 -o json)" .spec \
  '{"concurrency":10,"cron":"0 2 * * *","groups":[],"labels":{"tier":"gold"},"retain":7,"task":"backup"}'
assert_json "$(kc get volumes.longhorn.io -n "$NS" -o json)" \
  '[.items[] | {name: .metadata.name, labels: .metadata.labels, jobs: .spec.recurringJobs}]' \
  '[{"name":"pvc-a","labels":{"recurring-job.longhorn.io/backup-7-7bc5443b-4bdb46c2":"enabled","recurring-job.longhorn.io/'$N_SNAP'":"enabled"},"jobs":null},{"name":"pvc-b","labels":{"recurring-job.longhorn.io/'$N_SNAP'":"enabled"},"jobs":null}]'

e2e_step "a rerun finds nothing to do"
assert_ok cw migrate --namespace "$NS" --lease-duration 3s --detailed-exitcode -o json
assert_json "$E2E_OUT" '[.jobs[].action] | unique' '["exists"]'
