#!/usr/bin/env bash
# Fault injection: 5,000 legacy volumes migrated through a proxy that answers 10 % of requests
# with 409, 429, 500, 503, a lost answer (the write happened), a reset connection or a delay. The
# run completes (reruns allowed while changes are pending) and every volume ends with exactly its
# jobs, checked object by object against the plan of the seeded objects.
#   CW_FAULT_VOLUMES (default 5000), CW_FAULT_RATE (default 0.10)
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../migrate_lib.sh"
[ -n "${CW_BENCH_MIGRATE_ONLINE:-}" ] && [ -x "$CW_BENCH_MIGRATE_ONLINE" ] ||
  e2e_skip "needs CW_BENCH_MIGRATE_ONLINE (the seeding tool, set by ctest)"
N=${CW_FAULT_VOLUMES:-5000}
RATE=${CW_FAULT_RATE:-0.10}
e2e_start 1.20   # Longhorn 1.1 -> 1.2 and 1.2/1.3 clusters ran on Kubernetes <= 1.2x (tests/README.md)
apply_crds
NS=$(e2e_namespace longhorn-system)

e2e_step "build the fault-injecting proxy"
sh "$CW_SOURCE_DIR/tests/faultproxy/build.sh" "$E2E_DIR/faultproxy" || e2e_skip "no Go toolchain"

e2e_step "seed $N legacy volumes, the example StorageClasses and ConfigMap"
assert_ok "$CW_BENCH_MIGRATE_ONLINE" seed "$KUBECONFIG" "$NS" "$N"
mig_manifests "$E2E_DIR/ex"
assert_ok kc create -f "$E2E_DIR/ex/storageclasses.yaml"
assert_ok kc create -f "$E2E_DIR/ex/configmap-longhorn-storageclass.yaml"
kc get volumes.longhorn.io -n "$NS" -o json > "$E2E_DIR/seeded-volumes.json"
kc get storageclass -o json > "$E2E_DIR/seeded-scs.json"
kc get configmap -n "$NS" longhorn-storageclass -o json > "$E2E_DIR/seeded-cm.json"
cw migrate --namespace "$NS" --from-file "$E2E_DIR/seeded-volumes.json" --from-file "$E2E_DIR/seeded-scs.json" \
  --from-file "$E2E_DIR/seeded-cm.json" -o json > "$E2E_DIR/truth.json" 2>/dev/null || true
assert_json "$(cat "$E2E_DIR/truth.json")" '.summary.volumes.scanned' "$N" "planned volumes"

e2e_step "start the proxy: $RATE of the requests get a fault"
e2e_issue_cert faultproxy IP:127.0.0.1
e2e_bg faultproxy "$E2E_DIR/faultproxy/faultproxy" -listen 127.0.0.1:0 -upstream "$CW_E2E_API_URL" \
  -upstream-ca "$CW_E2E_CA" -cert "$CW_E2E_DIR/pki/faultproxy.crt" -key "$CW_E2E_DIR/pki/faultproxy.key" \
  -rate "$RATE" -seed 7 -addr-file "$E2E_DIR/proxy.addr" -stats-file "$E2E_DIR/proxy-stats.json"
wait_for 30 "the proxy to listen" test -s "$E2E_DIR/proxy.addr"
cat > "$E2E_DIR/kubeconfig-proxy" <<YAML
apiVersion: v1
kind: Config
clusters:
- name: proxy
  cluster: {server: "https://$(cat "$E2E_DIR/proxy.addr")", certificate-authority: "$CW_E2E_SIGNING_CA"}
users:
- name: admin
  user: {token: "$CW_E2E_TOKEN"}
contexts:
- name: proxy
  context: {cluster: proxy, user: admin}
current-context: proxy
YAML

e2e_step "migrate through the proxy until nothing is pending"
runs=0
while :; do
  runs=$((runs + 1))
  set +e
  cw migrate --kubeconfig "$E2E_DIR/kubeconfig-proxy" --namespace "$NS" --lease-duration 5s --parallel 8 \
    --request-timeout 10s --report "$E2E_DIR/run$runs.json" > "$E2E_DIR/run$runs.txt" 2>"$E2E_DIR/run$runs.log"
  rc=$?
  set -e
  e2e_log "run $runs: exit $rc; $(jq -c '.summary | {volumes: .volumes.migrated, failed: .volumes.failed, skipped: .volumes.skipped, created: .recurringJobs.created, errors}' "$E2E_DIR/run$runs.json" 2>/dev/null)"
  if [ -s "$E2E_DIR/run$runs.json" ] && [ "$(jq .summary.changesPending "$E2E_DIR/run$runs.json")" = false ]; then
    break
  fi
  [ "$runs" -lt 6 ] || e2e_fail "still pending after $runs runs; last log: $(tail -5 "$E2E_DIR/run$runs.log")"
done
e2e_log "faults injected: $(cat "$E2E_DIR/proxy-stats.json")"
assert_json "$(cat "$E2E_DIR/run$runs.json")" '.summary.errors' 0 "the final run is clean"

e2e_step "every volume against the plan of the seeded objects"
kc get volumes.longhorn.io -n "$NS" -o json > "$E2E_DIR/final-volumes.json"
# Expected labels per volume: seeded labels + planned additions; no legacy list anywhere.
jq -S -s '
  (.[0].volumes | map({key: .name, value: (.addLabels // [])}) | from_entries) as $add |
  [.[1].items[] | {name: .metadata.name,
                   labels: ((.metadata.labels // {}) + (($add[.metadata.name] // []) | map({(.): "enabled"}) | add // {}))}]
  | sort_by(.name)' "$E2E_DIR/truth.json" "$E2E_DIR/seeded-volumes.json" > "$E2E_DIR/want.json"
jq -S '[.items[] | {name: .metadata.name, labels: (.metadata.labels // {})}] | sort_by(.name)' \
  "$E2E_DIR/final-volumes.json" > "$E2E_DIR/got.json"
assert_ok diff -u "$E2E_DIR/want.json" "$E2E_DIR/got.json"
assert_json "$(cat "$E2E_DIR/final-volumes.json")" '[.items[] | select(.spec | has("recurringJobs"))] | length' 0 "legacy lists left"
assert_json "$(cat "$E2E_DIR/final-volumes.json")" '.items | length' "$N" "no volume lost"
# RecurringJobs: every planned one, with its spec.
jq -S '[.recurringJobs[] | select(.action=="create") | {name, task, cron, retain, labels: (.labels // {})}] | sort_by(.name)' \
  "$E2E_DIR/truth.json" > "$E2E_DIR/want-rj.json"
kc get recurringjobs.longhorn.io -n "$NS" -o json |
  jq -S '[.items[] | {name: .metadata.name, task: .spec.task, cron: .spec.cron, retain: .spec.retain, labels: (.spec.labels // {})}] | sort_by(.name)' \
  > "$E2E_DIR/got-rj.json"
assert_ok diff -u "$E2E_DIR/want-rj.json" "$E2E_DIR/got-rj.json"
assert_json "$(kc get storageclass -o json)" '[.items[].metadata.name] | sort' '["local-path","longhorn","longhorn-db","longhorn-scratch"]' "no StorageClass lost"
assert_json "$(kc get storageclass -o json)" '[.items[] | select(.parameters.recurringJobs and .provisioner == "driver.longhorn.io")] | length' 0
assert_fails --match NotFound kc get configmap -n "$NS" cronwarden-storageclass-backup

e2e_step "the Lease: deleted by the last run, or left to expire when its release met a fault"
# Releasing is best-effort (docs/migrate.md): one conditional DELETE, which a fault can defeat (a
# 409, errors past the client's retries, a renewal whose answer was lost so that the DELETE's
# resourceVersion is stale), or none when the renewals failed for --lease-duration. The run then
# says so, and the Lease expires on its own: the next run, without faults, takes it once it has
# expired (waiting up to --lease-wait), finds nothing to do and deletes it.
if kc get lease -n "$NS" cronwarden-migrate -o json > "$E2E_DIR/lease-left.json" 2>/dev/null; then
  why=$(grep -E 'could not release the lease|could not be renewed' "$E2E_DIR/run$runs.log" || true)
  [ -n "$why" ] || e2e_fail "the Lease outlived run $runs, whose log does not say why: $(cat "$E2E_DIR/lease-left.json")"
  e2e_log "the Lease outlived run $runs (best-effort release): $why"
  rc=0
  cw migrate --namespace "$NS" --lease-duration 5s --lease-wait 2m --report "$E2E_DIR/after-lease.json" \
    > "$E2E_DIR/after-lease.txt" 2> "$E2E_DIR/after-lease.log" || rc=$?
  assert_eq 0 "$rc" "a run after the Lease was left to expire (log: $(tail -3 "$E2E_DIR/after-lease.log"))"
  assert_json "$(cat "$E2E_DIR/after-lease.json")" '.summary | [.changesPending, .errors]' '[false,0]' "nothing left to do"
fi
assert_fails --match NotFound kc get lease -n "$NS" cronwarden-migrate
