# The reads of `kc` through curl (sourced by lib.sh). A kubectl start costs about 0.2 CPU-seconds
# on the 2-core machine before it sends a request (Go's init of every API type), a curl about 0.04;
# the scenarios read objects thousands of times (asserts, polls), and kubectl was the largest
# consumer of CPU in an e2e run, three times the apiserver's (tests/README.md, "Cold run"). So the
# reads whose output is defined by the API alone are answered here, the way kubectl answers them:
#
#   kc get --raw PATH
#   kc get RESOURCE [NAME] [-n NS] [-l SELECTOR] [--field-selector SELECTOR] -o json|name|jsonpath={.a.b}
#
# RESOURCE as kubectl takes it (plural, singular, short name, kind, plural.group,
# plural.version.group), resolved through the cluster's discovery; the object printed as kubectl
# prints it (a list as kubectl's `List`, each item with its apiVersion and kind; managedFields left
# out from kubectl 1.21, as kubectl does; keys sorted, as kubectl's maps print — tests compare
# `jq -c` strings; only the escaping of <, >, & differs, the JSON is the same); an error as kubectl's `Error from server (Reason): message` on stderr, exit status 1.
# Everything else (other flags, other outputs, several resources, an ambiguous or unknown name, an
# existing cluster without the harness's admin token, CW_E2E_KCGET=0) goes to kubectl.
# shellcheck shell=bash

# e2e__kcget ARGS...: answers `kc ARGS...` and returns its exit status, or returns 125 when the
# call is not one it answers (then kubectl must).
e2e__kcget() {
  [ "${CW_E2E_KCGET:-1}" = 1 ] && [ -n "${CW_E2E_TOKEN:-}" ] && [ "${1:-}" = get ] || return 125
  shift
  if [ $# = 2 ] && [ "$1" = --raw ]; then
    e2e__kcget_fetch "$CW_E2E_API_URL$2" raw
    return
  fi
  local res="" name="" ns="" out="" a query=""
  while [ $# -gt 0 ]; do
    a=$1
    case $a in
      -n | --namespace) [ $# -ge 2 ] || return 125; ns=$2; shift ;;
      --namespace=*) ns=${a#--namespace=} ;;
      -o | --output) [ $# -ge 2 ] || return 125; out=$2; shift ;;
      -o=* | --output=*) out=${a#*=} ;;
      -ojson) out=json ;;
      -l | --selector) [ $# -ge 2 ] || return 125; query+="&labelSelector=$(e2e__kcget_uri "$2")"; shift ;;
      --field-selector) [ $# -ge 2 ] || return 125; query+="&fieldSelector=$(e2e__kcget_uri "$2")"; shift ;;
      -*) return 125 ;;
      *)
        if [ -z "$res" ]; then res=$a
        elif [ -z "$name" ]; then name=$a
        else return 125
        fi ;;
    esac
    shift
  done
  [ -n "$res" ] || return 125
  case $out in
    json | name) ;;
    # A dotted path of plain field names only: kubectl's JSONPath has more than jq mimics here.
    jsonpath=\{.*\}) [ -n "$name" ] && [[ ${out#jsonpath=} =~ ^\{(\.[A-Za-z_][A-Za-z0-9_]*)+\}$ ]] || return 125 ;;
    *) return 125 ;;
  esac
  [ -z "$name" ] || [ -z "$query" ] || return 125
  case $res in *,* | */*) return 125 ;; esac
  case $name in */* | *'?'* | *'#'* | *%*) return 125 ;; esac
  local row
  row=$(e2e__kcget_resolve "$res") || return 125
  local prefix plural namespaced apiversion kind path
  IFS=$'\t' read -r prefix plural namespaced apiversion kind <<<"$row"
  path=$prefix
  [ "$namespaced" = 1 ] && path+="/namespaces/${ns:-default}"
  path+="/$plural"
  [ -n "$name" ] && path+="/$name"
  [ -z "$query" ] || path+="?${query#&}"
  e2e__kcget_fetch "$CW_E2E_API_URL$path" "$out" "$apiversion" "$kind" "$name"
}

e2e__kcget_uri() { jq -rn --arg s "$1" '$s | @uri'; }

# e2e__kcget_fetch URL raw|json|name|jsonpath=... [APIVERSION KIND NAME]: GET URL as admin, print it
# as kubectl would; 125 when curl itself failed (kubectl then retries it and says why). The body
# goes through a file: a list of 5,000 volumes is tens of MB.
e2e__kcget_fetch() {
  local url=$1 mode=$2 tmp=$CW_E2E_DIR/kcget.$BASHPID code rc=0
  # Not curl's own User-Agent: for it an apiserver (1.20) indents its JSON, for kubectl it does not.
  code=$(curl -sS --max-time 60 --cacert "$CW_E2E_CA" -H "Authorization: Bearer $CW_E2E_TOKEN" \
    -A cronwarden-e2e-kcget -o "$tmp" -w '%{http_code}' "$url" 2>/dev/null) || { rm -f "$tmp"; return 125; }
  if [ "$code" -ge 400 ] 2>/dev/null; then
    # A path the server does not serve (the discovery map is stale) is kubectl's to answer.
    if [ "$code" = 404 ] && [ "$mode" != raw ] &&
       ! jq -e '.kind == "Status" and (.details.name // "") != ""' "$tmp" >/dev/null 2>&1; then
      rm -f "$tmp" "$CW_E2E_DIR/kcget-resources.tsv"
      return 125
    fi
    if ! jq -er 'select(.kind == "Status") | "Error from server (\(.reason // "Unknown")): \(.message // "")"' \
      "$tmp" >&2 2>/dev/null; then
      if [ "$code" = 404 ]; then
        echo 'Error from server (NotFound): the server could not find the requested resource' >&2
      else
        { printf 'Error from server: '; cat "$tmp"; echo; } >&2
      fi
    fi
    rm -f "$tmp"
    return 1
  fi
  if ! [ "$code" -ge 200 ] 2>/dev/null; then rm -f "$tmp"; return 125; fi
  # kubectl >= 1.21 leaves managedFields out of -o json.
  # kubectl 1.20's List also has an empty selfLink.
  local strip=. one=${5:-} listmeta='{resourceVersion: ""}'
  if [ "${CW_E2E_K8S:-current}" = 1.20 ]; then listmeta='{resourceVersion: "", selfLink: ""}'
  else strip='del(.metadata.managedFields)'; fi
  case $mode in
    raw) cat "$tmp" ;;
    json)
      if [ -n "$one" ]; then
        jq -S --indent 4 "$strip" "$tmp" || rc=$?
      else
        jq -S --indent 4 --arg v "$3" --arg k "$4" '{apiVersion: "v1", items: [.items[] |
          {apiVersion: $v, kind: $k} + . | '"$strip"'], kind: "List", metadata: '"$listmeta"'}' "$tmp" || rc=$?
      fi ;;
    # kind.group/name, the kind in lower case (core: kind/name), one line each.
    name)
      jq -r --arg v "$3" --arg k "$4" '($k | ascii_downcase) + ($v | if contains("/") then "." + split("/")[0] else "" end)
        as $t | (if .items then .items[] else . end) | "\($t)/\(.metadata.name)"' "$tmp" || rc=$? ;;
    # Missing fields print nothing; objects and arrays as JSON; no newline at the end (kubectl's).
    jsonpath=*)
      local p=${mode#jsonpath=}
      p=${p#\{}
      p=${p%\}}
      jq -j "$p"' | if . == null then empty elif type == "object" or type == "array"
        then walk(if type == "object" then to_entries | sort_by(.key) | from_entries else . end) | tojson else . end' \
        "$tmp" || rc=$? ;;
  esac
  rm -f "$tmp"
  return "$rc"
}

# e2e__kcget_resolve RESOURCE: "prefix<TAB>plural<TAB>namespaced<TAB>apiVersion<TAB>kind" of the
# one resource kubectl would pick for RESOURCE; fails when it is unknown or ambiguous.
e2e__kcget_resolve() {
  local map=$CW_E2E_DIR/kcget-resources.tsv token row try
  token=$(printf '%s' "$1" | tr '[:upper:]' '[:lower:]')
  for try in 1 2; do
    e2e__kcget_map || return 1
    # The core group first (kubectl's priority: `events` is core's); one other group, or none.
    row=$(awk -F'\t' -v t="$token" '$1 == t { print $2 "\t" $3 "\t" $4 "\t" $5 "\t" $6 "\t" $7 }' "$map" |
      sort -u | awk -F'\t' '{ n++; r[n] = $0; if ($1 == 0) core = $0 }
        END { if (core != "") { sub(/^[^\t]*\t/, "", core); print core; exit 0 }
              if (n == 1) { sub(/^[^\t]*\t/, "", r[1]); print r[1]; exit 0 } exit 1 }') && {
      printf '%s\n' "$row"
      return 0
    }
    # Unknown: a resource created since the map was made (a CRD); look once more.
    [ "$try" = 1 ] && [ -z "$(awk -F'\t' -v t="$token" '$1 == t' "$map")" ] || return 1
    rm -f "$map"
  done
  return 1
}

# e2e__kcget_map: makes $CW_E2E_DIR/kcget-resources.tsv (e2e__kcget_discover) when it is not there.
e2e__kcget_map() {
  local map=$CW_E2E_DIR/kcget-resources.tsv
  [ -s "$map" ] && return 0
  e2e__kcget_discover > "$map.$BASHPID" && mv "$map.$BASHPID" "$map" || { rm -f "$map.$BASHPID"; return 1; }
}

# e2e__kcget_discover: the map of every name kubectl accepts for a resource, one line each:
# token, priority (0 core, 1 other), path prefix, plural, namespaced, apiVersion, kind. Aggregated
# discovery (one request, Kubernetes >= 1.26) or, on older servers, every group version in one
# curl.
e2e__kcget_discover() {
  local auth=(--cacert "$CW_E2E_CA" -H "Authorization: Bearer $CW_E2E_TOKEN")
  local agg='application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json'
  local docs
  docs=$(curl -fsS --max-time 30 "${auth[@]}" -H "Accept: $agg" "$CW_E2E_API_URL/api" "$CW_E2E_API_URL/apis") || return 1
  if jq -se 'all(.kind == "APIGroupDiscoveryList")' >/dev/null <<<"$docs"; then
    jq -sr '.[].items[] | (.metadata.name // "") as $g | .versions | to_entries[] | .key as $i | .value.version as $v
      | .value.resources[] | select(.resource | contains("/") | not)
      | (if $g == "" then "v1" else "\($g)/\($v)" end) as $gv
      | (.responseKind.kind // "") as $k
      | [(if $g == "" then "/api/v1" else "/apis/\($g)/\($v)" end), .resource,
         (if .scope == "Namespaced" then "1" else "0" end), $gv, $k] as $row
      | ((if $i == 0 then ([.resource, (.singularResource // ""), ($k | ascii_downcase)] + (.shortNames // []))
            | map(select(. != "")) | (if $g == "" then . else . + map(. + "." + $g) end) else [] end)
         + (if $g == "" then [] else ["\(.resource).\($v).\($g)"] end))[]
      | [., (if $g == "" then "0" else "1" end)] + $row | @tsv' <<<"$docs"
    return
  fi
  # Kubernetes < 1.26: /api/v1 and every version of every group, in one curl.
  local urls=("$CW_E2E_API_URL/api/v1") gv
  for gv in $(jq -r '.groups[]? | .versions[].groupVersion' <<<"$docs"); do
    urls+=("$CW_E2E_API_URL/apis/$gv")
  done
  docs=$(curl -fsS --max-time 30 "${auth[@]}" "${urls[@]}" &&
    curl -fsS --max-time 30 "${auth[@]}" "$CW_E2E_API_URL/apis") || return 1
  jq -sr '(.[-1].groups // [] | map({key: .name, value: .preferredVersion.version}) | from_entries) as $pref
    | .[:-1][] | .groupVersion as $gv | ($gv | split("/")) as $p
    | (if ($p | length) == 1 then "" else $p[0] end) as $g | ($p[-1]) as $v
    | .resources[] | select(.name | contains("/") | not)
    | [(if $g == "" then "/api/v1" else "/apis/\($gv)" end), .name,
       (if .namespaced then "1" else "0" end), $gv, .kind] as $row
    | ((if $g == "" or $pref[$g] == $v then ([.name, (.singularName // ""), (.kind | ascii_downcase)] + (.shortNames // []))
          | map(select(. != "")) | (if $g == "" then . else . + map(. + "." + $g) end) else [] end)
       + (if $g == "" then [] else ["\(.name).\($v).\($g)"] end))[]
    | [., (if $g == "" then "0" else "1" end)] + $row | @tsv' <<<"$docs"
}
