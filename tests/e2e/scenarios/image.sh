#!/usr/bin/env bash
# The container image (Dockerfile), built and run here: podman builds it from a base image made
# from Debian's packages (no registry is reachable), and what it holds runs without a container
# runtime (podman mount + chroot as user 65532): `cronwarden version`, a CRON_TZ zone (tzdata),
# and the webhook serving the real apiserver, which admits a RecurringJob through it. The image
# holds no shell, no package manager, no compiler and no package cache, and stays under 100 MB.
# The base image and podman's layers are cached under ~/.cache/cronwarden/image
# (tests/e2e/image-build.sh, which scripts/test also runs in the background).
. "$(dirname "$0")/../lib.sh"

command -v podman >/dev/null && command -v mmdebstrap >/dev/null ||
  e2e_skip "podman or mmdebstrap is not installed (scripts/test installs both)"
e2e_start current
apply_crds
NS=$(e2e_namespace longhorn-system)

e2e_step "podman builds the Dockerfile (base from Debian's packages, OCI format, chroot isolation, nothing pulled)"
# tests/e2e/image-build.sh: scripts/test starts it in the background at its first second, so the
# base and the build stage's packages are usually made by now; this run then takes seconds.
BUILD_LOG=$CW_E2E_DIR/logs/image-build.log
rc=0
CW_IMAGE_BUILD_LOG=$BUILD_LOG "$CW_SOURCE_DIR/tests/e2e/image-build.sh" localhost/cronwarden:e2e \
  2>"$CW_E2E_DIR/logs/image-build.err" || rc=$?
case $rc in
  0) e2e_log "$(tail -1 "$CW_E2E_DIR/logs/image-build.err")" ;;
  77) e2e_skip "$(tail -1 "$CW_E2E_DIR/logs/image-build.err")" ;;
  *) e2e_fail "the image did not build: $(cat "$CW_E2E_DIR/logs/image-build.err")" ;;
esac
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/cronwarden/image
export CONTAINERS_STORAGE_CONF=$CW_E2E_DIR/storage.conf
printf '[storage]\ndriver = "vfs"\ngraphroot = "%s"\nrunroot = "%s"\n' \
  "$CACHE/storage" "$CW_E2E_DIR/podman-run" > "$CONTAINERS_STORAGE_CONF"
pod() { podman --log-level=error "$@"; }
# The build's lock, held while this scenario uses the image, so that a build started meanwhile
# (another scripts/test) does not retag it under us.
exec 8>"$CACHE/.lock"
flock 8
SIZE=$(pod image inspect --format '{{.Size}}' localhost/cronwarden:e2e)
e2e_log "runtime image: $SIZE bytes"
[ "$SIZE" -lt 100000000 ] || e2e_fail "the runtime image is $SIZE bytes, over 100 MB"
assert_json "$(pod image inspect localhost/cronwarden:e2e)" '.[0].Config.User' "65532:65532" "image user"

CTR=$(pod create localhost/cronwarden:e2e)
e2e_on_exit pod rm -f "$CTR"
ROOT=$(pod mount "$CTR")
[ -n "$ROOT" ] && [ -d "$ROOT" ] || e2e_fail "podman mount gave no root"
e2e_on_exit pod umount "$CTR"

e2e_step "what the image holds, and what it does not"
for absent in bin/sh bin/bash usr/bin/apt-get usr/bin/dpkg usr/bin/gcc usr/bin/cc var/cache/apt var/lib/dpkg; do
  [ ! -e "$ROOT/$absent" ] || e2e_fail "the image holds /$absent"
done
[ -s "$ROOT/usr/share/zoneinfo/Europe/Berlin" ] || e2e_fail "no tzdata in the image"
[ -s "$ROOT/etc/ssl/certs/ca-certificates.crt" ] || e2e_fail "no CA bundle in the image"
img() { chroot --userspec=65532:65532 "$ROOT" /usr/local/bin/cronwarden "$@"; }
assert_ok img version
assert_contains "$E2E_OUT" "cronwarden 0.1.0" "version from the image"
assert_ok img cron validate 'CRON_TZ=Europe/Berlin 0 1 * * *'
assert_eq "valid" "$E2E_OUT" "a zone from the image's tzdata"

e2e_step "the webhook from the image admits a RecurringJob on the real apiserver"
e2e_issue_cert webhook IP:127.0.0.1
mkdir -p "$ROOT/certs"
cp "$CW_E2E_DIR/pki/webhook.crt" "$ROOT/certs/tls.crt"
cp "$CW_E2E_DIR/pki/webhook.key" "$ROOT/certs/tls.key"
chown -R 65532:65532 "$ROOT/certs"
PORT=$(cwc_free_port)
e2e_bg image-webhook chroot --userspec=65532:65532 "$ROOT" /usr/local/bin/cronwarden webhook \
  --listen "127.0.0.1:$PORT" --tls-cert-file /certs/tls.crt --tls-private-key-file /certs/tls.key
wait_for 20 "the image's webhook /readyz" curl -fsS --cacert "$CW_E2E_SIGNING_CA" \
  "https://127.0.0.1:$PORT/readyz"
CA_BUNDLE=$(base64 -w0 < "$CW_E2E_SIGNING_CA")
config() { # config KIND PATH
  printf 'apiVersion: admissionregistration.k8s.io/v1\nkind: %s\nmetadata: {name: cronwarden-image}\n' "$1"
  printf 'webhooks:\n- name: %s.cronwarden.io\n' "${2#/}"
  printf '  clientConfig: {url: "https://127.0.0.1:%s%s", caBundle: "%s"}\n' "$PORT" "$2" "$CA_BUNDLE"
  printf '  rules: [{apiGroups: ["longhorn.io"], apiVersions: ["v1beta2"], operations: ["CREATE"], resources: ["recurringjobs"], scope: Namespaced}]\n'
  printf '  admissionReviewVersions: ["v1"]\n  sideEffects: None\n  failurePolicy: Fail\n  timeoutSeconds: 5\n'
}
assert_ok kc apply -f <(config MutatingWebhookConfiguration /mutate)
assert_ok kc apply -f <(config ValidatingWebhookConfiguration /validate)
e2e_on_exit kc delete mutatingwebhookconfiguration,validatingwebhookconfiguration cronwarden-image
rj() { # rj NAME CRON: a RecurringJob manifest
  printf 'apiVersion: longhorn.io/v1beta2\nkind: RecurringJob\nmetadata: {name: %s, namespace: %s}\n' "$1" "$NS"
  printf 'spec: {task: snapshot, cron: "%s", retain: 3}\n' "$2"
}
wait_for 20 "the apiserver to call the image's webhook" \
  bash -c "! \"$CW_KUBECTL\" --kubeconfig \"$KUBECONFIG\" apply --dry-run=server -f <(printf '%s' \"$(rj probe 'not a cron')\") >/dev/null 2>&1"
assert_ok kc apply -f <(rj nightly 'CRON_TZ=Europe/Berlin 0 1 * * *')
RJ=$(kc get recurringjobs.longhorn.io -n "$NS" nightly -o json)
assert_json "$RJ" .spec.concurrency 10 "defaulted by the image's webhook"
assert_json "$RJ" .spec.name nightly "spec.name defaulted"
assert_fails --match 'invalid cron expression "not a cron"' kc apply -f <(rj broken 'not a cron')
assert_contains "$(cat "$CW_E2E_DIR/logs/image-webhook.log")" "msg=serving" "the image's webhook log"
