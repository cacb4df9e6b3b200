#!/usr/bin/env bash
# Crash safety of online migrate: the process is SIGKILLed at points across every phase
# (including between a StorageClass's delete and its re-create), then run again; each time the
# cluster must end exactly as after an uninterrupted run, and no StorageClass may be lost.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../migrate_lib.sh"
e2e_start
apply_crds
NS=$(e2e_namespace longhorn-system)

# Legacy CronJobs go by foreground deletion; wait until the garbage collector is done.
settled_state() {
  wait_for 60 "foreground deletions to finish" bash -c \
    "[ \"\$(\"$CW_KUBECTL\" --kubeconfig $KUBECONFIG get cronjobs -n $NS -o json | jq '[.items[] | select(.metadata.deletionTimestamp)] | length')\" = 0 ]"
  mig_state
}

e2e_step "reference: one uninterrupted run"
mig_seed
cw_migrate >/dev/null 2>&1 || true
settled_state > "$E2E_DIR/reference.json"
assert_json "$(kc get storageclass -o json)" '.items | length' 4 "StorageClasses after the reference run"

POINTS=${CW_CRASH_POINTS:-"lease-acquired list-page rj-created rj-created=kill@3 volume-patch=kill@2 volume-patched volume-patched=kill@7 sc-backed-up sc-deleted sc-deleted=kill@2 sc-created configmap-updated cronjob-deleted cronjob-deleted=kill@9"}
for point in $POINTS; do
  case $point in *=*) fp=$point ;; *) fp="$point=kill" ;; esac
  e2e_step "SIGKILL at $fp, then run again"
  mig_seed
  set +e
  CRONWARDEN_FAILPOINTS=$fp cw_migrate > "$E2E_DIR/crash.log" 2>&1
  rc=$?
  set -e
  assert_eq 137 "$rc" "exit status of the killed run (SIGKILL)"
  if [ "${point%%=*}" = sc-deleted ]; then
    # The dangerous window: the class is gone and only its backup holds it.
    assert_json "$(kc get configmap -n "$NS" cronwarden-storageclass-backup -o json)" '.data | keys | length' 1 "backup held while the class is deleted"
  fi
  cw_migrate >/dev/null 2>&1 || true
  settled_state > "$E2E_DIR/after.json"
  assert_ok diff -u "$E2E_DIR/reference.json" "$E2E_DIR/after.json"
  assert_json "$(kc get storageclass -o json)" '[.items[].metadata.name] | sort' '["local-path","longhorn","longhorn-db","longhorn-scratch"]' "no StorageClass lost"
done
