#!/usr/bin/env bash
# Crash safety of online migrate: the process is SIGKILLed at named points across every phase
# (including between a StorageClass's delete and its re-create) and at random moments, then run
# again; each time the cluster must end exactly as after an uninterrupted run, and no
# StorageClass may be lost.
#   CW_CRASH_POINTS   named failpoints (default: all of them, some at a later hit)
#   CW_CRASH_RANDOM   how many random-moment kills (default 6: a sample between the named points,
#                     which are the planned windows; 100 for a long run); CW_CRASH_SEED (default: time)
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../migrate_lib.sh"
e2e_start 1.20   # Longhorn 1.1 -> 1.2 and 1.2/1.3 clusters ran on Kubernetes <= 1.2x (tests/README.md)
apply_crds
NS=$(e2e_namespace longhorn-system)

# Legacy CronJobs go by foreground deletion; wait until the garbage collector is done.
settled_state() {
  wait_for 60 "foreground deletions to finish" bash -c \
    "[ \"\$(kc get cronjobs -n $NS -o json | jq '[.items[] | select(.metadata.deletionTimestamp)] | length')\" = 0 ]"
  mig_state
}

e2e_step "reference: one uninterrupted run, its report equal to the offline plan"
mig_manifests "$E2E_DIR/truth-in"
cw migrate --namespace "$NS" --from-file "$E2E_DIR/truth-in" -o json > "$E2E_DIR/truth.json" 2>/dev/null || true
mig_seed
rc=0
cw_migrate --report "$E2E_DIR/reference-report.json" >/dev/null 2>&1 || rc=$?
assert_eq 1 "$rc" "the reference run's exit status (the example holds invalid jobs and a conflict)"
REF=$(cat "$E2E_DIR/reference-report.json")
assert_json "$REF" '[.volumes[] | select(.action=="migrate") | .result] | unique' '["done"]' "every volume to migrate was migrated"
assert_json "$REF" '[.recurringJobs[] | select(.action=="create") | .result] | unique' '["done"]' "every RecurringJob was created"
assert_json "$REF" '[.storageClasses[] | select(.action=="migrate") | .result] | unique' '["done"]' "every StorageClass was migrated"
assert_eq "$(jq -S '.volumes | map(del(.source, .result))' "$E2E_DIR/truth.json")" \
  "$(jq -S '.volumes | map(del(.source, .result))' "$E2E_DIR/reference-report.json")" "the reference run did what the offline plan says"
settled_state > "$E2E_DIR/reference.json"
assert_json "$(kc get storageclass -o json)" '.items | length' 4 "StorageClasses after the reference run"

# crash_then_rerun LABEL: after the killed run, one more run must reach the reference state.
crash_then_rerun() {
  cw_migrate >/dev/null 2>&1 || true
  settled_state > "$E2E_DIR/after.json"
  assert_ok diff -u "$E2E_DIR/reference.json" "$E2E_DIR/after.json"
  assert_json "$(kc get storageclass -o json)" '[.items[].metadata.name] | sort' '["local-path","longhorn","longhorn-db","longhorn-scratch"]' "no StorageClass lost ($1)"
}

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
    # A client dry run only reports it; restoring is a real run's job.
    missing=$(kc get configmap -n "$NS" cronwarden-storageclass-backup -o json | jq -r '.data | keys[0]')
    cw_migrate --dry-run=client > "$E2E_DIR/dry.log" 2>&1 || true
    assert_contains "$(cat "$E2E_DIR/dry.log")" "a real run restores it"
    assert_fails --match NotFound kc get storageclass "$missing"
  fi
  crash_then_rerun "$fp"
done

# Random moments: a rate-limited run (--qps 25 spreads it over a few seconds) killed after a
# random delay; the seed is printed so a failure can be replayed.
SEED=${CW_CRASH_SEED:-$(date +%s)}
RANDOM=$SEED
e2e_log "random kills: CW_CRASH_SEED=$SEED"
for i in $(seq 1 "${CW_CRASH_RANDOM:-6}"); do
  ms=$((RANDOM % 2500 + 50))
  e2e_step "random kill $i: SIGKILL after ${ms} ms"
  mig_seed
  cw_migrate --qps 25 --burst 5 > "$E2E_DIR/crash.log" 2>&1 &
  pid=$!
  sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
  kill -9 "$pid" 2>/dev/null || e2e_log "it had finished already"
  wait "$pid" 2>/dev/null || true
  crash_then_rerun "random $i"
done
