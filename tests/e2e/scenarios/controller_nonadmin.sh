#!/usr/bin/env bash
# cronwarden controller, the OADP NonAdminBackup reconciler, on a real kube-apiserver with the CRDs
# Velero 1.18.1 and OADP's non-admin controller ship (tests/fixtures/), run as a user bound to
# exactly deploy/controller/rbac-nonadmin.yaml (+ rbac.yaml's leader election). The test plays
# Velero: it sets the Velero Backups' phases and completion times, carries out
# DeleteBackupRequests, and restores a recorded backup through a Restore's filters
# (tests/e2e/fixtures/velero_restore.py). A tenant, alice, may edit NonAdminBackups in her
# namespace shop only; mallory may also write their status there; tina edits them in team-a only.
#   - a NonAdminBackup from creation to Completed, its queue position counting down as earlier
#     Velero Backups finish; the controller killed between "nacuuid recorded" and "Velero Backup
#     created" leaves exactly one Velero Backup, and one killed after the create is adopted by the
#     next; a no-op reconcile writes nothing;
#   - an invalid spec: BackingOff with OADP's message, accepted once edited;
#   - the attacker's view: every way alice tries to reach another namespace is refused with the
#     message, and no Velero Backup covers anything but shop;
#   - a NonAdminRestore from creation to Completed; every way alice tries to restore another
#     namespace's backup, or into another namespace, is refused;
#   - tenancy, issue 24's six cases, each refused or contained, by tenants of one namespace:
#     (1) every Velero Backup, a plain one too, excludes OADP's cluster-scoped and non-admin kinds;
#     (2) every Velero Restore names shop alone with the same exclusions, includeClusterResources
#     true is refused, and a replayed restore of a plain backup leaves a ClusterRoleBinding the
#     administrator deleted deleted; (3) a forged status can neither point a restore at bank's
#     backup nor choose the name of a Velero object; (4) init-container hooks and (5) resource
#     policies/modifiers are refused, then allowed by --allow-restore-init-hooks and
#     --allowed-resource-policies (others still refused); (6) tina's NonAdminBackup in team-a whose
#     nacuuid would be cut on a '.' gets a valid name, and a Velero Backup the API server refuses
#     (an enforced ttl of the wrong type) ends in BackingOff with its message, made after an edit;
#   - a backupName no object can have ('?', '%'-escapes, '..', '/', upper case, 254 characters, a
#     NUL after a real name...): BackingOff with OADP's NotFound answer, never asked for (the
#     apiserver's audit log holds no such request), not retried;
#   - spec.deleteBackup (DeleteBackupRequest and the restores made from it, then gone); a direct delete (the Velero Backup object
#     and its requests go, then the NonAdminBackup); a Velero Backup that disappears.
. "$(dirname "$0")/../lib.sh"
# The apiserver's own record of the controller's requests (logs/audit.jsonl): proof that a
# backupName no object can have is never asked for.
export CRONWARDEN_E2E_AUDIT_POLICY=$CW_SOURCE_DIR/tests/e2e/fixtures/audit-controller.yaml
e2e_start current
apply_upstream_crds tests/fixtures/velero-1.18.1 tests/fixtures/oadp-non-admin-4e22229
e2e_require_users controller
OADP=openshift-adp
LEASE_NS=cronwarden
for ns in "$LEASE_NS" "$OADP" shop bank team-a; do kc create namespace "$ns" >/dev/null; done
# OADP's exclusions (internal/controller/nonadminbackup_controller.go), as every Velero object of a
# non-admin user carries them; a Restore adds volumesnapshotclasses.
EXCL='["nonadminbackups","nonadminrestores","nonadminbackupstoragelocations","securitycontextconstraints","clusterroles","clusterrolebindings","priorityclasses","customresourcedefinitions","virtualmachineclusterinstancetypes","virtualmachineclusterpreferences"]'
REXCL=$(jq -c '. + ["volumesnapshotclasses"]' <<<"$EXCL")

e2e_step "RBAC as shipped, bound to the static user controller; alice edits NonAdminBackups in shop only"
assert_ok kc apply -f "$CW_SOURCE_DIR/deploy/controller/rbac.yaml"
assert_ok kc apply -f "$CW_SOURCE_DIR/deploy/controller/rbac-nonadmin.yaml"
assert_ok kc create clusterrolebinding nonadmin-user --clusterrole=cronwarden-controller-nonadmin --user=controller
assert_ok kc create rolebinding oadp-user -n "$OADP" --role=cronwarden-controller-oadp --user=controller
assert_ok kc create rolebinding leader-user -n "$LEASE_NS" --role=cronwarden-controller-leader-election --user=controller
kc apply -f - >/dev/null <<'EOF'
# OADP's nonadminbackup editor role: the object, not its status.
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: nonadmin-editor}
rules:
- apiGroups: [oadp.openshift.io]
  resources: [nonadminbackups, nonadminrestores]
  verbs: [create, delete, get, list, patch, update, watch]
- apiGroups: [oadp.openshift.io]
  resources: [nonadminbackups/status, nonadminrestores/status]
  verbs: [get]
EOF
assert_ok kc create rolebinding alice-editor -n shop --clusterrole=nonadmin-editor --user=alice
as_alice() { kc --as=alice "$@"; }

# ctl NAME [VAR=VALUE...]: a controller with the backup spec CTL_ENFORCED enforces and the
# administrator's other flags CTL_FLAGS, as set at the time.
CTL_ENFORCED=enforced.yaml
CTL_FLAGS=()
ctl() {
  local name=$1; shift
  e2e_bg "$name" env "$@" "$CW_BINARY" controller --controllers nonadminbackup,nonadminrestore --kubeconfig "$CW_E2E_DIR/kubeconfig-controller" \
    --oadp-namespace "$OADP" --enforce-backup-spec "$E2E_DIR/$CTL_ENFORCED" --enforce-restore-spec "$E2E_DIR/enforced-restore.yaml" \
    --leader-election-namespace "$LEASE_NS" --lease-duration 3s --metrics-listen 127.0.0.1:0 --log-level debug ${CTL_FLAGS[@]+"${CTL_FLAGS[@]}"}
}
log_of() { printf '%s/logs/%s.log' "$CW_E2E_DIR" "$1"; }
port_of() { grep -o 'metrics_port=[0-9]*' "$(log_of "$1")" | sed -n 1p | cut -d= -f2; }
metric() { curl -fsS "http://127.0.0.1:$(port_of "$1")/metrics" | awk -v m="$2" '$1 == m {print $2}'; }
nab() { kc get nonadminbackups.oadp.openshift.io -n shop "$1" -o json; }
nab_field() { kc get nonadminbackups.oadp.openshift.io -n shop "$1" -o json | jq -cr "$2"; }
# nab_is NAME FILTER VALUE: for wait_for.
nab_is() { [ "$(nab_field "$1" "$2")" = "$3" ]; }
vb_count() { kc get backups.velero.io -n "$OADP" -l "openshift.io/oadp-nab-origin-nacuuid=$1" -o json | jq '.items | length'; }
now() { date -u +%Y-%m-%dT%H:%M:%SZ; }
# velero_set NAME PHASE [done]: what Velero would write into a Backup's status.
velero_set() {
  local st="{\"phase\":\"$2\"}"
  [ "${3:-}" = done ] && st="{\"phase\":\"$2\",\"completionTimestamp\":\"$(now)\"}"
  assert_ok kc patch backups.velero.io -n "$OADP" "$1" --type merge -p "{\"status\":$st}"
}
# make_all KIND SPECFIELD ROWS: alice creates the objects of the rows (name|spec JSON|...) in shop,
# in one kubectl run.
make_all() {
  jq -Rn --arg kind "$1" --arg f "$2" '{apiVersion: "v1", kind: "List", items: [inputs | split("|") |
    {apiVersion: "oadp.openshift.io/v1alpha1", kind: $kind, metadata: {name: .[0], namespace: "shop"}, spec: {($f): (.[1] | fromjson)}}]}' \
    <<<"$3" >"$E2E_DIR/$1.json"
  assert_ok as_alice create -f "$E2E_DIR/$1.json"
}
# all_refused PLURAL ROWS: the object of every row (name|spec|message) is BackingOff with that
# Accepted message, read in one LIST.
all_refused() {
  local want got
  want=$(jq -RnSc '[inputs | split("|") | {key: .[0], value: ["BackingOff", .[2]]}] | from_entries' <<<"$2")
  got=$(kc get "$1" -n shop -o json | jq -Sc --argjson w "$want" '[.items[] | select(.metadata.name | in($w)) |
    {key: .metadata.name, value: [.status.phase, ((.status.conditions // []) | map(select(.type == "Accepted")) | .[0].message)]}] | from_entries')
  [ "$got" = "$want" ] || { echo "got:  $got"; echo "want: $want"; return 1; }
}
mknab() { # NAME BACKUPSPEC-JSON
  as_alice create -f - <<EOF
{"apiVersion":"oadp.openshift.io/v1alpha1","kind":"NonAdminBackup","metadata":{"name":"$1","namespace":"shop"},"spec":{"backupSpec":$2}}
EOF
}
printf 'existingResourcePolicy: none\n' >"$E2E_DIR/enforced-restore.yaml"
cat >"$E2E_DIR/enforced.yaml" <<'EOF'
# the administrator's rules for non-admin backups
ttl: 720h0m0s
snapshotMoveData: false
EOF

e2e_step "usage errors: an enforced spec that is not a map, or that enforces a refused field; an allowed resource policy that is no ConfigMap name"
printf -- '- a\n' >"$E2E_DIR/list.yaml"
printf 'includedNamespaces: [bank]\n' >"$E2E_DIR/ns.yaml"
assert_fails --match 'expected one YAML document holding a map' cw controller --controllers nonadminbackup --enforce-backup-spec "$E2E_DIR/list.yaml"
assert_fails --match 'includedNamespaces: non-admin backups may not set it' cw controller --controllers nonadminbackup \
  --kubeconfig "$CW_E2E_DIR/kubeconfig-controller" --enforce-backup-spec "$E2E_DIR/ns.yaml" --metrics-listen 127.0.0.1:0 --leader-elect=false
assert_fails --match '--allowed-resource-policies: "skip,all" is not a ConfigMap name' cw controller --controllers nonadminrestore --allowed-resource-policies skip,all

e2e_step "two unfinished Velero Backups of the admin, created earlier"
for b in admin-1 admin-2; do
  kc create -n "$OADP" -f - >/dev/null <<EOF
{"apiVersion":"velero.io/v1","kind":"Backup","metadata":{"name":"$b"},"spec":{}}
EOF
  sleep 1.1 # creation times are whole seconds: strictly earlier
done

e2e_step "a controller killed after recording the nacuuid, before creating the Velero Backup"
ctl ctl1 CRONWARDEN_FAILPOINTS=nonadminbackup-create=kill
sleep 1.1
assert_ok mknab daily '{"includedNamespaces":["shop"],"labelSelector":{"matchLabels":{"app":"web"}}}'
wait_for 30 "ctl1 to die at the failpoint" grep -q 'failpoint: killing this process' "$(log_of ctl1)"
wait "$(e2e_bg_pid ctl1)" 2>/dev/null || true
obj=$(nab daily)
NAC=$(jq -r .status.veleroBackup.nacuuid <<<"$obj")
[[ $NAC =~ ^shop-daily-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$ ]] || e2e_fail "nacuuid '$NAC'"
assert_json "$obj" .status.phase New
assert_json "$obj" .metadata.finalizers '["nonadminbackup.oadp.openshift.io/finalizer"]'
assert_json "$obj" '.status.conditions | map([.type, .status, .reason, .message])' '[["Accepted","True","BackupAccepted","backup accepted"]]'
assert_eq 0 "$(vb_count "$NAC")" "Velero Backups before the create"

e2e_step "a new controller creates exactly one Velero Backup, named by the recorded nacuuid"
ctl ctl2
wait_for 30 "daily Created" nab_is daily .status.phase Created
assert_eq 1 "$(vb_count "$NAC")" "Velero Backups of daily"
vb=$(kc get backups.velero.io -n "$OADP" "$NAC" -o json)
assert_json "$vb" .metadata.labels '{"app.kubernetes.io/managed-by":"oadp-nac-controller","openshift.io/oadp":"True","openshift.io/oadp-nab-origin-nacuuid":"'"$NAC"'"}'
assert_json "$vb" .metadata.annotations '{"openshift.io/oadp-nab-origin-name":"daily","openshift.io/oadp-nab-origin-namespace":"shop"}'
assert_json "$vb" .spec '{"excludedResources":'"$EXCL"',"includedNamespaces":["shop"],"labelSelector":{"matchLabels":{"app":"web"}},"snapshotMoveData":false,"ttl":"720h0m0s"}'
obj=$(nab daily)
assert_json "$obj" '.status.conditions | map([.type, .status, .reason, .message])' '[["Accepted","True","BackupAccepted","backup accepted"],["Queued","True","BackupScheduled","Created Velero Backup object"]]'
assert_json "$obj" .status.veleroBackup '{"nacuuid":"'"$NAC"'","name":"'"$NAC"'","namespace":"openshift-adp","status":{}}'
wait_for 10 "daily's queue position 3" nab_is daily .status.queueInfo.estimatedQueuePosition 3

e2e_step "the queue position counts down as earlier Velero Backups finish; the status is mirrored"
velero_set admin-1 Completed done
wait_for 10 "position 2" nab_is daily .status.queueInfo.estimatedQueuePosition 2
velero_set admin-2 Failed done
wait_for 10 "position 1" nab_is daily .status.queueInfo.estimatedQueuePosition 1
e2e_log "Queued with the backup queue's own position: that one is used; the phase as OADP's CRD holds it"
assert_ok kc patch backups.velero.io -n "$OADP" "$NAC" --type merge -p '{"status":{"phase":"Queued","queuePosition":5}}'
wait_for 10 "position 5 from status.queuePosition" nab_is daily .status.queueInfo.estimatedQueuePosition 5
assert_json "$(nab daily)" .status.veleroBackup.status '{"phase":"New"}'
velero_set "$NAC" InProgress
wait_for 10 "InProgress mirrored" nab_is daily .status.veleroBackup.status.phase InProgress
assert_eq 1 "$(nab_field daily .status.queueInfo.estimatedQueuePosition)" "position while InProgress"
velero_set "$NAC" Completed done
wait_for 10 "Completed mirrored, position 0" nab_is daily '[.status.veleroBackup.status.phase, .status.queueInfo.estimatedQueuePosition]' '["Completed",0]'
accepted_at=$(nab_field daily '.status.conditions[0].lastTransitionTime')

e2e_step "nothing to change: a reconcile writes nothing"
sleep 2
w0=$(metric ctl2 'cronwarden_controller_nonadminbackup_writes_total{verb="update_status",result="ok"}')
seen=$(grep -c 'up to date.*nonadminbackup=shop/daily' "$(log_of ctl2)" || true)
assert_ok as_alice label nonadminbackups.oadp.openshift.io -n shop daily touched=yes
wait_for 10 "the touch reconciled" bash -c "[ \$(grep -c 'up to date.*nonadminbackup=shop/daily' '$(log_of ctl2)') -gt $seen ]"
sleep 2
assert_eq "$w0" "$(metric ctl2 'cronwarden_controller_nonadminbackup_writes_total{verb="update_status",result="ok"}')" "status writes after a no-op"
assert_eq "$accepted_at" "$(nab_field daily '.status.conditions[0].lastTransitionTime')" "Accepted's lastTransitionTime"

e2e_step "an invalid spec: BackingOff with OADP's message; edited, it is accepted"
assert_ok mknab edited '{"includedNamespaces":["bank"]}'
wait_for 10 "edited BackingOff" nab_is edited .status.phase BackingOff
assert_json "$(nab edited)" '.status.conditions | map([.type, .status, .reason, .message])' \
  '[["Accepted","False","InvalidBackupSpec","NonAdminBackup spec.backupSpec.includedNamespaces is restricted, can not contain namespaces other than: shop"]]'
assert_json "$(nab edited)" '.status | has("veleroBackup")' false
assert_ok as_alice patch nonadminbackups.oadp.openshift.io -n shop edited --type merge -p '{"spec":{"backupSpec":{"includedNamespaces":null}}}'
wait_for 15 "edited Created" nab_is edited .status.phase Created
NAC2=$(nab_field edited .status.veleroBackup.nacuuid)
assert_json "$(kc get backups.velero.io -n "$OADP" "$NAC2" -o json)" .spec.includedNamespaces '["shop"]'

e2e_step "the attacker's view: every try at another namespace is refused with the message"
R='NonAdminBackup spec.backupSpec.%s is restricted'
# name|backupSpec|message
rows=$(cat <<EOF
other|{"includedNamespaces":["bank"]}|$(printf "$R" includedNamespaces), can not contain namespaces other than: shop
star|{"includedNamespaces":["*"]}|$(printf "$R" includedNamespaces), can not contain namespaces other than: shop
both|{"includedNamespaces":["shop","bank"]}|$(printf "$R" includedNamespaces), can not contain namespaces other than: shop
glob|{"includedNamespaces":["ban?"]}|$(printf "$R" includedNamespaces), can not contain namespaces other than: shop
exclude|{"excludedNamespaces":["kube-system"]}|$(printf "$R" excludedNamespaces)
cluster|{"includeClusterResources":true}|$(printf "$R" includeClusterResources), can only be set to false
scoped|{"includedClusterScopedResources":["namespaces"]}|$(printf "$R" includedClusterScopedResources), must remain empty
bsl|{"storageLocation":"admin-bsl"}|$(printf "$R" storageLocation), must remain empty (NonAdminBackupStorageLocation is not supported by cronwarden: backups go to the default location)
vsl|{"volumeSnapshotLocations":["admin-vsl"]}|$(printf "$R" volumeSnapshotLocations)
ttl|{"ttl":"87600h0m0s"}|the administrator has restricted spec.backupSpec.ttl field value to 720h0m0s
hookns|{"hooks":{"resources":[{"name":"freeze","includedNamespaces":["bank"],"pre":[{"exec":{"command":["fsfreeze","-f","/data"]}}]}]}}|$(printf "$R" 'hooks.resources[0].includedNamespaces'), can not contain namespaces other than: shop
policy|{"resourcePolicy":{"kind":"configmap","name":"skip-volumes"}}|$(printf "$R" resourcePolicy), can only name a ConfigMap the administrator allows (--allowed-resource-policies): none
crbs|{"includedResources":["clusterrolebindings"]}|$(printf "$R" includedResources), can not contain clusterrolebindings (excluded from every non-admin backup)
EOF
)
make_all NonAdminBackup backupSpec "$rows"
wait_for 15 "every one BackingOff with its message" all_refused nonadminbackups.oadp.openshift.io "$rows"
e2e_log "a string where Velero's schema wants a list: the apiserver refuses it itself (OADP's CRD)"
assert_fails --match 'spec.backupSpec.includedNamespaces' as_alice create --validate=false -f - <<'EOF'
{"apiVersion":"oadp.openshift.io/v1alpha1","kind":"NonAdminBackup","metadata":{"name":"string","namespace":"shop"},"spec":{"backupSpec":{"includedNamespaces":"bank"}}}
EOF
e2e_log "selectors and namespace mapping cannot leave shop: the Velero Backup names shop only"
# namespaceMapping is no BackupSpec field: the API server drops it (OADP's CRD), kubectl's own
# check would refuse it first.
assert_ok as_alice create --validate=false -f - <<'EOF'
{"apiVersion":"oadp.openshift.io/v1alpha1","kind":"NonAdminBackup","metadata":{"name":"selector","namespace":"shop"},"spec":{"backupSpec":{"labelSelector":{"matchExpressions":[{"key":"kubernetes.io/metadata.name","operator":"In","values":["bank"]}]},"orLabelSelectors":[{"matchLabels":{"team":"bank"}}],"namespaceMapping":{"shop":"bank"}}}}
EOF
assert_json "$(nab selector)" '.spec.backupSpec | has("namespaceMapping")' false
wait_for 15 "selector Created" nab_is selector .status.phase Created
assert_json "$(kc get backups.velero.io -n "$OADP" "$(nab_field selector .status.veleroBackup.nacuuid)" -o json)" .spec.includedNamespaces '["shop"]'
e2e_log "an exec hook is held to shop; new-style filters get the exclusions in their own lists"
assert_ok mknab hooked '{"hooks":{"resources":[{"name":"freeze","pre":[{"exec":{"command":["fsfreeze","-f","/data"]}}]}]},"excludedClusterScopedResources":["storageclasses"]}'
wait_for 15 "hooked Created" nab_is hooked .status.phase Created
vb=$(kc get backups.velero.io -n "$OADP" "$(nab_field hooked .status.veleroBackup.nacuuid)" -o json)
assert_json "$vb" .spec.hooks.resources '[{"includedNamespaces":["shop"],"name":"freeze","pre":[{"exec":{"command":["fsfreeze","-f","/data"]}}]}]'
assert_json "$vb" .spec.excludedClusterScopedResources "$(jq -c '["storageclasses"] + .[3:]' <<<"$EXCL")"
assert_json "$vb" .spec.excludedNamespaceScopedResources "$(jq -c '.[:3]' <<<"$EXCL")"
assert_json "$vb" .spec.excludedResources null
e2e_log "alice cannot write status (a forged nacuuid), make Velero objects, or use another namespace"
nab daily | jq '.status.veleroBackup.nacuuid = "admin-1"' >"$E2E_DIR/forged.json"
assert_fails --match forbidden as_alice replace --raw "/apis/oadp.openshift.io/v1alpha1/namespaces/shop/nonadminbackups/daily/status" -f "$E2E_DIR/forged.json"
assert_fails --match forbidden as_alice create -n "$OADP" -f - <<'EOF'
{"apiVersion":"velero.io/v1","kind":"Backup","metadata":{"name":"direct"},"spec":{"includedNamespaces":["bank"]}}
EOF
assert_fails --match forbidden as_alice create -f - <<'EOF'
{"apiVersion":"oadp.openshift.io/v1alpha1","kind":"NonAdminBackup","metadata":{"name":"x","namespace":"bank"},"spec":{"backupSpec":{}}}
EOF
e2e_log "every Velero Backup made for a NonAdminBackup covers shop alone"
assert_json "$(kc get backups.velero.io -n "$OADP" -l openshift.io/oadp-nab-origin-nacuuid -o json)" \
  '[.items[].spec | [.includedNamespaces, .excludedNamespaces, .includeClusterResources, .includedClusterScopedResources, .storageLocation, ((.excludedResources // []) + (.excludedNamespaceScopedResources // []) + (.excludedClusterScopedResources // []) | map(select(. != "storageclasses")) | sort)]] | unique' \
  '[[["shop"],null,null,null,null,'"$(jq -c sort <<<"$EXCL")"']]'
assert_eq 4 "$(kc get backups.velero.io -n "$OADP" -l openshift.io/oadp-nab-origin-nacuuid -o name | wc -l)" "Velero Backups of non-admin users (daily, edited, selector, hooked)"

e2e_step "tina, a tenant of team-a only: a NonAdminBackup whose nacuuid would have been cut on a '.' gets a valid name, and a plain Velero Backup held to team-a"
assert_ok kc create rolebinding tina-editor -n team-a --clusterrole=nonadmin-editor --user=tina
assert_ok kc --as=tina create -f - <<'EOF'
{"apiVersion":"oadp.openshift.io/v1alpha1","kind":"NonAdminBackup","metadata":{"name":"aaaaaaaaaaaaaaaaaa.b","namespace":"team-a"},"spec":{"backupSpec":{}}}
EOF
wait_for 15 "team-a's NonAdminBackup Created" bash -c "kc get nonadminbackups.oadp.openshift.io -n team-a aaaaaaaaaaaaaaaaaa.b -o jsonpath='{.status.phase}' | grep -qx Created"
DOTNAC=$(kc get nonadminbackups.oadp.openshift.io -n team-a aaaaaaaaaaaaaaaaaa.b -o jsonpath='{.status.veleroBackup.nacuuid}')
[[ $DOTNAC =~ ^team-a-aaaaaaaaaaaaaaaaaa-[0-9a-f-]{36}$ ]] || e2e_fail "nacuuid '$DOTNAC'"
assert_json "$(kc get backups.velero.io -n "$OADP" "$DOTNAC" -o json)" .spec '{"excludedResources":'"$EXCL"',"includedNamespaces":["team-a"],"snapshotMoveData":false,"ttl":"720h0m0s"}'
assert_fails --match forbidden kc --as=tina get nonadminbackups.oadp.openshift.io -n shop

e2e_step "a NonAdminRestore of daily: a Velero Restore of daily's Velero Backup, mirrored to Completed"
mknar() { # NAME RESTORESPEC-JSON
  as_alice create -f - <<EOF
{"apiVersion":"oadp.openshift.io/v1alpha1","kind":"NonAdminRestore","metadata":{"name":"$1","namespace":"shop"},"spec":{"restoreSpec":$2}}
EOF
}
nar_field() { kc get nonadminrestores.oadp.openshift.io -n shop "$1" -o json | jq -cr "$2"; }
nar_is() { [ "$(nar_field "$1" "$2")" = "$3" ]; }
kc create -n "$OADP" -f - >/dev/null <<'EOF'
{"apiVersion":"velero.io/v1","kind":"Restore","metadata":{"name":"admin-restore"},"spec":{"backupName":"admin-1"}}
EOF
sleep 1.1
assert_ok mknar undo '{"backupName":"daily","restorePVs":true}'
wait_for 15 "undo Created" nar_is undo .status.phase Created
RNAC=$(nar_field undo .status.veleroRestore.nacuuid)
[[ $RNAC =~ ^shop-undo-[0-9a-f-]{36}$ ]] || e2e_fail "restore nacuuid '$RNAC'"
vr=$(kc get restores.velero.io -n "$OADP" "$RNAC" -o json)
assert_json "$vr" .spec '{"backupName":"'"$NAC"'","excludedResources":'"$REXCL"',"existingResourcePolicy":"none","includedNamespaces":["shop"],"restorePVs":true}'
assert_json "$vr" '.metadata.labels["openshift.io/oadp-nar-origin-nacuuid"]' "$RNAC"
assert_json "$vr" .metadata.annotations '{"openshift.io/oadp-nar-origin-name":"undo","openshift.io/oadp-nar-origin-namespace":"shop"}'
obj=$(kc get nonadminrestores.oadp.openshift.io -n shop undo -o json)
assert_json "$obj" .metadata.finalizers '["nonadminrestore.oadp.openshift.io/finalizer"]'
assert_json "$obj" '.status.conditions | map([.type, .status, .reason, .message])' \
  '[["Accepted","True","RestoreAccepted","restore accepted"],["Queued","True","RestoreScheduled","Created Velero Restore object"]]'
wait_for 10 "undo's queue position 2 (behind admin-restore)" nar_is undo .status.queueInfo.estimatedQueuePosition 2
assert_ok kc patch restores.velero.io -n "$OADP" admin-restore --type merge -p "{\"status\":{\"phase\":\"Completed\",\"completionTimestamp\":\"$(now)\"}}"
wait_for 10 "undo's queue position 1" nar_is undo .status.queueInfo.estimatedQueuePosition 1
assert_ok kc patch restores.velero.io -n "$OADP" "$RNAC" --type merge -p "{\"status\":{\"phase\":\"Completed\",\"completionTimestamp\":\"$(now)\"}}"
wait_for 10 "undo Completed, position 0" nar_is undo '[.status.veleroRestore.status.phase, .status.queueInfo.estimatedQueuePosition]' '["Completed",0]'

e2e_step "Velero restores a recorded backup of shop through undo's filters: what the administrator deleted stays deleted"
# The backup holds what Velero's item actions add without OADP's exclusions (a ClusterRoleBinding
# of shop's service account to cluster-admin, a ClusterRole, a PriorityClass, a NonAdminBackup) and
# an object of bank. The administrator had deleted the binding; Velero writes what the Restore
# allows, as itself (the harness's admin).
assert_fails --match NotFound kc get clusterrolebinding shop-deployer-admin
kc get restores.velero.io -n "$OADP" "$RNAC" -o json >"$E2E_DIR/undo.json"
python3 "$CW_SOURCE_DIR/tests/e2e/fixtures/velero_restore.py" "$E2E_DIR/undo.json" \
  "$CW_SOURCE_DIR/tests/e2e/fixtures/nonadmin-backup-items.json" >"$E2E_DIR/undo-played.json"
played=$(cat "$E2E_DIR/undo-played.json")
assert_json "$played" '[.create[] | .kind + "/" + .metadata.name] | sort' '["ConfigMap/settings","Secret/db","ServiceAccount/deployer"]'
assert_json "$played" '[.skipped[] | select(.name == "shop-deployer-admin" or .name == "vault-settings") | .why]' '["resource is excluded","namespace is excluded"]'
jq '{apiVersion: "v1", kind: "List", items: .create}' <<<"$played" | assert_ok kc create -f -
assert_json "$(kc get configmap -n shop settings -o json)" '[.data.mode, .metadata.labels["velero.io/restore-name"]]' '["restored","'"$RNAC"'"]'
assert_fails --match NotFound kc get clusterrolebinding shop-deployer-admin
assert_fails --match NotFound kc get clusterrole shop-widgets
assert_fails --match NotFound kc get priorityclass shop-critical
assert_fails --match NotFound kc get configmap -n bank vault-settings
assert_fails --match NotFound kc get nonadminbackups.oadp.openshift.io -n shop from-the-backup

e2e_step "the attacker's restores: another namespace's backup, a mapping, namespaces: refused"
kc create -f - >/dev/null <<'EOF'
{"apiVersion":"oadp.openshift.io/v1alpha1","kind":"NonAdminBackup","metadata":{"name":"vault","namespace":"bank"},"spec":{"backupSpec":{}}}
EOF
wait_for 15 "bank's vault Created" bash -c "kc get nonadminbackups.oadp.openshift.io -n bank vault -o jsonpath='{.status.phase}' | grep -qx Created"
BANK_NAC=$(kc get nonadminbackups.oadp.openshift.io -n bank vault -o jsonpath='{.status.veleroBackup.nacuuid}')
NR='NonAdminRestore spec.restoreSpec.%s is restricted'
NOT_READY='NonAdminRestore spec.restoreSpec.backupName is invalid: NonAdminBackup is not ready to be restored'
rows=$(cat <<EOF
r-bank|{"backupName":"vault"}|$NOT_READY
r-banknac|{"backupName":"$BANK_NAC"}|$NOT_READY
r-admin|{"backupName":"admin-1"}|$NOT_READY
r-map|{"backupName":"daily","namespaceMapping":{"shop":"bank"}}|$(printf "$NR" namespaceMapping)
r-into|{"backupName":"daily","includedNamespaces":["bank"]}|$(printf "$NR" includedNamespaces)
r-star|{"backupName":"daily","includedNamespaces":["*"]}|$(printf "$NR" includedNamespaces)
r-excl|{"backupName":"daily","excludedNamespaces":["shop"]}|$(printf "$NR" excludedNamespaces)
r-sched|{"backupName":"daily","scheduleName":"bank-nightly"}|$(printf "$NR" scheduleName)
r-none|{}|NonAdminRestore spec.restoreSpec.backupName is not set
r-policy|{"backupName":"daily","existingResourcePolicy":"update"}|the administrator has restricted spec.restoreSpec.existingResourcePolicy field value to none
r-cluster|{"backupName":"daily","includeClusterResources":true}|$(printf "$NR" includeClusterResources), can only be set to false
r-init|{"backupName":"daily","hooks":{"resources":[{"name":"root","postHooks":[{"init":{"initContainers":[{"name":"pwn","image":"busybox","command":["sh"],"securityContext":{"privileged":true}}]}}]}]}}|$(printf "$NR" 'hooks.resources[0].postHooks[0].init'), init container restore hooks are allowed only by the administrator (--allow-restore-init-hooks)
r-hookns|{"backupName":"daily","hooks":{"resources":[{"name":"x","includedNamespaces":["bank"],"postHooks":[{"exec":{"command":["true"]}}]}]}}|$(printf "$NR" 'hooks.resources[0].includedNamespaces'), can not contain namespaces other than: shop
r-modifier|{"backupName":"daily","resourceModifier":{"kind":"ConfigMap","name":"rewrite"}}|$(printf "$NR" resourceModifier), can only name a ConfigMap the administrator allows (--allowed-resource-policies): none
r-crbs|{"backupName":"daily","includedResources":["clusterrolebindings"]}|$(printf "$NR" includedResources), can not contain clusterrolebindings (excluded from every non-admin restore)
EOF
)
make_all NonAdminRestore restoreSpec "$rows"
wait_for 15 "every one BackingOff with its message" all_refused nonadminrestores.oadp.openshift.io "$rows"
assert_fails --match forbidden as_alice create -n "$OADP" -f - <<'EOF'
{"apiVersion":"velero.io/v1","kind":"Restore","metadata":{"name":"direct"},"spec":{"backupName":"admin-1"}}
EOF

e2e_step "backupNames no object can have: BackingOff with OADP's NotFound answer, never asked for, not retried"
# OADP reads the NonAdminBackup through controller-runtime's cache, whose NotFound names the Kind;
# the name as Go's %q writes it (oadp/nonadmin.c). Each name holds "zq" (but ".."), so that
# any request for one shows in the audit log; "daily\u0000zq" would read "daily" in C.
NF='NonAdminRestore spec.restoreSpec.backupName is invalid: NonAdminBackup.oadp.openshift.io %s not found'
LONG=zq$(printf 'a%.0s' $(seq 252))
rows=$(cat <<EOF
n-query|{"backupName":"zq?watch=1"}|$(printf "$NF" '"zq?watch=1"')
n-escape|{"backupName":"zq%2e%2e"}|$(printf "$NF" '"zq%2e%2e"')
n-dotdot|{"backupName":".."}|$(printf "$NF" '".."')
n-label|{"backupName":"zq..daily"}|$(printf "$NF" '"zq..daily"')
n-path|{"backupName":"../../bank/nonadminbackups/zq"}|$(printf "$NF" '"../../bank/nonadminbackups/zq"')
n-status|{"backupName":"zq/status"}|$(printf "$NF" '"zq/status"')
n-upper|{"backupName":"ZQ-daily"}|$(printf "$NF" '"ZQ-daily"')
n-long|{"backupName":"$LONG"}|$(printf "$NF" "\"$LONG\"")
n-nul|{"backupName":"daily\u0000zq"}|$(printf "$NF" '"daily\x00zq"')
n-space|{"backupName":" zq"}|$(printf "$NF" '" zq"')
n-empty|{"backupName":""}|NonAdminRestore spec.restoreSpec.backupName is not set
EOF
)
retries0=$(metric_sum ctl2 cronwarden_controller_queue_retries_total 'controller="nonadminrestore"')
make_all NonAdminRestore restoreSpec "$rows"
wait_for 15 "every one BackingOff with its message" all_refused nonadminrestores.oadp.openshift.io "$rows"
# asked_for: the controller's requests the apiserver recorded whose URI holds one of those names.
AUDIT=$CW_E2E_DIR/logs/audit.jsonl
asked_for() { jq -r 'select(.user.username == "controller") | .requestURI' "$AUDIT" | grep -i -e zq -e '/nonadminbackups/\.\.$' || true; }
if [ -f "$AUDIT" ]; then
  # the log has the GETs of names that can be asked for (r-admin's admin-1, above)
  assert_ok grep -q '"requestURI":"/apis/oadp.openshift.io/v1alpha1/namespaces/shop/nonadminbackups/admin-1"' "$AUDIT"
  assert_eq "" "$(asked_for)" "requests for those names"
else
  e2e_log "no audit log (an existing cluster): the controller's own request log instead"
  assert_eq "" "$(grep 'kube request' "$(log_of ctl2)" | grep -i -e zq -e 'nonadminbackups/\.\. ' || true)" "requests for those names"
fi
assert_eq "$retries0" "$(metric_sum ctl2 cronwarden_controller_queue_retries_total 'controller="nonadminrestore"')" "nonadminrestore retries"
assert_json "$(kc get restores.velero.io -n "$OADP" -o json)" '[.items[].metadata.annotations["openshift.io/oadp-nar-origin-name"] // empty | select(startswith("n-"))]' '[]'

e2e_step "a forged status: mallory, who may write nonadminbackups/status in shop, points a NonAdminBackup at bank's Velero Backup"
kc apply -f - >/dev/null <<'EOF'
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: nonadmin-status-writer, namespace: shop}
rules:
- apiGroups: [oadp.openshift.io]
  resources: [nonadminbackups/status]
  verbs: [get, update, patch]
EOF
assert_ok kc create rolebinding mallory-editor -n shop --clusterrole=nonadmin-editor --user=mallory
assert_ok kc create rolebinding mallory-status -n shop --role=nonadmin-status-writer --user=mallory
kc --as=mallory create -f - >/dev/null <<'EOF'
{"apiVersion":"oadp.openshift.io/v1alpha1","kind":"NonAdminBackup","metadata":{"name":"forged","namespace":"shop"},"spec":{"backupSpec":{"includedNamespaces":["bank"]}}}
EOF
wait_for 10 "forged BackingOff" nab_is forged .status.phase BackingOff
nab forged | jq --arg n "$BANK_NAC" --arg o "$OADP" '.status = {phase: "Created", veleroBackup: {nacuuid: $n, name: $n, namespace: $o}}' >"$E2E_DIR/forged.json"
assert_ok kc --as=mallory replace --raw "/apis/oadp.openshift.io/v1alpha1/namespaces/shop/nonadminbackups/forged/status" -f "$E2E_DIR/forged.json"
kc --as=mallory create -f - >/dev/null <<'EOF'
{"apiVersion":"oadp.openshift.io/v1alpha1","kind":"NonAdminRestore","metadata":{"name":"steal","namespace":"shop"},"spec":{"restoreSpec":{"backupName":"forged"}}}
EOF
wait_for 10 "steal refused" nar_is steal .status.phase BackingOff
assert_eq "NonAdminRestore spec.restoreSpec.backupName is invalid: no Velero Backup $OADP/$BANK_NAC with the origin label and annotations of NonAdminBackup shop/forged" \
  "$(nar_field steal '.status.conditions[] | select(.type == "Accepted") | .message')" "steal's message"
assert_json "$(nar_field steal .status)" 'has("veleroRestore")' false
assert_json "$(kc get restores.velero.io -n "$OADP" -l openshift.io/oadp-nar-origin-nacuuid -o json)" \
  '[.items[].spec | [.backupName, .namespaceMapping, .includedNamespaces]]' "[[\"$NAC\",null,[\"shop\"]]]"
e2e_log "mallory names the Velero Backup to make in forged's status (the one the administrator's Schedule makes next) and makes its spec valid: another name is used"
SQUAT=nightly-$(date -u -d tomorrow +%Y%m%d)010000
nab forged | jq --arg n "$SQUAT" --arg o "$OADP" '.status = {phase: "BackingOff", veleroBackup: {nacuuid: $n, name: $n, namespace: $o}}' >"$E2E_DIR/squat.json"
assert_ok kc --as=mallory replace --raw "/apis/oadp.openshift.io/v1alpha1/namespaces/shop/nonadminbackups/forged/status" -f "$E2E_DIR/squat.json"
assert_ok kc --as=mallory patch nonadminbackups.oadp.openshift.io -n shop forged --type merge -p '{"spec":{"backupSpec":{"includedNamespaces":null}}}'
wait_for 15 "forged Created" nab_is forged .status.phase Created
[[ $(nab_field forged .status.veleroBackup.nacuuid) =~ ^shop-forged-[0-9a-f-]{36}$ ]] || e2e_fail "forged's nacuuid: $(nab_field forged .status.veleroBackup.nacuuid)"
assert_fails --match NotFound kc get backups.velero.io -n "$OADP" "$SQUAT"

e2e_log "the unaddressable backupNames: still never asked for, nor retried"
[ ! -f "$AUDIT" ] || assert_eq "" "$(asked_for)" "requests for those names"
assert_eq "$retries0" "$(metric_sum ctl2 cronwarden_controller_queue_retries_total 'controller="nonadminrestore"')" "nonadminrestore retries"

e2e_step "spec.deleteBackup: Deleting, a DeleteBackupRequest; gone once Velero deleted the backup"
assert_ok as_alice patch nonadminbackups.oadp.openshift.io -n shop daily --type merge -p '{"spec":{"deleteBackup":true}}'
wait_for 10 "the DeleteBackupRequest" bash -c "kc get deletebackuprequests.velero.io -n $OADP $NAC -o name"
dbr=$(kc get deletebackuprequests.velero.io -n "$OADP" "$NAC" -o json)
assert_json "$dbr" .spec.backupName "$NAC"
assert_json "$dbr" '.metadata.labels["openshift.io/oadp-nab-origin-nacuuid"]' "$NAC"
obj=$(nab daily)
assert_json "$obj" .status.phase Deleting
assert_json "$obj" '.status.conditions[] | select(.type == "Deleting") | [.status, .reason, .message]' '["True","DeletionPending","backup accepted for deletion"]'
wait_for 10 "veleroDeleteBackupRequest recorded" nab_is daily '.status.veleroDeleteBackupRequest | [.nacuuid, .name, .namespace]' "[\"$NAC\",\"$NAC\",\"$OADP\"]"
assert_json "$(nab daily)" .metadata.deletionTimestamp "$(nab_field daily .metadata.deletionTimestamp)"
e2e_log "Velero processes the request: the data, then the Backup, go"
assert_ok kc patch deletebackuprequests.velero.io -n "$OADP" "$NAC" --type merge -p '{"status":{"phase":"InProgress"}}'
wait_for 10 "the request's progress mirrored" nab_is daily .status.veleroDeleteBackupRequest.status.phase InProgress
wait_for 10 "undo (made from daily) gone, with its Velero Restore" bash -c "! kc get nonadminrestores.oadp.openshift.io -n shop undo && ! kc get restores.velero.io -n $OADP $RNAC"
assert_ok kc delete backups.velero.io -n "$OADP" "$NAC"
wait_for 15 "daily gone" bash -c "! kc get nonadminbackups.oadp.openshift.io -n shop daily"

e2e_step "a direct delete: the message, the Velero Backup object and its requests go, then the NonAdminBackup"
kc create -n "$OADP" -f - >/dev/null <<EOF
{"apiVersion":"velero.io/v1","kind":"DeleteBackupRequest","metadata":{"name":"stale","labels":{"openshift.io/oadp-nab-origin-nacuuid":"$NAC2"}},"spec":{"backupName":"$NAC2"}}
EOF
# Hold the NonAdminBackup (a second finalizer) to see its status while it goes.
assert_ok kc patch nonadminbackups.oadp.openshift.io -n shop edited --type json -p '[{"op":"add","path":"/metadata/finalizers/-","value":"test/hold"}]'
assert_ok as_alice delete nonadminbackups.oadp.openshift.io -n shop edited --wait=false
wait_for 10 "edited's Velero Backup deleted" bash -c "! kc get backups.velero.io -n $OADP $NAC2"
wait_for 10 "the stale request deleted" bash -c "! kc get deletebackuprequests.velero.io -n $OADP stale"
wait_for 10 "our finalizer removed" nab_is edited .metadata.finalizers '["test/hold"]'
obj=$(nab edited)
assert_json "$obj" .status.phase Deleting
assert_json "$obj" '.status.conditions[] | select(.type == "Deleting") | [.status, .reason, .message]' '["True","DeletionPending","permanent backup deletion requires setting spec.deleteBackup to true"]'
assert_ok kc patch nonadminbackups.oadp.openshift.io -n shop edited --type json -p '[{"op":"remove","path":"/metadata/finalizers"}]'

e2e_step "a Velero Backup that disappears: Accepted=False VeleroBackupNotFound, never recreated"
NAC3=$(nab_field selector .status.veleroBackup.nacuuid)
assert_ok kc delete backups.velero.io -n "$OADP" "$NAC3"
wait_for 10 "VeleroBackupNotFound" nab_is selector '.status.conditions[] | select(.type == "Accepted") | [.status, .reason]' '["False","VeleroBackupNotFound"]'
sleep 1
assert_eq 0 "$(vb_count "$NAC3")" "Velero Backups of selector after it disappeared"
assert_json "$(nab selector)" .status.phase Created

e2e_step "a controller killed after creating the Velero Backup, before the status: the next one adopts it"
e2e_stop ctl2
ctl ctl3 CRONWARDEN_FAILPOINTS=nonadminbackup-created=kill
assert_ok mknab adopted '{}'
wait_for 30 "ctl3 to die at the failpoint" grep -q 'failpoint: killing this process' "$(log_of ctl3)"
wait "$(e2e_bg_pid ctl3)" 2>/dev/null || true
NAC4=$(nab_field adopted .status.veleroBackup.nacuuid)
assert_eq 1 "$(vb_count "$NAC4")" "Velero Backups of adopted after the crash"
assert_eq New "$(nab_field adopted .status.phase)" "adopted's phase after the crash"
# The next controller runs with what the following steps need: an enforced ttl of the wrong type
# (Velero's CRD refuses every Backup made with it) and the administrator's two switches.
printf 'ttl: 5\n' >"$E2E_DIR/enforced-bad.yaml"
CTL_ENFORCED=enforced-bad.yaml
CTL_FLAGS=(--allow-restore-init-hooks --allowed-resource-policies skip-volumes)
ctl ctl4
wait_for 30 "adopted Created" nab_is adopted .status.phase Created
assert_eq 1 "$(vb_count "$NAC4")" "Velero Backups of adopted"
assert_contains "$(cat "$(log_of ctl4)")" "nonadminbackup=shop/adopted outcome=adopted"

e2e_step "the administrator allows init-container restore hooks and the ConfigMap skip-volumes: a NonAdminRestore with both is made, held to shop; another ConfigMap is refused, naming the list"
assert_ok mknar hooked '{"backupName":"adopted","resourceModifier":{"kind":"ConfigMap","name":"skip-volumes"},"hooks":{"resources":[{"name":"seed","postHooks":[{"init":{"initContainers":[{"name":"seed","image":"busybox","command":["cp","-r","/seed","/data"]}]}}]}]}}'
assert_ok mknar elsewhere '{"backupName":"adopted","resourceModifier":{"kind":"ConfigMap","name":"rewrite"}}'
wait_for 15 "hooked Created" nar_is hooked .status.phase Created
vr=$(kc get restores.velero.io -n "$OADP" "$(nar_field hooked .status.veleroRestore.nacuuid)" -o json)
assert_json "$vr" .spec '{"backupName":"'"$NAC4"'","excludedResources":'"$REXCL"',"existingResourcePolicy":"none","hooks":{"resources":[{"includedNamespaces":["shop"],"name":"seed","postHooks":[{"init":{"initContainers":[{"command":["cp","-r","/seed","/data"],"image":"busybox","name":"seed"}]}}]}]},"includedNamespaces":["shop"],"resourceModifier":{"kind":"ConfigMap","name":"skip-volumes"}}'
wait_for 10 "elsewhere refused" nar_is elsewhere .status.phase BackingOff
assert_eq "$(printf "$NR" resourceModifier), can only name a ConfigMap the administrator allows (--allowed-resource-policies): skip-volumes" \
  "$(nar_field elsewhere '.status.conditions[] | select(.type == "Accepted") | .message')" "elsewhere's message"
e2e_log "the NonAdminBackup policy, refused for naming skip-volumes before, is decided again under the new flags (and meets the enforced ttl, below)"
wait_for 10 "policy past cronwarden's check" bash -c "kc get nonadminbackups.oadp.openshift.io -n shop policy -o json | jq -e '.status.conditions[] | select(.type == \"Accepted\") | .message | startswith(\"Backup.velero.io\")'"

e2e_step "Velero's CRD refuses the Backup (the enforced ttl): BackingOff with the API server's message, nothing retried; edited once the administrator fixed the file, it is made"
assert_ok mknab refused '{"resourcePolicy":{"kind":"configmap","name":"skip-volumes"}}'
wait_for 15 "refused BackingOff" nab_is refused .status.phase BackingOff
obj=$(nab refused)
msg=$(jq -r '.status.conditions[] | select(.type == "Accepted") | .message' <<<"$obj")
[[ $msg =~ ^Backup.velero.io\ \"shop-refused-[0-9a-f-]{36}\"\ is\ invalid:\ spec.ttl:\ Invalid\ value:\ \"integer\":\ spec.ttl\ in\ body\ must\ be\ of\ type\ string:\ \"integer\"$ ]] || e2e_fail "refused's message: $msg"
assert_json "$obj" '.status.conditions[] | select(.type == "Accepted") | [.status, .reason, .observedGeneration]' '["False","InvalidBackupSpec",1]'
assert_json "$obj" '.status | has("veleroBackup")' false
assert_json "$(kc get backups.velero.io -n "$OADP" -o json)" '[.items[] | select(.metadata.annotations["openshift.io/oadp-nab-origin-name"] == "refused")] | length' 0
wait_for 10 "ctl4 to look at refused again (the watch event of its status)" grep -q 'up to date.*nonadminbackup=shop/refused outcome=invalid' "$(log_of ctl4)"
assert_eq 1 "$(grep -c 'nonadminbackup=shop/refused outcome=refused' "$(log_of ctl4)")" "refused creates (one: not retried)"
e2e_stop ctl4
CTL_ENFORCED=enforced.yaml
ctl ctl5
wait_for 15 "ctl5 looked at refused" grep -q 'up to date.*nonadminbackup=shop/refused outcome=invalid' "$(log_of ctl5)"
assert_json "$(nab refused)" .status "$(jq -c .status <<<"$obj")"
assert_ok as_alice patch nonadminbackups.oadp.openshift.io -n shop refused --type merge -p '{"spec":{"backupSpec":{"snapshotVolumes":false}}}'
wait_for 15 "refused Created" nab_is refused .status.phase Created
vb=$(kc get backups.velero.io -n "$OADP" "$(nab_field refused .status.veleroBackup.nacuuid)" -o json)
assert_json "$vb" '.spec | [.ttl, .resourcePolicy, .includedNamespaces, .snapshotVolumes]' '["720h0m0s",{"kind":"configmap","name":"skip-volumes"},["shop"],false]'

e2e_step "RBAC is minimal: the controller was refused nothing, and is refused what it never does"
if grep -qi forbidden "$CW_E2E_DIR"/logs/ctl*.log; then e2e_fail "the controller was refused: $(grep -hi forbidden "$CW_E2E_DIR"/logs/ctl*.log | head -3)"; fi
assert_fails --match forbidden kc_as controller create -n bank -f - <<'EOF'
{"apiVersion":"velero.io/v1","kind":"Backup","metadata":{"name":"x"},"spec":{}}
EOF
assert_fails --match forbidden kc_as controller get secrets -n "$OADP"
assert_fails --match forbidden kc_as controller patch backups.velero.io -n "$OADP" admin-1 --type merge -p '{"spec":{"ttl":"1h0m0s"}}'
assert_fails --match forbidden kc_as controller create -n shop -f - <<'EOF'
{"apiVersion":"oadp.openshift.io/v1alpha1","kind":"NonAdminBackup","metadata":{"name":"x"},"spec":{"backupSpec":{}}}
EOF
e2e_log "OK"
