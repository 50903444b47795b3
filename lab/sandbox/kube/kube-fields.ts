/**
 * The fields the stand-in's kinds declare, for field validation as
 * kube-apiserver does it (`fieldValidation` on writes): `Strict` refuses an
 * unknown field with 400 BadRequest ("strict decoding error: unknown field
 * \"spec.replica\""), `Warn` (the server's default) and `Ignore` drop it,
 * `Warn` with a `Warning: 299` header. `true` is a subtree the check does not
 * enter; `'*'` is a map's any key. A kind missing here is not checked.
 */
import type { Obj } from './kube-cluster.js';

type Fields = { [key: string]: Fields | true };
const OPEN = true as const;

const METADATA: Fields = {
  name: OPEN,
  generateName: OPEN,
  namespace: OPEN,
  labels: OPEN,
  annotations: OPEN,
  uid: OPEN,
  resourceVersion: OPEN,
  generation: OPEN,
  creationTimestamp: OPEN,
  deletionTimestamp: OPEN,
  deletionGracePeriodSeconds: OPEN,
  finalizers: OPEN,
  ownerReferences: OPEN,
  managedFields: OPEN,
  selfLink: OPEN,
};

const CONTAINER: Fields = {
  name: OPEN,
  image: OPEN,
  imagePullPolicy: OPEN,
  command: OPEN,
  args: OPEN,
  workingDir: OPEN,
  ports: { name: OPEN, containerPort: OPEN, protocol: OPEN, hostPort: OPEN, hostIP: OPEN },
  env: { name: OPEN, value: OPEN, valueFrom: OPEN },
  envFrom: OPEN,
  resources: { limits: OPEN, requests: OPEN, claims: OPEN },
  volumeMounts: { name: OPEN, mountPath: OPEN, readOnly: OPEN, subPath: OPEN, subPathExpr: OPEN, mountPropagation: OPEN, recursiveReadOnly: OPEN },
  volumeDevices: OPEN,
  livenessProbe: OPEN,
  readinessProbe: OPEN,
  startupProbe: OPEN,
  lifecycle: OPEN,
  securityContext: OPEN,
  terminationMessagePath: OPEN,
  terminationMessagePolicy: OPEN,
  restartPolicy: OPEN,
  resizePolicy: OPEN,
  stdin: OPEN,
  stdinOnce: OPEN,
  tty: OPEN,
};

const POD_SPEC: Fields = {
  containers: CONTAINER,
  initContainers: CONTAINER,
  ephemeralContainers: OPEN,
  volumes: OPEN,
  restartPolicy: OPEN,
  terminationGracePeriodSeconds: OPEN,
  activeDeadlineSeconds: OPEN,
  dnsPolicy: OPEN,
  dnsConfig: OPEN,
  nodeSelector: OPEN,
  nodeName: OPEN,
  serviceAccountName: OPEN,
  serviceAccount: OPEN,
  automountServiceAccountToken: OPEN,
  securityContext: OPEN,
  imagePullSecrets: OPEN,
  affinity: OPEN,
  tolerations: OPEN,
  topologySpreadConstraints: OPEN,
  schedulerName: OPEN,
  priorityClassName: OPEN,
  priority: OPEN,
  hostNetwork: OPEN,
  hostPID: OPEN,
  hostIPC: OPEN,
  hostname: OPEN,
  subdomain: OPEN,
  enableServiceLinks: OPEN,
  preemptionPolicy: OPEN,
  runtimeClassName: OPEN,
  overhead: OPEN,
  readinessGates: OPEN,
  shareProcessNamespace: OPEN,
  os: OPEN,
  hostAliases: OPEN,
  hostUsers: OPEN,
  setHostnameAsFQDN: OPEN,
  schedulingGates: OPEN,
  resourceClaims: OPEN,
  resources: OPEN,
};

const TEMPLATE: Fields = { metadata: METADATA, spec: POD_SPEC };
const WORKLOAD: Fields = { replicas: OPEN, selector: OPEN, template: TEMPLATE, minReadySeconds: OPEN };

const SPECS: Record<string, Fields | true> = {
  Deployment: { ...WORKLOAD, strategy: OPEN, revisionHistoryLimit: OPEN, progressDeadlineSeconds: OPEN, paused: OPEN },
  ReplicaSet: WORKLOAD,
  StatefulSet: {
    ...WORKLOAD,
    serviceName: OPEN,
    volumeClaimTemplates: OPEN,
    podManagementPolicy: OPEN,
    updateStrategy: OPEN,
    revisionHistoryLimit: OPEN,
    persistentVolumeClaimRetentionPolicy: OPEN,
    ordinals: OPEN,
  },
  DaemonSet: { selector: OPEN, template: TEMPLATE, updateStrategy: OPEN, minReadySeconds: OPEN, revisionHistoryLimit: OPEN },
  Job: {
    template: TEMPLATE,
    selector: OPEN,
    manualSelector: OPEN,
    parallelism: OPEN,
    completions: OPEN,
    completionMode: OPEN,
    backoffLimit: OPEN,
    backoffLimitPerIndex: OPEN,
    maxFailedIndexes: OPEN,
    activeDeadlineSeconds: OPEN,
    ttlSecondsAfterFinished: OPEN,
    suspend: OPEN,
    podFailurePolicy: OPEN,
    podReplacementPolicy: OPEN,
    successPolicy: OPEN,
    managedBy: OPEN,
  },
  Pod: POD_SPEC,
  CronJob: OPEN,
  Service: OPEN,
  PersistentVolumeClaim: OPEN,
  Namespace: OPEN,
};

const TOP: Record<string, Fields> = {
  ConfigMap: { data: OPEN, binaryData: OPEN, immutable: OPEN },
  Secret: { data: OPEN, stringData: OPEN, type: OPEN, immutable: OPEN },
  ServiceAccount: { secrets: OPEN, imagePullSecrets: OPEN, automountServiceAccountToken: OPEN },
  ClusterRole: { rules: OPEN, aggregationRule: OPEN },
  Role: { rules: OPEN },
  ClusterRoleBinding: { roleRef: OPEN, subjects: OPEN },
  RoleBinding: { roleRef: OPEN, subjects: OPEN },
};

/** The declared fields of a kind, or undefined when the stand-in does not check it (custom resources keep unknown fields). */
function fieldsOf(kind: string): Fields | undefined {
  const base: Fields = { apiVersion: OPEN, kind: OPEN, metadata: METADATA, status: OPEN };
  if (kind in SPECS) return { ...base, spec: SPECS[kind] };
  if (kind in TOP) return { ...base, ...TOP[kind] };
  return undefined;
}

/** Paths of the fields in `obj` that `kind` does not declare, as the server names them (`spec.template.spec.containers[0].imag`). */
export function unknownFields(kind: string, obj: Obj): string[] {
  const fields = fieldsOf(kind);
  const out: string[] = [];
  if (fields) walk(obj, fields, '', out);
  return out;
}

function walk(value: unknown, fields: Fields, at: string, out: string[]): void {
  if (Array.isArray(value)) return value.forEach((v, i) => walk(v, fields, `${at}[${i}]`, out));
  if (!value || typeof value !== 'object') return;
  for (const [k, v] of Object.entries(value)) {
    const path = at ? `${at}.${k}` : k;
    const declared = fields[k];
    if (declared === undefined) out.push(path);
    else if (declared !== true) walk(v, declared, path, out);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object';

/** `obj` without the fields at `paths` (what Warn and Ignore do with them). */
export function pruneFields(obj: Obj, paths: string[]): Obj {
  const out = structuredClone(obj);
  for (const p of paths) {
    const parts = p.match(/[^.[\]]+|\[\d+\]/g) ?? [];
    let at: unknown = out;
    for (const part of parts.slice(0, -1)) at = isObject(at) ? at[part.startsWith('[') ? part.slice(1, -1) : part] : undefined;
    if (isObject(at)) delete at[parts.at(-1)!];
  }
  return out;
}
