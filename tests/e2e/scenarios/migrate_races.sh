#!/usr/bin/env bash
# Online migrate while the cluster changes under it: a volume deleted between planning and its
# patch is skipped, a volume modified meanwhile (409 Conflict) is re-read, re-planned and migrated,
# and an expired LIST continue token (etcd compacted between pages) restarts the gathering.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../migrate_lib.sh"
e2e_start 1.20   # Longhorn 1.1 -> 1.2 and 1.2/1.3 clusters ran on Kubernetes <= 1.2x (tests/README.md)
apply_crds
NS=$(e2e_namespace longhorn-system)

vol() { # NAME JOB-CRON
  cat <<YAML
apiVersion: longhorn.io/v1beta1
kind: Volume
metadata: {name: $1, namespace: $NS}
spec:
  numberOfReplicas: 3
  recurringJobs:
  - {name: snap, task: snapshot, cron: "$2", retain: 3}
YAML
}
for i in 1 2 3 4 5 6 7 8 9 10; do vol "v$i" "0 $i * * *" | kc create -f - >/dev/null; done

e2e_step "a volume deleted and another modified while migrate waits before its first patch"
rm -f "$E2E_DIR/go"
e2e_bg migrate env CRONWARDEN_FAILPOINTS="volume-patch=wait:$E2E_DIR/go" \
  "$CW_BINARY" migrate --namespace "$NS" --lease-duration 3s --parallel 1 --report "$E2E_DIR/race.json"
wait_for 60 "migrate to reach the volume phase" grep -q "failpoint: waiting" "$CW_E2E_DIR/logs/migrate.log"
assert_ok kc delete volumes.longhorn.io -n "$NS" v2
assert_ok kc label volumes.longhorn.io -n "$NS" v3 team=payments
touch "$E2E_DIR/go"
wait_for 60 "migrate to finish" test -s "$E2E_DIR/race.json"
assert_json "$(cat "$E2E_DIR/race.json")" '.volumes[] | select(.name=="v2") | [.result, .error]' '["skipped","the volume was deleted meanwhile"]'
assert_json "$(cat "$E2E_DIR/race.json")" '[.volumes[] | select(.name!="v2") | .result] | unique' '["done"]'
v3=$(kc get volumes.longhorn.io -n "$NS" v3 -o json)
assert_json "$v3" '.metadata.labels.team' payments "the concurrent change survives"
assert_json "$v3" '[.metadata.labels | keys[] | select(startswith("recurring-job.longhorn.io/"))] | length' 1 "v3 got its job label after the 409"
assert_json "$v3" '.spec | has("recurringJobs")' false

e2e_step "an expired continue token: etcd compacted between two LIST pages"
for i in 11 12 13 14 15 16 17 18 19 20; do vol "v$i" "30 $((i - 10)) * * *" | kc create -f - >/dev/null; done
rm -f "$E2E_DIR/go2"
e2e_bg migrate2 env CRONWARDEN_FAILPOINTS="list-page=wait:$E2E_DIR/go2" \
  "$CW_BINARY" migrate --namespace "$NS" --lease-duration 3s --page-size 2 --report "$E2E_DIR/expired.json"
wait_for 60 "migrate to list its first page" grep -q "failpoint: waiting" "$CW_E2E_DIR/logs/migrate2.log"
# A write moves the revision past the list's, then compaction removes the list's snapshot.
kc create configmap -n "$NS" bump --from-literal=a=b >/dev/null
rev=$(curl -s "$CW_E2E_ETCD_URL/v3/kv/range" -X POST -d '{"key":"YQ=="}' | jq -r .header.revision)
assert_ok curl -sf "$CW_E2E_ETCD_URL/v3/kv/compaction" -X POST -d "{\"revision\":\"$rev\",\"physical\":true}"
touch "$E2E_DIR/go2"
wait_for 120 "migrate to finish" test -s "$E2E_DIR/expired.json"
assert_contains "$(cat "$CW_E2E_DIR/logs/migrate2.log")" "listing everything again"
assert_json "$(cat "$E2E_DIR/expired.json")" '.summary | [.volumes.scanned, .volumes.toMigrate, .volumes.migrated, .errors]' '[19,10,10,0]'
assert_json "$(kc get volumes.longhorn.io -n "$NS" -o json)" '[.items[] | select(.spec.recurringJobs)] | length' 0 "no legacy list left"
