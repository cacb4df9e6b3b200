#!/usr/bin/env bash
# The Longhorn 1.1 -> 1.2 upgrade flow of docs/deploy.md (the webhook, the controller with
# --longhorn-version=1.2 --job-image, the upgrade Job's migrate with --wait-for-controller), run
# while legacy per-volume CronJobs fire every minute under Kubernetes 1.20's own CronJob controller
# (kube-controller-manager; no kubelet: the scenario completes each Job as its pod would). For every
# volume's legacy job and every fire time of the observed window, a Job must have run for it, by
# the legacy CronJob or by its RecurringJob's new CronJob: 0 missed; fire times run by both are
# counted and printed. The upgrade starts a fraction of a second after a fire time, the moment a
# flow that deletes the legacy CronJobs as soon as the new ones exist loses that fire time.
. "$(dirname "$0")/../lib.sh"
CW_E2E_POLL=${CW_E2E_POLL:-0.2}
# The apiserver's record of every Job created (name, owner, time), every CronJob created or deleted
# and every Volume patch: the count below reads it, so that a Job deleted seconds after its
# creation (a CronJob's foreground deletion takes its Jobs along) is still seen.
export CRONWARDEN_E2E_AUDIT_POLICY=$CW_SOURCE_DIR/tests/e2e/fixtures/audit-jobs.yaml
e2e_start 1.20 # Longhorn 1.1 -> 1.2 ran on Kubernetes <= 1.2x; the CronJob controller is 1.20's
[ "${CW_E2E_EXTERNAL:-0}" != 1 ] || e2e_skip "reads the harness apiserver's audit log"
AUDIT=$CW_E2E_DIR/logs/audit.jsonl
NS=longhorn-system
kc create namespace "$NS" >/dev/null || e2e_fail "cannot create namespace $NS"
# shellcheck disable=SC2016 # jq programs
minute() { echo $(( $1 / 60 * 60 )); }
hms() { date -u -d "@$1" +%H:%M:%S; }

e2e_step "a Longhorn 1.1 cluster: 1.2.6's CRDs (step 3), the 1.1 manager's DaemonSet, legacy volumes"
lh_apply_crds 1.2.6
lh_manager longhornio/longhorn-manager:v1.1.3
assert_ok kc create serviceaccount -n "$NS" longhorn-service-account # the Jobs' pods name it
# Four volumes, five legacy jobs, every minute; three RecurringJobs after the migration (vol-1's
# and vol-2's snap are one job, vol-4's differs in retain, vol-2's and vol-3's bak are one).
SNAP='{"name": "snap", "task": "snapshot", "cron": "* * * * *", "retain": 2}'
SNAP5='{"name": "snap", "task": "snapshot", "cron": "* * * * *", "retain": 5}'
BAK='{"name": "bak", "task": "backup", "cron": "* * * * *", "retain": 3}'
declare -A JOBS=([vol-1]="[$SNAP]" [vol-2]="[$SNAP, $BAK]" [vol-3]="[$BAK]" [vol-4]="[$SNAP5]")
VOLS=(vol-1 vol-2 vol-3 vol-4)
PAIRS=() # volume/legacy-job
for v in "${VOLS[@]}"; do
  assert_ok kc create -f - <<EOF
{"apiVersion": "longhorn.io/v1beta1", "kind": "Volume", "metadata": {"name": "$v", "namespace": "$NS"},
 "spec": {"size": "1073741824", "numberOfReplicas": 3, "recurringJobs": ${JOBS[$v]}}}
EOF
  uid=$(kc get volumes.longhorn.io -n "$NS" "$v" -o jsonpath='{.metadata.uid}')
  # The CronJob Longhorn 1.1's manager made for each job (examples/longhorn-1.1-cluster/
  # longhorn-system/cronjobs.json): <volume>-<job>-c, label longhornvolume, owned by the Volume.
  while IFS=$'\t' read -r job task retain; do
    PAIRS+=("$v/$job")
    flag=--no-backup
    [ "$task" = backup ] && flag=--backup
    assert_ok kc create -f - <<EOF
{"apiVersion": "batch/v1beta1", "kind": "CronJob",
 "metadata": {"name": "$v-$job-c", "namespace": "$NS", "labels": {"longhornvolume": "$v", "RecurringJob": "$job"},
   "ownerReferences": [{"apiVersion": "longhorn.io/v1beta1", "kind": "Volume", "name": "$v", "uid": "$uid"}]},
 "spec": {"concurrencyPolicy": "Forbid", "failedJobsHistoryLimit": 1, "successfulJobsHistoryLimit": 1,
   "schedule": "* * * * *",
   "jobTemplate": {"spec": {"backoffLimit": 3, "template": {"spec": {"restartPolicy": "OnFailure",
     "serviceAccountName": "longhorn-service-account",
     "containers": [{"name": "$v-$job", "image": "longhornio/longhorn-manager:v1.1.3",
       "command": ["longhorn-manager", "-d", "snapshot", "$v", "--snapshot-name", "$job",
         "--labels", "RecurringJob=$job", "--retain", "$retain", "$flag"]}]}}}}}}
EOF
  done < <(jq -r '.[] | [.name, .task, .retain] | @tsv' <<<"${JOBS[$v]}")
done
CREATED=$(date +%s)
# The first fire time every legacy CronJob had from its creation on: the window starts there.
W0=$(( $(minute "$CREATED") + 60 ))
e2e_log "${#PAIRS[@]} legacy CronJobs, every minute; the window starts at $(hms "$W0")"

e2e_step "the Jobs' pods, as a kubelet would run them: each Job marked succeeded (status subresource)"
# A Job stays active until its pod ends; with concurrencyPolicy Forbid its CronJob would start no
# other. Every 0.5 s, each Job not yet complete gets startTime, completionTime, succeeded: 1 and
# the Complete condition; the log says when, with the answer (404: deleted before it ran).
cat > "$CW_E2E_DIR/complete-jobs.sh" <<'EOF'
#!/usr/bin/env bash
api=$1 ca=$2 token=$3 ns=$4
c() { curl -sS --max-time 5 --cacert "$ca" -H "Authorization: Bearer $token" "$@"; }
while :; do
  c "$api/apis/batch/v1/namespaces/$ns/jobs" |
    jq -r '.items[]? | select([.status.conditions[]? | select(.type == "Complete")] == []) | .metadata.name' |
    while read -r j; do
      now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
      code=$(c -o /dev/null -w '%{http_code}' -X PATCH -H 'Content-Type: application/merge-patch+json' \
        --data '{"status": {"startTime": "'"$now"'", "completionTime": "'"$now"'", "succeeded": 1, "active": 0,
          "conditions": [{"type": "Complete", "status": "True", "lastProbeTime": "'"$now"'", "lastTransitionTime": "'"$now"'"}]}}' \
        "$api/apis/batch/v1/namespaces/$ns/jobs/$j/status")
      echo "$(date +%s.%N) $code $j"
    done
  sleep 0.5
done
EOF
e2e_bg completer bash "$CW_E2E_DIR/complete-jobs.sh" "$CW_E2E_API_URL" "$CW_E2E_CA" "$CW_E2E_TOKEN" "$NS"

e2e_step "step 1: the webhook (cronwarden at the new version), registered for Longhorn's objects"
e2e_issue_cert webhook IP:127.0.0.1
PORT=$(cwc_free_port)
e2e_bg webhook "$CW_BINARY" webhook --listen "127.0.0.1:$PORT" --tls-cert-file "$CW_E2E_DIR/pki/webhook.crt" \
  --tls-private-key-file "$CW_E2E_DIR/pki/webhook.key" --threads 2 --longhorn-version=1.2
wait_for 20 "webhook /readyz" curl -fsS --cacert "$CW_E2E_SIGNING_CA" "https://127.0.0.1:$PORT/readyz"
e2e_register_webhook "https://127.0.0.1:$PORT" "$(base64 -w0 < "$CW_E2E_SIGNING_CA")"
# In force once a server dry run of a new legacy volume is refused (nothing is stored meanwhile).
legacy_refused() {
  local out
  out=$(kc create --dry-run=server -o name -f - 2>&1 <<EOF
{"apiVersion": "longhorn.io/v1beta1", "kind": "Volume", "metadata": {"name": "probe", "namespace": "$NS"},
 "spec": {"size": "1073741824", "recurringJobs": [$SNAP]}}
EOF
  ) && return 1
  [[ $out == *'denied the request: spec.recurringJobs: legacy'* ]]
}
wait_for 30 "the webhook to refuse a new legacy volume" legacy_refused

# created FROM: the Jobs the apiserver created from the audit log, one line each:
# <received epoch> <job> <owner CronJob> <fire time (epoch)>. Kubernetes 1.20's CronJob
# controller gives a Job no scheduled-time annotation (1.28's batch.kubernetes.io/cronjob-
# scheduled-timestamp): it names it <cronjob>-<fire time in seconds since the epoch> (getTimeHash;
# minutes from 1.21's controller on).
created() {
  jq -r 'select(.verb == "create" and .objectRef.resource == "jobs" and .responseStatus.code == 201)
    | .responseObject.metadata as $m | [.requestReceivedTimestamp, $m.name, ($m.ownerReferences[0].name // "-")] | @tsv' "$AUDIT" |
    while IFS=$'\t' read -r ts name owner; do
      suffix=${name##*-}
      [ "$name" = "$owner-$suffix" ] || e2e_fail "Job $name is not <owner $owner>-<fire time>"
      printf '%s %s %s %s\n' "$(date -u -d "$ts" +%s.%N)" "$name" "$owner" "$suffix"
    done
}
fired() { created | awk -v t="$1" -v o="$2" '$4 == t && $3 == o {f = 1} END {exit !f}'; }

e2e_step "before the upgrade: the legacy CronJobs fire at $(hms "$W0")"
wait_for 80 "every legacy CronJob's Job of $(hms "$W0")" eval \
  'for p in "${PAIRS[@]}"; do fired "$W0" "${p%/*}-${p#*/}-c" || exit 1; done'
# When Kubernetes 1.20's CronJob controller looks (every 10 s, all CronJobs at once): the offset of
# its sync in the minute.
SYNC=$(created | awk -v t="$W0" '$4 == t {print $1 - t}' | sort -n | head -1)
e2e_log "the CronJob controller started $(hms "$W0")'s Jobs ${SYNC}s after the fire time"

U=$(( W0 + 60 ))
END=$(( U + 120 )) # the window: W0, U, U+1m and U+2m
# Steps 4 and 5 as close together as an operator can run them, a fraction of a second after the
# fire time U: the new CronJobs then exist only after U (they run from U+1m on), and a flow that
# deleted the legacy CronJobs before 1.20's CronJob controller looked at them again (every 10 s)
# would lose U.
e2e_step "step 4: the controller, --longhorn-version=1.2 --job-image (1.1's manager still runs), just after $(hms "$U")"
while [ "$(date +%s%3N)" -lt $(( U * 1000 + 200 )) ]; do sleep 0.05; done
e2e_bg controller "$CW_BINARY" controller --controllers=recurringjob,volume --leader-elect=false \
  --metrics-listen 127.0.0.1:0 --longhorn-version=1.2 --job-image=longhornio/longhorn-manager:v1.2.6
wait_for 10 "the controller's metrics port" port_of controller
new_cronjobs() { [ "$(kc get cronjobs.batch -n "$NS" -l recurring-job.longhorn.io -o name | wc -l)" = 3 ]; }
wait_for 20 "the controller's three CronJobs" new_cronjobs
e2e_step "step 5: the upgrade Job"
# docs/deploy.md step 5: deploy/upgrade-job's arguments, with --wait-for-controller as step 4 says
# (the report into the scenario's directory instead of the Pod's /report).
T_MIG=$(date +%s.%N)
cw migrate --namespace=longhorn-system --output=text --report="$CW_E2E_DIR/report.json" --wait-for-controller \
  > "$CW_E2E_DIR/logs/migrate.log" 2>&1 || e2e_fail "migrate failed: $(tail -20 "$CW_E2E_DIR/logs/migrate.log")"
T_MIG_END=$(date +%s.%N)
e2e_log "migrate ran $(hms "${T_MIG%.*}")+$(awk -v a="$T_MIG" -v b="$T_MIG_END" -v u="$U" 'BEGIN {printf "%.1fs..+%.1fs after the fire time (%.1f s)", a - u, b - u, b - a}')"
# The controller's volume reconciler migrates legacy volumes too (docs/controller.md): whatever it
# has done by now, the Job does not do again; the legacy CronJobs are the Job's alone to delete.
e2e_log "migrate: $(jq -c '.summary | {volumes: .volumes.migrated, recurringJobs: .recurringJobs.created, cronJobs: .cronJobs.deleted, errors}' "$CW_E2E_DIR/report.json")"
assert_json "$(cat "$CW_E2E_DIR/report.json")" '.summary | [.cronJobs.deleted, .errors]' "[${#PAIRS[@]},0]" "migrate's deletes and errors"
# Deleted in the foreground (their finished Jobs first), as Longhorn 1.2 did.
no_legacy() { [ -z "$(kc get cronjobs.batch -n "$NS" -l longhornvolume -o name)" ]; }
wait_for 30 "the legacy CronJobs to go" no_legacy

# Each volume's legacy job -> its RecurringJob: the volume's job label of that task.
declare -A RJ
for p in "${PAIRS[@]}"; do
  v=${p%/*} job=${p#*/}
  task=$(jq -r --arg j "$job" '.[] | select(.name == $j) | .task' <<<"${JOBS[$v]}")
  RJ[$p]=$(kc get volumes.longhorn.io -n "$NS" "$v" -o json |
    jq -r --arg t "$task-" '.metadata.labels | keys[] | select(startswith("recurring-job.longhorn.io/" + $t)) | sub("^recurring-job.longhorn.io/"; "")')
  [ -n "${RJ[$p]}" ] || e2e_fail "volume $v has no RecurringJob label for its $task job"
done

e2e_step "after the upgrade: the new CronJobs fire at $(hms $((U + 60))) and $(hms "$END")"
wait_for 200 "every new CronJob's Job of $(hms "$END")" eval \
  'for p in "${PAIRS[@]}"; do fired "$END" "${RJ[$p]}" || exit 1; done'
sleep 3 # the completer's last round

e2e_step "the count: every volume's job, every fire time $(hms "$W0")..$(hms "$END")"
created > "$CW_E2E_DIR/jobs.txt"
ran() { awk -v j="$1" '$2 == 200 && $3 == j {f = 1} END {exit !f}' "$(log_of completer)"; }
jobof() { awk -v t="$1" -v o="$2" '$4 == t && $3 == o {print $1, $2; exit}' "$CW_E2E_DIR/jobs.txt"; }
# A new CronJob's Job runs for the volumes labelled for its job when its pod starts: it counts for a
# volume only when created after the volume got its labels (the first write to it, by the
# controller's volume reconciler or by migrate), else it is marked u.
declare -A LABELED
for v in "${VOLS[@]}"; do
  ts=$(jq -rs --arg v "$v" '[.[] | select(.objectRef.resource == "volumes" and .objectRef.name == $v and
    (.verb == "patch" or .verb == "update") and .responseStatus.code < 300)] | first | .requestReceivedTimestamp // empty' "$AUDIT")
  [ -n "$ts" ] || e2e_fail "no write to volume $v in the audit log"
  LABELED[$v]=$(date -u -d "$ts" +%s.%N)
done
MISSED=0 DOUBLED=0 KILLED=0
printf '%-14s %-28s %s\n' "volume/job" "RecurringJob" "fire time: L legacy, N new, LN both, - none, k started but deleted before it ran, u before the volume's labels" >&2
for p in "${PAIRS[@]}"; do
  v=${p%/*} job=${p#*/}
  row="" m=0 d=0
  for ((t = W0; t <= END; t += 60)); do
    mark=""
    for src in legacy new; do
      owner=${RJ[$p]}
      [ $src = legacy ] && owner=$v-$job-c
      read -r jt j < <(jobof "$t" "$owner") || true
      [ -n "${j:-}" ] || continue
      if [ $src = new ] && awk -v a="$jt" -v b="${LABELED[$v]}" 'BEGIN {exit !(a < b)}'; then
        mark+=u
      elif ran "$j"; then
        [ $src = legacy ] && mark+=L || mark+=N
      else
        mark+=k KILLED=$((KILLED + 1))
      fi
    done
    case $mark in *L*N*) d=$((d + 1)) ;; *L* | *N*) ;; *) m=$((m + 1)) ;; esac
    row+=" $(hms "$t")=${mark:--}"
  done
  printf '%-14s %-28s missed %d, doubled %d:%s\n' "$p" "${RJ[$p]}" "$m" "$d" "$row" >&2
  MISSED=$((MISSED + m)) DOUBLED=$((DOUBLED + d))
done
FIRES=$(( ${#PAIRS[@]} * ((END - W0) / 60 + 1) ))
e2e_log "of $FIRES fire times: $MISSED missed, $DOUBLED ran twice (legacy and new), $KILLED Jobs deleted before they ran"
# The timeline, from the audit log: new CronJobs created, legacy CronJobs deleted.
jq -r --arg from "$(date -u -d "@$W0" +%Y-%m-%dT%H:%M:%S)" 'select(.objectRef.resource == "cronjobs" and
    .requestReceivedTimestamp >= $from and .responseStatus.code < 300)
  | "\(.requestReceivedTimestamp) \(.verb) cronjob \(.objectRef.name // "(collection)") by \(.userAgent | split(" ")[0])"' "$AUDIT" >&2
assert_eq "$MISSED" 0 "fire times missed"
