#!/usr/bin/env bash
# prom_rules_fast (tests/e2e/prometheus.sh), the one change the e2e's Prometheus makes to
# deploy/monitoring/rules.yaml: every `for:` duration, and nothing else. On the shipped file: the
# output differs only in the `for:` lines of the rules that have one, each now the short duration,
# and promtool accepts it. A `for:` it cannot read (a comment after it, a template) fails and
# writes nothing; the source is never the destination. Skipped (77) without promtool.
set -euo pipefail
cd "${CW_SOURCE_DIR:-$(dirname "$0")/../../..}"
command -v promtool >/dev/null || { echo "SKIP: promtool is not installed (apt-get install prometheus)"; exit 77; }
# shellcheck source=../../e2e/prometheus.sh
. tests/e2e/prometheus.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
src=deploy/monitoring/rules.yaml
sum0=$(sha256sum < "$src")

prom_rules_fast "$src" "$tmp/fast.yaml" 3s
# same number of lines, and the lines that differ are exactly the rules' `for:` lines
[ "$(wc -l < "$src")" = "$(wc -l < "$tmp/fast.yaml")" ] || fail "line count changed"
changed=$(paste -d '\n' "$src" "$tmp/fast.yaml" | paste - - | awk -F '\t' '$1 != $2 {print NR ": " $1 " -> " $2}')
want=$(grep -n '^    for: ' "$src" | while IFS=: read -r n line; do echo "$n: $line ->     for: 3s"; done)
[ -n "$want" ] || fail "$src has no for: (nothing to test)"
[ "$changed" = "$want" ] || fail "prom_rules_fast changed other lines than the for: durations:
expected:
$want
got:
$changed"
for d in 5m 15m 1d; do
  grep -q "^    for: $d\$" "$src" || fail "$src no longer has a for: $d (update this table)"
done
promtool check rules "$tmp/fast.yaml" >/dev/null || fail "promtool refuses the shortened rules"
# the default duration is CW_PROM_FOR
prom_rules_fast "$src" "$tmp/default.yaml"
[ "$(grep -c "^    for: $CW_PROM_FOR\$" "$tmp/default.yaml")" = "$(grep -c '^    for: ' "$src")" ] ||
  fail "the default is not CW_PROM_FOR ($CW_PROM_FOR)"

# refusals: nothing written
printf '%s\n' 'groups:' '- name: g' '  rules:' '  - alert: A' '    expr: vector(1)' '    for: 5m # five minutes' > "$tmp/comment.yaml"
printf '%s\n' 'groups:' '- name: g' '  rules:' '  - alert: A' '    expr: vector(1)' '    for: "{{ x }}"' > "$tmp/template.yaml"
for bad in comment template; do
  if err=$(prom_rules_fast "$tmp/$bad.yaml" "$tmp/$bad-out.yaml" 2>&1); then fail "$bad: accepted"; fi
  [[ $err == *"cannot read the duration at line 6"* ]] || fail "$bad: message was: $err"
  if [ -e "$tmp/$bad-out.yaml" ] || [ -e "$tmp/$bad-out.yaml.tmp" ]; then fail "$bad: wrote output"; fi
done
if err=$(prom_rules_fast "$src" "$src" 2>&1); then fail "wrote over its source"; fi
[[ $err == *"will not write over"* ]] || fail "same path: message was: $err"
[ "$(sha256sum < "$src")" = "$sum0" ] || fail "$src changed"
echo "fast_rules: only the for: durations change"
