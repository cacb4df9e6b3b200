# The CLI tests' library (sourced): the binary under test, a scratch directory, `run`, and the
# assertions shared with the e2e scenarios (tests/lib/assert.sh). The first failure ends the test
# with exit 1, also inside a pipeline (pipefail, errexit).
set -euo pipefail
CW=${CW_BINARY:?CW_BINARY must point at the cronwarden binary}
SRC=${CW_SOURCE_DIR:?CW_SOURCE_DIR must point at the source tree}
# shellcheck source=../lib/assert.sh
. "$SRC/tests/lib/assert.sh"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cw-cli.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

fail() { cw_assert_fail "$*"; }

# run EXPECTED_EXIT CMD...: runs CMD, keeps stdout/stderr in $TMP/out and $TMP/err; any other
# exit status fails the test, showing the start of stderr.
run() {
  local want=$1 got=0
  shift
  "$@" >"$TMP/out" 2>"$TMP/err" || got=$?
  [ "$got" = "$want" ] || cw_assert_fail "exit $got, want $want: $*
$(sed 's/^/  stderr: /' "$TMP/err" | head -5)"
}

# The last line of a test that got this far: every assertion held.
done_tests() { echo "ok"; }
