#!/usr/bin/env bash
# cronwarden cron audit end to end (docs/audit.md): golden reports of the bundled example, the
# suggestions' patch applied and audited again, the SVG parsed and rendered, exit codes, and
# refusals that write nothing. No cluster needed (the live audit: tests/e2e/scenarios/audit.sh).
. "$(dirname "$0")/lib.sh"
cd "$SRC"   # report sources are relative to the paths given
EX=examples/longhorn-1.1-cluster
MID=tests/cli/audit/midnight.yaml
FROM=2026-11-24T00:00:00Z

# 1. The bundled example: golden text (a week at 1m) and JSON (a day at 5m).
run 0 "$CW" cron audit --from-file "$EX" --from "$FROM"
assert_file_eq "$TMP/out" tests/cli/golden/audit-example.txt "example audit, text"
run 0 "$CW" cron audit -f "$EX" --from "$FROM" --window 24h --step 5m -o json
assert_file_eq "$TMP/out" tests/cli/golden/audit-example.json "example audit, JSON"
run 0 "$CW" cron audit -f "$EX" --from 2026-11-24T00:00:00+05:30 --window 1h -o json
assert_eq "2026-11-24T00:00:00+05:30" "$(jq -r .window.from "$TMP/out")" "times print in --from's offset"

# 2. --max-starts: 1 above it (CI on a GitOps repo), 0 at or below.
run 1 "$CW" cron audit -f "$MID" --from "$FROM" --max-starts 30
assert_file_contains "$TMP/out" "over-max     14 steps start more than --max-starts 30 operations (the most: 59)" "over-max finding"
run 0 "$CW" cron audit -f "$MID" --from "$FROM" --max-starts 59

# 3. --suggest: the patch applied to the input and audited again meets --max-starts.
run 1 "$CW" cron audit -f "$MID" --from "$FROM" --max-starts 30 --suggest --patch "$TMP/patch.yaml"
assert_file_contains "$TMP/out" "Suggested crons (target: 30): the busiest step goes from 59 to 26 starts" "suggestion summary"
assert_file_contains "$TMP/out" "recurringjob longhorn-system/snap-default        @daily                   -> 15 0 * * *" "a descriptor spelled out with its new minute"
assert_eq "4" "$(grep -c '^kind: RecurringJob' "$TMP/patch.yaml")" "changed objects in the patch"
run 0 "$CW" cron audit -f "$MID" -f "$TMP/patch.yaml" --from "$FROM" --max-starts 30
run 0 "$CW" cron audit -f "$MID" -f "$TMP/patch.yaml" --from "$FROM" -o json
assert_eq "26" "$(jq .maxStarts "$TMP/out")" "the patched cluster's peak is the one promised"
# as low as it goes: trim's 20 web volumes at once are the floor
run 0 "$CW" cron audit -f "$MID" --from "$FROM" --suggest -o json
assert_eq "[59,20,5]" "$(jq -c '[.suggestions.peakBefore, .suggestions.peakAfter, (.suggestions.changes | length)]' "$TMP/out")" "suggestions without a target"
assert_eq "11-56/15 * * * *" "$(jq -r '.suggestions.changes[] | select(.name == "snap-15") | .to' "$TMP/out")" "a step keeps its frequency"
run 0 "$CW" cron audit -f "$MID" --from "$FROM" --suggest -o json
assert_eq "$(jq -c .suggestions <("$CW" cron audit -f "$MID" --from "$FROM" --suggest -o json) | md5sum)" "$(jq -c .suggestions "$TMP/out" | md5sum)" "suggestions are stable"

# 4. The SVG is well-formed XML and renders to a picture that is not blank.
run 0 "$CW" cron audit -f "$MID" --from "$FROM" -o svg
xmllint --noout "$TMP/out" || fail "the SVG is not well-formed"
rsvg-convert -o "$TMP/heat.png" "$TMP/out" || fail "rsvg-convert could not render the SVG"
assert_eq "1600x308 coloured" "$(python3 "$SRC/tests/cli/audit/png_info.py" "$TMP/heat.png")" "rendered heatmap"

# 5. Refusals: exit 2, nothing written.
run 2 "$CW" cron audit -f "$MID" --patch "$TMP/p2.yaml"
assert_file_contains "$TMP/err" "--patch goes with --suggest" "patch without suggest"
[ ! -e "$TMP/p2.yaml" ] || fail "a refused run wrote its patch"
cp "$MID" "$TMP/input.yaml"
run 2 "$CW" cron audit -f "$TMP/input.yaml" --suggest --patch "$TMP/input.yaml"
assert_file_contains "$TMP/err" "exists; name a new file" "patch over an input"
assert_file_eq "$TMP/input.yaml" "$MID" "the input is untouched"
run 2 "$CW" cron audit -f "$MID" --step 30.5s
assert_file_contains "$TMP/err" "--step must be a whole number of seconds" "fractional step"
run 2 "$CW" cron audit -f "$MID" --window 30s
assert_file_contains "$TMP/err" "--window must hold at least one" "window shorter than a step"
run 2 "$CW" cron audit -f "$MID" --assume-duration backup
assert_file_contains "$TMP/err" "--assume-duration: expected TASK=DURATION" "bad duration override"
run 2 "$CW" cron audit -f "$MID" --from yesterday
assert_file_contains "$TMP/err" "--from" "bad --from"
printf 'kind: RecurringJob\napiVersion: longhorn.io/v1beta2\nmetadata: {name: x}\nspec: {cron: [1]}\n' > "$TMP/bad.yaml"
run 2 "$CW" cron audit -f "$TMP/bad.yaml"
assert_file_contains "$TMP/err" "spec.cron: expected string, got array" "wrong field type names the field"
run 2 "$CW" cron audit -f "$TMP/missing.yaml"
run 2 "$CW" cron audit -f "$MID" -o xml

# 6. --assume-duration changes the run length; a write error on stdout is a failure.
run 0 "$CW" cron audit -f "$MID" --from "$FROM" --assume-duration snapshot=30m -o json
assert_eq "[5400,560]" "$(jq '.jobs[] | select(.name == "snap-15") | [.runSeconds, .skippedFires]' -c "$TMP/out")" "three 30m batches outlast a 15m interval"
if "$CW" cron audit -f "$MID" > /dev/full 2>"$TMP/err"; then fail "writing to a full disk succeeded"; fi
assert_file_contains "$TMP/err" "writing the report" "stdout write error"

done_tests
