# The writes of `kc` through curl (sourced by lib.sh), for the same reason as kcget.sh's reads: a
# kubectl start costs about 0.35 CPU-seconds under the test run's load, a curl about 0.05, and the
# scenarios write thousands of times (stand-ins for Velero patching status, tenants creating
# objects, namespaces). Answered here, as kubectl answers them:
#
#   kc [--as=USER] patch RESOURCE NAME [-n NS] --type merge|json -p PATCH [--subresource status]
#   kc [--as=USER] replace --raw PATH -f FILE
#   kc [--as=USER] create namespace NAME
#   kc [--as=USER] create [-n NS] [--dry-run=server] [--validate=V] [-o json] -f FILE|-
#                                                        (current Kubernetes only)
#
# `create -f` takes YAML documents whose apiVersion and kind are top-level lines and whose only
# `namespace:` is metadata's, or one JSON object (the URL carries the namespace, or -n's, or
# default): each is sent as it is (application/yaml or json) with kubectl's default field
# validation (Strict); kubectl 1.20 validates on the client instead, so on 1.20 kubectl answers.
# Output as kubectl's (`kind.group/name patched|created`, `namespace/NAME created`, the raw answer
# of `replace --raw`), the server's warnings as `Warning: TEXT` on stderr, errors as `Error from
# server (Reason): [error when creating "FILE": ]message`, exit 1.
# Anything else goes to kubectl (exit 125 here). e2e/kc_curl compares both on a table of calls.
# shellcheck shell=bash

e2e__kcwrite() {
  [ "${CW_E2E_KCGET:-1}" = 1 ] && [ -n "${CW_E2E_TOKEN:-}" ] || return 125
  local as=() asarg=()
  case ${1:-} in --as=?*) as=(-H "Impersonate-User: ${1#--as=}"); asarg=("$1"); shift ;; esac
  case ${1:-} in
    patch) shift; e2e__kcwrite_patch "$@" ;;
    replace)
      [ $# = 5 ] && [ "$2" = --raw ] && [ "$4" = -f ] && [ "${3:0:1}" = / ] && [ -e "$5" ] || return 125
      e2e__kcwrite_send PUT "$CW_E2E_API_URL$3" application/json "$5" "" raw kubectl ;;
    create)
      if [ $# = 3 ] && [ "$2" = namespace ] && [[ $3 =~ ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ ]]; then
        e2e__kcwrite_send POST "$CW_E2E_API_URL/api/v1/namespaces?fieldManager=kubectl-create" application/json \
          <(printf '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"%s"}}' "$3") "" \
          "namespace/$3 created"
        return
      fi
      shift; e2e__kcwrite_create "$@" ;;
    *) return 125 ;;
  esac
}

# e2e__kcwrite_patch ARGS...: `kc patch` of one object with a merge or JSON patch.
e2e__kcwrite_patch() {
  local res="" name="" ns="" type="" patch="" sub="" a
  while [ $# -gt 0 ]; do
    a=$1
    case $a in
      -n | --namespace | --type | -p | --patch | --subresource)
        [ $# -ge 2 ] || return 125
        case $a in -n | --namespace) ns=$2 ;; --type) type=$2 ;; --subresource) sub=$2 ;; *) patch=$2 ;; esac
        shift ;;
      --namespace=*) ns=${a#*=} ;;
      --type=*) type=${a#*=} ;;
      --subresource=*) sub=${a#*=} ;;
      -p=* | --patch=*) patch=${a#*=} ;;
      -*) return 125 ;;
      *) if [ -z "$res" ]; then res=$a; elif [ -z "$name" ]; then name=$a; else return 125; fi ;;
    esac
    shift
  done
  local ctype
  case $type in
    merge) ctype=application/merge-patch+json ;;
    json) ctype=application/json-patch+json ;;
    *) return 125 ;; # strategic (kubectl's default) needs the type's patch strategy
  esac
  [ -n "$res" ] && [ -n "$name" ] && [ -n "$patch" ] || return 125
  case $sub in "" | status | scale) ;; *) return 125 ;; esac
  case $res$name in */* | *,* | *'?'* | *'#'* | *%*) return 125 ;; esac
  local row prefix plural namespaced apiversion kind path
  row=$(e2e__kcget_resolve "$res") || return 125
  IFS=$'\t' read -r prefix plural namespaced apiversion kind <<<"$row"
  path=$prefix
  [ "$namespaced" = 1 ] && path+="/namespaces/${ns:-default}"
  path+="/$plural/$name${sub:+/$sub}"
  # kubectl reads the object first and says "(no change)" when the answer equals it: the
  # resourceVersion moves with any change.
  local before after t=$CW_E2E_DIR/kcwrite-rv.$BASHPID rc=0
  e2e__kcwrite_send GET "$CW_E2E_API_URL$path" "" /dev/null "" raw > "$t" || rc=$?
  [ "$rc" = 0 ] || { rm -f "$t"; return "$rc"; }
  before=$(grep -o '"resourceVersion":"[0-9]*"' "$t" | sed -n 1p)
  e2e__kcwrite_send PATCH "$CW_E2E_API_URL$path?fieldManager=kubectl-patch" "$ctype" <(printf '%s' "$patch") "" raw > "$t" || rc=$?
  after=$(grep -o '"resourceVersion":"[0-9]*"' "$t" | sed -n 1p)
  rm -f "$t"
  [ "$rc" = 0 ] || return "$rc"
  if [ -n "$before" ] && [ "$before" = "$after" ]; then
    printf '%s/%s patched (no change)\n' "$(e2e__kcwrite_kind "$apiversion" "$kind")" "$name"
  else
    printf '%s/%s patched\n' "$(e2e__kcwrite_kind "$apiversion" "$kind")" "$name"
  fi
}

# e2e__kcwrite_create ARGS...: `kc create -f` of YAML documents or one JSON object (see the top
# of this file). Input that is not a regular file (stdin, a pipe such as <(...)) is read once;
# when kubectl must answer after all, it reads that copy under the same name (stdin, the same
# /dev/fd/N), so that its messages name what the caller gave.
e2e__kcwrite_create() {
  [ "${CW_E2E_K8S:-current}" != 1.20 ] || return 125
  local file="" ns="" query="?fieldManager=kubectl-create" valid=Strict dry="" json="" a args=("$@")
  while [ $# -gt 0 ]; do
    a=$1
    case $a in
      -f | --filename | -n | --namespace)
        [ $# -ge 2 ] || return 125
        case $a in -f | --filename) [ -z "$file" ] || return 125; file=$2 ;; *) ns=$2 ;; esac
        shift ;;
      --namespace=*) ns=${a#*=} ;;
      --dry-run=server) query+="&dryRun=All"; dry=" (server dry run)" ;;
      # kubectl's --validate as the server's field validation.
      --validate=true | --validate=strict) valid=Strict ;;
      --validate=false | --validate=ignore) valid=Ignore ;;
      --validate=warn) valid=Warn ;;
      -o | --output) [ $# -ge 2 ] && [ "$2" = json ] || return 125; json=1; shift ;;
      -ojson | -o=json | --output=json) json=1 ;;
      *) return 125 ;;
    esac
    shift
  done
  query+="&fieldValidation=$valid"
  local dir=$CW_E2E_DIR/kcwrite.$BASHPID shown=$file src=$file fd=""
  case $file in
    -) shown=STDIN; src=$dir/in ;;
    /dev/fd/[0-9]*) fd=${file#/dev/fd/}; [[ $fd =~ ^[0-9]+$ ]] || return 125; src=$dir/in ;;
    *) [ -f "$file" ] || return 125 ;;
  esac
  rm -rf "$dir"; mkdir -p "$dir"
  if [ "$src" = "$dir/in" ] && ! cat -- "$file" > "$dir/in"; then rm -rf "$dir"; return 125; fi
  local rows=() ok=1 doc row docns i namespaced ctype=application/yaml
  if [ "$(tr -d ' \t\r\n' < "$src" | head -c 1)" = "{" ]; then
    # One JSON object (kubectl also takes a stream of them, and Lists: those are kubectl's).
    ctype=application/json
    cp "$src" "$dir/doc.0"
    jq -ser 'if length == 1 and (.[0] | type) == "object" and (.[0].kind // "" | endswith("List") | not)
      then .[0] | [.apiVersion // "", .kind // "", .metadata.namespace // ""] | @tsv else error("") end' \
      "$src" > "$dir/json.tsv" 2>/dev/null || ok=0
    if [ "$ok" = 1 ]; then
      IFS=$'\t' read -r a row docns < "$dir/json.tsv"
      printf '%s\n%s\n' "apiVersion: $a" "kind: $row" > "$dir/head.0"
      [ -z "$docns" ] || printf '%s\n' "$docns" > "$dir/ns.0"
    fi
  else
    # One file a document (doc.N, its metadata.namespace in ns.N); none that kubectl would read
    # differently: a List, a `namespace:` anywhere but in the top-level metadata.
    awk -v d="$dir" '
      BEGIN { n = 0 }
      /^---[ \t]*$/ { n++; meta = 0; next }
      { print > (d "/doc." n) }
      /^kind: *[A-Za-z]*List *$/ { bad = 1 }
      /^[^ #]/ { meta = 0 }
      /^metadata: *$/ { meta = 1; next }
      {
        line = $0
        c = gsub(/namespace:/, "&", line)
        if (c == 0) next
        total[n] += c
        v = ""
        if (meta && $0 ~ /^  namespace: *[^ ]+ *$/) { v = $0; sub(/^  namespace: */, "", v) }
        else if ($0 ~ /^metadata: *[{].*[}] *$/ && match($0, /[{,] *namespace: *[^,} ]+/)) {
          v = substr($0, RSTART, RLENGTH); sub(/^[{,] *namespace: */, "", v)
        }
        if (v == "") next
        sub(/ *$/, "", v); gsub(/^["\047]|["\047]$/, "", v)
        found[n]++; nsv[n] = v
      }
      END {
        for (i = 0; i <= n; i++) {
          if (total[i] + 0 != found[i] + 0 || found[i] > 1) bad = 1
          if (i in nsv) print nsv[i] > (d "/ns." i)
        }
        exit bad
      }' "$src" || ok=0
  fi
  for ((i = 0; ok && i < 100000; i++)); do
    doc=$dir/doc.$i
    [ -f "$doc" ] || break
    grep -q '[^[:space:]]' "$doc" || continue
    [ -f "$dir/head.$i" ] || cp "$doc" "$dir/head.$i"
    row=$(e2e__kcwrite_row "$(sed -n 's/^apiVersion: *\([^ ]*\) *$/\1/p' "$dir/head.$i")" \
      "$(sed -n 's/^kind: *\([^ ]*\) *$/\1/p' "$dir/head.$i")") || { ok=0; break; }
    docns=$(cat "$dir/ns.$i" 2>/dev/null || true)
    IFS=$'\t' read -r _ _ namespaced _ <<<"$row"
    if [ "$namespaced" = 0 ]; then
      [ -z "$docns" ] || ok=0
    else # -n and the document's disagree: kubectl's own error
      [ -z "$ns" ] || [ -z "$docns" ] || [ "$ns" = "$docns" ] || ok=0
    fi
    rows+=("$row	$doc	${ns:-${docns:-default}}")
  done
  [ ${#rows[@]} -gt 0 ] || ok=0
  [ -z "$json" ] || [ ${#rows[@]} = 1 ] || ok=0 # several objects: kubectl prints a List
  if [ "$ok" = 0 ]; then
    [ "$src" = "$file" ] && { rm -rf "$dir"; return 125; }
    local k=("$CW_KUBECTL" --cache-dir "$CW_E2E_DIR/kube-cache" ${asarg[@]+"${asarg[@]}"} create "${args[@]}")
    if [ -n "$fd" ]; then eval '"${k[@]}"' "$fd"'< "$dir/in"'; else "${k[@]}" < "$dir/in"; fi
    a=$?; rm -rf "$dir"; return "$a"
  fi
  local rc=0 prefix plural apiversion kind path
  for row in "${rows[@]}"; do
    IFS=$'\t' read -r prefix plural namespaced apiversion kind doc docns <<<"$row"
    path=$prefix
    [ "$namespaced" = 1 ] && path+="/namespaces/$docns"
    e2e__kcwrite_send POST "$CW_E2E_API_URL$path/$plural$query" "$ctype" "$doc" \
      "error when creating \"$shown\": " "${json:+json}$(e2e__kcwrite_kind "$apiversion" "$kind")/%s created$dry" || rc=1
  done
  rm -rf "$dir"
  return "$rc"
}

# e2e__kcwrite_row APIVERSION KIND: the discovery row (as e2e__kcget_resolve prints it) of the
# resource whose objects are KIND in APIVERSION; fails when there is not exactly one.
e2e__kcwrite_row() {
  local map=$CW_E2E_DIR/kcget-resources.tsv try row
  [ -n "$1" ] && [ -n "$2" ] || return 1
  for try in 1 2; do
    e2e__kcget_map || return 1
    row=$(awk -F'\t' -v v="$1" -v k="$2" '$6 == v && $7 == k { print $3 "\t" $4 "\t" $5 "\t" $6 "\t" $7 }' "$map" | sort -u)
    [ -n "$row" ] && [ "$(printf '%s\n' "$row" | wc -l)" = 1 ] && { printf '%s\n' "$row"; return 0; }
    [ -z "$row" ] && [ "$try" = 1 ] || return 1
    rm -f "$map" # a CRD created since the map was made
  done
  return 1
}

# e2e__kcwrite_kind APIVERSION KIND: kubectl's name of the type in its messages: kind in lower
# case, with the group when there is one (backup.velero.io, namespace).
e2e__kcwrite_kind() {
  local k
  k=$(printf '%s' "$2" | tr '[:upper:]' '[:lower:]')
  case $1 in */*) printf '%s.%s' "$k" "${1%%/*}" ;; *) printf '%s' "$k" ;; esac
}

# e2e__kcwrite_send METHOD URL CONTENT-TYPE BODYFILE ERRPREFIX OK [AGENT]: sends BODYFILE as admin
# (or as kc's --as user: the caller's `as` array); on success prints OK (raw: the answer; a %s in
# it: the answer's metadata.name), on an error status kubectl's message. 125 when curl itself
# failed, or the server does not know the path (a stale discovery map: kubectl finds out why).
# The field manager is kubectl's: the URL's fieldManager (kubectl-create, kubectl-patch) or, for
# `replace --raw`, the one the server derives from the User-Agent AGENT/... (kubectl). Not curl's
# agent either way: for it a 1.20 apiserver indents its JSON, for kubectl it does not.
e2e__kcwrite_send() {
  local tmp=$CW_E2E_DIR/kcwrite-out.$BASHPID code rc=0 name
  local body=()
  [ "$1" = GET ] || body=(-X "$1" -H "Content-Type: $3" --data-binary "@$4")
  code=$(curl -sS --max-time 60 --cacert "$CW_E2E_CA" -H "Authorization: Bearer $CW_E2E_TOKEN" \
    ${as[@]+"${as[@]}"} -A "${7:-cronwarden-e2e-kcget}/cronwarden-e2e" "${body[@]}" \
    -D "$tmp.h" -o "$tmp" -w '%{http_code}' "$2" 2>/dev/null) || { rm -f "$tmp" "$tmp.h"; return 125; }
  # The server's warnings (deprecations, admission webhooks), as kubectl prints them.
  sed -n 's/^[Ww]arning: [0-9]* [^ ]* "\(.*\)"\r*$/Warning: \1/p' "$tmp.h" | sed 's/\\\(["\\]\)/\1/g' >&2
  if [ "$code" = 404 ] && ! jq -e '.kind == "Status" and (.details.name // "") != ""' "$tmp" >/dev/null 2>&1; then
    rm -f "$tmp" "$tmp.h" "$CW_E2E_DIR/kcget-resources.tsv"
    return 125
  fi
  if ! [ "$code" -ge 200 ] 2>/dev/null || ! [ "$code" -lt 300 ]; then
    [ "$code" -ge 400 ] 2>/dev/null || { rm -f "$tmp" "$tmp.h"; return 125; }
    # kubectl's CheckErr: an Invalid status as "The KIND "NAME" is invalid: FIELD: MESSAGE" (one
    # line a cause after the first), or with neither kind, name nor causes "The request is
    # invalid: MESSAGE"; any other as "Error from server (REASON): MESSAGE".
    jq -er --arg p "$5" 'select(.kind == "Status") |
      if .reason == "Invalid" then
        (if (.details.kind // "") != "" or (.details.name // "") != ""
         then "The \(.details.kind // "") \"\(.details.name // "")\" is invalid"
         elif (.details.causes // []) == [] and (.message // "") != ""
         then "The request is invalid: \($p)\(.message)" else "The request is invalid" end) as $s
        | (reduce (.details.causes // [])[] as $c ([]; "\($c.field // ""): \($c.message // "")" as $m
            | if any(.[]; . == $m) then . else . + [$m] end)) as $c
        | if ($c | length) == 0 then $s elif ($c | length) == 1 then "\($s): \($c[0])"
          else "\($s): \n" + ($c | map("* " + .) | join("\n")) end
      else "Error from server (\(.reason // "Unknown")): \($p)\(.message // "")" end' \
      "$tmp" >&2 2>/dev/null || { printf 'Error from server: %s' "$5"; cat "$tmp"; echo; } >&2
    rm -f "$tmp" "$tmp.h"
    return 1
  fi
  case $6 in
    raw) cat "$tmp" ;;
    json*) jq -S --indent 4 'del(.metadata.managedFields)' "$tmp" || rc=1 ;; # kubectl's -o json
    *%s*) name=$(jq -r '.metadata.name' "$tmp") || rc=1; printf "$6\n" "$name" ;;
    *) printf '%s\n' "$6" ;;
  esac
  rm -f "$tmp" "$tmp.h"
  return "$rc"
}
