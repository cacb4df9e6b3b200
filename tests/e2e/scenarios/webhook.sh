#!/usr/bin/env bash
# The admission webhook on a real kube-apiserver (the current Kubernetes), registered by url with caBundle:
#  - an invalid RecurringJob is denied with the policy's message, a valid one is defaulted (and the
#    user sees the warning); v1beta1 RecurringJobs too;
#  - a Volume gets the default group label; a legacy spec.recurringJobs is denied, naming
#    `cronwarden migrate --from-file`;
#  - a Schedule gets skipImmediately on create and on unpause (not on an update that stays paused),
#    and an invalid cron is denied with Velero's message;
#  - --dry-run=server gets the same decisions and stores nothing;
#  - a certificate rotated on disk (Secret-volume style symlink swap) is served without a restart
#    while the apiserver keeps calling; a broken pair is refused and the old one stays;
#  - /metrics counts what the apiserver sent; SIGTERM drains and exits 0.
. "$(dirname "$0")/../lib.sh"

e2e_start current
apply_crds
NS_LH=$(e2e_namespace longhorn-system)
NS_V=$(e2e_namespace velero)

e2e_step "serving certificate in a Secret-volume layout (tls.crt -> ..data/tls.crt)"
CERTS=$CW_E2E_DIR/webhook-certs
mkdir -p "$CERTS"
publish_cert() { # publish_cert VERSION: the current e2e_issue_cert pair becomes ..data atomically
  mkdir "$CERTS/..$1"
  cp "$CW_E2E_DIR/pki/webhook.crt" "$CERTS/..$1/tls.crt"
  cp "$CW_E2E_DIR/pki/webhook.key" "$CERTS/..$1/tls.key"
  ln -sfn "..$1" "$CERTS/..data_tmp"
  mv -T "$CERTS/..data_tmp" "$CERTS/..data"
}
e2e_issue_cert webhook IP:127.0.0.1
publish_cert 1
ln -s ..data/tls.crt "$CERTS/tls.crt"
ln -s ..data/tls.key "$CERTS/tls.key"
CA_BUNDLE=$(base64 -w0 < "$CW_E2E_SIGNING_CA")
fingerprint() { openssl x509 -noout -fingerprint -sha256 -in "$1" | cut -d= -f2; }
served_fingerprint() {
  openssl s_client -connect "127.0.0.1:$PORT" -servername localhost </dev/null 2>/dev/null |
    openssl x509 -noout -fingerprint -sha256 | cut -d= -f2
}

e2e_step "start the webhook"
PORT=$(cwc_free_port)
e2e_bg webhook "$CW_BINARY" webhook --listen "127.0.0.1:$PORT" --tls-cert-file "$CERTS/tls.crt" \
  --tls-private-key-file "$CERTS/tls.key" --tls-reload-interval 1s --threads 2
LOG=$CW_E2E_DIR/logs/webhook.log
wait_for 20 "webhook /readyz" curl -fsS --cacert "$CW_E2E_SIGNING_CA" "https://127.0.0.1:$PORT/readyz"
assert_contains "$(head -1 "$LOG")" "msg=configuration listen=127.0.0.1:$PORT threads=2" "effective configuration line"
assert_eq "$(fingerprint "$CERTS/tls.crt")" "$(served_fingerprint)" "served certificate"

e2e_step "register both configurations by url with caBundle"
rules() { # rules OPERATIONS...
  local ops; ops=$(printf '"%s",' "$@"); ops="[${ops%,}]"
  cat <<EOF
    rules:
    - {apiGroups: ["longhorn.io"], apiVersions: ["v1beta1", "v1beta2"], operations: $ops, resources: ["recurringjobs", "volumes"], scope: Namespaced}
    - {apiGroups: ["velero.io"], apiVersions: ["v1"], operations: $ops, resources: ["schedules"], scope: Namespaced}
EOF
}
e2e_on_exit_external kc delete mutatingwebhookconfiguration,validatingwebhookconfiguration cronwarden --ignore-not-found
assert_ok kc apply -f - <<EOF
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: cronwarden}
webhooks:
  - name: mutate.cronwarden.io
    clientConfig: {url: "https://127.0.0.1:$PORT/mutate", caBundle: "$CA_BUNDLE"}
$(rules CREATE UPDATE)
    admissionReviewVersions: ["v1", "v1beta1"]
    sideEffects: None
    failurePolicy: Fail
    timeoutSeconds: 5
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: cronwarden}
webhooks:
  - name: validate.cronwarden.io
    clientConfig: {url: "https://127.0.0.1:$PORT/validate", caBundle: "$CA_BUNDLE"}
$(rules CREATE UPDATE)
    admissionReviewVersions: ["v1"]
    sideEffects: None
    failurePolicy: Fail
    timeoutSeconds: 5
EOF

rj() { # rj NAME CRON RETAIN [APIVERSION]
  cat <<EOF
apiVersion: longhorn.io/${4:-v1beta2}
kind: RecurringJob
metadata: {name: $1, namespace: $NS_LH}
spec: {task: snapshot, cron: "$2", retain: $3}
EOF
}
# The apiserver picks configurations up asynchronously: wait until the validation answers.
denied_by_webhook() { ! kc create --dry-run=server -f <(rj probe "0 0 * *" 1) >/dev/null 2>&1; }
wait_for 30 "the webhook configurations to take effect" denied_by_webhook

e2e_step "an invalid RecurringJob is denied with the policy's message"
assert_fails --match 'admission webhook "validate.cronwarden.io" denied the request: spec.cron: invalid cron expression "0 0 * *": expected exactly 5 fields, found 4: [0 0 * *]' \
  kc create -f <(rj bad-cron "0 0 * *" 1)
assert_fails --match 'spec.retain: 101 exceeds the maximum of 100 (Longhorn setting recurring-job-max-retention)' \
  kc create -f <(rj too-many "0 0 * * *" 101)
assert_fails --match NotFound kc get lhrj -n "$NS_LH" bad-cron

e2e_step "a valid RecurringJob is defaulted, and the user sees why"
assert_ok kc create -f <(rj daily "0 3 * * *" 0)
assert_contains "$E2E_OUT" 'Warning: spec.retain: 0 changed to 1 (task "snapshot" needs a retain of at least 1)'
assert_json "$(kc get lhrj -n "$NS_LH" daily -o json)" .spec \
  '{"concurrency":10,"cron":"0 3 * * *","groups":[],"labels":{},"name":"daily","parameters":{},"retain":1,"task":"snapshot"}'
assert_ok kc create -f <(rj legacy-api "@daily" 3 v1beta1)
# No spec.name in v1beta1: Longhorn 1.2's CRD would prune it, and Longhorn's own webhook (v1beta2,
# matchPolicy Exact) never fills it there.
assert_json "$(kc get recurringjobs.v1beta1.longhorn.io -n "$NS_LH" legacy-api -o json)" \
  '.spec | [.name, .concurrency, .groups, .labels, .retain]' '[null,10,[],{},3]' "v1beta1 RecurringJob defaulted"

e2e_step "a Volume gets the default group label; legacy recurringJobs are denied"
assert_ok kc create -f - <<EOF
apiVersion: longhorn.io/v1beta2
kind: Volume
metadata: {name: pvc-new, namespace: $NS_LH, labels: {app: db}}
spec: {size: "1073741824", numberOfReplicas: 3}
EOF
assert_json "$(kc get volumes.longhorn.io -n "$NS_LH" pvc-new -o json)" .metadata.labels \
  '{"app":"db","recurring-job-group.longhorn.io/default":"enabled"}'
assert_ok kc create -f - <<EOF
apiVersion: longhorn.io/v1beta2
kind: Volume
metadata: {name: pvc-jobs, namespace: $NS_LH, labels: {recurring-job.longhorn.io/daily: enabled}}
spec: {size: "1073741824"}
EOF
assert_json "$(kc get volumes.longhorn.io -n "$NS_LH" pvc-jobs -o json)" .metadata.labels \
  '{"recurring-job.longhorn.io/daily":"enabled"}' "a volume with a job label keeps its labels"
assert_fails --match 'denied the request: spec.recurringJobs: legacy per-volume recurring jobs are not accepted' \
  kc create -f - <<EOF
apiVersion: longhorn.io/v1beta1
kind: Volume
metadata: {name: pvc-legacy, namespace: $NS_LH}
spec:
  size: "1073741824"
  recurringJobs: [{name: snap, task: snapshot, cron: "*/5 * * * *", retain: 3}]
EOF
assert_contains "$E2E_OUT" '"cronwarden migrate --from-file <file>" does this'

e2e_step "a Schedule gets skipImmediately on create and on unpause"
sched() { # sched NAME CRON PAUSED
  cat <<EOF
apiVersion: velero.io/v1
kind: Schedule
metadata: {name: $1, namespace: $NS_V}
spec: {schedule: "$2", paused: $3, template: {includedNamespaces: ["apps"]}}
EOF
}
assert_ok kc create -f <(sched nightly "0 1 * * *" false)
assert_contains "$E2E_OUT" 'Warning: spec.skipImmediately: set to false, the server default (--schedule-skip-immediately), made explicit at creation'
assert_json "$(kc get schedules.velero.io -n "$NS_V" nightly -o json)" .spec.skipImmediately false
assert_ok kc create -f <(sched weekly "0 2 * * 0" true)
# Velero's `schedule unpause` without --skip-immediately leaves the field absent: make it so.
assert_ok kc patch schedules.velero.io -n "$NS_V" weekly --type json -p '[{"op":"remove","path":"/spec/skipImmediately"}]'
assert_json "$(kc get schedules.velero.io -n "$NS_V" weekly -o json)" '.spec | has("skipImmediately")' false "still paused: no default"
assert_ok kc patch schedules.velero.io -n "$NS_V" weekly --type merge -p '{"spec":{"paused":false}}'
assert_contains "$E2E_OUT" 'Warning: spec.skipImmediately: set to false, the server default (--schedule-skip-immediately), because the schedule is being unpaused'
assert_json "$(kc get schedules.velero.io -n "$NS_V" weekly -o json)" '.spec | [.paused, .skipImmediately]' '[false,false]'
assert_fails --match 'denied the request: invalid schedule: end of range (61) above maximum (59): 61' \
  kc create -f <(sched broken "61 * * * *" false)

e2e_step "--dry-run=server gets the same decisions and stores nothing"
assert_fails --match 'denied the request: spec.cron: invalid cron expression' \
  kc create --dry-run=server -f <(rj dry-bad "0 0 * *" 1)
assert_ok kc create --dry-run=server -o json -f - <<EOF
apiVersion: longhorn.io/v1beta2
kind: Volume
metadata: {name: pvc-dry, namespace: $NS_LH}
spec: {size: "1073741824"}
EOF
assert_json "$E2E_OUT" .metadata.labels '{"recurring-job-group.longhorn.io/default":"enabled"}' "dry-run answer"
assert_fails --match NotFound kc get volumes.longhorn.io -n "$NS_LH" pvc-dry
assert_contains "$(cat "$LOG")" "dry_run=true"

e2e_step "a certificate rotated on disk is served without a restart, while the apiserver calls"
OLD=$(served_fingerprint)
PID=$(e2e_bg_pid webhook)
# Keep the apiserver busy across the swap: every dry-run create must be admitted and defaulted.
( for i in $(seq 1 40); do
    out=$(kc create --dry-run=server -o json -f <(rj "busy-$i" "*/5 * * * *" 0) 2>"$CW_E2E_DIR/busy.err") ||
      { echo "FAIL $i: $(cat "$CW_E2E_DIR/busy.err")"; exit 1; }
    [ "$(jq -r .spec.retain <<<"$out")" = 1 ] || { echo "FAIL $i: not defaulted: $out"; exit 1; }
    sleep 0.05
  done; echo OK ) > "$CW_E2E_DIR/busy.out" 2>&1 &
BUSY=$!
sleep 0.5
e2e_issue_cert webhook IP:127.0.0.1
publish_cert 2
NEW=$(fingerprint "$CERTS/tls.crt")
[ "$OLD" != "$NEW" ] || e2e_fail "the reissued certificate has the old fingerprint"
serving() { [ "$(served_fingerprint)" = "$1" ]; }
wait_for 15 "the new certificate to be served" serving "$NEW"
wait "$BUSY" || true
assert_eq OK "$(tail -1 "$CW_E2E_DIR/busy.out")" "apiserver calls across the swap ($(head -3 "$CW_E2E_DIR/busy.out"))"
assert_eq "$PID" "$(e2e_bg_pid webhook)" "same process"
kill -0 "$PID" || e2e_fail "the webhook died"
assert_contains "$(cat "$LOG")" 'msg="serving a new certificate"'
assert_ok kc create -f <(rj after-rotation "0 4 * * *" 0)
assert_json "$(kc get lhrj -n "$NS_LH" after-rotation -o json)" .spec.concurrency 10 "admitted through the new certificate"

e2e_step "a broken pair is refused and the served one stays"
mkdir "$CERTS/..3"
cp "$CERTS/..2/tls.crt" "$CERTS/..3/tls.crt"
cp "$CERTS/..1/tls.key" "$CERTS/..3/tls.key"
ln -sfn ..3 "$CERTS/..data_tmp"; mv -T "$CERTS/..data_tmp" "$CERTS/..data"
wait_for 15 "the refusal in the log" grep -q 'new certificate refused; still serving the previous one' "$LOG"
assert_contains "$(grep 'new certificate refused' "$LOG")" "the private key does not belong to the certificate"
assert_eq "$NEW" "$(served_fingerprint)" "still the last good certificate"
assert_ok kc create --dry-run=server -f <(rj still-fine "0 5 * * *" 1)

e2e_step "metrics count the apiserver's calls"
METRICS=$(curl -fsS --cacert "$CW_E2E_SIGNING_CA" "https://127.0.0.1:$PORT/metrics")
assert_contains "$METRICS" 'cronwarden_webhook_requests_total{route="validate",kind="RecurringJob",operation="CREATE",outcome="denied"}'
assert_contains "$METRICS" 'cronwarden_webhook_requests_total{route="mutate",kind="Volume",operation="CREATE",outcome="patched"}'
assert_contains "$METRICS" 'cronwarden_webhook_requests_total{route="mutate",kind="Schedule",operation="UPDATE",outcome="patched"} 1'
assert_contains "$METRICS" 'cronwarden_webhook_certificate_reloads_total{result="failure"} 1'
assert_contains "$METRICS" "cronwarden_webhook_certificate_expiry_timestamp_seconds $(date -d "$(openssl x509 -noout -enddate -in "$CERTS/..2/tls.crt" | cut -d= -f2)" +%s)"

e2e_step "SIGTERM drains and exits 0"
kill -TERM "$PID"
rc=0; wait "$PID" || rc=$?
assert_eq 0 "$rc" "exit status after SIGTERM"
assert_contains "$(tail -2 "$LOG")" "msg=stopped drained=true"
