#!/usr/bin/env bash
# Smoke: the harness works and crds/ is right on a real kube-apiserver (the current Kubernetes).
#  - the CRDs pass a server-side dry run (which stores nothing), apply, and become Established;
#  - example objects of every kind are accepted and read back unchanged, through both served
#    versions where there are two; invalid values are rejected by the schemas;
#  - the controller-manager runs: a foreground deletion of a CronJob with a dependent Job completes
#    (garbage collector) and a namespace full of custom resources finishes deleting;
#  - the extra static-token users exist and have no rights until bound; the binary under test runs.
. "$(dirname "$0")/../lib.sh"

FIX=$CW_SOURCE_DIR/tests/e2e/fixtures
e2e_start current

e2e_step "the binary under test runs"
assert_ok cw version
e2e_log "cronwarden version: $E2E_OUT"

e2e_step "server-side dry run of crds/ stores nothing"
mapfile -t CRDS < <(crd_names)
assert_eq 9 "${#CRDS[@]}" "number of CRDs in crds/"
if [ "$CW_E2E_EXTERNAL" != 1 ]; then
  assert_ok kc apply --dry-run=server -k "$CW_SOURCE_DIR/crds"
  dry=$E2E_OUT
  for crd in "${CRDS[@]}"; do
    assert_contains "$dry" "customresourcedefinition.apiextensions.k8s.io/$crd created (server dry run)"
    assert_fails --match NotFound kc get crd "$crd"
  done
  for f in "$CW_SOURCE_DIR"/crds/*.yaml; do
    [ "$(basename "$f")" = kustomization.yaml ] && continue
    assert_ok kc apply --dry-run=server -f "$f"
  done
fi

e2e_step "apply crds/ and wait until every CRD is Established"
apply_crds
for crd in "${CRDS[@]}"; do
  assert_json "$(kc get crd "$crd" -o json)" '.status.conditions[] | select(.type=="Established") | .status' True "$crd Established"
  assert_json "$(kc get crd "$crd" -o json)" '.status.conditions[] | select(.type=="NonStructuralSchema") | .status' "" "$crd has a structural schema"
done
assert_json "$(kc get crd recurringjobs.longhorn.io -o json)" '[.spec.versions[] | select(.storage) | .name]' '["v1beta2"]' "RecurringJob storage version"
assert_json "$(kc get crd volumes.longhorn.io -o json)" '[.spec.versions[] | select(.storage) | .name]' '["v1beta1"]' "Volume storage version"
assert_json "$(kc get --raw /apis/longhorn.io)" '[.versions[].version] | sort' '["v1beta1","v1beta2"]' "longhorn.io served versions"
assert_json "$(kc get --raw /apis/longhorn.io)" '.preferredVersion.version' v1beta2 "longhorn.io preferred version"
# Applying again changes nothing.
assert_ok kc apply -k "$CW_SOURCE_DIR/crds"
for crd in "${CRDS[@]}"; do assert_contains "$E2E_OUT" "$crd unchanged"; done

e2e_step "namespaces"
NS_LH=$(e2e_namespace longhorn-system)
NS_VELERO=$(e2e_namespace velero)
NS_TENANT=$(e2e_namespace tenant-shop)
sub() { sed -e "s/namespace: longhorn-system/namespace: $NS_LH/; s/namespace: velero/namespace: $NS_VELERO/; s/namespace: tenant-shop/namespace: $NS_TENANT/" "$1"; }

e2e_step "example objects: server dry run first, then for real"
for f in longhorn-recurringjobs longhorn-volumes velero-schedules velero-backups oadp-nonadminbackups; do
  assert_ok kc apply --dry-run=server -f <(sub "$FIX/$f.yaml")
done
assert_json "$(kc get lhrj -n "$NS_LH" -o json)" '.items | length' 0 "objects after a dry run"
for f in longhorn-recurringjobs longhorn-volumes velero-schedules velero-backups oadp-nonadminbackups; do
  assert_ok kc create -f <(sub "$FIX/$f.yaml")
done

e2e_step "RecurringJob: read back through both versions; parameters survive a v1beta1 write"
rj=$(kc get recurringjobs.v1beta2.longhorn.io -n "$NS_LH" nightly-backup -o json)
assert_json "$rj" .spec '{"concurrency":2,"cron":"0 2 * * *","groups":["default","gold"],"labels":{"app.example.com/tier":"gold"},"name":"nightly-backup","parameters":{"full-backup-interval":"5","volume-backup-policy":"if-not-present"},"retain":7,"task":"backup"}'
rj1=$(kc get recurringjobs.v1beta1.longhorn.io -n "$NS_LH" nightly-backup -o json)
assert_json "$rj1" .apiVersion longhorn.io/v1beta1
assert_json "$rj1" .spec.parameters '{"full-backup-interval":"5","volume-backup-policy":"if-not-present"}' "parameters seen through v1beta1"
assert_ok kc replace -f <(jq '.spec.retain = 8' <<<"$rj1")
rj=$(kc get recurringjobs.v1beta2.longhorn.io -n "$NS_LH" nightly-backup -o json)
assert_json "$rj" .spec.retain 8 "retain written through v1beta1"
assert_json "$rj" .spec.parameters '{"full-backup-interval":"5","volume-backup-policy":"if-not-present"}' "parameters after a v1beta1 write"
assert_json "$(kc get recurringjobs.v1beta2.longhorn.io -n "$NS_LH" hourly-snap -o json)" .spec.cron @hourly "v1beta1 object read through v1beta2"
assert_json "$(kc get lhrj -n "$NS_LH" snapshot-1-97893a05-77074ba4 -o json)" '.spec | [.task, .retain, .concurrency, .groups, .labels]' '["snapshot",1,10,[],{}]'
# Short name and printer columns.
assert_ok kc get lhrj -n "$NS_LH"
assert_contains "$E2E_OUT" "GROUPS"; assert_contains "$E2E_OUT" "CRON"; assert_contains "$E2E_OUT" "CONCURRENCY"
assert_ok kc get lhrj -n "$NS_LH" -o wide
assert_contains "$E2E_OUT" '{"full-backup-interval":"5","volume-backup-policy":"if-not-present"}'
# Status subresource: the main resource ignores status, /status takes it.
assert_ok kc replace --raw "/apis/longhorn.io/v1beta2/namespaces/$NS_LH/recurringjobs/nightly-backup/status" \
  -f <(jq '.status = {"ownerID": "node-1", "executionCount": 3}' <<<"$rj")
assert_json "$(kc get lhrj -n "$NS_LH" nightly-backup -o json)" .status '{"executionCount":3,"ownerID":"node-1"}'
assert_ok kc patch lhrj -n "$NS_LH" nightly-backup --type merge -p '{"status":{"executionCount":99}}'
assert_json "$(kc get lhrj -n "$NS_LH" nightly-backup -o json)" .status.executionCount 3 "status through the main resource is ignored"

e2e_step "RecurringJob: the schemas reject what they can express"
rj_bad() { # rj_bad JQ-EDIT EXPECTED-TEXT
  assert_fails --match "$2" kc create --dry-run=server --validate=false -f <(jq "$1 | del(.metadata.resourceVersion, .metadata.uid, .metadata.creationTimestamp, .metadata.managedFields, .status) | .metadata.name = (.metadata.name // \"x\")" <<<"$rj")
}
rj_bad '.metadata.name="bad-task" | .spec.task="bogus"' 'spec.task: Unsupported value: "bogus"'
rj_bad '.metadata.name="neg-retain" | .spec.retain=-1' 'spec.retain: Invalid value: -1'
rj_bad '.metadata.name="big-retain" | .spec.retain=251' 'spec.retain: Invalid value: 251'
rj_bad '.metadata.name="neg-conc" | .spec.concurrency=-1' 'spec.concurrency: Invalid value: -1'
rj_bad '.metadata.name="bad-group" | .spec.groups=["-x"]' 'spec.groups'
rj_bad '.metadata.name="bad-name" | .spec.name="Upper"' 'spec.name: Invalid value: "Upper"'
rj_bad '.metadata.name="no-cron" | del(.spec.cron)' 'spec.cron: Required value'
rj_bad '.metadata.name="empty-label" | .spec.labels={"a":""}' 'spec.labels.a'
# crds/'s maxLength on metadata.name. The message is the current Kubernetes' (1.20 said
# "metadata.name in body should be at most 40 chars long").
rj_bad '.metadata.name="a-name-that-is-much-longer-than-forty-chars"' 'metadata.name: Too long: may not be more than 40 bytes'
for t in snapshot snapshot-force-create snapshot-cleanup snapshot-delete backup backup-force-create filesystem-trim system-backup; do
  assert_ok kc create --dry-run=server -f <(jq --arg t "$t" '.metadata = {"name": "t-\($t)", "namespace": .metadata.namespace} | .spec.task = $t | .spec.name = "t-\($t)"' <<<"$rj")
done
# The same enum on the v1beta1 endpoint. (--validate=false: the server must refuse, not kubectl.)
assert_fails --match 'Unsupported value: "bogus"' kc create --dry-run=server --validate=false -f <(jq '.metadata = {"name": "b1", "namespace": .metadata.namespace} | .spec.task = "bogus"' <<<"$rj1")

e2e_step "Volume: the legacy recurringJobs list is stored exactly (labels null vs {} vs absent)"
want='[{"cron":"*/1 * * * *","name":"snap","retain":1,"task":"snapshot"},{"cron":"0 1 * * *","labels":null,"name":"backup-null-labels","retain":3,"task":"backup"},{"cron":"0 1 * * *","labels":{},"name":"backup-empty-labels","retain":3,"task":"backup"},{"cron":"0 1 * * *","labels":{"tier":"<gold&silver>"},"name":"backup-labelled","retain":3,"task":"backup"}]'
vol=$(kc get volumes.v1beta1.longhorn.io -n "$NS_LH" pvc-legacy -o json)
assert_json "$vol" .spec.recurringJobs "$want" "legacy recurringJobs through v1beta1"
assert_json "$vol" '.spec | [.frontend, .engineImage]' '["blockdev","longhornio/longhorn-engine:v1.1.3"]' "fields Longhorn has beyond the schema"
assert_json "$(kc get volumes.v1beta2.longhorn.io -n "$NS_LH" pvc-legacy -o json)" .spec.recurringJobs "$want" "legacy recurringJobs through v1beta2"
# Odd legacy data is storable as it was (migrate has to cope with it).
assert_ok kc create --dry-run=server -f <(jq '.metadata = {"name": "odd", "namespace": .metadata.namespace} | .spec.recurringJobs = [{"name": "", "task": "weird", "cron": "", "retain": -2}]' <<<"$vol")
# Label merge through v1beta2 keeps the legacy list; a merge patch with null removes it.
assert_ok kc patch volumes.v1beta2.longhorn.io -n "$NS_LH" pvc-legacy --type merge -p '{"metadata":{"labels":{"recurring-job.longhorn.io/snap":"enabled"}}}'
vol=$(kc get volumes.v1beta1.longhorn.io -n "$NS_LH" pvc-legacy -o json)
assert_json "$vol" '.metadata.labels["recurring-job.longhorn.io/snap"]' enabled
assert_json "$vol" .spec.recurringJobs "$want" "legacy list after a v1beta2 label patch"
assert_ok kc patch volumes.v1beta1.longhorn.io -n "$NS_LH" pvc-legacy --type merge -p '{"spec":{"recurringJobs":null}}'
assert_json "$(kc get volumes.v1beta1.longhorn.io -n "$NS_LH" pvc-legacy -o json)" '.spec | has("recurringJobs")' false "legacy list removed"
assert_json "$(kc get lhv -n "$NS_LH" pvc-current -o json)" '.metadata.labels["recurring-job-group.longhorn.io/default"]' enabled
assert_ok kc replace --raw "/apis/longhorn.io/v1beta2/namespaces/$NS_LH/volumes/pvc-current/status" \
  -f <(kc get lhv -n "$NS_LH" pvc-current -o json | jq '.status = {"state": "attached", "robustness": "healthy", "currentNodeID": "node-1", "actualSize": 12345}')
assert_ok kc get lhv -n "$NS_LH" pvc-current
assert_contains "$E2E_OUT" "attached"; assert_contains "$E2E_OUT" "healthy"
assert_json "$(kc get lhv -n "$NS_LH" pvc-current -o json)" .status.actualSize 12345 "status fields beyond the schema"

e2e_step "Schedule: skipImmediately is a tri-state; spec and status are written together"
s=$(kc get schedules.velero.io -n "$NS_VELERO" nightly -o json)
assert_json "$s" '.spec | has("skipImmediately")' false "no default for skipImmediately"
assert_json "$s" .status '{"lastBackup":"2026-03-28T01:00:05Z","phase":"Enabled"}'
assert_json "$(kc get schedules.velero.io -n "$NS_VELERO" hourly-no-skip -o json)" .spec.skipImmediately false
s=$(kc get schedules.velero.io -n "$NS_VELERO" weekly-paused -o json)
assert_json "$s" '.spec | [.paused, .skipImmediately, .useOwnerReferencesInBackup]' '[true,true,false]'
assert_json "$s" .status.lastSkipped 2026-03-22T03:00:00Z
# Consume-and-reset, as the controller does it: one merge patch for spec and status.
assert_ok kc patch schedules.velero.io -n "$NS_VELERO" weekly-paused --type merge \
  -p '{"spec":{"paused":false,"skipImmediately":false},"status":{"lastSkipped":"2026-03-29T03:00:00Z"}}'
s=$(kc get schedules.velero.io -n "$NS_VELERO" weekly-paused -o json)
assert_json "$s" '[.spec.paused, .spec.skipImmediately, .status.lastSkipped]' '[false,false,"2026-03-29T03:00:00Z"]'
assert_ok kc patch schedules.velero.io -n "$NS_VELERO" weekly-paused --type merge -p '{"spec":{"skipImmediately":null}}'
assert_json "$(kc get schedules.velero.io -n "$NS_VELERO" weekly-paused -o json)" '.spec | has("skipImmediately")' false "skipImmediately back to absent"
assert_fails --match NotFound kc get --raw "/apis/velero.io/v1/namespaces/$NS_VELERO/schedules/nightly/status"
# Empty strings are strings (this apiserver build fixes a Go >= 1.19 regression; see build-k8s.sh),
# so an empty schedule reaches Velero's controller, which reports it in the status.
assert_ok kc create --dry-run=server -f <(jq '.metadata = {"name": "empty", "namespace": .metadata.namespace} | .spec.schedule = "" | .status = {"phase": "FailedValidation", "validationErrors": ["Schedule must be a non-empty valid Cron expression"]}' <<<"$s")
assert_fails --match 'Unsupported value: "Running"' kc patch schedules.velero.io -n "$NS_VELERO" nightly --type merge -p '{"status":{"phase":"Running"}}'
assert_fails --match 'spec.skipImmediately' kc patch schedules.velero.io -n "$NS_VELERO" nightly --type merge -p '{"spec":{"skipImmediately":"yes"}}'
assert_fails --match 'status.lastSkipped' kc patch schedules.velero.io -n "$NS_VELERO" nightly --type merge -p '{"status":{"lastSkipped":"yesterday"}}'
assert_ok kc get schedules.velero.io -n "$NS_VELERO"
assert_contains "$E2E_OUT" "LASTBACKUP"; assert_contains "$E2E_OUT" "PAUSED"

e2e_step "Backup: queue phases and positions"
assert_json "$(kc get backups.velero.io -n "$NS_VELERO" -o json)" '[.items[] | [.metadata.name, .status.phase, .status.queuePosition]] | sort' \
  '[["adhoc-queued","Queued",1],["adhoc-ready","ReadyToStart",0],["nightly-20260328010005","InProgress",0]]'
assert_json "$(kc get backups.velero.io -n "$NS_VELERO" adhoc-queued -o json)" .spec.excludedNamespaces '["kube-system"]'
assert_ok kc patch backups.velero.io -n "$NS_VELERO" adhoc-queued --type merge -p '{"status":{"phase":"ReadyToStart","queuePosition":0}}'
assert_ok kc patch backups.velero.io -n "$NS_VELERO" nightly-20260328010005 --type merge \
  -p '{"status":{"phase":"Completed","completionTimestamp":"2026-03-28T01:20:00Z","failureReason":"","progress":{"itemsBackedUp":10,"totalItems":10}}}'
assert_json "$(kc get backups.velero.io -n "$NS_VELERO" nightly-20260328010005 -o json)" '.status | [.phase, .completionTimestamp, .failureReason, .progress.totalItems]' '["Completed","2026-03-28T01:20:00Z","",10]'
assert_fails --match 'Unsupported value: "Running"' kc patch backups.velero.io -n "$NS_VELERO" adhoc-ready --type merge -p '{"status":{"phase":"Running"}}'
assert_fails --match 'status.queuePosition' kc patch backups.velero.io -n "$NS_VELERO" adhoc-ready --type merge -p '{"status":{"queuePosition":-1}}'
assert_ok kc get backups.velero.io -n "$NS_VELERO"
assert_contains "$E2E_OUT" "QUEUE"

e2e_step "NonAdminBackup: status through /status, phases and conditions validated"
nab=$(kc get nonadminbackups.oadp.openshift.io -n "$NS_TENANT" shop-daily -o json)
assert_json "$nab" .spec '{"backupSpec":{"includedNamespaces":["tenant-shop"],"snapshotVolumes":false},"deleteBackup":false}'
nab_status() { jq --slurpfile st "$FIX/oadp-nonadminbackup-status.json" ".status = (\$st[0] | $1)" <<<"$nab"; }
nab_put_status() { kc replace --raw "/apis/oadp.openshift.io/v1alpha1/namespaces/$NS_TENANT/nonadminbackups/shop-daily/status" -f <(nab_status "$1"); }
assert_ok nab_put_status .
nab=$(kc get nab -n "$NS_TENANT" shop-daily -o json)
assert_json "$nab" '.status | [.phase, .queueInfo.estimatedQueuePosition, .veleroBackup.namespace, (.conditions | map(.type))]' '["Created",2,"openshift-adp",["Accepted","Queued"]]'
assert_ok kc get nab -n "$NS_TENANT"
assert_contains "$E2E_OUT" "REQUEST-PHASE"; assert_contains "$E2E_OUT" "Created"
assert_fails --match 'Unsupported value: "Deletion"' nab_put_status '.phase = "Deletion"'
assert_ok nab_put_status '.phase = "Deleting" | .conditions += [{"type": "Deleting", "status": "True", "reason": "DeletionPending", "message": "backup accepted for deletion", "lastTransitionTime": "2026-03-28T02:00:00Z"}]'
nab=$(kc get nab -n "$NS_TENANT" shop-daily -o json)
assert_fails --match 'Unsupported value: "Maybe"' nab_put_status '.conditions[0].status = "Maybe"'
assert_fails --match 'reason' nab_put_status '.conditions[0].reason = "not a reason!"'
assert_fails --match 'status.queueInfo.estimatedQueuePosition' nab_put_status '.queueInfo.estimatedQueuePosition = -1'
assert_fails --match 'status.veleroBackup.nacuuid' nab_put_status ".veleroBackup.nacuuid = \"$(printf 'n%.0s' {1..64})\""
assert_fails --match 'spec.backupSpec: Required value' kc create --dry-run=server --validate=false -f <(jq '.metadata = {"name": "x", "namespace": .metadata.namespace} | del(.spec.backupSpec)' <<<"$nab")

e2e_step "CronJobs are batch/v1 only on the current Kubernetes (batch/v1beta1 left in 1.25; on 1.20 it was the only one)"
assert_json "$(kc get --raw /apis/batch/v1)" '[.resources[].name] | index("cronjobs") != null' true "batch/v1 cronjobs"
assert_eq "$(kc api-versions | grep -cx batch/v1beta1)" 0 "batch/v1beta1 served"

if [ -n "${CW_E2E_ETCD_URL:-}" ]; then
  e2e_step "a continue token survives an etcd compaction (Kubernetes 1.34+: pages from the watch cache's snapshot)"
  # On 1.20 (and with ListFromCacheSnapshot off: e2e/kube_client) the next page is 410 Expired.
  for i in 1 2 3; do kc create configmap -n "$NS_LH" "page-$i" >/dev/null || e2e_fail "configmap page-$i"; done
  page1=$(kc get --raw "/api/v1/namespaces/$NS_LH/configmaps?limit=1&labelSelector=" )
  token=$(jq -r .metadata.continue <<<"$page1")
  [ -n "$token" ] && [ "$token" != null ] || e2e_fail "no continue token: $page1"
  kc create configmap -n "$NS_LH" page-4 >/dev/null
  rev=$(curl -fsS "$CW_E2E_ETCD_URL/v3/kv/range" -d '{"key":"AA=="}' | jq -r .header.revision)
  assert_ok curl -fsS "$CW_E2E_ETCD_URL/v3/kv/compaction" -d "{\"revision\":\"$rev\",\"physical\":true}"
  rest=$(kc get --raw "/api/v1/namespaces/$NS_LH/configmaps?limit=100&continue=$token") ||
    e2e_fail "the next page after the compaction was refused"
  assert_eq "$(jq '.items | length' <<<"$rest")" "$(( $(kc get configmaps -n "$NS_LH" -o name | wc -l) - 2 ))" \
    "the rest of the list from the first page's snapshot (not page-4, made after it)"
fi

e2e_step "API Priority and Fairness (flowcontrol.apiserver.k8s.io/v1) found: no client-side rate limit"
assert_json "$(kc get --raw /apis/flowcontrol.apiserver.k8s.io)" .preferredVersion.version v1 "APF's served version"
# cronwarden's client takes the APF headers of the first answer (docs/kube-client.md).
E2E_OUT=$(cw migrate --dry-run=client --namespace "$NS_LH" --log-level info -o json 2>&1 >/dev/null) || true
assert_contains "$E2E_OUT" 'msg="client-side rate limit" qps=0 burst=0 apf=true'

e2e_step "foreground deletion of a CronJob with a dependent Job completes (garbage collector)"
cat > "$CW_E2E_DIR/cronjob.yaml" <<EOF
apiVersion: batch/v1
kind: CronJob
metadata:
  name: pvc-legacy-snap-c
  namespace: $NS_LH
  labels:
    longhornvolume: pvc-legacy
spec:
  schedule: "*/1 * * * *"
  concurrencyPolicy: Allow
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
          - name: job
            image: longhornio/longhorn-manager:v1.1.3
EOF
assert_ok kc create -f "$CW_E2E_DIR/cronjob.yaml"
cj_uid=$(kc get cronjob -n "$NS_LH" pvc-legacy-snap-c -o 'jsonpath={.metadata.uid}')
kc create -f - >/dev/null <<EOF || e2e_fail "cannot create the dependent Job"
apiVersion: batch/v1
kind: Job
metadata:
  name: pvc-legacy-snap-c-manual
  namespace: $NS_LH
  # Holds the Job (and so, under foreground deletion, its owner) until the test lets go.
  finalizers: [cronwarden.io/e2e-hold]
  ownerReferences:
  - apiVersion: batch/v1
    kind: CronJob
    name: pvc-legacy-snap-c
    uid: $cj_uid
    controller: true
    blockOwnerDeletion: true
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: job
        image: busybox
EOF
assert_ok kc delete cronjob -n "$NS_LH" -l longhornvolume=pvc-legacy --cascade=foreground --wait=false
# The garbage collector deletes the dependent first; the held Job keeps the CronJob waiting.
wait_for 30 "the garbage collector to delete the dependent Job" bash -c \
  "kc get job -n '$NS_LH' pvc-legacy-snap-c-manual -o json | jq -e '.metadata.deletionTimestamp != null' >/dev/null"
cj=$(kc get cronjob -n "$NS_LH" pvc-legacy-snap-c -o json)
assert_json "$cj" '.metadata.deletionTimestamp != null' true "CronJob marked for deletion"
assert_json "$cj" .metadata.finalizers '["foregroundDeletion"]' "CronJob waits for its dependents"
t_del=$(date +%s%3N)
assert_ok kc patch job -n "$NS_LH" pvc-legacy-snap-c-manual --type json -p '[{"op":"remove","path":"/metadata/finalizers"}]'
wait_for 60 "the CronJob to be deleted once its dependent is gone" bash -c "! kc get cronjob -n '$NS_LH' pvc-legacy-snap-c 2>/dev/null"
assert_fails --match NotFound kc get job -n "$NS_LH" pvc-legacy-snap-c-manual
e2e_log "foreground deletion finished $(( $(date +%s%3N) - t_del )) ms after the dependent went"

e2e_step "a namespace full of custom resources finishes deleting (namespace controller)"
assert_ok kc delete namespace "$NS_TENANT" --wait=false
wait_for 90 "namespace $NS_TENANT to be deleted" bash -c "! kc get namespace '$NS_TENANT' 2>/dev/null"

if [ -n "$CW_E2E_USERS" ]; then
  e2e_step "static-token users: authenticated, no rights until bound"
  for u in $CW_E2E_USERS; do
    assert_fails --match "User \"$u\" cannot list resource \"recurringjobs\"" kc_as "$u" get lhrj -n "$NS_LH"
  done
  assert_ok kc create role -n "$NS_LH" rj-reader --verb=get,list --resource=recurringjobs.longhorn.io
  assert_ok kc create rolebinding -n "$NS_LH" migrator-rj-reader --role=rj-reader --user=migrator
  wait_for 10 "the RoleBinding to take effect" kc_as migrator get lhrj -n "$NS_LH"
  assert_fails --match 'cannot delete resource "recurringjobs"' kc_as migrator delete lhrj -n "$NS_LH" nightly-backup
  assert_fails --match 'cannot list resource "recurringjobs"' kc_as nobody get lhrj -n "$NS_LH"
fi
