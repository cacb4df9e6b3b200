#!/bin/sh
# compare.sh CW_ORACLE WORKDIR [LINES] [SEED]: runs a generated corpus through cronwarden's cron
# code (CW_ORACLE, built from cw_oracle.c) and through the real robfig/cron, and fails on any
# difference. Exits 77 (skipped) when Go or robfig/cron is not installed.
set -eu
cw=$1
work=$2
lines=${3:-6000}
seed=${4:-20250309}
here=$(cd "$(dirname "$0")" && pwd)
sh "$here/build.sh" "$work" || exit $?
"$cw" gen "$lines" "$seed" > "$work/corpus.txt"
# the oracle's own time zone must not matter: every from-time carries its offset
TZ=UTC "$work/cron-oracle" < "$work/corpus.txt" > "$work/robfig.txt"
"$cw" run < "$work/corpus.txt" > "$work/cronwarden.txt"
if ! cmp -s "$work/robfig.txt" "$work/cronwarden.txt"; then
  echo "cronwarden differs from robfig/cron (corpus line, input, robfig, cronwarden):"
  paste -d '\n' "$work/corpus.txt" "$work/robfig.txt" "$work/cronwarden.txt" |
    awk 'NR % 3 == 1 { c = $0 } NR % 3 == 2 { r = $0 } NR % 3 == 0 && r != $0 {
      n++; if (n <= 25) printf "%d: %s\n  robfig:     %s\n  cronwarden: %s\n", NR / 3, c, r, $0 }
      END { printf "%d of %d lines differ\n", n, NR / 3 }'
  exit 1
fi
ok=$(grep -c '^ok' "$work/robfig.txt" || true)
err=$(grep -c '^err' "$work/robfig.txt" || true)
echo "cron_matches_robfig: $lines lines identical ($ok schedules, $err rejected, seed $seed)"
