#!/usr/bin/env bash
# Issue 33 (1): a tenant cannot OOM the controller with NonAdminBackups. On a real kube-apiserver
# with Velero's and OADP's CRDs, the nonadminbackup reconciler alone; alice, a tenant of shop:
#   - 100 NonAdminBackups at the size limit (spec.backupSpec of 16384 bytes, the attack's shape:
#     a hook command of empty strings) are all Created, each with its Velero Backup;
#   - one of 1.36 MB (the attack's object) is refused: BackingOff, Accepted=False
#     InvalidBackupSpec naming its size and the limit; no Velero Backup is made of it;
#   - 20 at the limit that stay BackingOff (they name another namespace): their specs are what the
#     controller keeps;
#   - meanwhile bank's NonAdminBackup is Created;
#   - the controller is the process it was (no restart) and its peak RSS (VmHWM, the kernel's
#     high-water mark of the whole run) stays under the shipped Deployment's 256 MiB limit.
. "$(dirname "$0")/../lib.sh"
e2e_start current
apply_upstream_crds tests/fixtures/velero-1.18.1 tests/fixtures/oadp-non-admin-4e22229
OADP=openshift-adp
for ns in "$OADP" shop bank; do kc create namespace "$ns" >/dev/null; done
# The shipped Deployment's memory limit, in KiB.
LIMIT_KIB=$(sed -n 's/.*limits:.*memory: *\([0-9]*\)Mi.*/\1/p' "$CW_SOURCE_DIR/deploy/controller/deployment.yaml")
LIMIT_KIB=$((LIMIT_KIB * 1024))
assert_eq "$LIMIT_KIB" 262144
kc apply -f - >/dev/null <<'EOF'
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: nonadmin-editor}
rules:
- apiGroups: [oadp.openshift.io]
  resources: [nonadminbackups]
  verbs: [create, delete, get, list, patch, update, watch]
EOF
printf '%s\n' '{"apiVersion":"oadp.openshift.io/v1alpha1","kind":"NonAdminBackup","metadata":{"name":"vault-0","namespace":"bank"},"spec":{"backupSpec":{"ttl":"24h0m0s"}}}' >"$E2E_DIR/vault.json"
assert_ok kc create rolebinding alice-editor -n shop --clusterrole=nonadmin-editor --user=alice
sized() { python3 "$CW_SOURCE_DIR/tests/e2e/fixtures/nonadmin_sized.py" "$@"; }
# phases NS PREFIX: "<phase> <count>,..." of the NonAdminBackups named PREFIX-*.
phases() {
  kc get nonadminbackups.oadp.openshift.io -n "$1" -o json |
    jq -r --arg p "$2-" '[.items[] | select(.metadata.name | startswith($p)) | .status.phase // "-"] | group_by(.) | map("\(.[0]) \(length)") | join(",")'
}
phases_are() { [ "$(phases "$1" "$2")" = "$3" ]; }
hwm_kib() { awk '/^VmHWM:/ {print $2}' "/proc/$1/status"; }
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }

e2e_step "the controller (nonadminbackup), synced"
e2e_bg ctl "$CW_BINARY" controller --controllers nonadminbackup --kubeconfig "$CW_E2E_DIR/kubeconfig" \
  --oadp-namespace "$OADP" --leader-elect=false --metrics-listen 127.0.0.1:0 --log-level info
pid=$(e2e_bg_pid ctl)
wait_for 30 "the controller's caches" grep -q 'cache synced.*nonadminbackups' "$(log_of ctl)"
e2e_log "RSS at start: $(rss_kib "$pid") KiB"

e2e_step "alice: the attack's object (1.36 MB), 100 at the limit, 20 at the limit that stay refused"
sized shop attack 1 1360000 >"$E2E_DIR/attack.json"
for part in a b c d; do sized shop "big-$part" 25 16384 >"$E2E_DIR/big-$part.json"; done
sized shop held 20 16384 --refused >"$E2E_DIR/held.json"
assert_ok kc --as=alice create -f "$E2E_DIR/attack.json"
# kubectl creates a List's items one by one at its own rate: five at once.
pids=()
for f in big-a big-b big-c big-d held; do
  kc --as=alice create -f "$E2E_DIR/$f.json" >"$E2E_DIR/$f.out" 2>&1 & pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || e2e_fail "creating NonAdminBackups failed: $(cat "$E2E_DIR"/*.out)"; done
assert_ok kc create -f "$E2E_DIR/vault.json"

e2e_step "every one decided: the 100 and bank's Created, the attack and the 20 BackingOff"
wait_for 60 "bank's to be Created" phases_are bank vault Created\ 1
wait_for 180 "shop's 100 to be Created" phases_are shop big Created\ 100
wait_for 60 "the 20 to be BackingOff" phases_are shop held BackingOff\ 20
wait_for 60 "the attack to be BackingOff" phases_are shop attack BackingOff\ 1
obj=$(kc get nonadminbackups.oadp.openshift.io -n shop attack-0 -o json)
assert_json "$obj" '.status.conditions | map(select(.type == "Accepted")) | .[0] | [.status, .reason, .message] | join("|")' \
  'False|InvalidBackupSpec|NonAdminBackup spec.backupSpec is too large: 1360000 bytes, the limit is 16384 bytes (compact JSON)'
assert_json "$obj" '.status.veleroBackup' null
assert_json "$(kc get nonadminbackups.oadp.openshift.io -n shop held-0 -o json)" '.status.conditions[0].message' \
  'NonAdminBackup spec.backupSpec.includedNamespaces is restricted, can not contain namespaces other than: shop'
# 100 of shop's, one of bank's; none of the attack's.
assert_eq "$(kc get backups.velero.io -n "$OADP" -o json | jq '.items | length')" 101

e2e_step "the same process throughout, its peak RSS under the shipped limit"
assert_ok kill -0 "$pid"
hwm=$(hwm_kib "$pid")
e2e_log "controller pid $pid: VmHWM ${hwm} KiB, VmRSS $(rss_kib "$pid") KiB (limit ${LIMIT_KIB} KiB)"
[ "$hwm" -lt "$LIMIT_KIB" ] || e2e_fail "peak RSS ${hwm} KiB is not under the shipped limit ${LIMIT_KIB} KiB"

e2e_step "a restarted controller fills its cache from LIST pages (the attack's spec left unparsed): its peak RSS too"
e2e_stop ctl
e2e_bg ctl2 "$CW_BINARY" controller --controllers nonadminbackup --kubeconfig "$CW_E2E_DIR/kubeconfig" \
  --oadp-namespace "$OADP" --leader-elect=false --metrics-listen 127.0.0.1:0 --log-level info
pid=$(e2e_bg_pid ctl2)
wait_for 30 "the second controller's caches" grep -q 'informer=nonadminbackups objects=122' "$(log_of ctl2)"
reconciled() { [ "$(metric_sum ctl2 cronwarden_controller_reconciles_total)" -ge 122 ]; }
wait_for 60 "its first pass over the 122" reconciled
hwm=$(hwm_kib "$pid")
e2e_log "controller pid $pid after its LIST: VmHWM ${hwm} KiB, VmRSS $(rss_kib "$pid") KiB"
[ "$hwm" -lt "$LIMIT_KIB" ] || e2e_fail "peak RSS ${hwm} KiB is not under the shipped limit ${LIMIT_KIB} KiB"
assert_json "$(kc get nonadminbackups.oadp.openshift.io -n shop attack-0 -o json)" '.status.phase' BackingOff
