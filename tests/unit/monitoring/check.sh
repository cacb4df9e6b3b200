#!/usr/bin/env bash
# deploy/monitoring (docs/status.md, "Alerts"): the PrometheusRule (and the Helm chart's copy of
# rules.yaml) is what scripts/monitoring-rules makes of rules.yaml; promtool accepts both; every
# alert fires and stays quiet as alerts_test.yaml says (each has a case where it fires and one
# where it must not); every metric the rules read is one docs/status.md documents. Skipped (77)
# without promtool (Debian's prometheus package).
set -euo pipefail
cd "${CW_SOURCE_DIR:-$(dirname "$0")/../../..}"
command -v promtool >/dev/null || { echo "SKIP: promtool is not installed (apt-get install prometheus)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

scripts/monitoring-rules --check
promtool check rules deploy/monitoring/rules.yaml
# the PrometheusRule's spec, as a rule file of its own
sed -n '/^spec:$/,$p' deploy/monitoring/prometheusrule.yaml | tail -n +2 | sed 's/^  //' > "$tmp/spec.yaml"
promtool check rules "$tmp/spec.yaml"
cmp -s "$tmp/spec.yaml" <(sed -n '/^groups:/,$p' deploy/monitoring/rules.yaml) ||
  fail "prometheusrule.yaml's spec is not rules.yaml's groups"

(cd tests/unit/monitoring && promtool test rules alerts_test.yaml)

# every alert: a case where it fires and one where it does not
for alert in $(sed -n 's/^ *- alert: //p' deploy/monitoring/rules.yaml); do
  awk -v a="$alert" '
    $0 ~ "alertname: " a "$" { inside = 1; next }
    inside && /exp_alerts: \[\]/ { quiet++; inside = 0 }
    inside && /exp_alerts:$/ { fires++; inside = 0 }
    END { exit !(quiet && fires) }' tests/unit/monitoring/alerts_test.yaml ||
    fail "alert $alert needs a test where it fires and one where it does not (alerts_test.yaml)"
done

# every metric the rules read is documented
for m in $(grep -o 'cronwarden_[a-z_]*' deploy/monitoring/rules.yaml | sort -u); do
  grep -q "\`$m\`" docs/status.md || fail "metric $m is used by the rules but not documented in docs/status.md"
done
echo "monitoring: rules, PrometheusRule and alert tests agree"
