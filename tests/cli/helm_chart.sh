#!/usr/bin/env bash
# deploy/chart/cronwarden against deploy/, which stays the source of truth: `helm lint --strict`;
# `helm template` with the default values builds exactly what `kubectl kustomize deploy/base`
# builds (same objects, byte for byte once both are JSON with sorted keys and the documents sorted
# by apiVersion, kind, namespace, name); every value set of the table below builds exactly what
# its expectation says — deploy/cert-manager, deploy/monitoring, deploy/upgrade-job as pre-upgrade
# hooks, the RBAC files of deploy/controller per reconciler, the controller arguments of
# docs/deploy.md's upgrade step 4, moved namespaces, images, failure policies; bad values fail
# `helm template` with the message given here; README.md's values table lists every value.
# No cluster and no cronwarden binary needed: helm and kubectl (for its kustomize) come from
# CW_HELM and CW_KUBECTL, else tests/k8s/build.sh helm / control-plane (built once, cached). Python 3 with PyYAML reads the YAML.
set -euo pipefail
SRC=${CW_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=../lib/assert.sh
. "$SRC/tests/lib/assert.sh"
# helm and kubectl: CW_HELM and CW_KUBECTL, else the pinned builds (at once when cached).
: "${CW_HELM:=$("$SRC/tests/k8s/build.sh" helm)/helm}"
: "${CW_KUBECTL:=$("$SRC/tests/k8s/build.sh" control-plane)/kubectl}"
[ -x "$CW_HELM" ] || cw_assert_fail "CW_HELM=$CW_HELM is not an executable"
[ -x "$CW_KUBECTL" ] || cw_assert_fail "CW_KUBECTL=$CW_KUBECTL is not an executable"
python3 -c 'import yaml' 2>/dev/null || cw_assert_fail "python3 with PyYAML is needed (Debian package python3-yaml)"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cw-helm.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# helm keeps nothing of its own outside the scratch directory.
export HELM_CACHE_HOME=$TMP/helm/cache HELM_CONFIG_HOME=$TMP/helm/config HELM_DATA_HOME=$TMP/helm/data
cd "$SRC"
CHART=deploy/chart/cronwarden
D=deploy

# ---- helpers -------------------------------------------------------------------------------------

# objects: YAML documents on stdin -> one JSON array on stdout, keys sorted, documents sorted by
# apiVersion, kind, namespace, name (empty documents dropped).
objects() {
  python3 -c '
import json, sys, yaml
docs = [d for d in yaml.safe_load_all(sys.stdin) if d is not None]
key = lambda d: (d.get("apiVersion", ""), d.get("kind", ""), d.get("metadata", {}).get("namespace", ""), d.get("metadata", {}).get("name", ""))
docs.sort(key=key)
keys = [key(d) for d in docs]
dup = sorted({k for k in keys if keys.count(k) > 1})
if dup:
    sys.exit("the same object twice: %s" % dup)
json.dump(docs, sys.stdout, sort_keys=True, indent=1, ensure_ascii=False)
print()'
}

# sorted: a JSON array of objects on stdin, sorted as `objects` sorts (after jq edits and unions).
sorted() { jq -S 'sort_by([.apiVersion, .kind, (.metadata.namespace // ""), .metadata.name])'; }

# kustomized DIR: kubectl's kustomize build of DIR as objects (its deprecation warnings dropped).
kustomized() {
  "$CW_KUBECTL" kustomize "$1" > "$TMP/k.yaml" 2> "$TMP/k.err" ||
    cw_assert_fail "kubectl kustomize $1 failed: $(cat "$TMP/k.err")"
  objects < "$TMP/k.yaml"
}

# files FILE...: the documents of plain manifest files as objects.
files() {
  local f
  for f in "$@"; do printf -- '---\n'; cat "$f"; printf '\n'; done | objects
}

# rendered ARGS...: helm template of the chart (release RELEASE, default cronwarden) with ARGS as
# objects; stderr must stay empty.
rendered() {
  "$CW_HELM" template "${RELEASE:-cronwarden}" "$CHART" "$@" > "$TMP/h.yaml" 2> "$TMP/h.err" ||
    cw_assert_fail "helm template $* failed: $(cat "$TMP/h.err")"
  [ ! -s "$TMP/h.err" ] || cw_assert_fail "helm template $* wrote to stderr: $(cat "$TMP/h.err")"
  objects < "$TMP/h.yaml"
}

# same WHAT EXPECTED ACTUAL: two object arrays are equal, byte for byte; otherwise the failure
# names every object only one side has and, per object both have, every path where they differ.
same() {
  local what=$1
  # An expectation or rendering built in a command substitution that failed (its own FAIL line
  # is above) arrives empty.
  jq -e 'type == "array"' <<<"$2" >/dev/null 2>&1 || cw_assert_fail "$what: the expectation could not be built (above)"
  jq -e 'type == "array"' <<<"$3" >/dev/null 2>&1 || cw_assert_fail "$what: the chart could not be rendered (above)"
  # Both in one serialisation: jq's, keys sorted.
  jq -S . <<<"$2" > "$TMP/want.json"
  jq -S . <<<"$3" > "$TMP/got.json"
  cmp -s "$TMP/want.json" "$TMP/got.json" && return 0
  cw_assert_fail "$what: the chart differs from the expectation:
$(python3 - "$TMP/want.json" "$TMP/got.json" <<'PY'
import json, sys
want, got = (json.load(open(f)) for f in sys.argv[1:3])
def name(d):
    m = d.get("metadata", {})
    return "%s %s%s" % (d.get("kind"), m.get("namespace", "") + "/" if m.get("namespace") else "", m.get("name"))
def key(d):
    m = d.get("metadata", {})
    return (d.get("apiVersion"), d.get("kind"), m.get("namespace", ""), m.get("name"))
w = {key(d): d for d in want}
g = {key(d): d for d in got}
out = []
for k in w:
    if k not in g: out.append("  expected, not rendered: %s" % name(w[k]))
for k in g:
    if k not in w: out.append("  rendered, not expected: %s" % name(g[k]))
def walk(a, b, path, acc):
    if type(a) != type(b) or not isinstance(a, (dict, list)):
        if a != b: acc.append("%s: expected %s, rendered %s" % (path or ".", json.dumps(a), json.dumps(b)))
        return
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            p = "%s.%s" % (path, k) if k.replace("_", "").isalnum() else '%s["%s"]' % (path, k)
            if k not in b: acc.append("%s: expected %s, not rendered" % (p, json.dumps(a[k])))
            elif k not in a: acc.append("%s: rendered %s, not expected" % (p, json.dumps(b[k])))
            else: walk(a[k], b[k], p, acc)
    else:
        for i in range(max(len(a), len(b))):
            p = "%s[%d]" % (path, i)
            if i >= len(b): acc.append("%s: expected %s, not rendered" % (p, json.dumps(a[i])))
            elif i >= len(a): acc.append("%s: rendered %s, not expected" % (p, json.dumps(b[i])))
            else: walk(a[i], b[i], p, acc)
for k in w:
    if k in g and w[k] != g[k]:
        acc = []
        walk(w[k], g[k], "", acc)
        out.append("  %s:" % name(w[k]))
        out.extend("    " + line[:300] for line in acc[:15])
if not out:
    out.append("  the same objects, serialised differently (key order or formatting)")
print("\n".join(out))
PY
)"
}

# refused "ARGS" MESSAGE: helm template with ARGS (words) fails, and its stderr is exactly MESSAGE.
refused() {
  local args=$1 want=$2 rc=0
  # shellcheck disable=SC2086
  "$CW_HELM" template cronwarden "$CHART" $args > "$TMP/h.yaml" 2> "$TMP/h.err" || rc=$?
  [ "$rc" != 0 ] || cw_assert_fail "helm template $args: expected a refusal, got exit 0 and $(grep -c '^kind:' "$TMP/h.yaml") objects"
  [ "$(cat "$TMP/h.err")" == "$want" ] || cw_assert_fail "helm template $args: stderr
expected:
$want
got:
$(cat "$TMP/h.err")"
  checks=$((checks + 1))
}

checks=0
# expect WHAT EXPECTED ARGS...: the chart rendered with ARGS equals EXPECTED (an object array).
expect() {
  local what=$1 want=$2 got
  shift 2
  got=$(rendered "$@")
  same "$what" "$want" "$got"
  checks=$((checks + 1))
  echo "helm_chart: $what: $(jq length <<<"$want") objects, as expected"
}

# ---- the chart itself ----------------------------------------------------------------------------
out=$("$CW_HELM" lint --strict "$CHART" 2>&1) || cw_assert_fail "helm lint --strict $CHART failed:
$out"
# The one finding: no icon (the project has none).
assert_eq "==> Linting $CHART
[INFO] Chart.yaml: icon is recommended

1 chart(s) linted, 0 chart(s) failed" "$out" "helm lint --strict"
for set in "webhook.certificates.mode=certManager,monitoring.enabled=true,upgradeJob.enabled=true" \
           "controller.controllers={schedule,backup-queue,recurringjob,volume,schedule-health,nonadminbackup,nonadminrestore}"; do
  out=$("$CW_HELM" lint --strict "$CHART" --set "$set" 2>&1) || cw_assert_fail "helm lint --strict --set $set failed:
$out"
done
meta=$("$CW_HELM" show chart "$CHART" | python3 -c 'import json, sys, yaml; print(json.dumps(yaml.safe_load(sys.stdin)))')
tag=$(sed -n 's/^ *newTag: *\([^ #]*\).*/\1/p' "$D/base/kustomization.yaml")
assert_json "$meta" '[.apiVersion, .name, .type, .kubeVersion]' '["v2","cronwarden","application",">=1.25.0-0"]' "Chart.yaml"
assert_json "$meta" .appVersion "$tag" "appVersion = deploy/base's image tag"
# helm's hint after an error of the templates (a failed kubeVersion or `fail`)
DEBUG=$'\n\nUse --debug flag to render out invalid YAML'
refused "--kube-version 1.24.9" "Error: chart requires kubeVersion: >=1.25.0-0 which is incompatible with Kubernetes v1.24.9$DEBUG"
# Kubernetes 1.25-1.29: deploy/kube-1.29/base, exactly (no matchConditions, no preStop sleep).
K129=$(kustomized "$D/kube-1.29/base")
expect "--kube-version 1.25.0 = kubectl kustomize deploy/kube-1.29/base" "$K129" --kube-version 1.25.0
expect "--kube-version 1.29.15 = kubectl kustomize deploy/kube-1.29/base" "$K129" --kube-version 1.29.15
expect "--kube-version 1.30.0 = kubectl kustomize deploy/base" "$(kustomized "$D/base")" --kube-version 1.30.0
cmp -s "$D/monitoring/rules.yaml" "$CHART/files/rules.yaml" ||
  cw_assert_fail "$CHART/files/rules.yaml is not a copy of $D/monitoring/rules.yaml (run scripts/monitoring-rules)"

# ---- the default values: deploy/base, exactly ---------------------------------------------------
BASE=$(kustomized "$D/base")
expect "defaults = kubectl kustomize deploy/base" "$BASE"
# Names do not come from the release's name or namespace (one cronwarden per cluster).
RELEASE=other expect "defaults, another release name and namespace" "$BASE" --namespace kube-system
expect "defaults, as an upgrade" "$BASE" --is-upgrade
assert_eq 0 "$(rendered | jq '[.[] | select(.metadata.labels["helm.sh/chart"] or .metadata.labels["app.kubernetes.io/managed-by"])] | length')" \
  "objects with Helm's own labels"

# ---- certificates ------------------------------------------------------------------------------
CM=$(kustomized "$D/cert-manager")
expect "webhook.certificates.mode=certManager = kubectl kustomize deploy/cert-manager" "$CM" \
  --set webhook.certificates.mode=certManager
# An issuer of one's own: only the serving Certificate, signed by it (docs/deploy.md: "replace the
# issuerRef of cronwarden-webhook and drop the other three objects").
expect "certManager with an issuerRef of one's own" "$(jq '
    map(select((.kind == "Issuer" or (.kind == "Certificate" and .metadata.name == "cronwarden-ca")) | not))
    | map(if .kind == "Certificate" then .spec.issuerRef = {kind: "ClusterIssuer", name: "corp-ca", group: "cert-manager.io"} else . end)' <<<"$CM" | sorted)" \
  --set webhook.certificates.mode=certManager --set webhook.certificates.certManager.issuerRef.kind=ClusterIssuer \
  --set webhook.certificates.certManager.issuerRef.name=corp-ca --set webhook.certificates.certManager.issuerRef.group=cert-manager.io

# ---- monitoring --------------------------------------------------------------------------------
MON=$(kustomized "$D/monitoring")
assert_eq '["PodMonitor","PrometheusRule"]' "$(jq -c 'map(.kind)' <<<"$MON")" "deploy/monitoring's objects"
expect "monitoring.enabled=true = deploy/base + kubectl kustomize deploy/monitoring" \
  "$(jq -s add <(echo "$BASE") <(echo "$MON") | sorted)" --set monitoring.enabled=true
expect "monitoring with the labels a Prometheus selects by" "$(jq -s add <(echo "$BASE") <(echo "$MON") |
    jq 'map(if .kind == "PodMonitor" then .metadata.labels.release = "prometheus"
            elif .kind == "PrometheusRule" then .metadata.labels.role = "alert-rules" else . end)' | sorted)" \
  --set monitoring.enabled=true --set monitoring.podMonitor.labels.release=prometheus --set monitoring.prometheusRule.labels.role=alert-rules

# ---- the upgrade Job: pre-upgrade hooks ----------------------------------------------------------
UP=$(kustomized "$D/upgrade-job")
assert_eq '["ClusterRole","ClusterRoleBinding","Job","Role","RoleBinding","ServiceAccount"]' "$(jq -c 'map(.kind) | sort' <<<"$UP")" "deploy/upgrade-job's objects"
# deploy/upgrade-job's objects as they are (its hook annotations included), except that the
# ServiceAccount and roles are also deleted once the hooks succeeded (hook-succeeded).
HOOKS=$(jq 'map(if .kind == "Job" then . else .metadata.annotations["helm.sh/hook-delete-policy"] = "before-hook-creation,hook-succeeded" end)' <<<"$UP")
assert_json "$(jq -c '.[] | select(.kind == "Job")' <<<"$HOOKS")" '.metadata.annotations' \
  '{"helm.sh/hook":"pre-upgrade","helm.sh/hook-delete-policy":"before-hook-creation","helm.sh/hook-weight":"0"}' "the Job's hook annotations"
expect "upgradeJob.enabled=true = deploy/base + deploy/upgrade-job as pre-upgrade hooks" \
  "$(jq -s add <(echo "$BASE") <(echo "$HOOKS") | sorted)" --set upgradeJob.enabled=true
expect "upgradeJob.enabled=true, hooks left out (helm template --no-hooks)" "$BASE" --set upgradeJob.enabled=true --no-hooks
expect "upgradeJob with extra arguments, resources and sizeLimits" "$(jq -s add <(echo "$BASE") <(echo "$HOOKS") | jq '
    map(if .kind == "Job" then
          .spec.template.spec.containers[0].args += ["--wait-for-controller"]
          | .spec.template.spec.containers[0].resources = {requests: {cpu: "100m", memory: "64Mi"}, limits: {cpu: "1", memory: "128Mi"}}
          | .spec.template.spec.volumes = [{name: "report", emptyDir: {sizeLimit: "300Mi"}}, {name: "tmp", emptyDir: {sizeLimit: "160Mi"}}]
        else . end)' | sorted)" \
  --set upgradeJob.enabled=true --set 'upgradeJob.extraArgs={--wait-for-controller}' \
  --set upgradeJob.resources.requests.memory=64Mi --set upgradeJob.resources.limits.memory=128Mi \
  --set upgradeJob.reportSizeLimit=300Mi --set upgradeJob.tmpSizeLimit=160Mi

# ---- reconcilers: --controllers and the RBAC of exactly those ------------------------------------
# reconcilers LIST FILE...: deploy/base with --controllers=LIST, without the schedule reconciler's
# ClusterRole and binding unless LIST names it, plus the objects of the RBAC files given.
reconcilers() {
  local list=$1
  shift
  jq -s add <(echo "$BASE") <(if [ $# -gt 0 ]; then files "$@"; else echo '[]'; fi) | jq --arg l "$list" '
    map(if .kind == "Deployment" and .metadata.name == "cronwarden-controller"
        then .spec.template.spec.containers[0].args[1] = "--controllers=\($l)" else . end)
    | if ($l | split(",") | index("schedule")) then . else
        map(select((.metadata.name == "cronwarden-controller" and (.kind == "ClusterRole" or .kind == "ClusterRoleBinding")) | not)) end' | sorted
}
C=$D/controller
expect "controllers recurringjob,volume: rbac-longhorn.yaml, not the schedule roles" \
  "$(reconcilers recurringjob,volume "$C/rbac-longhorn.yaml")" --set 'controller.controllers={recurringjob,volume}'
expect "controllers schedule,backup-queue: + rbac-backupqueue.yaml" \
  "$(reconcilers schedule,backup-queue "$C/rbac-backupqueue.yaml")" --set 'controller.controllers={schedule,backup-queue}'
expect "controllers nonadminbackup,nonadminrestore: rbac-nonadmin.yaml, not the schedule roles" \
  "$(reconcilers nonadminbackup,nonadminrestore "$C/rbac-nonadmin.yaml")" --set 'controller.controllers={nonadminbackup,nonadminrestore}'
expect "controllers schedule-health alone: rbac-schedulehealth.yaml, not the schedule roles" \
  "$(reconcilers schedule-health "$C/rbac-schedulehealth.yaml")" --set 'controller.controllers={schedule-health}'
expect "every reconciler: every RBAC file" \
  "$(reconcilers schedule,backup-queue,recurringjob,volume,schedule-health,nonadminbackup,nonadminrestore \
       "$C/rbac-backupqueue.yaml" "$C/rbac-longhorn.yaml" "$C/rbac-schedulehealth.yaml" "$C/rbac-nonadmin.yaml")" \
  --set 'controller.controllers={schedule,backup-queue,recurringjob,volume,schedule-health,nonadminbackup,nonadminrestore}'
# Without Longhorn: schedule-health gets Velero's half only (docs/deploy.md: "apply only the first
# two documents of the file").
python3 -c 'import sys, yaml; sys.stdout.write(yaml.safe_dump_all(list(yaml.safe_load_all(open(sys.argv[1])))[:2]))' \
  "$C/rbac-schedulehealth.yaml" > "$TMP/sh-velero.yaml"
expect "schedule-health with longhorn.enabled=false: the ClusterRole and its binding only" \
  "$(reconcilers schedule,schedule-health "$TMP/sh-velero.yaml")" \
  --set 'controller.controllers={schedule,schedule-health}' --set longhorn.enabled=false

# docs/deploy.md's commands, as values: the Deployment they leave behind is the one the chart renders.
# docs_patch HEADING: the JSON patch of the first `kubectl patch deployment ... cronwarden-controller`
# after HEADING in docs/deploy.md.
docs_patch() {
  awk -v h="$1" 'index($0, h) == 1 {on = 1} on && /kubectl patch deployment -n cronwarden cronwarden-controller/ {getline nxt; print nxt; exit}' docs/deploy.md |
    sed -n "s/^ *'\(.*\)'\$/\1/p"
}
# patched JSON-PATCH: deploy/base with the patch applied to the controller's Deployment (the ops
# docs/deploy.md uses: replace, add with "-"), plus the RBAC files given after it.
patched() {
  local p=$1
  shift
  [ -n "$p" ] || cw_assert_fail "the documented patch is not in docs/deploy.md"
  jq -s add <(echo "$BASE") <(files "$@") | jq --argjson p "$p" '
    map(if .kind == "Deployment" and .metadata.name == "cronwarden-controller" then
          reduce $p[] as $op (.; ($op.path | ltrimstr("/") | split("/") | map(if test("^[0-9]+$") then tonumber else . end)) as $path
            | if $op.op == "replace" then setpath($path; $op.value)
              elif $op.op == "add" and $path[-1] == "-" then setpath($path[:-1]; getpath($path[:-1]) + [$op.value])
              else error("op \($op.op) \($op.path) not handled") end)
        else . end)' | sorted
}
expect "docs/deploy.md upgrade step 4 (Longhorn reconcilers, --longhorn-version, --job-image) as values" \
  "$(patched "$(docs_patch '4. **The controller runs the jobs meanwhile.**')" "$C/rbac-longhorn.yaml")" \
  --set 'controller.controllers={schedule,recurringjob,volume}' \
  --set 'controller.extraArgs={--longhorn-version=1.2,--job-image=longhornio/longhorn-manager:v1.2.6}'
expect "docs/deploy.md schedule health (its roles, --controllers) as values" \
  "$(patched "$(docs_patch '## Schedule health')" "$C/rbac-schedulehealth.yaml")" \
  --set 'controller.controllers={schedule,schedule-health}'

# ---- namespaces, images, failure policies, sizes -------------------------------------------------
# Everything of cronwarden's in another namespace: where objects live, the bindings' subjects, the
# webhooks' Service, the namespace the webhooks skip by name, the certificate's names.
MOVE='def mv: if . == "cronwarden" then "backup-system" else . end;
  map(if .metadata.namespace then .metadata.namespace |= mv else . end
      | if .kind == "Namespace" then .metadata.name |= mv else . end
      | if .subjects then .subjects |= map(.namespace |= mv) else . end
      | if .webhooks then .webhooks |= map(.clientConfig.service.namespace |= mv
          | .namespaceSelector.matchExpressions[1].values |= map(mv)) else . end
      | if .metadata.annotations["cert-manager.io/inject-ca-from"] then
          .metadata.annotations["cert-manager.io/inject-ca-from"] = "backup-system/cronwarden-webhook" else . end
      | if .kind == "Certificate" and .metadata.name == "cronwarden-webhook" then
          .spec.dnsNames = ["cronwarden-webhook.backup-system.svc", "cronwarden-webhook.backup-system.svc.cluster.local"] else . end)'
expect "namespace.name=backup-system" "$(jq "$MOVE" <<<"$BASE" | sorted)" --set namespace.name=backup-system
expect "namespace.name=backup-system, certManager" "$(jq "$MOVE" <<<"$CM" | sorted)" \
  --set namespace.name=backup-system --set webhook.certificates.mode=certManager
expect "namespace.create=false: the rest of deploy/base" "$(jq 'map(select(.kind != "Namespace"))' <<<"$BASE")" \
  --set namespace.create=false --namespace cronwarden
# Longhorn, Velero and OADP elsewhere: the Roles go there, and the flags follow.
expect "longhorn.namespace=storage, velero.namespace=\"\" (every namespace), oadp.namespace=oadp" \
  "$(jq -s add <(echo "$BASE") <(files "$C/rbac-longhorn.yaml" "$C/rbac-nonadmin.yaml" "$C/rbac-schedulehealth.yaml") | jq '
    map(if .metadata.namespace == "longhorn-system" then .metadata.namespace = "storage"
        elif .metadata.namespace == "openshift-adp" then .metadata.namespace = "oadp" else . end
      | if .kind == "Deployment" and .metadata.name == "cronwarden-controller" then
          .spec.template.spec.containers[0].args = ["controller", "--controllers=recurringjob,volume,schedule-health,nonadminbackup",
            "--leader-elect", "--leader-election-namespace=$(POD_NAMESPACE)", "--metrics-listen=0.0.0.0:8080",
            "--longhorn-namespace=storage", "--oadp-namespace=oadp"] else . end
      | select((.metadata.name == "cronwarden-controller" and (.kind | test("^ClusterRole")))| not))' | sorted)" \
  --set 'controller.controllers={recurringjob,volume,schedule-health,nonadminbackup}' \
  --set longhorn.namespace=storage --set velero.namespace= --set oadp.namespace=oadp
expect "upgradeJob with longhorn.namespace=storage" "$(jq -s add <(echo "$BASE") <(echo "$HOOKS") | jq '
    map(if .metadata.namespace == "longhorn-system" then .metadata.namespace = "storage" else . end
      | if .kind == "Job" then .spec.template.spec.containers[0].args[1] = "--namespace=storage" else . end)' | sorted)" \
  --set upgradeJob.enabled=true --set longhorn.namespace=storage
IMG='map(if .spec.template.spec.containers then .spec.template.spec.containers |= map(.image = $img) else . end)'
expect "image.repository and image.tag" "$(jq --arg img registry.example.com/cronwarden:0.2.0 "$IMG" <<<"$BASE")" \
  --set image.repository=registry.example.com/cronwarden --set image.tag=0.2.0
DIGEST=sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
expect "image.digest (wins over the tag), pullPolicy, imagePullSecrets, in the hook Job too" \
  "$(jq -s add <(echo "$BASE") <(echo "$HOOKS") | jq --arg img "registry.example.com/cronwarden@$DIGEST" "$IMG"' |
    map(if .spec.template.spec.containers then .spec.template.spec.containers |= map(.imagePullPolicy = "Always")
          | .spec.template.spec.imagePullSecrets = [{name: "regcred"}] else . end)' | sorted)" \
  --set image.repository=registry.example.com/cronwarden --set image.tag=0.2.0 --set image.digest=$DIGEST \
  --set image.pullPolicy=Always --set 'imagePullSecrets[0].name=regcred' --set upgradeJob.enabled=true
# docs/deploy.md: `/webhooks/1/failurePolicy` Ignore on the ValidatingWebhookConfiguration (Longhorn
# <= 1.4), the same with Fail on the MutatingWebhookConfiguration to make a default mandatory.
expect "webhook.failurePolicy: volumes fail open, RecurringJob defaults mandatory" "$(jq '
    map(if .kind == "ValidatingWebhookConfiguration" then .webhooks[1].failurePolicy = "Ignore"
        elif .kind == "MutatingWebhookConfiguration" then .webhooks[0].failurePolicy = "Fail" else . end)' <<<"$BASE")" \
  --set webhook.failurePolicy.validating.volumes=Ignore --set webhook.failurePolicy.mutating.recurringjobs=Fail
expect "replicas, resources, extraArgs, scheduling of both Deployments" "$(jq '
    map(if .kind == "Deployment" then
          .spec.replicas = 3
          | .spec.template.spec.nodeSelector = {"node-role.kubernetes.io/infra": ""}
          | .spec.template.spec.tolerations = [{key: "infra", operator: "Exists", effect: "NoSchedule"}]
          | .spec.template.spec.priorityClassName = "system-cluster-critical"
          | .spec.template.spec.containers[0].resources.limits.memory = "512Mi"
          | .spec.template.spec.containers[0].args += ["--log-level=debug"]
        else . end)' <<<"$BASE")" \
  --set webhook.replicas=3 --set controller.replicas=3 \
  --set webhook.resources.limits.memory=512Mi --set controller.resources.limits.memory=512Mi \
  --set 'webhook.extraArgs={--log-level=debug}' --set 'controller.extraArgs={--log-level=debug}' \
  --set-string 'webhook.nodeSelector.node-role\.kubernetes\.io/infra=' --set-string 'controller.nodeSelector.node-role\.kubernetes\.io/infra=' \
  --set 'webhook.tolerations[0].key=infra,webhook.tolerations[0].operator=Exists,webhook.tolerations[0].effect=NoSchedule' \
  --set 'controller.tolerations[0].key=infra,controller.tolerations[0].operator=Exists,controller.tolerations[0].effect=NoSchedule' \
  --set webhook.priorityClassName=system-cluster-critical --set controller.priorityClassName=system-cluster-critical

expect "controller.networkPolicy.enabled=false: no NetworkPolicy" \
  "$(jq 'map(select(.kind != "NetworkPolicy"))' <<<"$BASE")" --set controller.networkPolicy.enabled=false
expect "controller.networkPolicy.from: the peers given (the nodes' addresses for a filtering CNI)" "$(jq '
  map(if .kind == "NetworkPolicy" then .spec.ingress[0].from = [{"ipBlock": {"cidr": "10.0.0.0/8"}}] else . end)' <<<"$BASE")" \
  --set-json 'controller.networkPolicy.from=[{"ipBlock":{"cidr":"10.0.0.0/8"}}]'

# ---- bad values: refused, with the reason -------------------------------------------------------
SCHEMA="Error: values don't meet the specifications of the schema(s) in the following chart(s):
cronwarden:"
refused "--set webhook.certificates.mode=letsEncrypt" "$SCHEMA
- at '/webhook/certificates/mode': value must be one of 'selfSigned', 'certManager'"
refused "--set controller.controllers={schedule,backups}" "$SCHEMA
- at '/controller/controllers/1': value must be one of 'schedule', 'backup-queue', 'recurringjob', 'volume', 'schedule-health', 'nonadminbackup', 'nonadminrestore'"
refused "--set controller.controllers={schedule,schedule}" "$SCHEMA
- at '/controller/controllers': items at 0 and 1 are equal"
# {} is a list of one empty string to --set
refused "--set controller.controllers={}" "$SCHEMA
- at '/controller/controllers/0': value must be one of 'schedule', 'backup-queue', 'recurringjob', 'volume', 'schedule-health', 'nonadminbackup', 'nonadminrestore'"
refused "--set velero.namespace=Bad_NS" "$SCHEMA
- at '/velero/namespace': 'anyOf' failed
  - at '/velero/namespace': 'Bad_NS' does not match pattern '^[a-z0-9]([-a-z0-9]*[a-z0-9])?\$'
  - at '/velero/namespace': value must be ''"
# no peers would admit everyone: disable the policy instead
refused "--set-json controller.networkPolicy.from=[]" "$SCHEMA
- at '/controller/networkPolicy/from': minItems: got 0, want 1"
refused "--set webhook.certificate.mode=certManager" "$SCHEMA
- at '/webhook': additional properties 'certificate' not allowed"
refused "--set webhook.failurePolicy.validating.volumes=Warn" "$SCHEMA
- at '/webhook/failurePolicy/validating/volumes': value must be one of 'Fail', 'Ignore'"
refused "--set controller.extraArgs={log-level=debug}" "$SCHEMA
- at '/controller/extraArgs/0': 'log-level=debug' does not match pattern '^--'"
refused "--namespace cronwarden" "Error: execution error at (cronwarden/templates/validate.yaml:2:4): namespace.create=true: the chart makes and owns Namespace \"cronwarden\" and deletes it on uninstall, so the release cannot be stored in it. Install into another namespace (helm install cronwarden CHART --namespace default), or set namespace.create=false to use an existing namespace \"cronwarden\" (it then keeps its own labels)$DEBUG"
refused "--set longhorn.enabled=false --set controller.controllers={schedule,recurringjob}" "Error: execution error at (cronwarden/templates/validate.yaml:2:4): controller.controllers names recurringjob, which needs Longhorn: set longhorn.enabled=true (and longhorn.namespace), or leave recurringjob out$DEBUG"
refused "--set longhorn.enabled=false --set upgradeJob.enabled=true" "Error: execution error at (cronwarden/templates/validate.yaml:2:4): upgradeJob.enabled=true migrates Longhorn's legacy recurring jobs: it needs longhorn.enabled=true (and longhorn.namespace)$DEBUG"
refused "--set webhook.certificates.certManager.issuerRef.name=corp-ca" "Error: execution error at (cronwarden/templates/validate.yaml:2:4): webhook.certificates.certManager.issuerRef is set, but webhook.certificates.mode is selfSigned: set webhook.certificates.mode=certManager to use that issuer, or drop the issuerRef$DEBUG"

# ---- the helm commands of the docs render ---------------------------------------------------------
# Every `helm install` and `helm upgrade` in docs/deploy.md and the chart's README, as `helm
# template` with its values and namespace (the schema refuses a misspelt value); flags that only
# matter against a cluster (--reuse-values, --wait, --timeout, --dry-run, --create-namespace) are
# dropped, and commands reading a values file of the reader's own (-f) are left out.
docs=0
while IFS= read -r line; do
  mapfile -t args < <(jq -r '.args[]' <<<"$line")
  what=$(jq -r '"\(.file): \(.cmd)"' <<<"$line")
  "$CW_HELM" template cronwarden "$CHART" "${args[@]}" > "$TMP/h.yaml" 2> "$TMP/h.err" ||
    cw_assert_fail "$what: as helm template ${args[*]}: $(cat "$TMP/h.err")"
  docs=$((docs + 1))
done < <(python3 - docs/deploy.md "$CHART/README.md" <<'PY'
import json, re, shlex, sys
for f in sys.argv[1:]:
    text = re.sub(r"\\\n\s*", " ", open(f).read())
    inblock = False
    for line in text.splitlines():
        if line.startswith("```"):
            inblock = not inblock
            continue
        cmd = line.split("  #")[0].strip()
        if not inblock or not re.match(r"helm (install|upgrade) ", cmd):
            continue
        words = shlex.split(cmd)[4:]  # helm install|upgrade RELEASE CHART
        if "-f" in words or "--values" in words:
            continue
        args, i = [], 0
        while i < len(words):
            w = words[i]
            if w in ("--set", "--set-string", "--set-json", "--namespace", "-n"):
                args += [w, words[i + 1]]; i += 2; continue
            if w == "--timeout":
                i += 2; continue
            if w in ("--reuse-values", "--wait", "--create-namespace") or w.startswith("--dry-run"):
                i += 1; continue
            sys.exit("%s: %s: unexpected word %r" % (f, cmd, w))
        print(json.dumps({"file": f, "cmd": cmd, "args": args}))
PY
)
[ "$docs" -ge 8 ] || cw_assert_fail "only $docs helm commands found in the docs: the extraction is broken"
echo "helm_chart: $docs helm install/upgrade commands of the docs render"

# ---- README.md: every value in its table ---------------------------------------------------------
missing=$(python3 - "$CHART/values.yaml" "$CHART/README.md" <<'PY'
import re, sys, yaml
vals = yaml.safe_load(open(sys.argv[1]))
readme = open(sys.argv[2]).read()
def leaves(d, p=""):
    for k, v in d.items():
        q = p + k
        # maps the user fills in (labels, nodeSelector, issuerRef, resources) are documented as a whole
        if isinstance(v, dict) and v and not re.search(r"(resources|failurePolicy\.(mutating|validating))$", q):
            yield from leaves(v, q + ".")
        else:
            yield q
rows = {k for cell in re.findall(r"^\| (`[^|]*) \|", readme, re.M) for k in re.findall(r"`([^`]+)`", cell)}
print(" ".join(k for k in leaves(vals) if k not in rows))
PY
)
[ -z "$missing" ] || cw_assert_fail "values without a row in $CHART/README.md's table: $missing"

echo "helm_chart: $checks renderings and refusals as expected"
echo "ok"
