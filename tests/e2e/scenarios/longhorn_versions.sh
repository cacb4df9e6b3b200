#!/usr/bin/env bash
# Longhorn 1.2 and 1.3 — the releases whose managers write batch/v1beta1 CronJobs and whose clusters
# ran on Kubernetes 1.20 — with their own CRDs (tests/fixtures/longhorn-*/), on a real
# kube-apiserver 1.20, not cronwarden's copies in crds/ (1.4 to 1.12: longhorn_current.sh, on the
# current Kubernetes):
#  - both releases' CRDs are created and Established; a RecurringJob's spec.name is pruned by
#    1.2.6's v1beta1 schema and kept by 1.3.3's, in each version it serves;
#  - 1.3.3: its CRDs and a longhorn-manager DaemonSet running its image make the controller write
#    the CronJobs 1.3.3's own code made;
#  - on Longhorn 1.2.6's CRDs with the webhook registered: a RecurringJob written as Longhorn 1.2's
#    documentation writes it (no spec.name) is admitted, defaulted and edited, a task of a later
#    Longhorn refused (the webhook's --longhorn-version); offline migrate's
#    RecurringJobs (no spec.name in v1beta1) pass kubectl's schema check there; `cronwarden
#    migrate` over legacy volumes creates RecurringJobs (named by metadata.name, no spec.name),
#    reuses one that is there under its name, labels the volumes, and a rerun writes nothing;
#    `cronwarden controller` as the upgrade flow runs it (docs/deploy.md step 4: 1.1's manager
#    still running, --longhorn-version=1.2) makes a CronJob for every RecurringJob, the
#    annotation byte for byte what Longhorn 1.2.6 writes, and refuses none; once the DaemonSet
#    runs 1.2.6 a controller that detects it has nothing to write.
. "$(dirname "$0")/../lib.sh"
CW_E2E_POLL=${CW_E2E_POLL:-0.2} # controllers come and go: look often

e2e_start 1.20   # Longhorn 1.1 -> 1.2 and 1.2/1.3 clusters ran on Kubernetes <= 1.2x (tests/README.md)
NS=longhorn-system
kc create namespace "$NS" >/dev/null || e2e_fail "cannot create namespace $NS"

. "$(dirname "$0")/../longhorn_releases.sh" # rj, fixture_jobs, ctl, cj, like_fixture, info, standing
vol() { # vol NAME JOBS-JSON: a longhorn.io/v1beta1 Volume with legacy jobs
  echo '{"apiVersion": "longhorn.io/v1beta1", "kind": "Volume", "metadata": {"name": "'"$1"'", "namespace": "'"$NS"'"},
  "spec": {"size": "1073741824", "numberOfReplicas": 3, "recurringJobs": '"$2"'}}'
}

for v in 1.3.3 1.2.6; do
  e2e_step "Longhorn $v's CRDs: created, Established, and what happens to spec.name"
  lh_apply_crds "$v"
  served=$(kc get crd recurringjobs.longhorn.io -o json | jq -r '[.spec.versions[] | select(.served) | .name] | join(" ")')
  for av in $served; do
    # --validate=false: what the server keeps, not what kubectl's copy of the schema says (it
    # refuses spec.name on 1.2.6's CRDs once the apiserver publishes their OpenAPI).
    assert_ok kc create --validate=false -f <(rj "$av" "named-$av" "named-$av")
    want='"named-'$av'"'
    [ "$v" = 1.2.6 ] && want=null
    assert_eq "$want" "$(spec_name "$av" "named-$av")" "Longhorn $v, $av: spec.name after create"
  done
  case $v in
    1.3.3)
      # Volumes declare a conversion webhook to Longhorn's Service, which is not here: a Volume in
      # the version it is not stored in cannot be written, so tests use v1beta2 (tests/README.md).
      assert_fails --match 'conversion webhook for longhorn.io/v1beta1, Kind=Volume failed' \
        kc create -f <(vol v1beta1-volume '[]')
      assert_eq "v1beta1 v1beta2" "$served" "$v serves both" ;;
    1.2.6) assert_eq v1beta1 "$served" "1.2.6 serves v1beta1 only" ;;
  esac
  [ "$v" = 1.2.6 ] && continue # its controller part follows the upgrade flow below
  minor=${v%.*}
  e2e_step "Longhorn $v: a longhorn-manager DaemonSet running its image, the controller writes its manager's CronJobs"
  lh_manager "longhornio/longhorn-manager:v$v"
  fixture_jobs v1beta2
  ctl "ctl-$v"
  for j in "${FIXED[@]}"; do wait_for 20 "Longhorn $v's CronJob $j" has_cj "$j"; done
  like_fixture "$v"
  assert_eq "$(info "ctl-$v" "v$v" "$minor" daemonset)" 1 "longhorn_version_info of $v"
  grep -qF "msg=\"recurringjob: writing as Longhorn $v's manager does (the longhorn-manager image longhornio/longhorn-manager:v$v is Longhorn $minor, from the daemonset)\"" \
    "$(log_of "ctl-$v")" || e2e_fail "no 'writing as Longhorn $v' line in $(log_of "ctl-$v")"
  e2e_stop "ctl-$v"
  assert_ok kc delete cronjobs.v1beta1.batch -n "$NS" --all
done

e2e_step "Longhorn 1.2.6: legacy volumes of a cluster being upgraded, one RecurringJob already there"
# Seeded before the webhook is registered, as on a cluster that ran Longhorn 1.1: the webhook
# refuses new legacy spec.recurringJobs.
SNAP='{"name": "s6", "task": "snapshot", "cron": "0 */6 * * *", "retain": 4}'
GOLD='{"name": "gold", "task": "backup", "cron": "0 2 * * *", "retain": 7, "labels": {"tier": "gold"}}'
assert_ok kc create -f <(vol pvc-a "[$SNAP, $GOLD]")
assert_ok kc create -f <(vol pvc-b "[$SNAP]")
assert_eq 2 "$(kc get volumes.longhorn.io -n "$NS" pvc-a -o json | jq '.spec.recurringJobs | length')" \
  "1.2.6's Volume keeps legacy spec.recurringJobs"
# The snapshot job's migrated name, made before the upgrade through the API with spec.name (as
# Longhorn 1.2's own upgrade does); the server prunes it.
N_SNAP=snapshot-4-0520073e-8a390c6d
assert_ok kc create --validate=false -f - <<EOF
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
  --tls-private-key-file "$CW_E2E_DIR/pki/webhook.key" --threads 2 --longhorn-version=v1.2.6
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
# A task of a later Longhorn: 1.2.6's CRD lets it through (its pattern is ^snapshot|backup$), and
# Longhorn 1.2 would run it as a snapshot; the webhook told the cluster's version refuses it.
assert_fails --match 'denied the request: spec.task: "snapshot-cleanup" is a task of Longhorn 1.3 and later; the cluster runs Longhorn 1.2, whose manager has snapshot, backup' \
  kc create -f <(rj v1beta1 cleanup | jq '.spec.task = "snapshot-cleanup"')
# A spec.name that is not the name never reaches the webhook here: the apiserver prunes it while
# decoding (kubectl's own validation refuses the field first; the API, as a script would use it,
# does not). The rule that refuses it (docs/policy.md) matters from 1.3, whose CRDs keep it.
assert_ok kc create --validate=false -f <(rj v1beta1 snapshot-2 weekly)
assert_eq null "$(spec_name v1beta1 snapshot-2)" "a differing spec.name is pruned before admission"
refuses_name() { # kubectl checks against the schema the apiserver publishes (a moment after creation)
  local out
  out=$(kc create --dry-run=server -f <(rj v1beta1 snapshot-3 snapshot-3) 2>&1) && return 1
  [[ $out == *'unknown field "name" in io.longhorn.v1beta1.RecurringJob.spec'* ]]
}
wait_for 30 "kubectl to refuse spec.name against 1.2.6's schema" refuses_name

e2e_step "offline migrate's RecurringJobs pass kubectl's validation against 1.2.6's CRDs"
# Manifests (GitOps) migrated offline: v1beta1 RecurringJobs without spec.name, which kubectl's
# schema check on this cluster refuses ('unknown field "name"', above).
mkdir -p "$CW_E2E_DIR/offline"
vol pvc-git '[{"name": "h", "task": "snapshot", "cron": "0 3 * * *", "retain": 2}]' > "$CW_E2E_DIR/offline/volume.json"
assert_ok cw migrate --from-file "$CW_E2E_DIR/offline/volume.json" --namespace "$NS" --output-dir "$CW_E2E_DIR/offline/out"
assert_ok kc create -f "$CW_E2E_DIR/offline/out/recurringjobs.yaml"
assert_json "$(kc get lhrj -n "$NS" snapshot-2-c040aac2-8a390c6d -o json)" '.spec | [.task, .cron, .retain, .name]' \
  '["snapshot","0 3 * * *",2,null]'

e2e_step "cronwarden migrate over the legacy volumes"
# Names by the default scheme, xxh32 (docs/names.md), computed independently (Python XXH32).
N_GOLD=backup-7-7bc5443b-0ac3cad0
assert_ok cw migrate --namespace "$NS" --lease-duration 3s --report "$CW_E2E_DIR/report1.json"
assert_json "$(cat "$CW_E2E_DIR/report1.json")" '[.recurringJobApiVersion, [.recurringJobs[] | {name, action, result}]]' \
  '["longhorn.io/v1beta1",[{"name":"'$N_GOLD'","action":"create","result":"done"},{"name":"'$N_SNAP'","action":"exists","result":null}]]'
assert_json "$(kc get lhrj -n "$NS" "$N_GOLD" -o json)" .spec \
  '{"concurrency":10,"cron":"0 2 * * *","groups":[],"labels":{"tier":"gold"},"retain":7,"task":"backup"}'
assert_json "$(kc get volumes.longhorn.io -n "$NS" -o json)" \
  '[.items[] | {name: .metadata.name, labels: .metadata.labels, jobs: .spec.recurringJobs}]' \
  '[{"name":"pvc-a","labels":{"recurring-job.longhorn.io/'$N_GOLD'":"enabled","recurring-job.longhorn.io/'$N_SNAP'":"enabled"},"jobs":null},{"name":"pvc-b","labels":{"recurring-job.longhorn.io/'$N_SNAP'":"enabled"},"jobs":null}]'

e2e_step "a rerun finds nothing to do"
assert_ok cw migrate --namespace "$NS" --lease-duration 3s --detailed-exitcode --report "$CW_E2E_DIR/report2.json"
assert_json "$(cat "$CW_E2E_DIR/report2.json")" '[.summary.changesPending, .summary.volumes.unchanged, .recurringJobs]' '[false,2,[]]'

e2e_step "the controller as the upgrade flow runs it: Longhorn 1.1's manager still runs, --longhorn-version=1.2"
# docs/deploy.md, step 4: the DaemonSet runs 1.1 (a version cronwarden does not write for), so the
# controller is told which Longhorn is being installed, and the image its jobs run.
lh_manager longhornio/longhorn-manager:v1.1.3
assert_ok kc create -f - <<EOF
apiVersion: longhorn.io/v1beta1
kind: RecurringJob
metadata: {name: ${FIXED[0]}, namespace: $NS}
spec: {task: backup, cron: "0 2 * * *", retain: 7, concurrency: 10, groups: [], labels: {}}
EOF
ctl ctl-upgrade --longhorn-version=1.2 --job-image=longhornio/longhorn-manager:v1.2.6
mapfile -t JOBS < <(kc get recurringjobs.v1beta1.longhorn.io -n "$NS" -o json | jq -r '.items[].metadata.name')
e2e_log "${#JOBS[@]} RecurringJobs: ${JOBS[*]}"
for j in "${JOBS[@]}"; do wait_for 20 "the CronJob of $j" has_cj "$j"; done
like_fixture 1.2.6
# Every job: the golden's annotation with its name and schedule.
golden=$(jq -r "$LH_ANN" "$CW_SOURCE_DIR/tests/fixtures/longhorn-1.2.6/cronjob-${FIXED[1]}.json")
for j in "${JOBS[@]}"; do
  cron=$(kc get recurringjobs.v1beta1.longhorn.io -n "$NS" "$j" -o json | jq -r .spec.cron)
  want=${golden//${FIXED[1]}/$j}
  want=${want//'"schedule":"0 */6 * * *"'/'"schedule":"'$cron'"'}
  assert_eq "$(cj "$j" | jq -r "$LH_ANN")" "$want" "$j: the annotation Longhorn 1.2.6 writes"
done
assert_eq "$(grep -c 'refused by the policy' "$(log_of ctl-upgrade)")" 0 "RecurringJobs refused"
assert_eq "$(info ctl-upgrade 1.2 1.2 flag)" 1 "longhorn_version_info: 1.2 from the flag"
assert_eq "$(metric_sum ctl-upgrade cronwarden_controller_standing_down)" 0 "standing down: no"
e2e_stop ctl-upgrade

e2e_step "Longhorn 1.2.6's manager runs: a controller that detects it finds nothing to write"
lh_manager longhornio/longhorn-manager:v1.2.6
ctl ctl-after
wait_for 20 "every job reconciled" eval '[ "$(metric_sum ctl-after cronwarden_controller_reconciles_total "controller=\"recurringjob\"")" -ge ${#JOBS[@]} ]'
assert_eq "$(info ctl-after v1.2.6 1.2 daemonset)" 1 "longhorn_version_info: 1.2.6 from the DaemonSet"
sleep 1
assert_eq "$(metric_sum ctl-after cronwarden_controller_recurringjob_writes_total)" 0 "CronJob writes"
assert_eq "$(metric_sum ctl-after cronwarden_controller_volume_writes_total)" 0 "Volume writes"
