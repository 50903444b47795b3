{{/* Chart name, at most 63 characters. */}}
{{- define "svc.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Release-qualified name, at most 63 characters. */}}
{{- define "svc.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "svc.selectorLabels" -}}
app.kubernetes.io/name: {{ include "svc.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "svc.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | trunc 63 | trimSuffix "-" }}
{{ include "svc.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "svc.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "svc.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* QDRANT_URL: the value, else the Qdrant installed with the chart, else empty (embedded store). */}}
{{- define "svc.qdrantUrl" -}}
{{- if .Values.vector.qdrantUrl -}}
{{- .Values.vector.qdrantUrl -}}
{{- else if .Values.qdrant.enabled -}}
{{- printf "http://%s-qdrant:6333" .Release.Name -}}
{{- end -}}
{{- end -}}

{{/* One env entry from a secret reference, when the reference names a Secret. */}}
{{- define "svc.secretEnv" -}}
{{- if .ref.name }}
- name: {{ .env }}
  valueFrom:
    secretKeyRef:
      name: {{ .ref.name | quote }}
      key: {{ .ref.key | quote }}
{{- end }}
{{- end -}}

{{/* One plain env entry, when the value is not empty. */}}
{{- define "svc.env" -}}
{{- if ne (toString .value) "" }}
- name: {{ .env }}
  value: {{ toString .value | quote }}
{{- end }}
{{- end -}}
