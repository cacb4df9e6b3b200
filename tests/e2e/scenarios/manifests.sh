#!/usr/bin/env bash
# Everything cronwarden ships, on the current Kubernetes (docs/deploy.md, "Which Kubernetes"):
#  - crds/, every kustomization of deploy/ (deploy/monitoring on prometheus-operator's own CRDs),
#    deploy/controller's and deploy/monitoring's extra files and the example exports apply with
#    kubectl apply --validate=strict and print nothing on stderr (no deprecation or admission
#    warning); deploy/kube-1.29/base is deploy/base less exactly the matchConditions and the
#    preStop sleep;
#  - Pod Security: every namespace cronwarden's Pods run in enforces "restricted", and a Pod made
#    from every pod template shipped (webhook, cert-manager webhook, controller, upgrade Job, audit
#    CronJob) passes a server dry run there with no warning; the same Pod without its security
#    contexts is refused (the check is live);
#  - the webhooks' matchConditions, as shipped, on a table of requests through the apiserver: which
#    ones reach the webhook, and for every request not sent, the webhook's own answer to the review
#    it would have got is "allowed, no patch" (skipped => admitted unchanged);
#  - the Kubernetes 1.37 behaviours these rely on, each named in a step ("1.37:").
. "$(dirname "$0")/../lib.sh"

D=$CW_SOURCE_DIR/deploy
BIN=${CW_BINARY:-$CW_SOURCE_DIR/build/cmd/cronwarden} # for e2e_bg, which needs a command
CW_NS=cronwarden
[ -z "${CRONWARDEN_E2E_KUBECONFIG:-}" ] ||
  e2e_skip "installs cronwarden cluster-wide and replaces the longhorn.io CRDs; harness cluster only"

e2e_start current

# strict WHAT ARGS...: kubectl apply --validate=strict ARGS must succeed and print nothing on stderr
# (kustomize's deprecation notes, admission and Pod Security warnings, unknown or duplicate
# fields all go there); its stdout in E2E_OUT.
# STRICT_ALLOW, when set, is the one warning line a test of exported objects lets through (named
# where it is set); STRICT_SEEN counts it.
STRICT_ALLOW="" STRICT_SEEN=0
strict() {
  local what=$1 n
  shift
  E2E_OUT=$(kc apply --validate=strict "$@" 2>"$E2E_DIR/stderr") ||
    e2e_fail "$what: kubectl apply --validate=strict $* failed: $(cat "$E2E_DIR/stderr")"
  if [ -n "$STRICT_ALLOW" ]; then
    n=$(grep -cxF -- "$STRICT_ALLOW" "$E2E_DIR/stderr" || true)
    STRICT_SEEN=$((STRICT_SEEN + n))
    grep -vxF -- "$STRICT_ALLOW" "$E2E_DIR/stderr" > "$E2E_DIR/stderr.rest" || true
    mv "$E2E_DIR/stderr.rest" "$E2E_DIR/stderr"
  fi
  [ ! -s "$E2E_DIR/stderr" ] || e2e_fail "$what: kubectl apply --validate=strict $* printed on stderr:
$(cat "$E2E_DIR/stderr")"
}
# strict_twice WHAT ARGS...: a server dry run, the apply, and a second apply that changes nothing:
# no object's resourceVersion moves. (kubectl says "configured" for a PodDisruptionBudget every
# time: policy/v1's selector has patch strategy "replace", so client-side apply always sends it,
# and the server finds nothing to change. Everything else must say "unchanged".)
strict_twice() {
  local what=$1 before
  shift
  strict "$what (server dry run)" --dry-run=server "$@"
  strict "$what" "$@"
  before=$(e2e_resource_versions "$@")
  strict "$what (again)" "$@"
  assert_eq "$before" "$(e2e_resource_versions "$@")" "$what: resourceVersions after a second apply"
  assert_eq "" "$(grep -v -e ' unchanged$' -e '^poddisruptionbudget.policy/.* configured$' <<<"$E2E_OUT")" "$what: a second apply changes nothing"
}
# built DIR: the kustomization as JSON (a List), built by the current kubectl's kustomize.
built() {
  kc kustomize "$D/$1" 2>"$E2E_DIR/stderr" | kc create --dry-run=client -o json -f - 2>>"$E2E_DIR/stderr" |
    jq -s 'if length == 1 and .[0].kind == "List" then .[0] else {kind: "List", items: .} end' ||
    e2e_fail "kubectl kustomize $1 failed: $(cat "$E2E_DIR/stderr")"
  [ ! -s "$E2E_DIR/stderr" ] || e2e_fail "kubectl kustomize $1 printed on stderr: $(cat "$E2E_DIR/stderr")"
}

# ---- CRDs and the examples -----------------------------------------------------------------------
e2e_step "crds/: strict, no warning, Established"
strict_twice crds -k "$CW_SOURCE_DIR/crds"
apply_crds

e2e_step "examples/longhorn-1.1-cluster: every YAML object but the one batch/v1beta1 CronJob (1.37: batch/v1beta1 is gone since 1.25)"
# The export is of a Longhorn 1.1 cluster, which ran on Kubernetes <= 1.20: its application CronJob
# is batch/v1beta1, kept as exported (migrate --from-file reads it). manifests_120 applies it whole.
EX=$CW_SOURCE_DIR/examples/longhorn-1.1-cluster
for n in longhorn-system shop; do kc create namespace "$n" >/dev/null; done
# 1.37 (1.28+) warns about a finalizer without a path; Longhorn's manager puts "longhorn.io" on its
# objects, and the exports keep it as Longhorn wrote it: that warning, and no other, is let through.
LH_FINALIZER_WARNING='Warning: metadata.finalizers: "longhorn.io": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers'
STRICT_ALLOW=$LH_FINALIZER_WARNING
for f in "$EX"/longhorn-system/*.yaml "$EX"/cluster/*.yaml; do
  strict "${f#"$CW_SOURCE_DIR"/}" -f "$f"
done
STRICT_ALLOW=""
[ "$STRICT_SEEN" -ge 1 ] || e2e_fail "1.37 no longer warns about Longhorn's finalizer: drop STRICT_ALLOW here"
e2e_log "1.37: warns about Longhorn's finalizer \"longhorn.io\" (no path), which the export keeps as Longhorn wrote it"
awk 'BEGIN { RS = "\n---\n" } !/apiVersion: batch\/v1beta1/ { printf "%s\n---\n", $0 }' "$EX/apps/analytics.yaml" > "$E2E_DIR/analytics.yaml"
assert_eq 2 "$(grep -c '^kind:' "$E2E_DIR/analytics.yaml")" "objects of apps/analytics.yaml besides the CronJob"
strict examples/longhorn-1.1-cluster/apps/analytics.yaml -f "$E2E_DIR/analytics.yaml"
assert_fails --match 'no matches for kind "CronJob" in version "batch/v1beta1"' kc apply --validate=strict -f "$EX/apps/analytics.yaml"

# ---- deploy/ -----------------------------------------------------------------------------------
e2e_step "deploy/base: namespace first (as documented), then server dry run, apply, apply again"
strict deploy/base/namespace.yaml -f "$D/base/namespace.yaml"
strict_twice deploy/base -k "$D/base"
assert_contains "$E2E_OUT" 'poddisruptionbudget.policy/cronwarden-webhook configured' "the second apply's report"
e2e_log "1.37: kubectl reports the policy/v1 PodDisruptionBudget 'configured' on every apply (its selector is patched by replacement); no resourceVersion moves"
BASE=$(built base)
e2e_log "1.37: kubectl's kustomize (v5) warns about bases/patchesJson6902/patchesStrategicMerge; deploy/ uses resources/patches only"

e2e_step "deploy/cert-manager over deploy/base (stand-in cert-manager CRDs: cert-manager is not part of the test cluster)"
e2e_certmanager_crds
strict "deploy/cert-manager (server dry run)" --dry-run=server -k "$D/cert-manager"
CM=$(built cert-manager)

e2e_step "deploy/upgrade-job, deploy/audit: strict, no warning"
strict_twice deploy/upgrade-job -k "$D/upgrade-job"
JOBS=$(built upgrade-job)
strict_twice deploy/audit -k "$D/audit"
AUDIT=$(built audit)
e2e_log "1.37: Job ttlSecondsAfterFinished kept as written: $(kc get job -n "$CW_NS" cronwarden-migrate -o jsonpath='{.spec.ttlSecondsAfterFinished}') (1.20 drops it without the TTLAfterFinished gate)"
assert_eq 604800 "$(kc get job -n "$CW_NS" cronwarden-migrate -o jsonpath='{.spec.ttlSecondsAfterFinished}')" "Job ttlSecondsAfterFinished stored"

e2e_step "deploy/monitoring on prometheus-operator 0.93.0's own CRDs: strict, no warning"
apply_upstream_crds tests/fixtures/prometheus-operator-0.93.0
strict_twice deploy/monitoring -k "$D/monitoring"

e2e_step "the files applied with -f (deploy/controller/rbac-*.yaml, deploy/monitoring/status-rbac.yaml): strict, no warning"
kc create namespace openshift-adp >/dev/null # OADP's namespace, named by rbac-nonadmin.yaml
for f in "$D"/controller/rbac-*.yaml "$D/monitoring/status-rbac.yaml"; do
  strict_twice "${f#"$CW_SOURCE_DIR"/}" -f "$f"
done
# Nothing under deploy/ is left out: every YAML is a kustomization, part of one, or applied above.
# (deploy/chart renders these same objects: tests/cli/helm_chart.sh compares each value set with
# the kustomization it stands for, so what applies here applies as the chart renders it.)
for f in $(cd "$D" && find . -path ./chart -prune -o -name '*.yaml' -print | sort); do
  f=${f#./}
  case $f in
    */kustomization.yaml | controller/rbac-*.yaml | monitoring/status-rbac.yaml) continue ;;
    monitoring/rules.yaml) continue ;; # a Prometheus rule file, not a Kubernetes object
  esac
  grep -rqF "$(basename "$f")" "$D/$(dirname "$f")/kustomization.yaml" ||
    e2e_fail "deploy/$f is neither in its kustomization nor applied by this scenario"
done

e2e_step "deploy/kube-1.29/base is deploy/base less the matchConditions and the preStop sleep, nothing else; strict on 1.37 too"
OLD=$(built kube-1.29/base)
assert_json "$OLD" '.items | length' "$(jq '.items | length' <<<"$BASE")" "objects of kube-1.29/base"
assert_eq "$(jq -cS '.items[] | if (.kind | test("WebhookConfiguration$")) then del(.webhooks[].matchConditions)
      elif .kind == "Deployment" and .metadata.name == "cronwarden-webhook" then del(.spec.template.spec.containers[0].lifecycle)
      else . end' <<<"$BASE")" "$(jq -cS '.items[]' <<<"$OLD")" "kube-1.29/base against base"
assert_json "$BASE" '[.items[] | select(.kind | test("WebhookConfiguration$")) | .webhooks[] | .matchConditions | length > 1] | all' true "every webhook of base has matchConditions"
assert_json "$BASE" '.items[] | select(.kind == "Deployment" and .metadata.name == "cronwarden-webhook") | .spec.template.spec.containers[0].lifecycle.preStop' \
  '{"sleep":{"seconds":5}}' "the webhook's preStop pause"
strict "deploy/kube-1.29/base (server dry run)" --dry-run=server -k "$D/kube-1.29/base"
e2e_log "1.37: the preStop sleep action (1.30+) and matchConditions (GA 1.30) are accepted; kube-1.29/base leaves both out"

# ---- Pod Security --------------------------------------------------------------------------------
e2e_step "Pod Security: the namespace every cronwarden Pod runs in enforces restricted"
ns_live=$(kc get namespace "$CW_NS" -o json)
for mode in enforce audit warn; do
  assert_json "$ns_live" ".metadata.labels[\"pod-security.kubernetes.io/$mode\"]" restricted "$mode label"
done
assert_json "$ns_live" '.metadata.labels["kubernetes.io/metadata.name"]' "$CW_NS" "1.37: the name label every namespace gets (1.21+)"
# Every object of deploy/ that makes Pods lives in that namespace.
assert_json "$(jq -s '[.[].items[] | select(.kind == "Deployment" or .kind == "Job" or .kind == "CronJob") | .metadata.namespace] | unique' <<<"$BASE$CM$JOBS$AUDIT")" . "[\"$CW_NS\"]" "namespaces of the pod-making objects"

e2e_step "Pod Security: a Pod from every shipped pod template passes a server dry run in it, with no warning"
# templates JSON [PREFIX]: one "NAME<TAB>TEMPLATE" line per pod template of the List.
templates() {
  jq -r --arg p "${2:-}" '.items[] | (if .kind == "CronJob" then .spec.jobTemplate.spec.template
      elif .kind == "Deployment" or .kind == "Job" then .spec.template else empty end) as $t
    | "\($p)\(.kind | ascii_downcase)-\(.metadata.name)\t\($t | tojson)"' <<<"$1"
}
n=0
while IFS=$'\t' read -r name tpl; do
  pod=$(jq -c --arg n "ps-$name-$n" --arg ns "$CW_NS" '{apiVersion: "v1", kind: "Pod",
      metadata: ((.metadata // {}) + {name: $n, namespace: $ns}), spec: .spec}' <<<"$tpl")
  E2E_OUT=$(kc create --dry-run=server -o name -f - <<<"$pod" 2>"$E2E_DIR/stderr") ||
    e2e_fail "the Pod of $name is refused in $CW_NS: $(cat "$E2E_DIR/stderr")"
  [ ! -s "$E2E_DIR/stderr" ] || e2e_fail "the Pod of $name: warnings: $(cat "$E2E_DIR/stderr")"
  # The check is live: the same Pod without its security contexts is refused.
  bare=$(jq -c '.metadata.name += "-bare" | del(.spec.securityContext, .spec.containers[].securityContext)' <<<"$pod")
  assert_fails --match 'violates PodSecurity "restricted:latest"' kc create --dry-run=server -f - <<<"$bare"
  e2e_log "admitted under restricted: $name ($(jq -r '.spec.serviceAccountName' <<<"$pod"))"
  n=$((n + 1))
done < <(templates "$BASE"; templates "$CM" cm- | grep '^cm-deployment-cronwarden-webhook'; templates "$JOBS"; templates "$AUDIT")
assert_eq 5 "$n" "pod templates checked (webhook, controller, cert-manager webhook, Job, CronJob)"

# ---- what an unprivileged user meets -------------------------------------------------------------
e2e_step "1.37: every user may create selfsubjectreviews; kubectl validates a SelfSubjectRulesReview by listing CRDs"
# What deploy.sh's rights check must allow for on a current cluster (it runs on 1.20).
e2e_require_users nobody
review='{"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview", "spec": {"namespace": "default"}}'
assert_fails --match 'failed to check CRD' kc_as nobody create -o json -f - <<<"$review"
assert_ok kc_as nobody create --validate=false -o json -f - <<<"$review"
assert_json "$E2E_OUT" '[.status.resourceRules[] | select(.apiGroups == ["authentication.k8s.io"]) | .resources[]]' '["selfsubjectreviews"]' \
  "authentication.k8s.io rights of a user with no role"

# ---- matchConditions -----------------------------------------------------------------------------
e2e_step "matchConditions: the shipped configurations, called by URL, on a table of requests"
# The shipped configurations are registered with a Service that has no Pods here; delete them, store
# the table's old objects with no webhook at all (as Longhorn, Velero or a user left them before
# cronwarden), then register the shipped webhooks again with the same rules, selectors and
# matchConditions, only the clientConfig pointing at a webhook on this machine.
assert_ok kc delete mutatingwebhookconfiguration,validatingwebhookconfiguration cronwarden
MC=$(e2e_namespace mc)
TDIR=$E2E_DIR/table
mkdir -p "$TDIR"
vol() { jq -nc --arg n "$1" --arg ns "$MC" --arg v "${2:-v1beta2}" '{apiVersion: "longhorn.io/\($v)", kind: "Volume",
  metadata: {name: $n, namespace: $ns}, spec: {size: "1073741824", numberOfReplicas: 1}}'; }
rj() { jq -nc --arg n "$1" --arg ns "$MC" --arg v "${2:-v1beta2}" '{apiVersion: "longhorn.io/\($v)", kind: "RecurringJob",
  metadata: {name: $n, namespace: $ns}, spec: {task: "snapshot", cron: "0 1 * * *", retain: 2}}'; }
sch() { jq -nc --arg n "$1" --arg ns "$MC" '{apiVersion: "velero.io/v1", kind: "Schedule",
  metadata: {name: $n, namespace: $ns}, spec: {schedule: "0 1 * * *", template: {includedNamespaces: ["shop"]}}}'; }
RJ_DEFAULTS='.spec += {concurrency: 10, groups: [], labels: {}} | if .apiVersion == "longhorn.io/v1beta2" then .spec += {name: .metadata.name, parameters: {}} else . end'
# The stored objects: name, builder, version, jq filter.
while IFS='|' read -r name build version filter; do
  $build "$name" $version | jq -c "$filter" > "$TDIR/$name.json"
  assert_ok kc create -f "$TDIR/$name.json"
done <<EOF
vol-labelled|vol||.metadata.labels = {"recurring-job-group.longhorn.io/default": "enabled"}
vol-bare|vol||.
vol-legacy|vol|v1beta1|.spec.recurringJobs = [{name: "snap", task: "snapshot", cron: "0 1 * * *", retain: 2}]
vol-clone|vol||.spec.cloneMode = "linked-clone"
rj-full|rj||$RJ_DEFAULTS
rj-bare|rj||.
rj-invalid|rj||$RJ_DEFAULTS | .spec.cron = "0 0 * *"
rj1-full|rj|v1beta1|$RJ_DEFAULTS
sch-set|sch||.spec.skipImmediately = false
sch-paused|sch||.spec.paused = true
sch-invalid|sch||.spec += {schedule: "61 * * * *", skipImmediately: false}
sch-days|sch||.spec += {schedule: "0 1 1 * 1", skipImmediately: false}
EOF
# The webhook under test, by URL with the harness's CA, and the shipped configurations pointing at it.
e2e_issue_cert webhook IP:127.0.0.1
PORT=$(cwc_free_port)
e2e_bg webhook "$BIN" webhook --listen "127.0.0.1:$PORT" --tls-cert-file "$CW_E2E_DIR/pki/webhook.crt" \
  --tls-private-key-file "$CW_E2E_DIR/pki/webhook.key" --threads 1
wait_for 20 "webhook /readyz" curl -fsS --cacert "$CW_E2E_SIGNING_CA" "https://127.0.0.1:$PORT/readyz"
WLOG=$CW_E2E_DIR/logs/webhook.log
CA_BUNDLE=$(base64 -w0 < "$CW_E2E_SIGNING_CA")
jq -c --arg url "https://127.0.0.1:$PORT" --arg ca "$CA_BUNDLE" '.items[] | select(.kind | test("WebhookConfiguration$"))
    | .webhooks[] |= (.clientConfig = {url: ($url + .clientConfig.service.path), caBundle: $ca})' <<<"$BASE" > "$TDIR/configs.json"
strict "the shipped configurations by URL" -f "$TDIR/configs.json"
assert_json "$(kc get validatingwebhookconfiguration cronwarden -o json)" '[.webhooks[].matchConditions | length]' '[2,2,2]' "1.37 keeps the matchConditions"
wait_for 30 "admission through the URL" bash -c "'$CW_KUBECTL' --kubeconfig '$KUBECONFIG' create --dry-run=server -f '$TDIR/rj-bare.json' -o json | jq -e '.spec.concurrency == 10'"

# calls ROUTE NAME: the webhook's log lines so far for ROUTE and object NAME.
calls() { grep -c "msg=admission route=$1 .* name=$2 " "$WLOG" || true; }
# review OP OBJECT OLD: the AdmissionReview the apiserver sends for this request.
review() {
  jq -nc --arg op "$1" --argjson o "$2" --argjson old "$3" '($o.apiVersion | split("/")) as $gv | {
    apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: {
      uid: "table-\($op)-\($o.metadata.name)",
      kind: {group: $gv[0], version: $gv[1], kind: $o.kind},
      resource: {group: $gv[0], version: $gv[1], resource: ($o.kind | ascii_downcase + "s")},
      requestKind: {group: $gv[0], version: $gv[1], kind: $o.kind},
      namespace: $o.metadata.namespace, name: $o.metadata.name, operation: $op,
      userInfo: {username: "table"}, object: $o, oldObject: (if $op == "UPDATE" then $old else null end),
      dryRun: true}}'
}
# answer ROUTE REVIEW: the webhook's answer, as "allowed=B patch=N warnings=N".
answer() {
  curl -fsS --cacert "$CW_E2E_SIGNING_CA" -H 'Content-Type: application/json' --data-binary @- \
    "https://127.0.0.1:$PORT/$1" <<<"$2" |
    jq -r '.response | "allowed=\(.allowed) patch=\(if .patch then (.patch | @base64d | fromjson | length) else 0 end) warnings=\(.warnings // [] | length)"'
}
resource_of() { jq -r '"\(.kind | ascii_downcase)s.\(.apiVersion | split("/") | .[1]).\(.apiVersion | split("/") | .[0])"' "$TDIR/$1.json"; }

TABLE=$E2E_DIR/table.txt
printf '%-4s %-6s %-12s %-44s %-6s %-6s %s\n' case op object change mutate valid. "answer (sent: from the log; skipped: asked directly)" > "$TABLE"
row() { # row ID OP BASE FILTER EXPECT-MUTATE EXPECT-VALIDATE [DRY]
  local id=$1 op=$2 base=$3 filter=$4 em=$5 ev=$6 dry=${7:-server} new old name got out m v r ans
  local mutate_ans validate_ans seen route
  if [ "$op" = CREATE ]; then
    name=c-${id,,}
    new=$(jq -c --arg n "$name" "del(.metadata.resourceVersion) | .metadata.name = \$n
      | if .spec.name then .spec.name = \$n else . end | $filter" "$TDIR/$base.json")
    old=null
  else
    name=$base
    old=$(kc get "$(resource_of "$base")" -n "$MC" "$base" -o json | jq -c 'del(.metadata.managedFields)')
    new=$(jq -c "$filter" <<<"$old")
  fi
  local m0 v0
  m0=$(calls mutate "$name") v0=$(calls validate "$name")
  r=0
  case $op in
    CREATE) out=$(kc create --dry-run="$dry" -o json -f - <<<"$new" 2>"$E2E_DIR/row.err") || r=$? ;;
    UPDATE) out=$(kc replace --dry-run="$dry" -o json -f - <<<"$new" 2>"$E2E_DIR/row.err") || r=$? ;;
  esac
  [ "$r" = 0 ] || out=$(cat "$E2E_DIR/row.err")
  m=$(( $(calls mutate "$name") - m0 )) v=$(( $(calls validate "$name") - v0 ))
  [ "$m" -le 1 ] && [ "$v" -le 1 ] || e2e_fail "case $id: more than one call per route ($m, $v)"
  m=$([ "$m" = 1 ] && echo sent || echo skip) v=$([ "$v" = 1 ] && echo sent || echo skip)
  [ "$m $v" = "$em $ev" ] || e2e_fail "case $id ($op $base: $filter): expected mutate $em, validate $ev; got $m, $v; kubectl: $out"
  # What the webhook answered (sent: its log line) or would answer (skipped: the review the
  # apiserver would have sent, posted directly). The object skipped webhooks would have seen is the
  # one admitted (nothing changed it: only cronwarden mutates here).
  for route in mutate validate; do
    if [ "$route" = mutate ]; then got=$m; else got=$v; fi
    if [ "$got" = sent ]; then
      ans=$(grep "msg=admission route=$route .* name=$name " "$WLOG" | tail -1 |
        sed -n 's/.* allowed=\([a-z]*\) patch_ops=\([0-9]*\) warnings=\([0-9]*\).*/allowed=\1 patch=\2 warnings=\3/p')
    else
      # The object as admitted; for a request the validating webhook refused, the object as sent
      # (the mutating webhook, skipped, would have seen it unchanged).
      if [ "$r" = 0 ]; then seen=$(jq -c 'del(.metadata.managedFields)' <<<"$out")
      elif [ "$route" = mutate ] && [ "$v" = sent ]; then seen=$new
      else e2e_fail "case $id: $route skipped, but the request failed: $out"; fi
      ans=$(answer "$route" "$(review "$op" "$seen" "$old")")
      case $ans in
        "allowed=true patch=0 "*) ;;
        *) e2e_fail "case $id: $route skipped, but the webhook would answer: $ans" ;;
      esac
    fi
    if [ "$route" = mutate ]; then mutate_ans="$got $ans"; else validate_ans="$got $ans"; fi
  done
  printf '%-4s %-6s %-12s %-44s M: %s\n%74s V: %s\n' "$id" "$op" "$base" "${filter:0:44}" "$mutate_ans" "" "$validate_ans" >> "$TABLE"
}
A='.metadata.annotations = {"example.com/touched": "1"}' # an ordinary update: an annotation
# id op base change mutate validate
row V1 CREATE vol-labelled . skip skip
row V2 CREATE vol-bare . sent skip
row V3 UPDATE vol-labelled "$A" skip skip
row V4 UPDATE vol-labelled '.spec.numberOfReplicas = 3' skip skip
row V5 UPDATE vol-labelled '.metadata.labels = {}' sent skip
row V6 UPDATE vol-bare "$A" sent skip
row V7 UPDATE vol-legacy "$A" skip sent
row V8 UPDATE vol-legacy '.spec.recurringJobs[0].retain = 3' skip sent
row V9 CREATE vol-legacy . skip sent
row V10 UPDATE vol-legacy 'del(.spec.recurringJobs)' sent skip
row V11 UPDATE vol-clone "$A" skip skip
row V12 CREATE vol-bare '.spec.recurringJobs = []' sent skip
row V13 CREATE vol-bare '.spec.recurringJobs = null' sent skip
row V14 CREATE vol-bare '.metadata.labels = {"recurring-job.longhorn.io/daily": "disabled"}' skip skip
row V15 CREATE vol-bare '.metadata.labels = {"recurring-job.longhorn.io.example.com/x": "y"}' skip skip
row V16 CREATE vol-bare '.metadata.labels = {"recurring-job-group.longhorn.io/gold": "enabled"}' skip skip
row V17 UPDATE vol-labelled "$A" skip skip none
row R1 CREATE rj-full . skip sent
row R2 CREATE rj-bare . sent sent
row R3 UPDATE rj-full "$A" skip skip
row R4 UPDATE rj-full '.spec.retain = 5' skip sent
row R5 UPDATE rj-bare "$A" sent sent # the mutation fills the spec, which validation then sees changed
row R6 UPDATE rj-invalid "$A" skip skip
row R7 UPDATE rj-invalid '.spec.cron = "0 0 * * * *"' skip sent
row R8 CREATE rj-full '.spec.concurrency = 0' sent sent
row R9 CREATE rj-full '.spec += {task: "snapshot-cleanup", retain: 0}' skip sent
row R10 CREATE rj-full '.spec += {task: "snapshot-cleanup", retain: 3}' sent sent
row R11 CREATE rj-full '.spec += {task: "snapshot-delete", retain: 0}' skip sent
row R12 CREATE rj-full '.spec.retain = 0' sent sent
row R13 CREATE rj-full '.spec.name = ""' sent sent
row R14 CREATE rj-full 'del(.spec.parameters)' sent sent
row R15 CREATE rj1-full . skip sent
row R16 UPDATE rj1-full "$A" skip skip
row R17 UPDATE rj-full '.spec.groups = ["gold"]' skip sent
row S1 CREATE sch-set . skip sent
row S2 CREATE sch-paused . sent sent
row S3 UPDATE sch-set '.status = {phase: "Enabled", lastBackup: "2026-11-24T01:00:05Z"}' skip skip
row S4 UPDATE sch-set '.spec.schedule = "0 2 * * *"' skip sent
row S5 UPDATE sch-paused '.spec.paused = false' sent sent
row S6 UPDATE sch-paused 'del(.spec.paused)' sent sent
row S7 UPDATE sch-paused '.status = {phase: "Enabled"}' skip skip
row S8 UPDATE sch-invalid '.status = {phase: "FailedValidation", validationErrors: ["invalid schedule"]}' skip skip
row S9 UPDATE sch-days '.spec.template.ttl = "72h0m0s"' skip skip
row S10 UPDATE sch-set '.spec.paused = true' skip sent
row S11 UPDATE sch-set '.spec.skipImmediately = true' skip sent
# DELETE is not registered: never sent (the conditions would skip it too: create-or-update).
d0=$(( $(calls mutate vol-bare) + $(calls validate vol-bare) ))
assert_ok kc delete --dry-run=server volumes.longhorn.io -n "$MC" vol-bare
assert_eq "$d0" "$(( $(calls mutate vol-bare) + $(calls validate vol-bare) ))" "calls for a DELETE"
e2e_log "the table (sent: the webhook's answer from its log; skip: what it answers to the review it did not get):"
cat "$TABLE" >&2
assert_eq 0 "$(grep -c 'allowed=false' <<<"$(grep ' skip ' "$TABLE")" || true)" "skipped requests the webhook would deny"
# The apiserver's own account: requests it kept from the webhooks, and no condition that failed to
# evaluate (an error would skip a mutation or, under failurePolicy Fail, refuse the request).
APIM=$(kc get --raw /metrics)
excluded=$(awk '$1 ~ /^apiserver_admission_match_condition_exclusions_total\{.*cronwarden\.io/ {s += $2} END {print s + 0}' <<<"$APIM")
errors=$(awk '$1 ~ /^apiserver_admission_match_condition_evaluation_errors_total\{/ {s += $2} END {print s + 0}' <<<"$APIM")
assert_eq 0 "$errors" "matchCondition evaluation errors (apiserver_admission_match_condition_evaluation_errors_total)"
[ "$excluded" -gt 0 ] || e2e_fail "the apiserver counts no request kept from the webhooks"
e2e_log "1.37: the apiserver kept $excluded requests from cronwarden's webhooks (apiserver_admission_match_condition_exclusions_total), 0 evaluation errors"

# ---- the newer example: Longhorn 1.4 and Velero --------------------------------------------------
e2e_step "examples/status-cluster on Longhorn 1.8.2's own CRDs: strict, no warning"
assert_ok kc delete mutatingwebhookconfiguration,validatingwebhookconfiguration cronwarden
# The 1.1 export's Volumes carry Longhorn's finalizer, which no Longhorn removes here: drop it, or
# deleting the CRD (lh_apply_crds) would wait for them for ever.
for v in $(kc get volumes.longhorn.io -n longhorn-system -o name); do
  assert_ok kc patch -n longhorn-system "$v" --type merge -p '{"metadata":{"finalizers":null}}'
done
# The export's CronJobs are Longhorn 1.4.4's, but its RecurringJobs carry status.executionCount
# (Longhorn 1.7+) and its BackupVolumes 1.8's fields: 1.4.4's schema refuses the former, 1.8.2's
# takes everything.
lh_apply_crds 1.8.2
kc create namespace velero >/dev/null
for f in "$CW_SOURCE_DIR"/examples/status-cluster/*/*.yaml; do
  strict "${f#"$CW_SOURCE_DIR"/}" -f "$f"
done
