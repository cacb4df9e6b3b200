#!/usr/bin/env bash
# cronwarden cron audit against a live cluster: the same objects audited live (paged LISTs, as a
# user with nothing but get/list on them) and exported to files give the same report; a cluster
# without Velero's CRD is audited without Schedules; the audit writes nothing.
. "$(dirname "$0")/../lib.sh"
e2e_start current
apply_crds
e2e_require_users nobody
FROM=2026-11-24T00:00:00Z

e2e_step "a Longhorn 1.2+ cluster with a midnight wave, a legacy volume and a Longhorn StorageClass"
assert_ok kc create namespace longhorn-system
assert_ok kc create namespace velero
assert_ok kc apply -f "$CW_SOURCE_DIR/tests/cli/audit/midnight.yaml"
assert_ok kc apply -f - <<'YAML'
apiVersion: longhorn.io/v1beta1
kind: Volume
metadata: {name: legacy-1, namespace: longhorn-system}
spec:
  recurringJobs:
  - {name: snap, task: snapshot, cron: "0 0 * * *", retain: 3}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: longhorn-fast}
provisioner: driver.longhorn.io
parameters:
  recurringJobSelector: '[{"name":"snap-db","isGroup":false},{"name":"web","isGroup":true}]'
YAML

e2e_step "the read-only role of docs/audit.md is all the audit needs"
assert_ok kc apply -f - <<'YAML'
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: cronwarden-schedule-audit}
rules:
- apiGroups: [longhorn.io]
  resources: [recurringjobs, volumes]
  verbs: [list]
- apiGroups: [velero.io]
  resources: [schedules]
  verbs: [list]
- apiGroups: [storage.k8s.io]
  resources: [storageclasses]
  verbs: [list]
YAML
assert_ok kc create clusterrolebinding cronwarden-schedule-audit-nobody \
  --clusterrole=cronwarden-schedule-audit --user=nobody
RV_BEFORE=$(kc get recurringjobs.longhorn.io -n longhorn-system -o jsonpath='{.metadata.resourceVersion}')

e2e_step "live and exported files give the same report"
assert_ok cw cron audit --kubeconfig "$CW_E2E_DIR/kubeconfig-nobody" --from "$FROM" -o json
LIVE=$E2E_OUT
mkdir -p "$E2E_DIR/export"
kc get recurringjobs.longhorn.io,volumes.longhorn.io -n longhorn-system -o yaml > "$E2E_DIR/export/longhorn.yaml"
kc get schedules.velero.io -n velero -o yaml > "$E2E_DIR/export/velero.yaml"
kc get storageclasses -o yaml > "$E2E_DIR/export/storageclasses.yaml"
assert_ok cw cron audit -f "$E2E_DIR/export" --from "$FROM" -o json
FILES=$E2E_OUT
strip='del(.jobs[].source) | del(.inventory.ignoredObjects)'
assert_eq "$(jq -cS "$strip" <<<"$FILES")" "$(jq -cS "$strip" <<<"$LIVE")" "live audit equals the files' audit"
assert_json "$LIVE" '.inventory | [.volumes, .recurringJobs, .legacyJobLines, .schedules, .storageClasses]' '[121,7,1,3,1]' "inventory"
assert_json "$LIVE" '.maxStarts' 60 "the midnight wave plus the legacy volume"
assert_json "$LIVE" '.storageClasses[0].newVolumesJoin' '["job:snap-db","group:web"]' "StorageClass selectors"
assert_json "$LIVE" '[.jobs[] | select(.kind != "LegacyJobs" and .source != "live")] | length' 0 "live sources"

e2e_step "the text and SVG reports come from the live cluster too"
assert_ok cw cron audit --kubeconfig "$CW_E2E_DIR/kubeconfig-nobody" --from "$FROM" --max-starts 100
assert_contains "$E2E_OUT" "Peak: 60 operations start at 2026-11-29T00:00:00Z" "text report"
assert_fails cw cron audit --kubeconfig "$CW_E2E_DIR/kubeconfig-nobody" --from "$FROM" --max-starts 30
assert_ok cw cron audit --kubeconfig "$CW_E2E_DIR/kubeconfig-nobody" --from "$FROM" -o svg
assert_contains "$E2E_OUT" "</svg>" "SVG report"

e2e_step "suggestions for a live cluster are merge patches in a new file, nothing is written"
# exit 1: the cluster as it is has steps above --max-starts
assert_fails --match "Suggested crons (target: 30)" cw cron audit \
  --kubeconfig "$CW_E2E_DIR/kubeconfig-nobody" --from "$FROM" --suggest --max-starts 30 \
  --patch "$E2E_DIR/patch.sh"
assert_contains "$(cat "$E2E_DIR/patch.sh")" "kubectl patch recurringjobs.longhorn.io backup-db -n longhorn-system --type merge -p '{\"spec\":{\"cron\":\"52 0 * * *\"}}'" "a merge patch"
assert_eq "$RV_BEFORE" "$(kc get recurringjobs.longhorn.io -n longhorn-system -o jsonpath='{.metadata.resourceVersion}')" "nothing written"
# the patches, applied by the admin, flatten the live cluster's wave as promised
sed "s#^kubectl #$CW_KUBECTL --kubeconfig $CW_E2E_DIR/kubeconfig #" "$E2E_DIR/patch.sh" > "$E2E_DIR/patch-admin.sh"
assert_ok sh "$E2E_DIR/patch-admin.sh"
assert_ok cw cron audit --kubeconfig "$CW_E2E_DIR/kubeconfig-nobody" --from "$FROM" --max-starts 30 -o json
assert_json "$E2E_OUT" '.maxStarts <= 30' true "the patched cluster meets --max-starts"

e2e_step "a cluster without Velero's CRD: Schedules are left out, not an error"
assert_ok kc delete crd schedules.velero.io
kc wait --for=delete crd/schedules.velero.io --timeout=60s >/dev/null 2>&1 || true
OUT=$(cw cron audit --kubeconfig "$CW_E2E_DIR/kubeconfig-nobody" --from "$FROM" -o json 2>"$E2E_DIR/err") ||
  e2e_fail "audit without Velero failed: $(cat "$E2E_DIR/err")"
assert_json "$OUT" '.inventory.schedules' 0 "no Schedules"
assert_contains "$(cat "$E2E_DIR/err")" 'msg="not served, skipped" resource=schedules group=velero.io' "said once, at info level"

e2e_step "a user without the role is refused with the API server's reason"
assert_ok kc delete clusterrolebinding cronwarden-schedule-audit-nobody
assert_fails --match forbidden cw cron audit --kubeconfig "$CW_E2E_DIR/kubeconfig-nobody" --from "$FROM"
