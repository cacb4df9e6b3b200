#!/usr/bin/env bash
# deploy/kube-1.20 on Kubernetes 1.20 with the commands docs/deploy.md gives for 1.19 and 1.20:
# rendered by a newer kubectl (the current one here; kubectl 1.20's kustomize v2.0.3 cannot build
# these directories, which it is shown to refuse), applied by kubectl 1.20 with its own validation
# and no warning: a server dry run, the apply, a second apply that changes nothing. No
# matchConditions and no preStop sleep reach 1.20 (it knows neither), the PodDisruptionBudget and
# the CronJob are v1beta1. deploy/upgrade-job still builds with kubectl 1.20's own `apply -k`; the
# CRDs and the whole Longhorn 1.1 example (its batch/v1beta1 CronJob included) apply there.
# What 1.20 refuses of the 1.21+ manifests, and how deploy/kube-1.20 and the documented
# cert-manager overlay differ from them (deploy/ itself on the current Kubernetes: deploy.sh).
. "$(dirname "$0")/../lib.sh"

D=$CW_SOURCE_DIR/deploy
[ -z "${CRONWARDEN_E2E_KUBECONFIG:-}" ] || e2e_skip "installs cronwarden cluster-wide; harness cluster only"

e2e_start 1.20
# The renderer: the current kubectl (its build is this scenario's second fixture).
CUR=$("$CW_SOURCE_DIR/tests/k8s/build.sh" control-plane 2>/dev/null)/kubectl
[ -x "$CUR" ] || e2e_fail "no current kubectl to render with ($CUR)"
e2e_log "rendering with $("$CUR" version --client -o json | jq -r .clientVersion.gitVersion), applying with $(kc version --client -o json | jq -r .clientVersion.gitVersion)"

# quiet WHAT CMD...: CMD must succeed and print nothing on stderr; its stdout in E2E_OUT.
quiet() {
  local what=$1
  shift
  E2E_OUT=$("$@" 2>"$E2E_DIR/stderr") || e2e_fail "$what: $* failed: $(cat "$E2E_DIR/stderr")"
  [ ! -s "$E2E_DIR/stderr" ] || e2e_fail "$what: $* printed on stderr: $(cat "$E2E_DIR/stderr")"
}
# documented DIR: `kubectl kustomize DIR | kubectl apply [--dry-run=server] -f -` as docs/deploy.md
# has it, the first kubectl the current one (the rendering below, once for every step), the second
# 1.20's; dry run, apply, apply again.
documented() {
  [ -s "$E2E_DIR/${1//\//_}.yaml" ] || e2e_fail "deploy/$1 was not rendered"
  quiet "$1 (server dry run)" kc apply --dry-run=server -f "$E2E_DIR/${1//\//_}.yaml"
  quiet "$1" kc apply -f "$E2E_DIR/${1//\//_}.yaml"
  quiet "$1 (again)" kc apply -f "$E2E_DIR/${1//\//_}.yaml"
  assert_eq "" "$(grep -v ' unchanged$' <<<"$E2E_OUT")" "$1: a second apply changes nothing"
}

e2e_step "kubectl 1.20's kustomize cannot build deploy/kube-1.20 (directories under resources:, patches:)"
assert_fails kc kustomize "$D/kube-1.20/base"
e2e_log "kubectl 1.20: $(head -1 <<<"$E2E_OUT")"

e2e_step "deploy/kube-1.20 is deploy/kube-1.29 with the two API versions 1.20 lacks; kubectl 1.20 builds the file-only kustomizations alike"
# Every kustomization rendered once, by the current kubectl (docs/deploy.md's renderer for 1.20).
# deploy/kube-1.29 is the 1.21+ manifests without 1.30's matchConditions and preStop sleep
# (manifests.sh compares it with deploy/base).
for k in base kube-1.29/base kube-1.20/base upgrade-job audit kube-1.20/audit; do
  quiet "render $k" "$CUR" kustomize "$D/$k"
  printf '%s\n' "$E2E_OUT" > "$E2E_DIR/${k//\//_}.yaml"
done
changed() { diff "$E2E_DIR/$1.yaml" "$E2E_DIR/$2.yaml" | grep '^[<>]'; }
assert_eq $'< apiVersion: policy/v1\n> apiVersion: policy/v1beta1' "$(changed kube-1.29_base kube-1.20_base)" "kube-1.29/base vs kube-1.20/base"
assert_eq $'< apiVersion: batch/v1\n> apiVersion: batch/v1beta1' "$(changed audit kube-1.20_audit)" "audit vs kube-1.20/audit"
for k in upgrade-job audit; do
  quiet "deploy/$k with kubectl 1.20's kustomize" kc kustomize "$D/$k"
  assert_eq "$(cat "$E2E_DIR/$k.yaml")" "$E2E_OUT" "deploy/$k built by kubectl 1.20's kustomize"
done

e2e_step "CRDs, and the Longhorn 1.1 example whole"
apply_crds
EX=$CW_SOURCE_DIR/examples/longhorn-1.1-cluster
kc create namespace longhorn-system >/dev/null
for f in "$EX"/longhorn-system/*.yaml "$EX"/cluster/*.yaml "$EX"/apps/*.yaml; do
  quiet "${f#"$CW_SOURCE_DIR"/}" kc apply -f "$f"
done
assert_json "$(kc get cronjobs.v1beta1.batch -n analytics compact -o json)" .spec.schedule '0 3 * * *' "the example's batch/v1beta1 CronJob"

e2e_step "deploy/kube-1.20/base as documented (kube-system labelled, the namespace first)"
assert_ok kc label namespace kube-system cronwarden.io/admission=disabled
quiet "namespace" kc apply -f "$D/base/namespace.yaml"
# Why deploy/kube-1.20 exists: 1.20 takes all of deploy/kube-1.29/base but its policy/v1
# PodDisruptionBudget, and none of deploy/base's 1.30 fields (kubectl 1.20's own validation stops
# at the first of them: the preStop sleep, or matchConditions); nor deploy/audit's batch/v1 CronJob.
if E2E_OUT=$(kc apply --dry-run=server -f "$E2E_DIR/kube-1.29_base.yaml" 2>&1); then e2e_fail "policy/v1 should not exist on 1.20"; fi
assert_eq $(($(grep -c '^kind:' "$E2E_DIR/kube-1.29_base.yaml") - 1)) "$(grep -c '(server dry run)$' <<<"$E2E_OUT")" "objects of deploy/kube-1.29/base accepted by the dry run"
assert_eq 'error: unable to recognize "'"$E2E_DIR/kube-1.29_base.yaml"'": no matches for kind "PodDisruptionBudget" in version "policy/v1"' \
  "$(grep -v '(server dry run)$' <<<"$E2E_OUT")" "the only refusal"
assert_fails --match 'unknown field' kc apply --dry-run=server -f "$E2E_DIR/base.yaml"
if E2E_OUT=$(kc apply --dry-run=server -f "$E2E_DIR/audit.yaml" 2>&1); then e2e_fail "batch/v1 CronJob should not exist on 1.20"; fi
assert_eq $(($(grep -c '^kind:' "$E2E_DIR/audit.yaml") - 1)) "$(grep -c '(server dry run)$' <<<"$E2E_OUT")" "objects of deploy/audit accepted by the dry run"
assert_contains "$E2E_OUT" 'no matches for kind "CronJob" in version "batch/v1"'
documented kube-1.20/base
assert_eq 0 "$(grep -c 'matchConditions' "$E2E_DIR/kube-1.20_base.yaml" || true)" "matchConditions in kube-1.20/base"
assert_json "$(kc get validatingwebhookconfiguration cronwarden -o json)" '[.webhooks[].name]' \
  '["recurringjobs.validate.cronwarden.io","volumes.validate.cronwarden.io","schedules.validate.cronwarden.io"]'
assert_json "$(kc get poddisruptionbudgets.v1beta1.policy -n cronwarden cronwarden-webhook -o json)" .spec.minAvailable 1 "PodDisruptionBudget v1beta1"
assert_json "$(kc get deployment -n cronwarden cronwarden-webhook -o json)" '.spec.template.spec.containers[0] | has("lifecycle")' false "no preStop hook on 1.20"
# The webhooks are registered but not running: let the rest through.
assert_ok kc delete validatingwebhookconfiguration,mutatingwebhookconfiguration cronwarden

e2e_step "deploy/kube-1.20/audit as documented; deploy/upgrade-job with kubectl 1.20's own apply -k"
documented kube-1.20/audit
assert_json "$(kc get cronjobs.v1beta1.batch -n cronwarden cronwarden-audit -o json)" .spec.schedule '17 4 * * *' "CronJob v1beta1"
quiet "deploy/upgrade-job (server dry run)" kc apply --dry-run=server -k "$D/upgrade-job"
quiet "deploy/upgrade-job" kc apply -k "$D/upgrade-job"
assert_json "$(kc get job -n cronwarden cronwarden-migrate -o json)" .spec.backoffLimit 3 "Job stored"

e2e_step "deploy/cert-manager on 1.20 as docs/deploy.md composes it: its overlay with deploy/kube-1.29's and deploy/kube-1.20's patches, server dry run"
e2e_certmanager_crds
wait_for 30 "discovery of cert-manager.io" kc get --raw /apis/cert-manager.io/v1
rm -rf "$CW_E2E_DIR/kube-cache/discovery" "$CW_E2E_DIR/kcget-resources.tsv"
mkdir -p "$E2E_DIR/cm-1.20"
cp "$D"/kube-1.29/base/no-*.yaml "$D"/kube-1.20/base/pdb-v1beta1.yaml "$E2E_DIR/cm-1.20/"
{
  printf 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [%s]\npatches:\n' \
    "$(realpath --relative-to="$E2E_DIR/cm-1.20" "$D/cert-manager")"
  sed -n '/^patches:$/,$p' "$D/kube-1.29/base/kustomization.yaml" | tail -n +2
  sed -n '/^patches:$/,$p' "$D/kube-1.20/base/kustomization.yaml" | tail -n +2
} > "$E2E_DIR/cm-1.20/kustomization.yaml"
quiet "the 1.20 overlay of deploy/cert-manager" "$CUR" kustomize "$E2E_DIR/cm-1.20"
printf '%s\n' "$E2E_OUT" > "$E2E_DIR/cert-manager-1.20.yaml"
quiet "deploy/cert-manager for 1.20 (server dry run)" kc apply --dry-run=server -o json -f "$E2E_DIR/cert-manager-1.20.yaml"
CM=$E2E_OUT
assert_json "$CM" '[.items[] | select(.kind | test("WebhookConfiguration")) | .webhooks[] | has("matchConditions")] | unique' '[false]' "no matchConditions"
assert_json "$CM" '[.items[] | select(.kind == "PodDisruptionBudget") | .apiVersion]' '["policy/v1beta1"]'
assert_json "$CM" '[.items[] | select(.kind == "Deployment" and .metadata.name == "cronwarden-webhook") | .spec.template.spec.containers[0] | [has("lifecycle"), .args]]' \
  '[[false,["webhook","--tls-cert-file=/certs/tls.crt","--tls-private-key-file=/certs/tls.key","--listen=0.0.0.0:9443","--shutdown-grace=15s"]]]' "the webhook in file mode, no preStop"
assert_json "$CM" "[.items[] | select(.kind | test(\"WebhookConfiguration\")) | .metadata.annotations[\"cert-manager.io/inject-ca-from\"]] | unique" \
  '["cronwarden/cronwarden-webhook"]'
