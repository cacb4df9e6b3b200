# Assertions for the CLI tests (sourced). Each failure prints what differed and exits 1.
set -u
CW=${CW_BINARY:?CW_BINARY must point at the cronwarden binary}
SRC=${CW_SOURCE_DIR:?CW_SOURCE_DIR must point at the source tree}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cw-cli.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
failures=0

fail() { printf 'FAIL: %s\n' "$*" >&2; failures=$((failures + 1)); }

# run EXPECTED_EXIT CMD...: runs CMD, keeps stdout/stderr in $TMP/out and $TMP/err.
run() {
  local want=$1; shift
  "$@" >"$TMP/out" 2>"$TMP/err"
  local got=$?
  if [ "$got" != "$want" ]; then
    fail "exit $got, want $want: $*"
    sed 's/^/  stderr: /' "$TMP/err" | head -5 >&2
  fi
}

assert_eq() { [ "$1" == "$2" ] || fail "$3: got [$1] want [$2]"; }
assert_file_eq() { cmp -s "$1" "$2" || { fail "$3: $1 differs from $2"; diff "$1" "$2" | head -20 >&2; }; }
assert_contains() { grep -qF -- "$2" "$1" || { fail "$3: '$2' not in $1"; head -5 "$1" >&2; }; }
done_tests() { [ "$failures" = 0 ] && echo "ok" || { echo "$failures failure(s)"; exit 1; }; }
