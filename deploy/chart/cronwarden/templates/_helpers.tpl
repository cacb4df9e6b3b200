{{/*
The labels every object of deploy/ carries: cronwarden.labels COMPONENT. No helm.sh/chart or
app.kubernetes.io/managed-by: the objects are those of deploy/base, byte for byte (Helm marks
what it owns with its meta.helm.sh/release-* annotations at install time anyway).
*/}}
{{- define "cronwarden.labels" -}}
app.kubernetes.io/name: cronwarden
app.kubernetes.io/component: {{ . }}
app.kubernetes.io/part-of: cronwarden
{{- end }}

{{/* The selector of a component's Pods. */}}
{{- define "cronwarden.selector" -}}
app.kubernetes.io/name: cronwarden
app.kubernetes.io/component: {{ . }}
{{- end }}

{{- define "cronwarden.namespace" -}}
{{ .Values.namespace.name }}
{{- end }}

{{- define "cronwarden.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}
{{- end }}

{{/* cronwarden.has RECONCILER: "true" when controller.controllers names it, else "". */}}
{{- define "cronwarden.has" -}}
{{- if has .name .root.Values.controller.controllers }}true{{ end }}
{{- end }}

{{/*
Checks of values that values.schema.json cannot express (validate.yaml runs them): a bad
combination fails `helm template`, `helm install` and `helm upgrade` with one of these messages.
*/}}
{{- define "cronwarden.validate" -}}
{{- $v := .Values }}
{{- if and $v.namespace.create (eq .Release.Namespace $v.namespace.name) }}
{{- fail (printf "namespace.create=true: the chart makes and owns Namespace %q and deletes it on uninstall, so the release cannot be stored in it. Install into another namespace (helm install cronwarden CHART --namespace default), or set namespace.create=false to use an existing namespace %q (it then keeps its own labels)" $v.namespace.name $v.namespace.name) }}
{{- end }}
{{- if not $v.longhorn.enabled }}
{{- range $r := list "recurringjob" "volume" }}
{{- if has $r $v.controller.controllers }}
{{- fail (printf "controller.controllers names %s, which needs Longhorn: set longhorn.enabled=true (and longhorn.namespace), or leave %s out" $r $r) }}
{{- end }}
{{- end }}
{{- if $v.upgradeJob.enabled }}
{{- fail "upgradeJob.enabled=true migrates Longhorn's legacy recurring jobs: it needs longhorn.enabled=true (and longhorn.namespace)" }}
{{- end }}
{{- end }}
{{- if and (eq $v.webhook.certificates.mode "selfSigned") $v.webhook.certificates.certManager.issuerRef }}
{{- fail "webhook.certificates.certManager.issuerRef is set, but webhook.certificates.mode is selfSigned: set webhook.certificates.mode=certManager to use that issuer, or drop the issuerRef" }}
{{- end }}
{{- end }}

{{/* Pod scheduling extras of a component (nodeSelector, tolerations, priorityClassName, pull secrets). */}}
{{- define "cronwarden.podExtras" -}}
{{- with .c.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with .c.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .c.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/*
A binding of a role of the same name to the controller's ServiceAccount:
cronwarden.controllerBinding (dict "kind" ClusterRole|Role "name" NAME "namespace" NS-of-a-Role
"sa" NAMESPACE-of-the-ServiceAccount).
*/}}
{{- define "cronwarden.controllerBinding" }}
apiVersion: rbac.authorization.k8s.io/v1
kind: {{ .kind }}Binding
metadata:
  name: {{ .name }}
  {{- if eq .kind "Role" }}
  namespace: {{ .namespace }}
  {{- end }}
  labels:
    {{- include "cronwarden.labels" "controller" | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: {{ .kind }}
  name: {{ .name }}
subjects:
- kind: ServiceAccount
  name: cronwarden-controller
  namespace: {{ .sa }}
{{- end }}
