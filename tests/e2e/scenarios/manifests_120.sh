#!/usr/bin/env bash
# deploy/kube-1.20 on Kubernetes 1.20 with the commands docs/deploy.md gives for 1.19 and 1.20:
# rendered by a newer kubectl (the current one here; kubectl 1.20's kustomize v2.0.3 cannot build
# these directories, which it is shown to refuse), applied by kubectl 1.20 with its own validation
# and no warning: a server dry run, the apply, a second apply that changes nothing. No
# matchConditions and no preStop sleep reach 1.20 (it knows neither), the PodDisruptionBudget and
# the CronJob are v1beta1. deploy/upgrade-job still builds with kubectl 1.20's own `apply -k`; the
# CRDs and the whole Longhorn 1.1 example (its batch/v1beta1 CronJob included) apply there.
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
# has it, the first kubectl the current one, the second 1.20's; dry run, apply, apply again.
documented() {
  quiet "render $1" "$CUR" kustomize "$D/$1"
  printf '%s\n' "$E2E_OUT" > "$E2E_DIR/${1//\//_}.yaml"
  quiet "$1 (server dry run)" kc apply --dry-run=server -f "$E2E_DIR/${1//\//_}.yaml"
  quiet "$1" kc apply -f "$E2E_DIR/${1//\//_}.yaml"
  quiet "$1 (again)" kc apply -f "$E2E_DIR/${1//\//_}.yaml"
  assert_eq "" "$(grep -v ' unchanged$' <<<"$E2E_OUT")" "$1: a second apply changes nothing"
}

e2e_step "kubectl 1.20's kustomize cannot build deploy/kube-1.20 (directories under resources:, patches:)"
assert_fails kc kustomize "$D/kube-1.20/base"
e2e_log "kubectl 1.20: $(head -1 <<<"$E2E_OUT")"

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
