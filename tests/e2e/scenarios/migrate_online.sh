#!/usr/bin/env bash
# Online migrate on a real kube-apiserver: the example Longhorn 1.1 cluster is seeded; dry runs
# (client and server) change nothing; an apply reaches exactly what the offline planner computes
# for the same manifests, object by object; a rerun has nothing to do; and the upgrade Job's RBAC
# (deploy/upgrade-job/rbac.yaml) is sufficient for a user bound to exactly it, and minimal. On the
# CRDs Longhorn 1.2.6 installs (the upgrade's target; tests/fixtures/longhorn-1.2.6/: RecurringJobs
# in v1beta1 only, spec.name pruned); on an existing cluster (CW_E2E_EXTERNAL=1), on its own.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../migrate_lib.sh"
e2e_start 1.20   # Longhorn 1.1 -> 1.2 and 1.2/1.3 clusters ran on Kubernetes <= 1.2x (tests/README.md)
if [ "${CW_E2E_EXTERNAL:-0}" = 1 ]; then apply_crds; else lh_apply_crds 1.2.6; fi
NS=$(e2e_namespace longhorn-system)

e2e_step "seed the example Longhorn 1.1 cluster into $NS"
mig_seed
mig_state > "$E2E_DIR/before.json"
assert_json "$(kc get volumes.longhorn.io -n "$NS" -o json)" '.items | length' 20 "volumes seeded"

e2e_step "the truth: the offline planner over the same manifests"
mig_manifests "$E2E_DIR/truth-in"
cw migrate --namespace "$NS" --from-file "$E2E_DIR/truth-in" -o json > "$E2E_DIR/truth.json" 2>/dev/null || true
assert_json "$(cat "$E2E_DIR/truth.json")" '.summary.volumes.toMigrate' 13 "volumes to migrate (offline)"

e2e_step "--dry-run=client writes nothing"
assert_fails cw_migrate --dry-run=client --report "$E2E_DIR/client.json"   # exit 1: invalid jobs
assert_json "$(cat "$E2E_DIR/client.json")" '.dryRun' client
assert_json "$(cat "$E2E_DIR/client.json")" '[.volumes[] | select(.action=="migrate") | .name] | length' 13
assert_eq "$(jq -S '.volumes | map(del(.source))' "$E2E_DIR/truth.json")" \
          "$(jq -S '.volumes | map(del(.source))' "$E2E_DIR/client.json")" "online plan equals the offline plan"
mig_state > "$E2E_DIR/after-client.json"
assert_ok diff -u "$E2E_DIR/before.json" "$E2E_DIR/after-client.json"

e2e_step "--dry-run=server sends every write with dryRun=All and stores nothing"
assert_fails cw_migrate --dry-run=server --report "$E2E_DIR/server.json"
assert_json "$(cat "$E2E_DIR/server.json")" '[.volumes[] | select(.action=="migrate") | .result] | unique' '["dry-run"]'
assert_json "$(cat "$E2E_DIR/server.json")" '[.recurringJobs[] | select(.action=="create") | .result] | unique' '["dry-run"]'
assert_json "$(cat "$E2E_DIR/server.json")" '[.storageClasses[] | select(.action=="migrate") | .result] | unique' '["dry-run"]'
assert_json "$(cat "$E2E_DIR/server.json")" '[.cronJobs[] | select(.action=="delete") | .result] | unique' '["dry-run"]'
mig_state > "$E2E_DIR/after-server.json"
assert_ok diff -u "$E2E_DIR/before.json" "$E2E_DIR/after-server.json"

e2e_step "apply as a user bound to exactly deploy/upgrade-job/rbac.yaml"
e2e_require_users migrator nobody
# Roles as shipped (namespace substituted), bound to the static user "migrator".
sed -e "s/namespace: longhorn-system/namespace: $NS/" "$CW_SOURCE_DIR/deploy/upgrade-job/rbac.yaml" > "$E2E_DIR/rbac.yaml"
kc create namespace cronwarden >/dev/null 2>&1 || true
assert_ok kc apply -f "$E2E_DIR/rbac.yaml"
assert_ok kc create clusterrolebinding cronwarden-migrate-user --clusterrole=cronwarden-migrate --user=migrator
assert_ok kc create rolebinding cronwarden-migrate-user -n "$NS" --role=cronwarden-migrate --user=migrator
assert_fails cw migrate --namespace "$NS" --lease-duration 3s --kubeconfig "$CW_E2E_DIR/kubeconfig-migrator" --report "$E2E_DIR/apply.json"
assert_json "$(cat "$E2E_DIR/apply.json")" '.summary.errors' 0 "no failed writes"
assert_json "$(cat "$E2E_DIR/apply.json")" '.summary | [.volumes.migrated, .storageClasses.migrated, .configMaps.migrated, .recurringJobs.created, .cronJobs.deleted]' \
  '[13,2,1,4,19]' "everything planned was done"
if [ "${CW_E2E_EXTERNAL:-0}" != 1 ]; then # Longhorn 1.2.6's CRDs serve RecurringJobs in v1beta1 only
  assert_json "$(cat "$E2E_DIR/apply.json")" .recurringJobApiVersion longhorn.io/v1beta1 "the RecurringJobs' version"
fi

e2e_step "every object against the offline truth"
# Volumes: planned labels added as "enabled", legacy list gone; the others untouched.
while IFS= read -r row; do
  name=$(jq -r .name <<<"$row"); action=$(jq -r .action <<<"$row")
  vol=$(kc get volumes.longhorn.io -n "$NS" "$name" -o json)
  orig=$(jq -c -s --arg n "$name" '.[0][] | select(.name==$n)' "$E2E_DIR/before.json")
  if [ "$action" = migrate ]; then
    want=$(jq -S -c --argjson add "$(jq -c '.addLabels' <<<"$row")" '.labels + ($add | map({(.): "enabled"}) | add // {})' <<<"$orig")
    assert_json "$vol" '.metadata.labels // {} | to_entries | sort_by(.key) | from_entries' "$want" "labels of volume $name"
    assert_json "$vol" '.spec | has("recurringJobs")' false "legacy list of volume $name"
  else
    assert_json "$vol" '.metadata.labels // {} | to_entries | sort_by(.key) | from_entries' "$(jq -S -c .labels <<<"$orig")" "labels of untouched volume $name"
    assert_json "$vol" '.spec.recurringJobs' "$(jq -c .jobs <<<"$orig")" "legacy list of untouched volume $name"
  fi
done < <(jq -c '.volumes[]' "$E2E_DIR/truth.json")
# RecurringJobs: each planned one exists with the planned spec.
while IFS= read -r row; do
  name=$(jq -r .name <<<"$row")
  rj=$(kc get recurringjobs.longhorn.io -n "$NS" "$name" -o json)
  assert_json "$rj" '[.metadata.name] + (.spec | [.task, .cron, .retain, .concurrency, .groups, (.labels // {} | to_entries | sort_by(.key) | from_entries)])' \
    "$(jq -S -c --arg n "$name" '[$n, .task, .cron, .retain, 10, [], (.labels // {})]' <<<"$row")" "RecurringJob $name"
done < <(jq -c '.recurringJobs[] | select(.action=="create")' "$E2E_DIR/truth.json")
assert_json "$(kc get recurringjobs.longhorn.io -n "$NS" backup-12-2df341a3-8a390c6d -o json)" .spec.cron '0 0 15 * *' "the conflicting RecurringJob was not overwritten"
# StorageClasses: as the offline rewrite wrote them.
# (the seed's recurringjobs.yaml would land where the new RecurringJobs go: offline migrate refuses
# that, so the existing ones are read under another name)
cp -r "$E2E_DIR/truth-in" "$E2E_DIR/truth-in2"
mv "$E2E_DIR/truth-in2/recurringjobs.yaml" "$E2E_DIR/truth-in2/existing-recurringjobs.yaml"
cw migrate --namespace "$NS" --from-file "$E2E_DIR/truth-in2" --output-dir "$E2E_DIR/truth-out" >/dev/null 2>&1 || true
[ -s "$E2E_DIR/truth-out/storageclasses.yaml" ] || e2e_fail "the offline rewrite wrote no storageclasses.yaml"
for sc in longhorn longhorn-db longhorn-scratch local-path; do
  want=$(kc create --dry-run=client -f "$E2E_DIR/truth-out/storageclasses.yaml" -o json | jq -c --arg n "$sc" 'if .items then .items[] else . end | select(.metadata.name==$n) | .parameters')
  assert_json "$(kc get storageclass "$sc" -o json)" .parameters "$want" "parameters of StorageClass $sc"
done
assert_json "$(kc get storageclass longhorn -o json)" '.metadata.annotations["storageclass.kubernetes.io/is-default-class"]' true "default class annotation kept"
assert_fails --match NotFound kc get configmap -n "$NS" cronwarden-storageclass-backup
want=$(kc create --dry-run=client -f "$E2E_DIR/truth-out/configmap-longhorn-storageclass.yaml" -o json | jq -c .data)
assert_json "$(kc get configmap -n "$NS" longhorn-storageclass -o json)" .data "$want" "longhorn-storageclass ConfigMap"
# Legacy CronJobs: the deleted ones are gone (foreground deletion completes), the kept ones stay.
wait_for 60 "legacy CronJobs deleted" bash -c "[ \"\$(kc get cronjobs -n $NS -o json | jq '.items | length')\" = $(jq '.summary.cronJobs.kept' "$E2E_DIR/truth.json") ]"
assert_json "$(kc get cronjobs -n "$NS" -o json)" '[.items[].metadata.name] | sort' \
  "$(jq -c '[.cronJobs[] | select(.action=="keep") | .name] | sort' "$E2E_DIR/truth.json")" "kept legacy CronJobs"
assert_fails --match NotFound kc get lease -n "$NS" cronwarden-migrate

e2e_step "a rerun finds nothing to do"
assert_fails cw_migrate --report "$E2E_DIR/rerun.json"
assert_json "$(cat "$E2E_DIR/rerun.json")" '.summary | [.volumes.toMigrate, .storageClasses.toMigrate, .configMaps.toMigrate, .recurringJobs.toCreate, .cronJobs.toDelete, .errors]' \
  '[0,0,0,0,0,0]' "second run"
assert_json "$(cat "$E2E_DIR/rerun.json")" .summary.changesPending false

e2e_step "RBAC is minimal: the migrator cannot do what migrate never does"
assert_fails --match forbidden kc_as migrator delete volumes.longhorn.io -n "$NS" --all
assert_fails --match forbidden kc_as migrator patch storageclass longhorn -p '{"metadata":{"labels":{"x":"y"}}}'
assert_fails --match forbidden kc_as migrator get secrets -n "$NS"
assert_fails --match forbidden kc_as migrator delete recurringjobs.longhorn.io -n "$NS" --all
assert_fails --match forbidden kc_as migrator get configmap -n "$NS" some-other-configmap
assert_fails --match forbidden kc_as nobody get volumes.longhorn.io -n "$NS"
