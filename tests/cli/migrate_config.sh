#!/usr/bin/env bash
# Online migrate refuses bad configuration before touching anything: exit 2 and a message that
# says which file, context or server is wrong. No cluster needed.
. "$(dirname "$0")/lib.sh"
export HOME=$TMP KUBECONFIG=   # no ~/.kube/config, no $KUBECONFIG, not in a pod

run 2 "$CW" migrate --kubeconfig "$TMP/missing.yaml"
assert_file_contains "$TMP/err" "$TMP/missing.yaml" "missing kubeconfig named"
printf 'apiVersion: v1\nkind: Config\nclusters: [oops\n' > "$TMP/broken.yaml"
run 2 "$CW" migrate --kubeconfig "$TMP/broken.yaml"
assert_file_contains "$TMP/err" "broken.yaml" "malformed kubeconfig named"
cat > "$TMP/kc.yaml" <<YAML
apiVersion: v1
kind: Config
clusters:
- name: dead
  cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}
users:
- name: u
  user: {token: abc}
contexts:
- name: dead
  context: {cluster: dead, user: u}
current-context: dead
YAML
run 2 "$CW" migrate --kubeconfig "$TMP/kc.yaml" --request-timeout 2s
assert_file_contains "$TMP/err" "127.0.0.1:1" "unreachable server named"
run 2 "$CW" migrate --kubeconfig "$TMP/kc.yaml" --context nope
assert_file_contains "$TMP/err" "nope" "unknown context named"
run 2 "$CW" migrate
assert_file_contains "$TMP/err" "tried" "no configuration anywhere: says where it looked"
run 2 "$CW" migrate --dry-run=maybe
done_tests
