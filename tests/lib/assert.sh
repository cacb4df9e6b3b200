# The assertions of every shell test (tests/cli and tests/e2e), sourced by their libraries. Each
# failed assertion prints what was expected, what came and where, then ends the script with
# exit 1 — at once, so a failure can never be counted and forgotten. In a pipeline or a command
# substitution (a subshell) the exit ends only the subshell: the test scripts run with
# `set -o pipefail -e` (tests/cli/lib.sh, tests/e2e/lib.sh) so that it ends them too.
# A library may set CW_ASSERT_FAIL to the name of its own failure function (e2e_fail adds the
# elapsed time and dumps the cluster's logs); it gets the message and must not return.
# shellcheck shell=bash

cw_assert__where() {
  local i
  for ((i = 1; i < ${#BASH_SOURCE[@]}; i++)); do
    case ${BASH_SOURCE[$i]} in */lib/assert.sh | */cli/lib.sh | */e2e/lib.sh) continue ;; esac
    printf '%s:%s' "$(basename "${BASH_SOURCE[$i]}")" "${BASH_LINENO[$((i - 1))]}"
    return
  done
  printf '?'
}

# cw_assert_fail MESSAGE: report and exit 1 (through CW_ASSERT_FAIL when a library set it).
cw_assert_fail() {
  if [ -n "${CW_ASSERT_FAIL:-}" ]; then "$CW_ASSERT_FAIL" "$*"; fi
  printf 'FAIL at %s: %s\n' "$(cw_assert__where)" "$*" >&2
  exit 1
}

# assert_eq EXPECTED ACTUAL [WHAT]
assert_eq() {
  [ "$1" == "$2" ] || cw_assert_fail "${3:-value}: expected '$1', got '$2'"
}

# assert_contains HAYSTACK NEEDLE [WHAT]: a string contains another.
assert_contains() {
  case $1 in *"$2"*) ;; *) cw_assert_fail "${3:-output}: expected to contain '$2', got: $(head -c 2000 <<<"$1")" ;; esac
}

# assert_file_contains FILE NEEDLE [WHAT]
assert_file_contains() {
  grep -qF -- "$2" "$1" 2>/dev/null ||
    cw_assert_fail "${3:-$1}: expected '$2' in $1, which begins: $(head -c 1000 "$1" 2>/dev/null)"
}

# assert_file_eq EXPECTED_FILE ACTUAL_FILE [WHAT]: byte for byte, the first differences shown.
assert_file_eq() {
  cmp -s "$1" "$2" || cw_assert_fail "${3:-$2}: $2 differs from $1:
$(diff "$1" "$2" 2>&1 | head -20)"
}

# assert_json JSON FILTER EXPECTED [WHAT]: jq -c FILTER, strings printed raw. E.g.
#   assert_json "$obj" .spec.task snapshot;  assert_json "$obj" .spec.groups '["a","b"]'
assert_json() {
  local got
  got=$(jq -cr "$2" <<<"$1" 2>&1) || cw_assert_fail "jq '$2' failed: $got; input: $(head -c 2000 <<<"$1")"
  [ "$got" == "$3" ] || cw_assert_fail "${4:-$2}: expected '$3', got '$got'"
}
