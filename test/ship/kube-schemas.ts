/**
 * Compact JSON schemas of the Kubernetes objects charts/svc renders, covering
 * every field the chart uses, transcribed from the Kubernetes 1.31 OpenAPI
 * (field names, types, enums, required). Objects are closed
 * (additionalProperties false), so a misspelt or misplaced field fails, as
 * `kubectl apply --validate=strict` would. No schema package installs here for
 * Node 20 (kubernetes-models needs Node 22), hence this subset.
 */

export type Schema = {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  enum?: unknown[];
  pattern?: string;
  anyOf?: Schema[];
  minimum?: number;
  maximum?: number;
};

const str: Schema = { type: 'string' };
const int: Schema = { type: 'integer' };
const bool: Schema = { type: 'boolean' };
const strMap: Schema = { type: 'object', additionalProperties: str };
const strList: Schema = { type: 'array', items: str };
const obj = (properties: Record<string, Schema>, required: string[] = []): Schema => ({ type: 'object', properties, required, additionalProperties: false });
const DNS_LABEL = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';
const DNS_SUBDOMAIN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';
const ENV_NAME = '^[-._a-zA-Z][-._a-zA-Z0-9]*$';
const quantity: Schema = { anyOf: [{ type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?(m|k|Ki|Mi|Gi|Ti|M|G|T)?$' }, { type: 'number' }] };
const intOrString: Schema = { anyOf: [int, str] };
const port: Schema = { type: 'integer', minimum: 1, maximum: 65535 };

const objectMeta = obj({
  name: { type: 'string', pattern: DNS_SUBDOMAIN },
  namespace: { type: 'string', pattern: DNS_LABEL },
  labels: strMap,
  annotations: strMap,
});
const labelSelector = obj({ matchLabels: strMap });
const seccomp = obj({ type: { type: 'string', enum: ['RuntimeDefault', 'Localhost', 'Unconfined'] }, localhostProfile: str }, ['type']);
const podSecurityContext = obj({
  runAsNonRoot: bool,
  runAsUser: int,
  runAsGroup: int,
  fsGroup: int,
  fsGroupChangePolicy: str,
  supplementalGroups: { type: 'array', items: int },
  seccompProfile: seccomp,
});
const securityContext = obj({
  allowPrivilegeEscalation: bool,
  readOnlyRootFilesystem: bool,
  runAsNonRoot: bool,
  runAsUser: int,
  runAsGroup: int,
  privileged: bool,
  capabilities: obj({ add: strList, drop: strList }),
  seccompProfile: seccomp,
});
const envVar = obj(
  {
    name: { type: 'string', pattern: ENV_NAME },
    value: str,
    valueFrom: obj({
      secretKeyRef: obj({ name: str, key: str, optional: bool }, ['key']),
      configMapKeyRef: obj({ name: str, key: str, optional: bool }, ['key']),
      fieldRef: obj({ apiVersion: str, fieldPath: str }, ['fieldPath']),
    }),
  },
  ['name'],
);
const probe = obj({
  httpGet: obj({ path: str, port: intOrString, scheme: { type: 'string', enum: ['HTTP', 'HTTPS'] }, host: str }, ['port']),
  initialDelaySeconds: int,
  periodSeconds: int,
  timeoutSeconds: int,
  failureThreshold: int,
  successThreshold: int,
});
const resources = obj({ requests: { type: 'object', additionalProperties: quantity }, limits: { type: 'object', additionalProperties: quantity } });
const container = obj(
  {
    name: { type: 'string', pattern: DNS_LABEL },
    image: str,
    imagePullPolicy: { type: 'string', enum: ['Always', 'IfNotPresent', 'Never'] },
    command: strList,
    args: strList,
    securityContext,
    ports: {
      type: 'array',
      items: obj({ name: { type: 'string', pattern: '^[a-z0-9-]{1,15}$' }, containerPort: port, protocol: { type: 'string', enum: ['TCP', 'UDP', 'SCTP'] } }, [
        'containerPort',
      ]),
    },
    env: { type: 'array', items: envVar },
    livenessProbe: probe,
    readinessProbe: probe,
    startupProbe: probe,
    resources,
    volumeMounts: { type: 'array', items: obj({ name: str, mountPath: str, readOnly: bool, subPath: str }, ['name', 'mountPath']) },
  },
  ['name'],
);
const volume = obj(
  {
    name: { type: 'string', pattern: DNS_LABEL },
    emptyDir: obj({ medium: str, sizeLimit: quantity }),
    persistentVolumeClaim: obj({ claimName: str, readOnly: bool }, ['claimName']),
  },
  ['name'],
);
const podSpec = obj(
  {
    serviceAccountName: str,
    automountServiceAccountToken: bool,
    terminationGracePeriodSeconds: int,
    imagePullSecrets: { type: 'array', items: obj({ name: str }) },
    securityContext: podSecurityContext,
    containers: { type: 'array', items: container },
    volumes: { type: 'array', items: volume },
    nodeSelector: strMap,
    affinity: { type: 'object' },
    topologySpreadConstraints: {
      type: 'array',
      items: obj(
        {
          maxSkew: { type: 'integer', minimum: 1 },
          topologyKey: str,
          whenUnsatisfiable: { type: 'string', enum: ['DoNotSchedule', 'ScheduleAnyway'] },
          labelSelector,
          minDomains: int,
          matchLabelKeys: strList,
          nodeAffinityPolicy: { type: 'string', enum: ['Honor', 'Ignore'] },
          nodeTaintsPolicy: { type: 'string', enum: ['Honor', 'Ignore'] },
        },
        ['maxSkew', 'topologyKey', 'whenUnsatisfiable'],
      ),
    },
    tolerations: { type: 'array', items: { type: 'object' } },
  },
  ['containers'],
);
const head = (apiVersion: string, kind: string) => ({
  apiVersion: { type: 'string', enum: [apiVersion] } as Schema,
  kind: { type: 'string', enum: [kind] } as Schema,
  metadata: objectMeta,
});
const policyRule = obj({ apiGroups: strList, resources: strList, resourceNames: strList, nonResourceURLs: strList, verbs: strList }, ['verbs']);

export const KUBE_SCHEMAS: Record<string, Schema> = {
  'apps/v1/Deployment': obj(
    {
      ...head('apps/v1', 'Deployment'),
      spec: obj(
        {
          replicas: int,
          selector: labelSelector,
          strategy: obj({ type: { type: 'string', enum: ['Recreate', 'RollingUpdate'] }, rollingUpdate: { type: 'object' } }),
          template: obj({ metadata: obj({ labels: strMap, annotations: strMap }), spec: podSpec }, ['spec']),
        },
        ['selector', 'template'],
      ),
    },
    ['apiVersion', 'kind', 'metadata', 'spec'],
  ),
  'v1/Service': obj(
    {
      ...head('v1', 'Service'),
      spec: obj({
        type: { type: 'string', enum: ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'] },
        ports: {
          type: 'array',
          items: obj({ name: str, port, targetPort: intOrString, protocol: { type: 'string', enum: ['TCP', 'UDP', 'SCTP'] }, nodePort: int }, ['port']),
        },
        selector: strMap,
      }),
    },
    ['apiVersion', 'kind', 'metadata'],
  ),
  'policy/v1/PodDisruptionBudget': obj(
    {
      ...head('policy/v1', 'PodDisruptionBudget'),
      spec: obj({
        maxUnavailable: intOrString,
        minAvailable: intOrString,
        selector: labelSelector,
        unhealthyPodEvictionPolicy: { type: 'string', enum: ['IfHealthyBudget', 'AlwaysAllow'] },
      }),
    },
    ['apiVersion', 'kind', 'metadata', 'spec'],
  ),
  // prometheus-operator's CRD, the fields the chart sets
  'monitoring.coreos.com/v1/ServiceMonitor': obj(
    {
      ...head('monitoring.coreos.com/v1', 'ServiceMonitor'),
      spec: obj(
        {
          selector: labelSelector,
          namespaceSelector: obj({ any: bool, matchNames: strList }),
          endpoints: {
            type: 'array',
            items: obj({
              port: str,
              path: str,
              scheme: { type: 'string', enum: ['http', 'https'] },
              interval: { type: 'string', pattern: '^(0|(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$' },
              scrapeTimeout: { type: 'string', pattern: '^(0|(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$' },
              authorization: obj({ type: str, credentials: obj({ name: str, key: str, optional: bool }, ['key']) }),
            }),
          },
        },
        ['selector', 'endpoints'],
      ),
    },
    ['apiVersion', 'kind', 'metadata', 'spec'],
  ),
  'v1/ServiceAccount': obj({ ...head('v1', 'ServiceAccount'), automountServiceAccountToken: bool }, ['apiVersion', 'kind', 'metadata']),
  'v1/PersistentVolumeClaim': obj(
    {
      ...head('v1', 'PersistentVolumeClaim'),
      spec: obj({
        accessModes: { type: 'array', items: { type: 'string', enum: ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'] } },
        storageClassName: str,
        resources: obj({ requests: { type: 'object', additionalProperties: quantity } }),
      }),
    },
    ['apiVersion', 'kind', 'metadata', 'spec'],
  ),
  'rbac.authorization.k8s.io/v1/ClusterRole': obj({ ...head('rbac.authorization.k8s.io/v1', 'ClusterRole'), rules: { type: 'array', items: policyRule } }, [
    'apiVersion',
    'kind',
    'metadata',
  ]),
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': obj(
    {
      ...head('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding'),
      roleRef: obj({ apiGroup: str, kind: { type: 'string', enum: ['ClusterRole', 'Role'] }, name: str }, ['apiGroup', 'kind', 'name']),
      subjects: {
        type: 'array',
        items: obj({ kind: { type: 'string', enum: ['ServiceAccount', 'User', 'Group'] }, name: str, namespace: str, apiGroup: str }, ['kind', 'name']),
      },
    },
    ['apiVersion', 'kind', 'metadata', 'roleRef'],
  ),
};

function typeOf(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** Every violation of `schema` in `value`, as `path: problem`; empty when valid. */
export function validate(schema: Schema, value: unknown, at = ''): string[] {
  if (schema.anyOf)
    return schema.anyOf.some((s) => validate(s, value, at).length === 0) ? [] : [`${at}: matches none of the allowed shapes (${JSON.stringify(value)})`];
  const t = typeOf(value);
  if (schema.type && !(t === schema.type || (schema.type === 'number' && t === 'integer')))
    return [`${at}: expected ${schema.type}, got ${t} (${JSON.stringify(value)})`];
  const errors: string[] = [];
  if (schema.enum && !schema.enum.includes(value)) errors.push(`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
  if (schema.pattern && typeof value === 'string' && !new RegExp(schema.pattern).test(value)) errors.push(`${at}: "${value}" does not match ${schema.pattern}`);
  if (typeof value === 'number' && ((schema.minimum !== undefined && value < schema.minimum) || (schema.maximum !== undefined && value > schema.maximum)))
    errors.push(`${at}: ${value} out of range`);
  if (t === 'array' && schema.items) (value as unknown[]).forEach((item, i) => errors.push(...validate(schema.items!, item, `${at}[${i}]`)));
  if (t === 'object') {
    const o = value as Record<string, unknown>;
    for (const r of schema.required ?? []) if (!(r in o)) errors.push(`${at}: missing required field ${r}`);
    for (const [k, v] of Object.entries(o)) {
      const p = schema.properties?.[k];
      if (p) errors.push(...validate(p, v, `${at}.${k}`));
      else if (schema.additionalProperties === false) errors.push(`${at}: unknown field "${k}"`);
      else if (typeof schema.additionalProperties === 'object') errors.push(...validate(schema.additionalProperties, v, `${at}.${k}`));
    }
  }
  return errors;
}
