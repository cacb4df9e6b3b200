#!/usr/bin/env bash
# Every `cronwarden ...` line in the shell blocks of README.md and docs/*.md that needs no cluster
# runs as written (from a scratch directory that sees the repository's examples/ and tests/) and
# is not refused as a usage error: exit 0, 1 (findings the output explains) or 3 (changes
# pending). Examples that need a cluster, TLS files or run until stopped (webhook, controller,
# migrate, cron audit and cron status without --from-file) are listed and left to the e2e
# scenarios.
. "$(dirname "$0")/lib.sh"
mkdir -p "$TMP/w"
ln -s "$SRC/examples" "$TMP/w/examples"
ln -s "$SRC/tests" "$TMP/w/tests"
cd "$TMP/w"
ran=0 skipped=0 broken=""
while IFS=$'\t' read -r file line; do
  case $line in
    *"..."* | *"<"*">"* | *" [-"*) skipped=$((skipped + 1)); continue ;;    # placeholders, synopses
    "cronwarden webhook"* | "cronwarden controller"*) skipped=$((skipped + 1)); continue ;;
    "cronwarden migrate"*) case $line in *--from-file* | *" -f "*) ;; *) skipped=$((skipped + 1)); continue ;; esac ;;
    "cronwarden cron audit"* | "cronwarden cron status"*) case $line in *--from-file* | *" -f "*) ;; *) skipped=$((skipped + 1)); continue ;; esac ;;
  esac
  cmd=${line%%  #*} # the example, without its trailing comment
  got=0
  CW_DOC_BIN=$CW bash -c "cronwarden() { \"\$CW_DOC_BIN\" \"\$@\"; }; $cmd" >"$TMP/out" 2>"$TMP/err" || got=$?
  case $got in
    0 | 1 | 3) ran=$((ran + 1)) ;;
    *) broken+="
  $file: '$cmd' exited $got: $(head -1 "$TMP/err")" ;;
  esac
done < <(cd "$SRC" && awk '
  FNR == 1 { inblock = 0 }
  /^```/ { if (inblock) inblock = 0; else if ($0 ~ /^```(sh|bash|console)?$/) inblock = 1; next }
  inblock && /^cronwarden / { print FILENAME "\t" $0 }' README.md docs/*.md)
echo "doc examples: $ran ran, $skipped need a cluster or are placeholders"
[ -z "$broken" ] || fail "examples that do not run as written:$broken"
[ "$ran" -ge 8 ] || fail "only $ran examples ran: the extraction is broken"
done_tests
