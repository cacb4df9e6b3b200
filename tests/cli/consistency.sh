#!/usr/bin/env bash
# The command line behaves the same in every command (issue: hardening, "consistency"): flags
# and arguments interleave, a flag beats the environment, output that cannot be written is a
# failure, every flag is checked by one function, and answers are never wrong with exit 0.
. "$(dirname "$0")/lib.sh"
cd "$SRC"
EX=examples/longhorn-1.1-cluster

# Interleaving (README's own example) and `--`.
run 0 "$CW" cron next '0 2 * * *' -n 5 --from 2026-03-28T12:00:00+01:00
assert_eq 5 "$(wc -l < "$TMP/out")" "five fire times"
run 0 "$CW" cron next -n 1 --from 2026-01-01T00:00:00Z -- '@hourly'
assert_eq "2026-01-01T01:00:00Z" "$(cat "$TMP/out")" "-- ends the flags"

# Output that does not arrive is a failure, whatever the command.
full() { # full CMD...: CMD must fail when stdout is a full disk, and say so
  if "$CW" "$@" >/dev/full 2>"$TMP/err"; then fail "'cronwarden $* >/dev/full' exited 0"; fi
  assert_file_contains "$TMP/err" "writing to standard output failed: No space left on device" "$*"
}
full --help
full cron next '0 2 * * *'
full cron validate @daily
full migrate -f "$EX" -o json
full version

# One check per kind of flag, in every command (exit 2, the same words).
run 2 "$CW" migrate -f "$EX" --default-group 'bad name!/x'
assert_file_contains "$TMP/err" "--default-group \"bad name!/x\" must match ^[a-zA-Z0-9][a-zA-Z0-9_.-]+\$" "migrate"
run 2 "$CW" webhook --default-group 'bad name!/x'
assert_file_contains "$TMP/err" "--default-group \"bad name!/x\" must match" "webhook"
run 2 "$CW" cron audit -f "$EX" --default-group 'bad name!/x'
assert_file_contains "$TMP/err" "--default-group \"bad name!/x\" must match" "cron audit"
run 2 "$CW" migrate -f "$EX" -n Not_A_Namespace
assert_file_contains "$TMP/err" "--namespace \"Not_A_Namespace\": a lowercase RFC 1123 label" "migrate -n"
run 2 "$CW" controller -n Not_A_Namespace --kubeconfig /nonexistent
assert_file_contains "$TMP/err" "--namespace \"Not_A_Namespace\": a lowercase RFC 1123 label" "controller -n"
run 2 "$CW" migrate -f "$EX" --dry-run=server
assert_file_contains "$TMP/err" "--dry-run is for a cluster" "--dry-run with --from-file"

# Precedence: a flag wins and an overridden variable is not looked at; misspellings are said.
CRONWARDEN_OUTPUT=xml run 1 "$CW" migrate -f "$EX" -o json
assert_eq "MigrationReport" "$(jq -r .kind "$TMP/out")" "-o json beats CRONWARDEN_OUTPUT=xml"
CRONWARDEN_NO_DEFAULT_GROUP=true run 1 "$CW" migrate -f "$EX" --default-group nightly -o json
assert_file_contains "$TMP/out" "recurring-job-group.longhorn.io/nightly" "--default-group beats CRONWARDEN_NO_DEFAULT_GROUP"
CRONWARDEN_OUTPTU=json run 1 "$CW" migrate -f "$EX"
assert_file_contains "$TMP/err" "warning: ignoring the environment variable CRONWARDEN_OUTPTU: no flag of this command reads it" "misspelled variable"
printf 'output: json\n---\noutput: yaml\n' > "$TMP/two.yaml"
run 2 "$CW" migrate -f "$EX" --config "$TMP/two.yaml"
assert_file_contains "$TMP/err" "holds 2 YAML documents; put every flag in one" "one config document"

# Never a wrong answer with exit 0 at the edges of RFC 3339.
run 1 "$CW" cron next --from 9999-12-31T23:59:59Z '@every 1s'
assert_file_contains "$TMP/err" "the next fire time is after 9999-12-31T23:59:59Z" "year 10000"
run 2 "$CW" cron next --from 0000-01-01T00:00:00+23:59 '0 0 * * *'
assert_file_contains "$TMP/err" "--from must lie within the years 0000-9999 in UTC" "before year 0"

# One command table makes the summary and the dispatch: every command and cron's reports are
# listed, and a name not in a table is refused with the names that are.
run 0 "$CW" --help
assert_eq "$(cat "$SRC/tests/cli/golden/help.txt")" "$(cat "$TMP/out")" "cronwarden --help"
run 2 "$CW" bogus
assert_eq "cronwarden: unknown command 'bogus' (see 'cronwarden --help')" "$(cat "$TMP/err")" "unknown command"
run 2 "$CW" cron bogus
assert_eq "cronwarden cron: unknown subcommand 'bogus' (validate, next, audit or status) (see 'cronwarden cron --help')" "$(cat "$TMP/err")" "unknown cron subcommand"
run 0 "$CW" cron --help
assert_eq "Usage: cronwarden cron validate [-o text|json] EXPR
       cronwarden cron next [-n N] [--from RFC3339] [-o text|json] EXPR
       cronwarden cron audit [--from-file PATH]... [flags]
       cronwarden cron status [--from-file PATH]... [flags]" "$(head -4 "$TMP/out")" "cron synopses"
assert_file_contains "$TMP/out" "Run 'cronwarden cron <validate|next|audit|status> --help' for the flags." "cron help hint"
for c in "cron validate" "cron next" "cron audit" "cron status" migrate webhook controller version; do
  run 0 "$CW" $c --help # each row of the tables runs its command
done

# What is skipped in an input directory is said at info level.
mkdir -p "$TMP/in" && printf '[1,2]\n' > "$TMP/in/list.yaml" && echo x > "$TMP/in/notes.txt"
ln -s /nonexistent "$TMP/in/gone.yaml"
run 0 "$CW" migrate -f "$TMP/in"
assert_file_contains "$TMP/err" "msg=skipped path=$TMP/in/gone.yaml why=\"a symlink to nothing\"" "dangling link"
assert_file_contains "$TMP/err" "msg=skipped path=$TMP/in/notes.txt why=\"not .yaml, .yml or .json\"" "other file"
assert_file_contains "$TMP/err" "why=\"not an object (a manifest is a mapping)\"" "not an object"
done_tests
