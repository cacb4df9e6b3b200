#!/usr/bin/env bash
# `cronwarden webhook --self-signed` on a real kube-apiserver (the current Kubernetes):
#  - creates the kubernetes.io/tls Secret (CA 10 years, serving certificate 1 year, SANs for the
#    Service and --ip-address) and fills caBundle in every webhook of the named configurations;
#  - the apiserver trusts it (admission goes through);
#  - a second replica reuses the Secret instead of making its own;
#  - a serving certificate within 30 days of expiry is renewed (same CA, caBundle unchanged) and
#    both replicas serve the renewal; a caBundle changed behind its back is put back;
#  - SIGTERM stops both with status 0.
. "$(dirname "$0")/../lib.sh"

e2e_start current
apply_crds
NS_LH=$(e2e_namespace longhorn-system)
NS_CW=$(e2e_namespace cw-system)
SECRET=cronwarden-tls
PORT_A=$(cwc_free_port)
PORT_B=$(cwc_free_port)

e2e_step "configurations without caBundle, pointing at replica A"
e2e_on_exit_external kc delete mutatingwebhookconfiguration,validatingwebhookconfiguration cronwarden-ss --ignore-not-found
webhook_cfg() { # KIND NAME PATH
  cat <<EOF
apiVersion: admissionregistration.k8s.io/v1
kind: $1
metadata: {name: cronwarden-ss}
webhooks:
  - name: $2.cronwarden.io
    clientConfig: {url: "https://127.0.0.1:$PORT_A/$2"}
    rules:
    - {apiGroups: ["longhorn.io"], apiVersions: ["v1beta2"], operations: ["CREATE", "UPDATE"], resources: ["recurringjobs"], scope: Namespaced}
    admissionReviewVersions: ["v1"]
    sideEffects: None
    failurePolicy: Fail
    timeoutSeconds: 5
  - name: $2-volumes.cronwarden.io
    clientConfig: {url: "https://127.0.0.1:$PORT_A/$2"}
    rules:
    - {apiGroups: ["longhorn.io"], apiVersions: ["v1beta2"], operations: ["CREATE", "UPDATE"], resources: ["volumes"], scope: Namespaced}
    admissionReviewVersions: ["v1"]
    sideEffects: None
    failurePolicy: Fail
    timeoutSeconds: 5
EOF
}
assert_ok kc apply -f <(webhook_cfg MutatingWebhookConfiguration mutate)
assert_ok kc apply -f <(webhook_cfg ValidatingWebhookConfiguration validate)

replica() { # replica NAME PORT
  e2e_bg "webhook-$1" "$CW_BINARY" webhook --self-signed --cert-secret "$NS_CW/$SECRET" \
    --service "$NS_CW/cronwarden" --ip-address 127.0.0.1 --webhook-config cronwarden-ss \
    --kubeconfig "$KUBECONFIG" --listen "127.0.0.1:$2" --cert-check-interval 2s
  wait_for 30 "replica $1 /readyz" curl -fsSk "https://127.0.0.1:$2/readyz"
}
secret() { kc get secret -n "$NS_CW" "$SECRET" -o json; }
secret_pem() { secret | jq -r ".data[\"$1\"]" | base64 -d; }
served() { # served PORT -> fingerprint of the certificate served there
  openssl s_client -connect "127.0.0.1:$1" </dev/null 2>/dev/null | openssl x509 -noout -fingerprint -sha256 | cut -d= -f2
}
fp() { openssl x509 -noout -fingerprint -sha256 | cut -d= -f2; }
# Days to notAfter, to the nearest day: a certificate made in this very second has exactly its
# lifetime left, one made a moment ago a fraction less; both round to the lifetime.
days_left() { echo $(( ($(date -d "$(openssl x509 -noout -enddate | cut -d= -f2)" +%s) - $(date +%s) + 43200) / 86400 )); }
bundles() { # every caBundle of both configurations, one per line
  kc get mutatingwebhookconfiguration cronwarden-ss -o json | jq -r '.webhooks[].clientConfig.caBundle'
  kc get validatingwebhookconfiguration cronwarden-ss -o json | jq -r '.webhooks[].clientConfig.caBundle'
}

e2e_step "replica A creates the Secret and fills every caBundle"
replica a "$PORT_A"
S=$(secret)
assert_json "$S" .type kubernetes.io/tls
assert_json "$S" '.data | keys' '["ca.crt","ca.key","tls.crt","tls.key"]'
assert_json "$S" '.metadata.labels["app.kubernetes.io/managed-by"]' cronwarden
secret_pem ca.crt > "$CW_E2E_DIR/ss-ca.crt"
CA_B64=$(jq -r '.data["ca.crt"]' <<<"$S")
assert_eq 3650 "$(secret_pem ca.crt | days_left)" "CA lifetime in days"
assert_eq 365 "$(secret_pem tls.crt | days_left)" "serving certificate lifetime in days"
SANS=$(secret_pem tls.crt | openssl x509 -noout -ext subjectAltName | tail -1 | tr -d ' ')
assert_eq "DNS:cronwarden.$NS_CW,DNS:cronwarden.$NS_CW.svc,DNS:cronwarden.$NS_CW.svc.cluster.local,IPAddress:127.0.0.1" "$SANS" "subjectAltName"
assert_ok openssl verify -CAfile "$CW_E2E_DIR/ss-ca.crt" <(secret_pem tls.crt)
assert_eq "$(printf '%s\n' "$CA_B64" "$CA_B64" "$CA_B64" "$CA_B64")" "$(bundles)" "caBundle of all four webhooks"
LEAF=$(secret_pem tls.crt | fp)
assert_eq "$LEAF" "$(served "$PORT_A")" "replica A serves the Secret's certificate"
assert_ok curl -fsS --cacert "$CW_E2E_DIR/ss-ca.crt" "https://127.0.0.1:$PORT_A/healthz"

e2e_step "the apiserver trusts it"
rj() {
  cat <<EOF
apiVersion: longhorn.io/v1beta2
kind: RecurringJob
metadata: {name: $1, namespace: $NS_LH}
spec: {task: snapshot, cron: "$2", retain: 2}
EOF
}
admitted() { kc create --dry-run=server -o json -f <(rj probe "0 1 * * *") 2>/dev/null | jq -e '.spec.concurrency == 10' >/dev/null; }
wait_for 30 "admission through the self-signed certificate" admitted
assert_fails --match 'denied the request: spec.cron: invalid cron expression' kc create -f <(rj bad "0 0 * *")
assert_ok kc create -f <(rj daily "0 3 * * *")
assert_json "$(kc get lhrj -n "$NS_LH" daily -o json)" .spec.groups '[]'

e2e_step "replica B reuses the Secret"
RV=$(secret | jq -r .metadata.resourceVersion)
replica b "$PORT_B"
assert_eq "$RV" "$(secret | jq -r .metadata.resourceVersion)" "Secret untouched by replica B"
assert_eq "$LEAF" "$(served "$PORT_B")" "replica B serves the same certificate"

e2e_step "a serving certificate within 30 days of expiry is renewed; both replicas follow"
PKI=$CW_E2E_DIR/ss-pki
mkdir -p "$PKI"
secret_pem ca.key > "$PKI/ca.key"
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$PKI/short.key" \
  -subj "/CN=cronwarden.$NS_CW.svc" -out "$PKI/short.csr" 2>/dev/null
printf 'subjectAltName=DNS:cronwarden.%s,DNS:cronwarden.%s.svc,DNS:cronwarden.%s.svc.cluster.local,IP:127.0.0.1\n' \
  "$NS_CW" "$NS_CW" "$NS_CW" > "$PKI/short.ext"
openssl x509 -req -in "$PKI/short.csr" -CA "$CW_E2E_DIR/ss-ca.crt" -CAkey "$PKI/ca.key" -CAcreateserial \
  -days 10 -sha256 -extfile "$PKI/short.ext" -out "$PKI/short.crt" 2>/dev/null
SHORT=$(fp < "$PKI/short.crt")
assert_ok kc patch secret -n "$NS_CW" "$SECRET" --type merge -p "$(jq -nc \
  --arg c "$(base64 -w0 < "$PKI/short.crt")" --arg k "$(base64 -w0 < "$PKI/short.key")" \
  '{data: {"tls.crt": $c, "tls.key": $k}}')"
renewed() {
  local f; f=$(secret_pem tls.crt | fp)
  [ "$f" != "$SHORT" ] && [ "$f" != "$LEAF" ] && [ "$(secret_pem tls.crt | days_left)" = 365 ]
}
wait_for 30 "a replica to renew the certificate" renewed
RENEWED=$(secret_pem tls.crt | fp)
assert_eq "$CA_B64" "$(secret | jq -r '.data["ca.crt"]')" "the CA is kept"
assert_ok openssl verify -CAfile "$CW_E2E_DIR/ss-ca.crt" <(secret_pem tls.crt)
serves() { [ "$(served "$1")" = "$RENEWED" ]; }
wait_for 30 "replica A to serve the renewal" serves "$PORT_A"
wait_for 30 "replica B to serve the renewal" serves "$PORT_B"
assert_eq "$(printf '%s\n' "$CA_B64" "$CA_B64" "$CA_B64" "$CA_B64")" "$(bundles)" "caBundles unchanged"
assert_ok kc create -f <(rj after-renewal "0 4 * * *")

e2e_step "a caBundle changed behind its back is put back"
assert_ok kc patch mutatingwebhookconfiguration cronwarden-ss --type json \
  -p '[{"op":"replace","path":"/webhooks/1/clientConfig/caBundle","value":"'"$(base64 -w0 < "$CW_E2E_CA")"'"}]'
restored() { [ "$(bundles)" = "$(printf '%s\n' "$CA_B64" "$CA_B64" "$CA_B64" "$CA_B64")" ]; }
wait_for 30 "the caBundle to be restored" restored
assert_contains "$(cat "$CW_E2E_DIR"/logs/webhook-*.log)" 'msg="caBundle updated" resource=mutatingwebhookconfigurations name=cronwarden-ss'

e2e_step "SIGTERM stops both replicas with status 0"
for r in a b; do
  pid=$(e2e_bg_pid "webhook-$r")
  kill -TERM "$pid"
  rc=0; wait "$pid" || rc=$?
  assert_eq 0 "$rc" "replica $r exit status"
done
