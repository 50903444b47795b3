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

{{/* Several replicas need every piece of state shared: refuses to render otherwise. */}}
{{- define "svc.checkReplicas" -}}
{{- if gt (int .Values.replicaCount) 1 -}}
{{- if not (or .Values.redis.existingSecret.name .Values.redis.url .Values.redis.enabled) -}}
{{- fail (printf "replicaCount %v needs shared state: set redis.existingSecret.name, redis.url or redis.enabled (otherwise each replica keeps its own sessions, uploaded sources, rate-limit counters and scan lease)" .Values.replicaCount) -}}
{{- end -}}
{{- if not (include "svc.qdrantUrl" .) -}}
{{- fail (printf "replicaCount %v needs one vector store: set vector.qdrantUrl or qdrant.enabled (otherwise each replica keeps its own embedded vectors)" .Values.replicaCount) -}}
{{- end -}}
{{- if and .Values.persistence.enabled (not .Values.persistence.existingClaim) (not (has "ReadWriteMany" .Values.persistence.accessModes)) -}}
{{- fail (printf "replicaCount %v with persistence.enabled needs persistence.accessModes [ReadWriteMany] or an existingClaim that allows it; with Redis and Qdrant, /data holds only caches and can stay an emptyDir (persistence.enabled false)" .Values.replicaCount) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* REDIS_URL: from an existing Secret, a plain value, or the Redis installed with the chart (its password expanded from REDIS_PASSWORD). */}}
{{- define "svc.redisEnv" -}}
{{- if .Values.redis.existingSecret.name }}
- name: REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ .Values.redis.existingSecret.name | quote }}
      key: {{ .Values.redis.existingSecret.key | quote }}
{{- else if .Values.redis.url }}
- name: REDIS_URL
  value: {{ .Values.redis.url | quote }}
{{- else if .Values.redis.enabled }}
{{- if .Values.redis.auth.enabled }}
# not read by svc: only expanded into REDIS_URL below
- name: REDIS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ printf "%s-redis" .Release.Name | quote }}
      key: redis-password
- name: REDIS_URL
  value: {{ printf "redis://:$(REDIS_PASSWORD)@%s-redis-master:6379/0" .Release.Name | quote }}
{{- else }}
- name: REDIS_URL
  value: {{ printf "redis://%s-redis-master:6379/0" .Release.Name | quote }}
{{- end }}
{{- end }}
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

{{/* A model provider without its settings: refuses to render, naming the value to set (svc would refuse to start). */}}
{{- define "svc.checkLlm" -}}
{{- if and (eq .Values.llm.provider "anthropic") (not .Values.secrets.anthropicApiKey.name) -}}
{{- fail "llm.provider anthropic needs secrets.anthropicApiKey.name (a Secret holding ANTHROPIC_API_KEY) and llm.model" -}}
{{- end -}}
{{- if and (eq .Values.llm.provider "bedrock") (not .Values.llm.bedrock.region) -}}
{{- fail "llm.provider bedrock needs llm.bedrock.region and llm.model; credentials come from IRSA (serviceAccount.annotations) or EKS Pod Identity, no key" -}}
{{- end -}}
{{- if and (or (eq .Values.llm.provider "anthropic") (eq .Values.llm.provider "bedrock")) (not .Values.llm.model) -}}
{{- fail (printf "llm.provider %s needs llm.model (SVC_LLM_MODEL)" .Values.llm.provider) -}}
{{- end -}}
{{- end -}}
