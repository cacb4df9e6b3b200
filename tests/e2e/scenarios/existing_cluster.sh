#!/usr/bin/env bash
# CRONWARDEN_E2E_KUBECONFIG (tests/README.md, "Point the suite at an existing cluster"): a scenario
# runs on a cluster it did not start, as the admin of the kubeconfig's current context, and leaves
# it as it found it. This scenario's own cluster plays the existing one (its admin kubeconfig
# handed over, as a user would hand over ~/.kube/config): e2e/smoke, e2e/webhook and
# e2e/webhook_selfsigned run against it and pass (not skipped), start no control plane, and leave
# no namespace and no webhook configuration behind; the only CRDs they add are crds/'s.
. "$(dirname "$0")/../lib.sh"

e2e_start current

# objects KINDS: "kind/name" of every object of those cluster-scoped kinds, sorted, one per line.
objects() { kc get "$1" -o json | jq -r '.items[] | "\(.kind)/\(.metadata.name)"' | sort; }
# gone KINDS BEFORE: nothing of KINDS now that was not in BEFORE (what is, on stdout).
gone() {
  local extra
  extra=$(comm -13 <(printf '%s\n' "$2") <(objects "$1"))
  [ -z "$extra" ] || { printf '%s\n' "$extra"; return 1; }
}

KINDS=namespaces,validatingwebhookconfigurations,mutatingwebhookconfigurations
before=$(objects "$KINDS")
crds_before=$(objects crds)

for s in smoke webhook webhook_selfsigned; do
  e2e_step "e2e/$s on the existing cluster (CRONWARDEN_E2E_KUBECONFIG), its admin kubeconfig handed over"
  rc=0
  # Only what a user's shell would have: the scenario's own harness variables are not passed on.
  env -u CW_E2E_DIR -u CW_E2E_K8S -u CW_E2E_TOKEN -u CW_E2E_CA -u CW_E2E_CA_KEY -u CW_E2E_API_URL \
    -u CW_E2E_USERS -u CW_E2E_EXTERNAL -u CW_E2E_VERSIONS_FILE -u CW_E2E_K8S_FIXTURE -u KUBECONFIG \
    CRONWARDEN_E2E_KUBECONFIG="$CW_E2E_DIR/kubeconfig" CW_E2E_ARTIFACTS="$E2E_DIR/$s-artifacts" \
    bash "$CW_SOURCE_DIR/tests/e2e/scenarios/$s.sh" > "$E2E_DIR/$s.log" 2>&1 || rc=$?
  assert_eq 0 "$rc" "e2e/$s's exit status on the existing cluster (log: $(tail -5 "$E2E_DIR/$s.log"))"
  assert_contains "$(cat "$E2E_DIR/$s.log")" "using the existing cluster at $CW_E2E_API_URL (CRONWARDEN_E2E_KUBECONFIG=$CW_E2E_DIR/kubeconfig)"
  assert_contains "$(cat "$E2E_DIR/$s.log")" "cluster ready: $CW_E2E_API_URL, Kubernetes $CW_E2E_K8S_VERSION"
  assert_eq 0 "$(grep -c 'cluster: Kubernetes .* up in' "$E2E_DIR/$s.log" || true)" "control planes e2e/$s started"
  wait_for 60 "e2e/$s's namespaces and webhook configurations to go" gone "$KINDS" "$before"
  added=$(comm -13 <(printf '%s\n' "$crds_before") <(objects crds))
  assert_eq "" "$(comm -13 <(crd_names | sed 's#^#CustomResourceDefinition/#' | sort) <(printf '%s\n' "$added" | sed '/^$/d'))" \
    "CRDs e2e/$s added that are not crds/'s"
done
