/**
 * Server-side printing, as kube-apiserver answers a GET that asks for
 * `Accept: application/json;as=Table;v=v1;g=meta.k8s.io` (what `kubectl get`
 * sends): a meta.k8s.io/v1 Table with the columns the real server's printers
 * declare for the kind (pkg/printers/internalversion: pods get NAME READY
 * STATUS RESTARTS AGE, wide adds IP and NODE...), cells computed from the
 * object, and each row's object as PartialObjectMetadata (`includeObject=Metadata`,
 * the default), the whole object (`Object`) or nothing (`None`). Kinds without
 * a printer get NAME and AGE, as a custom resource without printer columns does.
 */
import type { Obj } from './kube-cluster.js';

interface Column {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
  cell: (o: Obj, nowMs: number) => unknown;
}

/** Whether an Accept header asks for a Table (kubectl lists Table first, plain JSON as the fallback). */
export function wantsTable(accept: string | undefined): boolean {
  return /(^|,)\s*application\/json;\s*as=Table;\s*v=v1(beta1)?;\s*g=meta\.k8s\.io/.test(accept ?? '');
}

/** apimachinery's duration.HumanDuration: `45s`, `3m20s`, `12m`, `5h10m`, `3d4h`, `400d`. */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 ? `${minutes}m${seconds % 60}s` : `${minutes}m`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 ? `${hours}h${minutes % 60}m` : `${hours}h`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 ? `${Math.floor(hours / 24)}d${hours % 24}h` : `${hours / 24}d`;
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 365 * 8) return days % 365 ? `${Math.floor(days / 365)}y${days % 365}d` : `${days / 365}y`;
  return `${Math.floor(days / 365)}y`;
}

const since = (t: string | undefined, nowMs: number) => (t ? humanDuration(nowMs - Date.parse(t)) : '<unknown>');
const col = (name: string, cell: Column['cell'], description: string, extra: Partial<Column> = {}): Column => ({
  name,
  type: 'string',
  format: '',
  description,
  priority: 0,
  cell,
  ...extra,
});
const NAME = col('Name', (o) => o.metadata.name, 'Name must be unique within a namespace.', { format: 'name' });
const AGE = col(
  'Age',
  (o, now) => since(o.metadata.creationTimestamp, now),
  'CreationTimestamp is a timestamp representing the server time when this object was created.',
);
const int = (name: string, cell: Column['cell'], description: string, extra: Partial<Column> = {}) =>
  col(name, cell, description, { type: 'integer', ...extra });
const wide = { priority: 1 };
const orNone = (v: unknown) => (v === undefined || v === null || v === '' ? '<none>' : String(v));
const selectorText = (s: Obj | undefined) =>
  orNone(
    Object.entries((s?.matchLabels as Record<string, string>) ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(','),
  );
const containers = (spec: Obj | undefined) => (spec?.containers ?? []) as Obj[];
const templateContainers = (o: Obj, field: 'name' | 'image') =>
  containers(o.spec?.template?.spec)
    .map((c) => c[field])
    .join(',');

/** printPod's STATUS: `Init:<reason>` or `Init:i/n` while an init container has not completed, else the phase, then the reason of the last container that is not running, Terminating once deleted. */
function podStatus(p: Obj): string {
  let reason: string = p.status?.reason ?? p.status?.phase ?? 'Unknown';
  let running = false;
  const inits = (p.status?.initContainerStatuses ?? []) as Obj[];
  const blocking = inits.findIndex((s) => s.state?.terminated?.exitCode !== 0);
  if (blocking >= 0 && !p.metadata.deletionTimestamp) {
    const s = inits[blocking];
    if (s.state?.terminated) return s.state.terminated.reason ? `Init:${s.state.terminated.reason}` : `Init:ExitCode:${s.state.terminated.exitCode}`;
    if (s.state?.waiting?.reason && s.state.waiting.reason !== 'PodInitializing') return `Init:${s.state.waiting.reason}`;
    return `Init:${blocking}/${inits.length}`;
  }
  for (const cs of [...((p.status?.containerStatuses ?? []) as Obj[])].reverse()) {
    if (cs.state?.waiting?.reason) reason = cs.state.waiting.reason;
    else if (cs.state?.terminated?.reason) reason = cs.state.terminated.reason;
    else if (cs.state?.terminated) reason = `ExitCode:${cs.state.terminated.exitCode}`;
    else if (cs.ready && cs.state?.running) running = true;
  }
  if (reason === 'Completed' && running) reason = 'Running';
  if (p.metadata.deletionTimestamp) reason = 'Terminating';
  return reason;
}

function podRestarts(p: Obj, now: number): string {
  const statuses = (p.status?.containerStatuses ?? []) as Obj[];
  const restarts = statuses.reduce((n, cs) => n + (cs.restartCount ?? 0), 0);
  const last = statuses
    .map((cs) => cs.lastState?.terminated?.finishedAt as string | undefined)
    .filter(Boolean)
    .sort()
    .at(-1);
  return restarts && last ? `${restarts} (${since(last, now)} ago)` : String(restarts);
}

const ports = (s: Obj) =>
  orNone(((s.spec?.ports ?? []) as Obj[]).map((p) => `${p.port}${p.nodePort ? `:${p.nodePort}` : ''}/${p.protocol ?? 'TCP'}`).join(','));

/** The wide columns of a workload's pod template. */
const TEMPLATE = [
  col('Containers', (o) => templateContainers(o, 'name'), 'Names of each container in the template.', wide),
  col('Images', (o) => templateContainers(o, 'image'), 'Images referenced by each container in the template.', wide),
];

const COLUMNS: Record<string, Column[]> = {
  Pod: [
    NAME,
    col(
      'Ready',
      (p) => `${((p.status?.containerStatuses ?? []) as Obj[]).filter((c) => c.ready).length}/${containers(p.spec).length}`,
      'The aggregate readiness state of this pod for accepting traffic.',
    ),
    col('Status', podStatus, 'The aggregate status of the containers in this pod.'),
    col('Restarts', podRestarts, 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
    AGE,
    col('IP', (p) => orNone(p.status?.podIP), 'IP address allocated to the pod. Routable at least within the cluster.', wide),
    col('Node', (p) => orNone(p.spec?.nodeName), 'NodeName is a request to schedule this pod onto a specific node.', wide),
    col('Nominated Node', (p) => orNone(p.status?.nominatedNodeName), 'nominatedNodeName is set when this pod preempts other pods on the node.', wide),
    col(
      'Readiness Gates',
      (p) => orNone((p.spec?.readinessGates ?? []).length || undefined),
      'If specified, all readiness gates will be evaluated for pod readiness.',
      wide,
    ),
  ],
  Deployment: [
    NAME,
    col('Ready', (d) => `${d.status?.readyReplicas ?? 0}/${d.spec?.replicas ?? 1}`, 'Number of the pod with ready state'),
    int(
      'Up-to-date',
      (d) => d.status?.updatedReplicas ?? 0,
      'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
    ),
    int(
      'Available',
      (d) => d.status?.availableReplicas ?? 0,
      'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
    ),
    AGE,
    ...TEMPLATE,
    col(
      'Selector',
      (d) => selectorText(d.spec?.selector),
      'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.',
      wide,
    ),
  ],
  ReplicaSet: [
    NAME,
    int('Desired', (r) => r.spec?.replicas ?? 1, 'Number of desired pods.'),
    int('Current', (r) => r.status?.replicas ?? 0, 'The most recently observed number of replicas.'),
    int('Ready', (r) => r.status?.readyReplicas ?? 0, 'The number of ready replicas for this replica set.'),
    AGE,
    ...TEMPLATE,
    col('Selector', (r) => selectorText(r.spec?.selector), 'Selector is a label query over pods that should match the replica count.', wide),
  ],
  StatefulSet: [NAME, col('Ready', (s) => `${s.status?.readyReplicas ?? 0}/${s.spec?.replicas ?? 1}`, 'Number of the pod with ready state'), AGE, ...TEMPLATE],
  Service: [
    NAME,
    col('Type', (s) => s.spec?.type ?? 'ClusterIP', 'type determines how the Service is exposed.'),
    col('Cluster-IP', (s) => orNone(s.spec?.clusterIP), 'clusterIP is the IP address of the service and is usually assigned randomly.'),
    col(
      'External-IP',
      (s) => orNone((s.spec?.externalIPs ?? []).join(',') || s.status?.loadBalancer?.ingress?.[0]?.ip),
      'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.',
    ),
    col('Port(s)', ports, 'The list of ports that are exposed by this service.'),
    AGE,
    col(
      'Selector',
      (s) =>
        orNone(
          Object.entries(s.spec?.selector ?? {})
            .map(([k, v]) => `${k}=${v}`)
            .join(','),
        ),
      'Route service traffic to pods with label keys and values matching this selector.',
      wide,
    ),
  ],
  Node: [
    NAME,
    col('Status', (n) => (n.status?.conditions?.some((c: Obj) => c.type === 'Ready' && c.status === 'True') ? 'Ready' : 'NotReady'), 'The status of the node'),
    col(
      'Roles',
      (n) =>
        orNone(
          Object.keys(n.metadata.labels ?? {})
            .filter((k) => k.startsWith('node-role.kubernetes.io/'))
            .map((k) => k.slice('node-role.kubernetes.io/'.length))
            .join(','),
        ),
      'The roles of the node',
    ),
    AGE,
    col('Version', (n) => n.status?.nodeInfo?.kubeletVersion ?? '', 'Kubelet Version reported by the node.'),
    col(
      'Internal-IP',
      (n) => orNone(n.status?.addresses?.find((a: Obj) => a.type === 'InternalIP')?.address),
      'List of addresses reachable to the node.',
      wide,
    ),
    col('OS-Image', (n) => n.status?.nodeInfo?.osImage ?? '', 'OS image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).', wide),
    col('Kernel-Version', (n) => n.status?.nodeInfo?.kernelVersion ?? '', "Kernel Version reported by the node from 'uname -r'.", wide),
    col(
      'Container-Runtime',
      (n) => n.status?.nodeInfo?.containerRuntimeVersion ?? '',
      'ContainerRuntime Version reported by the node through runtime remote API.',
      wide,
    ),
  ],
  Namespace: [NAME, col('Status', (n) => n.status?.phase ?? 'Active', 'The status of the namespace'), AGE],
  ConfigMap: [NAME, int('Data', (c) => Object.keys(c.data ?? {}).length + Object.keys(c.binaryData ?? {}).length, 'Number of data in the configmap'), AGE],
  Secret: [
    NAME,
    col('Type', (s) => s.type ?? 'Opaque', 'The type of the secret'),
    int('Data', (s) => Object.keys(s.data ?? {}).length, 'The number of data items in the secret'),
    AGE,
  ],
  ServiceAccount: [
    NAME,
    int(
      'Secrets',
      (s) => (s.secrets ?? []).length,
      'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.',
    ),
    AGE,
  ],
  PersistentVolumeClaim: [
    NAME,
    col('Status', (c) => c.status?.phase ?? 'Pending', 'The phase of the claim'),
    col('Volume', (c) => c.spec?.volumeName ?? '', 'volumeName is the binding reference to the PersistentVolume backing this claim.'),
    col('Capacity', (c) => c.status?.capacity?.storage ?? '', 'capacity represents the actual resources of the underlying volume.'),
    col(
      'Access Modes',
      (c) =>
        (c.status?.accessModes ?? [])
          .map((m: string) => ({ ReadWriteOnce: 'RWO', ReadOnlyMany: 'ROX', ReadWriteMany: 'RWX', ReadWriteOncePod: 'RWOP' })[m] ?? m)
          .join(','),
      'accessModes contains the actual access modes the volume backing the PVC has.',
    ),
    col('StorageClass', (c) => c.spec?.storageClassName ?? '', 'storageClassName is the name of the StorageClass required by the claim.'),
    col(
      'VolumeAttributesClass',
      (c) => orNone(c.spec?.volumeAttributesClassName),
      'volumeAttributesClassName may be used to set the VolumeAttributesClass used by this claim.',
    ),
    AGE,
    col('VolumeMode', (c) => c.spec?.volumeMode ?? 'Filesystem', 'volumeMode defines what type of volume is required by the claim.', wide),
  ],
  CronJob: [
    NAME,
    col('Schedule', (j) => j.spec?.schedule ?? '', 'The schedule in Cron format.'),
    col('Timezone', (j) => orNone(j.spec?.timeZone), 'The time zone name for the given schedule.'),
    col('Suspend', (j) => (j.spec?.suspend ? 'True' : 'False'), 'This flag tells the controller to suspend subsequent executions.'),
    int('Active', (j) => (j.status?.active ?? []).length, 'A list of pointers to currently running jobs.'),
    col(
      'Last Schedule',
      (j, now) => (j.status?.lastScheduleTime ? since(j.status.lastScheduleTime, now) : '<none>'),
      'Information when was the last time the job was successfully scheduled.',
    ),
    AGE,
  ],
  HorizontalPodAutoscaler: [
    NAME,
    col(
      'Reference',
      (h) => `${h.spec?.scaleTargetRef?.kind}/${h.spec?.scaleTargetRef?.name}`,
      'reference to scaled resource; horizontal pod autoscaler will learn the current resource consumption and will set the desired number of pods by using its Scale subresource.',
    ),
    col(
      'Targets',
      (h) =>
        ((h.spec?.metrics ?? []) as Obj[])
          .map((m) => `${m.resource?.name ?? m.type}: <unknown>/${m.resource?.target?.averageUtilization ?? '?'}%`)
          .join(', ') || '<none>',
      'metrics contains the specifications for which to use to calculate the desired replica count.',
    ),
    int('MinPods', (h) => h.spec?.minReplicas ?? 1, 'minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.'),
    int('MaxPods', (h) => h.spec?.maxReplicas ?? 0, 'maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up.'),
    int('Replicas', (h) => h.status?.currentReplicas ?? 0, 'currentReplicas is current number of replicas of pods managed by this autoscaler.'),
    AGE,
  ],
  Event: [
    col('Last Seen', (e, now) => since(e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp, now), 'Time when this Event was last observed.'),
    col('Type', (e) => e.type ?? '', 'Type of this event (Normal, Warning), new types could be added in the future.'),
    col(
      'Reason',
      (e) => e.reason ?? '',
      "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
    ),
    col('Object', (e) => `${String(e.involvedObject?.kind ?? '').toLowerCase()}/${e.involvedObject?.name ?? ''}`, 'The object that this event is about.'),
    col('Message', (e) => e.message ?? '', 'A human-readable description of the status of this operation.'),
    col('Subobject', (e) => e.involvedObject?.fieldPath ?? '', 'The subobject this event is about.', wide),
    col(
      'Source',
      (e) => [e.source?.component, e.source?.host].filter(Boolean).join(', '),
      'The component reporting this event. Should be a short machine understandable string.',
      wide,
    ),
    col('First Seen', (e, now) => since(e.firstTimestamp ?? e.eventTime, now), 'The time at which the event was first recorded.', wide),
    int('Count', (e) => e.count ?? 1, 'The number of times this event has occurred.', wide),
    { ...NAME, priority: 1 },
  ],
};

/** The Table kube-apiserver answers for these objects (one for a single GET); `columns` false omits the definitions (later watch events). */
export function table(kind: string, objects: Obj[], nowMs: number, includeObject: string | null, metadata: Obj = {}, columns = true): Obj {
  const cols = COLUMNS[kind] ?? [NAME, AGE];
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata,
    ...(columns ? { columnDefinitions: cols.map(({ cell: _cell, ...c }) => c) } : { columnDefinitions: null }),
    rows: objects.map((o) => ({
      cells: cols.map((c) => c.cell(o, nowMs)),
      object: rowObject(o, includeObject ?? 'Metadata'),
    })),
  };
}

function rowObject(o: Obj, include: string): Obj | undefined {
  if (include === 'None') return undefined;
  if (include === 'Object') return o;
  const { managedFields: _m, ...metadata } = o.metadata;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata };
}
