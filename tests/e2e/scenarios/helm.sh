#!/usr/bin/env bash
# deploy/chart/cronwarden on a real cluster (Kubernetes >= 1.25, `e2e_start current`), as an
# operator runs it (deploy/chart/cronwarden/README.md, docs/deploy.md "With Helm"):
#  - `helm install` with the default values stores exactly what `helm template` renders, the
#    Namespace with its labels; the webhook and the controller, run here with the arguments of the
#    stored Deployments and the tokens of the chart's ServiceAccounts (no kubelet: no Pod runs),
#    make the Secret, fill the six caBundles, admit, default and refuse RecurringJobs through the
#    chart's configurations and Service name, and reconcile a Velero Schedule through the webhook;
#  - `helm upgrade --set upgradeJob.enabled=true`: the pre-upgrade hooks (ServiceAccount, roles,
#    Job) exist before the release's objects change; the migration runs as the hook's
#    ServiceAccount with the Job's arguments, through the webhook; the test reports the Job's Pod
#    Succeeded as a kubelet would, Helm then finishes the upgrade, deletes the hook's ServiceAccount
#    and roles (hook-succeeded) and keeps the Job; the caBundles survive every upgrade;
#  - `helm upgrade` of controller.controllers (docs/deploy.md's upgrade step 4 as values): the
#    Longhorn roles appear, the controller runs with the new arguments as its ServiceAccount and
#    writes the CronJobs; dropping the reconcilers drops their roles; the hook does not run again;
#  - `helm uninstall`: of every object (events aside) with "cronwarden" in its name or labels,
#    only what the chart's README says stays is left (the CRDs), and Longhorn's objects stay.
# How the webhook is reached without Pods: as tests/e2e/scenarios/deploy.sh does, the Service name
# points at this machine (an ExternalName Service) and the configurations at the port the webhook
# listens on here — made by a Helm post-renderer (a plugin in the scenario's directory), so that
# Helm owns every object as it would in a real cluster and the upgrades keep the redirection. The
# post-renderer changes exactly those fields; the test checks that too.
. "$(dirname "$0")/../lib.sh"

: "${CW_HELM:=$("$CW_SOURCE_DIR/tests/k8s/build.sh" helm)/helm}" # built once, cached
[ -x "$CW_HELM" ] || e2e_fail "CW_HELM=$CW_HELM is not an executable"
[ -z "${CRONWARDEN_E2E_KUBECONFIG:-}" ] ||
  e2e_skip "installs cronwarden cluster-wide (webhook configurations with failurePolicy Fail); harness cluster only"
python3 -c 'import yaml' 2>/dev/null || e2e_fail "python3 with PyYAML is needed (Debian package python3-yaml)"

CHART=$CW_SOURCE_DIR/deploy/chart/cronwarden
BIN=${CW_BINARY:-$CW_SOURCE_DIR/build/cmd/cronwarden} # for e2e_bg, which needs a command
CW_NS=cronwarden     # namespace.name
NS=longhorn-system   # longhorn.namespace
VELERO=velero        # velero.namespace
REL=cronwarden       # the release, stored in namespace default (the chart owns namespace cronwarden)
REL_NS=default

e2e_start current
minor=$(kc version -o json | jq -r '.serverVersion.minor' | tr -dc 0-9)
[ "${minor:-0}" -ge 25 ] || e2e_fail "the chart needs Kubernetes >= 1.25 and e2e_start current gave 1.$minor"
e2e_log "Kubernetes $(kc version -o json | jq -r .serverVersion.gitVersion), $("$CW_HELM" version --short)"

# ---- helpers -----------------------------------------------------------------------------------

# helm as the admin, its configuration, cache and plugins in the scenario's directory.
export HELM_CACHE_HOME=$CW_E2E_DIR/helm/cache HELM_CONFIG_HOME=$CW_E2E_DIR/helm/config
export HELM_DATA_HOME=$CW_E2E_DIR/helm/data HELM_PLUGINS=$CW_E2E_DIR/helm/plugins
helm() { "$CW_HELM" --kubeconfig "$KUBECONFIG" "$@"; }

# The post-renderer: Service cronwarden-webhook becomes an ExternalName for 127.0.0.1 and the
# configurations' service port the webhook's port here; every other document passes unchanged.
WH_PORT=$(cwc_free_port)
mkdir -p "$HELM_PLUGINS/cw-e2e-local-webhook"
cat > "$HELM_PLUGINS/cw-e2e-local-webhook/plugin.yaml" <<'EOF'
name: cw-e2e-local-webhook
version: 0.1.0
type: postrenderer/v1
apiVersion: v1
runtime: subprocess
runtimeConfig:
  platformCommand:
  - command: "${HELM_PLUGIN_DIR}/render.py"
EOF
cat > "$HELM_PLUGINS/cw-e2e-local-webhook/render.py" <<'EOF'
#!/usr/bin/env python3
# render.py PORT: Helm's rendered manifests on stdin, the same with the webhook reached here.
import re, sys, yaml
port = int(sys.argv[1])
out = []
for doc in re.split(r"(?m)^---[ \t]*$", sys.stdin.read()):
    o = yaml.safe_load(doc)
    if isinstance(o, dict) and o.get("kind") == "Service" and o["metadata"]["name"] == "cronwarden-webhook":
        o["spec"] = {"type": "ExternalName", "externalName": "127.0.0.1"}
        doc = "\n" + yaml.safe_dump(o)
    elif isinstance(o, dict) and o.get("kind", "").endswith("WebhookConfiguration") and o["metadata"]["name"] == "cronwarden":
        for w in o["webhooks"]:
            w["clientConfig"]["service"]["port"] = port
        doc = "\n" + yaml.safe_dump(o)
    out.append(doc)
sys.stdout.write("---".join(out))
EOF
chmod +x "$HELM_PLUGINS/cw-e2e-local-webhook/render.py"
HERE=(--post-renderer cw-e2e-local-webhook --post-renderer-args "$WH_PORT")

# objects: YAML documents on stdin -> a JSON array, keys sorted, sorted by kind, namespace, name.
objects() {
  python3 -c '
import json, sys, yaml
docs = [d for d in yaml.safe_load_all(sys.stdin) if d is not None]
docs.sort(key=lambda d: (d.get("apiVersion", ""), d.get("kind", ""), d["metadata"].get("namespace", ""), d["metadata"]["name"]))
json.dump(docs, sys.stdout, sort_keys=True)'
}
# The post-renderer's changes, on objects (to compare what Helm stored with `helm template`).
REDIRECT='map(if .kind == "Service" and .metadata.name == "cronwarden-webhook" then .spec = {type: "ExternalName", externalName: "127.0.0.1"}
  elif (.kind | endswith("WebhookConfiguration")) and .metadata.name == "cronwarden" then .webhooks |= map(.clientConfig.service.port = $port)
  else . end)'

# sa_kubeconfig SERVICEACCOUNT [NAMESPACE]: a kubeconfig with a fresh token of the ServiceAccount
# (TokenRequest, as the kubelet mounts it); prints its path.
sa_kubeconfig() {
  local sa=$1 ns=${2:-$CW_NS} f=$CW_E2E_DIR/kubeconfig-sa-$1 token
  token=$(kc create token -n "$ns" "$sa" --duration=1h) || e2e_fail "no token for ServiceAccount $ns/$sa"
  cat > "$f" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster: {server: "$CW_E2E_API_URL", certificate-authority: "$CW_E2E_CA"}
users:
- name: $sa
  user: {token: "$token"}
contexts:
- name: $sa
  context: {cluster: e2e, user: $sa, namespace: $ns}
current-context: $sa
EOF
  printf '%s\n' "$f"
}

# container_args JSON: the first container's args of a Deployment or Job, $(POD_NAMESPACE)
# expanded as the kubelet would, one per line.
container_args() { jq -r '.spec.template.spec.containers[0].args[]' <<<"$1" | sed "s/\$(POD_NAMESPACE)/$CW_NS/g"; }

rj() { # rj NAMESPACE NAME CRON
  printf 'apiVersion: longhorn.io/v1beta2\nkind: RecurringJob\nmetadata: {name: %s, namespace: %s}\nspec: {task: snapshot, cron: "%s", retain: 2}\n' "$2" "$1" "$3"
}
admitted() { kc create --dry-run=server -o json -f <(rj "$NS" probe "0 1 * * *") | jq -e '.spec.concurrency == 10' >/dev/null; }
bundles() {
  kc get mutatingwebhookconfiguration cronwarden -o json | jq -r '.webhooks[].clientConfig.caBundle'
  kc get validatingwebhookconfiguration cronwarden -o json | jq -r '.webhooks[].clientConfig.caBundle'
}

# cronwarden_objects: every object of every listable resource, namespaced and cluster-scoped,
# whose name or one of whose labels (key or value) contains "cronwarden", as "Kind namespace/name"
# (namespace "-" at cluster scope), sorted. Events are left out: records of what happened (they
# expire), named after the object they are about, not objects anyone installed.
cronwarden_objects() {
  local res
  res=$(kc api-resources --verbs=list -o name | grep -v -e '^events$' -e '^events\.events\.k8s\.io$' | paste -sd, -)
  kc get "$res" -A -o json > "$CW_E2E_DIR/all-objects.json" || e2e_fail "listing every object failed"
  jq -r '.items[]
    | select((.metadata.name | test("cronwarden"))
             or ((.metadata.labels // {}) | to_entries | any((.key + "=" + .value) | test("cronwarden"))))
    | "\(.kind) \(.metadata.namespace // "-")/\(.metadata.name)"' "$CW_E2E_DIR/all-objects.json" | sort -u
}

# ---- the cluster as a Longhorn 1.1 + Velero cluster before cronwarden ---------------------------
e2e_step "CRDs, Longhorn's and Velero's namespaces, two volumes with legacy recurring jobs"
apply_crds
assert_ok kc create namespace "$NS"
assert_ok kc create namespace "$VELERO"
# Stored before cronwarden is installed, as in a real Longhorn 1.1 cluster: the webhook refuses
# new legacy jobs.
for v in pvc-one pvc-two; do
  assert_ok kc create -f - <<EOF
apiVersion: longhorn.io/v1beta1
kind: Volume
metadata: {name: $v, namespace: $NS}
spec:
  size: "1073741824"
  numberOfReplicas: 2
  recurringJobs:
  - {name: snap, task: snapshot, cron: "0 */6 * * *", retain: 4}
  - {name: backup, task: backup, cron: "0 2 * * *", retain: 7, labels: {tier: gold}}
EOF
done
cronwarden_objects > "$CW_E2E_DIR/objects-before-install.txt"
BEFORE=$(cat "$CW_E2E_DIR/objects-before-install.txt")
e2e_log "objects named or labelled cronwarden before the install:"$'\n'"$BEFORE"

# ---- helm install ----------------------------------------------------------------------------
e2e_step "helm install with the default values: what is stored is what helm template renders"
assert_fails --match "the release cannot be stored in it" helm install "$REL" "$CHART" --namespace "$CW_NS"
assert_ok helm install "$REL" "$CHART" --namespace "$REL_NS" "${HERE[@]}"
assert_json "$(helm status "$REL" --namespace "$REL_NS" -o json)" '[.version, .info.status]' '[1,"deployed"]' "release"
stored=$(helm get manifest "$REL" --namespace "$REL_NS" | objects | jq -cS .)
want=$(helm template "$REL" "$CHART" --namespace "$REL_NS" | objects | jq -cS --argjson port "$WH_PORT" "$REDIRECT")
[ "$stored" == "$want" ] || e2e_fail "helm get manifest differs from helm template (+ the post-renderer's two changes):
$(diff <(jq . <<<"$want") <(jq . <<<"$stored") | head -40)"
assert_json "$stored" 'length' "$(helm template "$REL" "$CHART" | objects | jq length)" "objects of the release"
# Every object exists, and Helm owns it.
while IFS='|' read -r kind ns name; do
  o=$(kc get "$kind" ${ns:+-n "$ns"} "$name" -o json) || e2e_fail "$kind $ns/$name of the release does not exist"
  assert_json "$o" '.metadata.annotations["meta.helm.sh/release-name"]' "$REL" "$kind $name: owner"
done < <(jq -r '.[] | [((.kind | ascii_downcase) + "." + (.apiVersion | split("/") | if length > 1 then .[0] else "" end) | rtrimstr(".")),
                        (.metadata.namespace // ""), .metadata.name] | join("|")' <<<"$stored")
ns=$(kc get namespace "$CW_NS" -o json)
assert_json "$ns" '.metadata.labels | [.["cronwarden.io/admission"], .["pod-security.kubernetes.io/enforce"]]' '["disabled","restricted"]' "Namespace labels"
assert_json "$(kc get service -n "$CW_NS" cronwarden-webhook -o json)" .spec.externalName 127.0.0.1 "the post-renderer's Service"

# ---- the webhook, as ServiceAccount cronwarden-webhook ---------------------------------------------
e2e_step "webhook: the Deployment's arguments with ServiceAccount cronwarden-webhook's token"
wh=$(kc get deployment -n "$CW_NS" cronwarden-webhook -o json)
mapfile -t WH_ARGS < <(container_args "$wh" | grep -v '^--listen=')
e2e_log "webhook arguments from the Deployment: ${WH_ARGS[*]}"
WH_KC=$(sa_kubeconfig cronwarden-webhook)
e2e_bg webhook env POD_NAME=cronwarden-webhook-e2e POD_NAMESPACE="$CW_NS" CRONWARDEN_THREADS=1 "$BIN" "${WH_ARGS[@]}" \
  --listen="127.0.0.1:$WH_PORT" --kubeconfig="$WH_KC"
wait_for 30 "webhook /readyz" curl -fsSk "https://127.0.0.1:$WH_PORT/readyz"
S=$(kc get secret -n "$CW_NS" cronwarden-webhook-tls -o json)
assert_json "$S" '.data | keys' '["ca.crt","ca.key","tls.crt","tls.key"]'
CA_B64=$(jq -r '.data["ca.crt"]' <<<"$S")
ALL_CA=$(printf '%s\n' "$CA_B64" "$CA_B64" "$CA_B64" "$CA_B64" "$CA_B64" "$CA_B64")
bundles_filled() { [ "$(bundles)" = "$ALL_CA" ]; }
wait_for 30 "all six caBundles" bundles_filled
wait_for 30 "admission through the chart's configurations, Service name and the self-signed CA" admitted

e2e_step "admission: a RecurringJob defaulted, a bad one refused"
assert_ok kc create -o json -f <(rj "$NS" e2e-daily "0 3 * * *")
assert_json "$E2E_OUT" .spec '{"concurrency":10,"cron":"0 3 * * *","groups":[],"labels":{},"name":"e2e-daily","parameters":{},"retain":2,"task":"snapshot"}' "defaulted RecurringJob"
assert_fails --match 'admission webhook "recurringjobs.validate.cronwarden.io" denied the request: spec.cron: invalid cron expression' \
  kc create -f <(rj "$NS" e2e-bad "0 0 * *")
e2e_legacy_volume_refused "$NS"

# ---- the controller, as ServiceAccount cronwarden-controller ----------------------------------------
# run_controller NAME: the stored Deployment's arguments with the ServiceAccount's token.
run_controller() {
  local ctl port
  ctl=$(kc get deployment -n "$CW_NS" cronwarden-controller -o json)
  mapfile -t CTL_ARGS < <(container_args "$ctl" | grep -v '^--metrics-listen=')
  e2e_log "controller arguments from the Deployment: ${CTL_ARGS[*]}"
  port=$(cwc_free_port)
  e2e_bg "$1" env POD_NAME="$1" POD_NAMESPACE="$CW_NS" "$BIN" "${CTL_ARGS[@]}" \
    --metrics-listen="127.0.0.1:$port" --kubeconfig="$(sa_kubeconfig cronwarden-controller)"
  wait_for 30 "$1 /readyz" curl -fsS "http://127.0.0.1:$port/readyz"
  CTL_PORT=$port
}
# stop_controller NAME: SIGTERM, exit 0, no refusal in its log.
stop_controller() {
  local pid rc=0
  pid=$(e2e_bg_pid "$1")
  kill -TERM "$pid"
  wait "$pid" || rc=$?
  assert_eq 0 "$rc" "$1 exit status after SIGTERM"
  assert_eq 0 "$(grep -ci forbidden "$(log_of "$1")" || true)" "refusals in $1's log"
}
lease_holder() { kc get lease -n "$CW_NS" cronwarden-controller -o jsonpath='{.spec.holderIdentity}'; }

e2e_step "controller (schedule): leads, consumes skipImmediately, submits a Backup; its write goes through the webhook"
run_controller controller
leads() { case $(lease_holder) in controller_*) ;; *) return 1 ;; esac; }
wait_for 30 "the controller to take the Lease in $CW_NS" leads
e2e_schedule_skip_run "$VELERO" default
assert_contains "$(cat "$(log_of webhook)")" "kind=velero.io/v1/Schedule namespace=$VELERO name=e2e-skip operation=UPDATE dry_run=false allowed=true"
stop_controller controller
assert_eq "" "$(lease_holder)" "Lease holder after a clean stop"
assert_ok kc delete schedules.velero.io -n "$VELERO" e2e-skip

# ---- helm upgrade with the pre-upgrade hook ----------------------------------------------------------
e2e_step "helm upgrade --set upgradeJob.enabled=true: the hooks come first, the release's objects wait"
gen=$(kc get deployment -n "$CW_NS" cronwarden-controller -o jsonpath='{.metadata.generation}')
# controller.replicas=1 changes the release's objects in the same upgrade: it must not have
# happened while the hook runs.
helm upgrade "$REL" "$CHART" --namespace "$REL_NS" "${HERE[@]}" --reuse-values \
  --set upgradeJob.enabled=true --set controller.replicas=1 --timeout 5m > "$CW_E2E_DIR/logs/helm-upgrade-2.log" 2>&1 &
UPGRADE=$!
# `helm` is a function: $! is the subshell running it, which a TERM would leave helm orphaned
# (holding the scenario's output until its 5 minutes are up). The cleanups run last first: the
# helm child is stopped, then the subshell.
e2e_on_exit kill "$UPGRADE"
e2e_on_exit pkill -TERM -P "$UPGRADE"
job_pod() { kc get pods -n "$CW_NS" -l batch.kubernetes.io/job-name=cronwarden-migrate -o json | jq -er '.items[0].metadata.name'; }
wait_for 60 "the hook Job's Pod (made by the Job controller)" job_pod
POD=$(job_pod)
for o in "serviceaccount -n $CW_NS" "clusterrole" "clusterrolebinding" "role -n $NS" "rolebinding -n $NS" "job -n $CW_NS"; do
  # shellcheck disable=SC2086
  obj=$(kc get $o cronwarden-migrate -o json) || e2e_fail "hook object $o cronwarden-migrate is missing"
  assert_json "$obj" '.metadata.annotations["helm.sh/hook"]' pre-upgrade "$o: hook"
done
assert_json "$(kc get deployment -n "$CW_NS" cronwarden-controller -o json)" '[.metadata.generation, .spec.replicas]' "[$gen,2]" \
  "the controller Deployment while the hook runs (pre-upgrade: not changed yet)"
assert_json "$(helm status "$REL" --namespace "$REL_NS" -o json)" .info.status pending-upgrade "release status while the hook runs"
job=$(kc get job -n "$CW_NS" cronwarden-migrate -o json)
assert_json "$job" '.metadata.annotations | [.["helm.sh/hook"], .["helm.sh/hook-delete-policy"]]' '["pre-upgrade","before-hook-creation"]' "the Job's hook annotations"
assert_json "$(kc get clusterrole cronwarden-migrate -o json)" '.metadata.annotations["helm.sh/hook-delete-policy"]' before-hook-creation,hook-succeeded
# The Job's spec is the chart's (as rendered, hooks included).
rendered_job=$(helm template "$REL" "$CHART" --set upgradeJob.enabled=true --show-only templates/upgrade-job.yaml | objects | jq -c '.[] | select(.kind == "Job")')
assert_json "$job" '.spec.template.spec.containers[0] | {args, image, resources, volumeMounts}' \
  "$(jq -c '.spec.template.spec.containers[0] | {args, image, resources, volumeMounts}' <<<"$rendered_job")" "the hook Job's container"
assert_json "$job" '.spec | [.backoffLimit, .activeDeadlineSeconds, .ttlSecondsAfterFinished, .template.spec.serviceAccountName]' '[3,3600,604800,"cronwarden-migrate"]'

e2e_step "the Job's command as ServiceAccount cronwarden-migrate, through the webhook; its Pod reported Succeeded"
mapfile -t JOB_ARGS < <(container_args "$job" | sed "s#^--report=/report/#--report=$CW_E2E_DIR/#")
e2e_log "migrate arguments from the Job: ${JOB_ARGS[*]}"
t_start=$(date -u +%Y-%m-%dT%H:%M:%SZ)
rc=0
POD_NAME=$POD cw "${JOB_ARGS[@]}" --kubeconfig="$(sa_kubeconfig cronwarden-migrate)" \
  > "$CW_E2E_DIR/migrate.out" 2> "$CW_E2E_DIR/migrate.err" || rc=$?
assert_eq 0 "$rc" "migrate exit status (log: $(tail -3 "$CW_E2E_DIR/migrate.err"))"
assert_json "$(cat "$CW_E2E_DIR/report.json")" '.summary | [.errors, .volumes.migrated, .recurringJobs.created]' '[0,2,2]' "the migration"
assert_eq 0 "$(grep -ci forbidden "$CW_E2E_DIR/migrate.err" || true)" "refusals in migrate's log"
assert_contains "$(cat "$(log_of webhook)")" "kind=longhorn.io/v1beta2/RecurringJob namespace=$NS" "the migration's RecurringJobs through the webhook"
assert_json "$(kc get volumes.v1beta1.longhorn.io -n "$NS" pvc-one -o json)" '.spec.recurringJobs // [] | length' 0 "legacy jobs left on pvc-one (v1beta1, the version that has them)"
# What the kubelet would report for a container that exited 0.
assert_ok kc patch pod -n "$CW_NS" "$POD" --subresource=status --type=merge -p "$(jq -nc --arg t0 "$t_start" --arg t1 "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --arg img "$(jq -r '.spec.template.spec.containers[0].image' <<<"$job")" \
  '{status: {phase: "Succeeded", startTime: $t0, containerStatuses: [{name: "migrate", image: $img, imageID: "", ready: false, restartCount: 0, started: false,
     state: {terminated: {exitCode: 0, reason: "Completed", startedAt: $t0, finishedAt: $t1}}}]}}')"
rc=0; wait "$UPGRADE" || rc=$?
assert_eq 0 "$rc" "helm upgrade exit status ($(tail -5 "$CW_E2E_DIR/logs/helm-upgrade-2.log"))"
assert_json "$(kc get job -n "$CW_NS" cronwarden-migrate -o json)" '[.status.conditions[] | select(.status == "True") | .type] | index("Complete") != null' true "the Job completed"
JOB_UID=$(kc get job -n "$CW_NS" cronwarden-migrate -o jsonpath='{.metadata.uid}')

e2e_step "after the hook: its ServiceAccount and roles deleted, the Job kept, the release changed, caBundles kept"
assert_fails --match NotFound kc get serviceaccount -n "$CW_NS" cronwarden-migrate
assert_fails --match NotFound kc get clusterrole cronwarden-migrate
assert_fails --match NotFound kc get clusterrolebinding cronwarden-migrate
assert_fails --match NotFound kc get role -n "$NS" cronwarden-migrate
assert_fails --match NotFound kc get rolebinding -n "$NS" cronwarden-migrate
assert_json "$(kc get deployment -n "$CW_NS" cronwarden-controller -o json)" .spec.replicas 1 "controller.replicas after the upgrade"
assert_json "$(helm status "$REL" --namespace "$REL_NS" -o json)" '[.version, .info.status]' '[2,"deployed"]' "release"
assert_eq "$ALL_CA" "$(bundles)" "caBundles after helm upgrade"
wait_for 10 "admission after the upgrade" admitted

# ---- helm upgrade: the Longhorn reconcilers (docs/deploy.md, upgrade step 4) -----------------------
e2e_step "helm upgrade: controller.controllers and extraArgs of upgrade step 4 take effect; the hook does not run"
assert_ok helm upgrade "$REL" "$CHART" --namespace "$REL_NS" "${HERE[@]}" --reuse-values --set upgradeJob.enabled=false \
  --set 'controller.controllers={schedule,recurringjob,volume}' \
  --set 'controller.extraArgs={--longhorn-version=1.2,--job-image=longhornio/longhorn-manager:v1.2.6}'
assert_json "$(kc get deployment -n "$CW_NS" cronwarden-controller -o json)" '.spec.template.spec.containers[0].args | [.[1], .[-2], .[-1]]' \
  '["--controllers=schedule,recurringjob,volume","--longhorn-version=1.2","--job-image=longhornio/longhorn-manager:v1.2.6"]' "controller arguments"
assert_json "$(kc get rolebinding -n "$NS" cronwarden-controller-longhorn -o json)" '.subjects' \
  "[{\"kind\":\"ServiceAccount\",\"name\":\"cronwarden-controller\",\"namespace\":\"$CW_NS\"}]" "the Longhorn RoleBinding"
assert_eq "$JOB_UID" "$(kc get job -n "$CW_NS" cronwarden-migrate -o jsonpath='{.metadata.uid}')" "the Job of the last hook run (not run again)"
assert_eq "$ALL_CA" "$(bundles)" "caBundles after helm upgrade"
run_controller controller-longhorn
wait_for 30 "Longhorn 1.2 forced" grep -q 'msg="Longhorn version" controller=recurringjob version=1.2 minor=1.2 source=flag' "$(log_of controller-longhorn)"
# A CronJob for every RecurringJob: the two the migration made and e2e-daily.
cronjobs_made() {
  local want got
  want=$(kc get recurringjobs.longhorn.io -n "$NS" -o json | jq -c '[.items[].metadata.name] | sort')
  got=$(kc get cronjobs -n "$NS" -o json | jq -c '[.items[].metadata.name] | sort')
  [ "$want" = "$got" ] && [ "$want" != "[]" ]
}
wait_for 30 "a CronJob for every RecurringJob, written as ServiceAccount cronwarden-controller" cronjobs_made
assert_json "$(kc get recurringjobs.longhorn.io -n "$NS" -o json)" '.items | length' 3 "RecurringJobs: two migrated, e2e-daily"
stop_controller controller-longhorn

e2e_step "helm upgrade: reconcilers dropped, their roles go"
assert_ok helm upgrade "$REL" "$CHART" --namespace "$REL_NS" "${HERE[@]}" --reuse-values \
  --set 'controller.controllers={schedule-health}' --set-json 'controller.extraArgs=[]'
assert_fails --match NotFound kc get role -n "$NS" cronwarden-controller-longhorn
assert_fails --match NotFound kc get clusterrole cronwarden-controller
assert_ok kc get role -n "$NS" cronwarden-controller-schedulehealth
assert_ok kc get clusterrole cronwarden-controller-schedulehealth
assert_json "$(kc get deployment -n "$CW_NS" cronwarden-controller -o json)" '.spec.template.spec.containers[0].args[1]' '--controllers=schedule-health'

# ---- helm uninstall ----------------------------------------------------------------------------
e2e_step "helm uninstall: only what the chart's README says stays"
cronwarden_objects > "$CW_E2E_DIR/objects-installed.txt"
INSTALLED=$(cat "$CW_E2E_DIR/objects-installed.txt")
e2e_log "objects named or labelled cronwarden before the uninstall:"$'\n'"$INSTALLED"
# What the release made and what cronwarden made at run time are among them.
for o in "Namespace -/$CW_NS" "Deployment $CW_NS/cronwarden-webhook" "Deployment $CW_NS/cronwarden-controller" \
         "MutatingWebhookConfiguration -/cronwarden" "ValidatingWebhookConfiguration -/cronwarden" \
         "ClusterRole -/cronwarden-webhook" "Role $NS/cronwarden-controller-schedulehealth" \
         "Secret $CW_NS/cronwarden-webhook-tls" "Lease $CW_NS/cronwarden-controller" "Job $CW_NS/cronwarden-migrate" \
         "Secret $REL_NS/sh.helm.release.v1.$REL.v4"; do
  grep -qxF "$o" <<<"$INSTALLED" || e2e_fail "'$o' is not among the objects before the uninstall"
done
# What cronwarden wrote into Longhorn's and Velero's configuration (the README's second item).
written() {
  kc get cronjobs,recurringjobs.longhorn.io -n "$NS" -o json | jq -c '[.items[] | "\(.kind)/\(.metadata.name)"] | sort'
  kc get backups.velero.io -n "$VELERO" -o json | jq -c '[.items[] | "\(.kind)/\(.metadata.name)"] | sort'
}
WRITTEN=$(written)
grep -q '"CronJob/' <<<"$WRITTEN" && grep -q '"Backup/' <<<"$WRITTEN" ||
  e2e_fail "no CronJob or Backup written by cronwarden before the uninstall: $WRITTEN"
# A Pod's containers stop when its namespace goes: so do the processes run here.
e2e_stop webhook
assert_ok helm uninstall "$REL" --namespace "$REL_NS" --wait --timeout 3m
assert_fails --match NotFound kc get namespace "$CW_NS"
cronwarden_objects > "$CW_E2E_DIR/objects-after-uninstall.txt"
LEFT=$(cat "$CW_E2E_DIR/objects-after-uninstall.txt")
# The chart's README: the CRDs (not part of the chart; here the copies of crds/, labelled
# app.kubernetes.io/part-of=cronwarden) and, with namespace.create=true, nothing else.
WANT=$(crd_names | sed 's#^#CustomResourceDefinition -/#' | sort)
[ "$LEFT" == "$WANT" ] || e2e_fail "objects named or labelled cronwarden after helm uninstall:
expected (the CRDs):
$WANT
left:
$LEFT
only left: $(comm -13 <(echo "$WANT") <(echo "$LEFT") | paste -sd, -)"
# Longhorn's objects are Longhorn's configuration: they stay, the reconciler's CronJobs and the
# Backups it submitted with them.
assert_json "$(kc get recurringjobs.longhorn.io -n "$NS" -o json)" '.items | length' 3 "RecurringJobs kept"
assert_eq "$WRITTEN" "$(written)" "CronJobs, RecurringJobs and Backups after helm uninstall"
assert_json "$(kc get volumes.longhorn.io -n "$NS" pvc-one -o json)" '.metadata.labels | keys | map(select(startswith("recurring-job.longhorn.io/"))) | length' 2 "pvc-one's job labels kept"
# With no configuration left, nothing is checked any more.
assert_ok kc create -f <(rj "$NS" e2e-after "0 0 * *")
assert_eq "" "$(helm list --all-namespaces -q)" "releases left"
