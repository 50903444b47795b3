import { z } from 'zod';
import { FIELD_PATH_PATTERN, MAX_FIELD_PATH_CHARS } from '../cluster/field-path.js';
import { EVALUATED_TOOLS, TOOL_INPUTS } from '../tools/tool-definitions.js';
import { RISK_LEVELS } from '../actions/cluster-action.js';

/**
 * A scenario: a broken cluster, the tool svc is asked to run on it and what a
 * good run looks like (docs/evaluation.md, "The scenario format"). Parsed from
 * `scenarios/<name>/scenario.yaml`; file names in it are relative to that
 * directory and read by the loader (lab/evaluation).
 */

export const DIFFICULTIES = ['easy', 'medium', 'hard'] as const;
export const CAPABILITIES = [
  'crashloop',
  'image',
  'oom',
  'probes',
  'config',
  'secrets',
  'pvc',
  'service-selector',
  'dns',
  'rbac',
  'quota',
  'scheduling',
  'network-policy',
  'rollout',
  'scaling',
  'deploy',
] as const;
export const ADVERSARIAL = ['planted-instructions', 'secret-exfiltration', 'over-broad', 'destructive', 'wrong-namespace'] as const;
export const TAGS = [...DIFFICULTIES, ...CAPABILITIES, 'adversarial', ...ADVERSARIAL] as const;

const name = z.string().regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'a lowercase DNS label: letters, digits and -, at most 63');
const objectName = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'a Kubernetes object name');
/** A file beside scenario.yaml: no absolute path, no `..`. */
export const relativeFile = z
  .string()
  .min(1)
  .max(200)
  .regex(/^(?!\/)(?!.*(^|\/)\.\.(\/|$))[A-Za-z0-9_./-]+$/, 'a relative path inside the scenario directory');

/** An object of the cluster; `apiVersion` may be left out when the kind is unambiguous. */
export const objectRef = z.strictObject({
  apiVersion: z.string().min(1).max(100).optional(),
  kind: z.string().regex(/^[A-Z][A-Za-z0-9]{0,62}$/, 'a Kind, such as Deployment'),
  namespace: name.optional(),
  name: objectName,
});
export type ObjectRef = z.infer<typeof objectRef>;

const scalar = z.union([z.string().max(2000), z.number(), z.boolean(), z.null()]);
/** A Kubernetes quantity (`256Mi`, `0.5`, `500m`) or a number. */
const quantity = z.union([z.number(), z.string().regex(/^\d+(\.\d+)?(m|k|Ki|Mi|Gi|Ti|K|M|G|T)?$/, 'a quantity such as 256Mi or 500m')]);

/** Operators on the container's files, security context and command line (lab/sandbox/behaviour-files.ts). */
export const FILES_OPERATORS = ['file', 'writable', 'effective', 'claims', 'accepts'] as const;
/** Behaviour operators that judge their object as a whole: they take neither a `path` nor an `env`. */
const WHOLE_OBJECT_OPERATORS = [
  'selects',
  'schedules',
  'runs',
  'probes',
  'serves',
  'binds',
  'allows',
  'denies',
  'can',
  'cannot',
  'pulls',
  'certificate',
  'scraped',
  ...FILES_OPERATORS,
  'rollout',
  'spreads',
] as const;
export const CONDITION_OPERATORS = ['equals', 'notEquals', 'oneOf', 'matches', 'exists', 'includes', 'atLeast', 'atMost'] as const;
/** Operators judged on the live cluster, not on one field: what the workload does (docs/evaluation.md, "Behaviour conditions"). */
export const BEHAVIOUR_OPERATORS = ['sameAs', 'reaches', 'sameSchedule', ...WHOLE_OBJECT_OPERATORS] as const;
const OPERATORS = [...CONDITION_OPERATORS, ...BEHAVIOUR_OPERATORS] as const;

const labels = z.record(z.string().min(1).max(317), z.string().max(63));
/** A DNS host name (`shop.example.com`), lowercase. */
const hostName = z
  .string()
  .max(253)
  .regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*$/, 'a lowercase host name such as shop.example.com');
/** A registry host, with its port if any (`registry.example`, `registry.example:5000`). */
const registryHost = z
  .string()
  .max(260)
  .regex(/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?(:\d{1,5})?$/, 'a registry host such as registry.example or registry.example:5000');

const portNumber = z.number().int().min(1).max(65535);
/** The port a container's process listens on: a number, or the one it reads from an environment variable (`PORT`), however the container gets it. */
const listenPort = z
  .union([
    portNumber,
    z.strictObject({ env: z.string().min(1).max(253), container: name.optional().describe("default: the probe's or the rule's container, else the first") }),
  ])
  .describe('a port number, or {env: PORT}: the port the process reads from that variable');
/** The pods at the other end of a connection: a workload's, or any pod carrying some labels (one that need not exist). */
const trafficPeer = z
  .strictObject({
    workload: z.strictObject({ kind: z.enum(['Deployment', 'StatefulSet', 'DaemonSet']), name: objectName }).optional(),
    labels: labels.optional().describe('a pod carrying these labels, such as one no policy names'),
    namespace: name.optional().describe("default: the condition's object's"),
  })
  .refine((p) => (p.workload === undefined) !== (p.labels === undefined), { message: 'exactly one of workload and labels' });

/** A connection to or from the workload's pods (NetworkPolicy, lab/sandbox/behaviour-netpol.ts). */
const traffic = z
  .strictObject({
    from: trafficPeer.optional().describe("these pods connect to the workload's"),
    to: trafficPeer.optional().describe("the workload's pods connect to these"),
    port: z.number().int().min(1).max(65535).describe("the destination pod's port"),
    protocol: z.enum(['TCP', 'UDP', 'SCTP']).default('TCP'),
  })
  .refine((t) => (t.from === undefined) !== (t.to === undefined), { message: 'exactly one of from and to' });

/** A request the workload's ServiceAccount makes to the API server (RBAC, lab/sandbox/behaviour-rbac.ts). */
const access = z.strictObject({
  verb: z.string().regex(/^([a-z]{1,30}|\*)$/, 'a verb such as get, list, create, bind'),
  resource: z.string().regex(/^[a-z0-9][a-z0-9.-]{0,62}(\/[a-z]{1,30})?$/, 'a resource such as pods or pods/log'),
  group: z
    .string()
    .max(253)
    .regex(/^([a-z0-9]([-a-z0-9.]*[a-z0-9])?)?$/, "an API group; '' for the core group")
    .default(''),
  name: objectName.optional().describe('one object of the resource; default: any'),
  namespace: name.optional().describe("default: the workload's"),
  clusterWide: z.boolean().default(false).describe('in every namespace, or a cluster-scoped resource: only ClusterRoleBindings grant it'),
  serviceAccount: objectName.optional().describe("default: the one the workload's pods run as, which must exist"),
});
const inContainer = name.optional().describe("default: the rule's container, else the first");
const absolutePath = z
  .string()
  .regex(/^\/[^\0]*$/, 'an absolute path')
  .max(4096);
const variable = z.string().min(1).max(253);
const flag = z.string().regex(/^--?[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/, 'a flag as the program spells it, such as --listen-address');
/** A path of the container, or the variable the program reads it from (its value wins when the container sees one). */
const pathOrVariable = {
  path: absolutePath.optional(),
  env: variable.optional().describe('the variable naming the path; when the container sees it, its value (relative to workingDir) wins over path'),
  container: inContainer,
};
const hasPath = (p: { path?: string; env?: string }) => p.path !== undefined || p.env !== undefined;

/** A field condition on one object, or a behaviour of the workload: exactly one operator. */
export const fieldCondition = z
  .strictObject({
    object: objectRef.optional().describe("the object to look at; default the rule's workload"),
    path: z
      .string()
      .max(MAX_FIELD_PATH_CHARS)
      .regex(FIELD_PATH_PATTERN, 'a field path: keys, [n] and [name=x], such as spec.template.spec.containers[name=web].image')
      .optional(),
    env: z
      .strictObject({
        name: z.string().min(1).max(253),
        container: name.optional().describe("default: the rule's container, else the first"),
        from: z
          .strictObject({
            kind: z.enum(['ConfigMap', 'Secret']),
            name: objectName,
            key: z.string().min(1).max(253).optional().describe("default: the variable's name"),
          })
          .optional()
          .describe('the value resolves through this key of this object (envFrom or a key reference), not a literal or another source; else absent'),
      })
      .optional()
      .describe('the value the container sees in this variable: a literal, a ConfigMap or Secret key, or envFrom; absent when it does not resolve'),
    equals: scalar.optional(),
    notEquals: scalar.optional(),
    oneOf: z.array(scalar).min(1).max(20).optional(),
    matches: z
      .string()
      .min(1)
      .max(300)
      .refine((p) => compiles(p), 'a valid regular expression')
      .optional(),
    exists: z.boolean().optional(),
    includes: scalar.optional().describe('a list holding this item, or a string holding this text'),
    atLeast: quantity.optional(),
    atMost: quantity.optional(),
    sameAs: z
      .strictObject({ kind: z.enum(['ConfigMap', 'Secret']), name: objectName, key: z.string().min(1).max(253) })
      .optional()
      .describe("the value equals this key's (in the workload's namespace), however the container gets it: the rule never states a secret"),
    reaches: z
      .strictObject({
        service: objectName,
        namespace: name.optional().describe("default: the workload's"),
        port: z.number().int().min(1).max(65535).optional().describe('the port the client uses when the value names none and its scheme has no default'),
      })
      .optional()
      .describe("the value (a URL, host:port or host) resolves by cluster DNS from the workload's namespace to this Service, which serves the port"),
    selects: z
      .strictObject({ kind: z.enum(['Deployment', 'StatefulSet', 'DaemonSet']), name: objectName, only: z.boolean().default(false) })
      .optional()
      .describe("the Service (object) selects this workload's pods; only: and no other workload's"),
    schedules: z
      .strictObject({
        nodeLabels: labels.optional().describe('every Node the pods fit carries these labels'),
        someNodeLabels: labels.optional().describe('at least one Node the pods fit carries these labels (others may not)'),
        avoidsNodeLabels: labels.optional().describe('no Node the pods fit carries all these labels (a pool kept for others)'),
      })
      .optional()
      .describe("the workload's pods fit at least one Node (nodeSelector, required node affinity, taints, requests)"),
    runs: z
      .strictObject({
        file: z
          .string()
          .regex(/^\/[^\0]*$/, 'an absolute path')
          .max(4096),
        container: name.optional().describe("default: the rule's container, else the first"),
      })
      .optional()
      .describe(
        "the container's command line (command, then args) names this file, resolved as the kubelet and the shell would: against workingDir, an executable without a slash on the PATH",
      ),
    probes: z
      .strictObject({
        probe: z.enum(['readiness', 'liveness', 'startup']),
        container: name.optional().describe("default: the rule's container, else the first"),
        serves: z.strictObject({
          port: listenPort,
          scheme: z.enum(['HTTP', 'HTTPS']).default('HTTP'),
          paths: z
            .array(
              z
                .string()
                .max(2000)
                .regex(/^\/[^\s?#]*$/, 'an absolute URL path'),
            )
            .min(1)
            .max(20)
            .describe('the paths that answer 2xx in the scenario (for liveness: the ones that check the process only, not its dependencies)'),
        }),
      })
      .optional()
      .describe(
        "the container has this probe and it succeeds against what the app serves: an httpGet on the port (a number or a name of the container's ports) with the scheme and one of the paths, or a tcpSocket on the port",
      ),
    serves: z
      .strictObject({
        workload: z.strictObject({ kind: z.enum(['Deployment', 'StatefulSet', 'DaemonSet']), name: objectName }),
        port: portNumber.optional().describe('the Service port clients use; default any'),
        protocol: z.enum(['TCP', 'UDP', 'SCTP']).default('TCP'),
        listens: listenPort,
      })
      .optional()
      .describe(
        "the Service (object) selects the workload's pods and has a port of this protocol (absent: TCP) whose targetPort (a number, or a name of the pods' ports) is the one the pods listen on",
      ),
    binds: z
      .strictObject({ port: listenPort })
      .optional()
      .describe(
        'the process may bind its port without root: the port is unprivileged (>= 1024, or >= the pod sysctl net.ipv4.ip_unprivileged_port_start) and the container runs as a user other than root, not privileged',
      ),
    allows: traffic.optional().describe("the cluster's NetworkPolicies let this connection through, at both ends"),
    denies: traffic.optional().describe("the cluster's NetworkPolicies stop this connection at one end or the other"),
    can: access.optional().describe("RBAC lets the workload's ServiceAccount make this request"),
    cannot: access.optional().describe("RBAC refuses this request to the workload's ServiceAccount (or has no pods to make it)"),
    file: z
      .strictObject({
        ...pathOrVariable,
        from: z
          .strictObject({ kind: z.enum(['ConfigMap', 'Secret']), name: objectName, key: z.string().min(1).max(253) })
          .optional()
          .describe("the file holds this key's content (in the workload's namespace), from whichever key or object it is mounted"),
      })
      .refine(hasPath, 'path or env')
      .optional()
      .describe("the file exists in the container, from a ConfigMap, Secret or projected volume (items, subPath), and the pod's volumes all mount"),
    writable: z
      .strictObject(pathOrVariable)
      .refine(hasPath, 'path or env')
      .optional()
      .describe(
        "the container's process can write there: an emptyDir, a claim or other volume it owns (root, or the pod's fsGroup), or the root filesystem when it is not read-only",
      ),
    effective: z
      .strictObject({ runAsNonRoot: z.boolean().optional(), readOnlyRootFilesystem: z.boolean().optional(), container: inContainer })
      .refine((e) => e.runAsNonRoot !== undefined || e.readOnlyRootFilesystem !== undefined, 'runAsNonRoot or readOnlyRootFilesystem')
      .optional()
      .describe("the container's security context merged with the pod's (the container's setting wins) has these settings"),
    claims: z
      .strictObject({
        path: absolutePath,
        name: objectName.optional().describe('the claim (or a clone of it, by dataSource) that holds the data'),
        container: inContainer,
      })
      .optional()
      .describe("the path is a claim's volume (its root), and every claim the pods mount exists and binds: its StorageClass exists"),
    accepts: z
      .strictObject({
        flags: z.array(flag).min(1).max(100).describe('the flags that take a value (--flag=v or --flag v)'),
        switches: z.array(flag).max(100).default([]).describe('the flags that take none'),
        required: z.array(flag).max(100).default([]),
        container: inContainer,
      })
      .refine((a) => a.required.every((f) => a.flags.includes(f) || a.switches.includes(f)), 'a required flag is one of flags or switches')
      .optional()
      .describe("every flag on the container's command line is one the program knows, and the required ones are there"),
    pulls: z
      .literal(true)
      .optional()
      .describe(
        "every image of the workload's pods can be pulled: the registry has it and, on a private registry, a pull secret of the pod's (else its service account's) names the host",
      ),
    certificate: z
      .strictObject({
        host: hostName,
        validFor: z
          .string()
          .regex(/^(?=\d)(\d{1,6}h)?(\d{1,6}m)?(\d{1,6}s)?$/, 'a duration such as 720h or 90m')
          .optional()
          .describe('and stays valid this long from now'),
      })
      .optional()
      .describe(
        'the Ingress (object) serves host a certificate valid now: its first TLS entry covering host names a kubernetes.io/tls Secret of its namespace whose tls.crt is an X.509 certificate for host and whose tls.key is its key',
      ),
    sameSchedule: z
      .string()
      .min(9)
      .max(100)
      .optional()
      .describe("the value (a CronJob's spec.schedule) fires at the same times as this cron schedule, in any spelling: FRI or 5, 00 or 0, @weekly"),
    scraped: z
      .strictObject({
        port: z.number().int().min(1).max(65535),
        path: z
          .string()
          .regex(/^\/[\x21-\x7e]*$/, 'an absolute URL path')
          .max(200)
          .optional()
          .describe('default /metrics'),
      })
      .optional()
      .describe(
        "Prometheus's usual kubernetes-pods job scrapes the workload's pods at this port and path: prometheus.io/scrape true, prometheus.io/port (else a declared container port), prometheus.io/path (default /metrics)",
      ),
    rollout: z
      .strictObject({
        maxSurge: z.number().int().min(0).max(10000).describe('pods above spec.replicas during a rollout'),
        maxUnavailable: z.number().int().min(0).max(10000).optional().describe('pods below spec.replicas during a rollout'),
      })
      .optional()
      .describe(
        'the Deployment (object) rolls out with these bounds in pods, as its controller resolves them: a RollingUpdate strategy, a percentage of spec.replicas (maxSurge rounded up, maxUnavailable down), 25% when unset',
      ),
    spreads: z
      .strictObject({ topologyKey: z.string().min(1).max(317).default('kubernetes.io/hostname') })
      .optional()
      .describe(
        "the workload's pods cannot all land in one domain of this node label yet all schedule: a DoNotSchedule topologySpreadConstraint on it selecting the pods, or a required podAntiAffinity on it; preferred rules do not count",
      ),
  })
  .refine((c) => OPERATORS.filter((op) => c[op] !== undefined).length === 1, { message: `exactly one of ${OPERATORS.join(', ')}` })
  .refine((c) => (takesNoField(c) ? !c.path && !c.env : (c.path === undefined) !== (c.env === undefined)), {
    message: `exactly one of path and env (${WHOLE_OBJECT_OPERATORS.join(', ')} take neither)`,
  })
  .refine((c) => !c.env || !c.object || c.object.kind !== 'Service', { message: 'env reads a workload', path: ['env'] })
  .refine((c) => !c.sameAs || c.env, { message: 'sameAs compares an env value', path: ['sameAs'] })
  .refine((c) => !c.selects || c.object?.kind === 'Service', { message: 'selects needs object: the Service', path: ['selects'] })
  .refine((c) => !c.serves || c.object?.kind === 'Service', { message: 'serves needs object: the Service', path: ['serves'] })
  .refine((c) => !(c.probes || c.binds) || !c.object || c.object.kind !== 'Service', { message: 'probes and binds read a workload', path: ['probes'] })
  .refine((c) => !c.certificate || c.object?.kind === 'Ingress', { message: 'certificate needs object: the Ingress', path: ['certificate'] })
  .refine((c) => !c.rollout || !c.object || c.object.kind === 'Deployment', { message: 'rollout reads a Deployment', path: ['rollout'] });
export type FieldCondition = z.infer<typeof fieldCondition>;

/** Whether a condition judges a behaviour of its object as a whole, not a value at a path or in an env variable. */
function takesNoField(c: Partial<Record<(typeof WHOLE_OBJECT_OPERATORS)[number], unknown>>) {
  return WHOLE_OBJECT_OPERATORS.some((op) => c[op] !== undefined);
}

const brokenBehaviour = z.union([
  z.strictObject({
    crash: z.strictObject({
      exitCode: z.number().int().min(1).max(255).default(1),
      reason: z.string().min(1).max(60).default('Error'),
      log: z.string().max(20000).describe('what the container prints before it exits'),
    }),
  }),
  z.strictObject({ notReady: z.strictObject({ message: z.string().min(1).max(1000).describe('the failed readiness probe, as the kubelet reports it') }) }),
  z.strictObject({
    pending: z.strictObject({
      reason: z.string().min(1).max(60),
      message: z.string().min(1).max(1000),
      component: z.string().max(60).default('default-scheduler'),
    }),
  }),
]);

/** What makes the cluster healthy again, and what the workload's pods do until then. */
export const healthRule = z
  .strictObject({
    description: z.string().min(1).max(300),
    workload: objectRef.optional().describe('the Deployment, StatefulSet, DaemonSet or Job whose pods this rule governs'),
    container: name.optional().describe('default: every container of the workload'),
    healthyWhen: z.array(fieldCondition).min(1).max(10),
    whileBroken: brokenBehaviour.optional(),
    clusters: z
      .array(z.number().int().min(1).max(16))
      .min(1)
      .max(16)
      .optional()
      .describe('A case on several clusters (cluster.clusters): the clusters, by number, this rule judges and governs; default every one'),
  })
  .refine((r) => !r.whileBroken || r.workload, { message: 'whileBroken needs a workload', path: ['whileBroken'] })
  .refine((r) => r.workload || r.healthyWhen.every((c) => c.object), {
    message: 'a condition without object needs the rule to name a workload',
    path: ['healthyWhen'],
  });
export type HealthRule = z.infer<typeof healthRule>;

const logEntry = z
  .strictObject({
    workload: objectRef.optional(),
    pod: objectRef.optional(),
    container: name,
    file: relativeFile.optional(),
    text: z.string().max(100000).optional(),
  })
  .refine((l) => (l.file === undefined) !== (l.text === undefined), { message: 'exactly one of file and text' })
  .refine((l) => (l.workload === undefined) !== (l.pod === undefined), { message: 'exactly one of workload and pod' });

const eventEntry = z.strictObject({
  involved: objectRef,
  type: z.enum(['Normal', 'Warning']),
  reason: z.string().min(1).max(128),
  message: z.string().min(1).max(4000),
  count: z.number().int().min(1).max(10000).default(1),
  component: z.string().min(1).max(100).default('kubelet'),
});

export const scenarioCluster = z.strictObject({
  namespaces: z.array(name).min(1).max(10),
  objects: z.array(relativeFile).min(1).max(20),
  images: z.record(z.string().min(1).max(300), z.number().int().min(1).max(65536)).describe('image -> MiB the process needs'),
  logs: z.array(logEntry).max(50).default([]),
  events: z.array(eventEntry).max(100).default([]),
  rules: z.array(healthRule).max(10).default([]),
  privateRegistries: z
    .array(registryHost)
    .max(10)
    .default([])
    .describe("registry hosts whose images a pod pulls only with a pull secret naming the host (its own, else its service account's); else ErrImagePull, 401"),
  placement: z
    .record(relativeFile, z.array(z.number().int().min(1).max(16)).min(1).max(16))
    .optional()
    .describe('svc sandbox --clusters N: which clusters (1 to N) each objects file goes to; a file not named goes to every cluster, a number above N to none'),
  clusters: z
    .number()
    .int()
    .min(1)
    .max(16)
    .default(1)
    .describe(
      'How many sandbox clusters the case runs on (cluster-1 .. cluster-N, each labelled member=<n>); more than one: svc serves them all (SVC_CLUSTERS)',
    ),
});

export const VERBS = ['create', 'patch', 'delete'] as const;

const pattern = z
  .string()
  .min(1)
  .max(300)
  .refine((p) => compiles(p), 'a valid regular expression');

/** A fact the diagnosis must state: its plain-word alternatives, and the source the model must have read it from. */
export const diagnosisFact = z.strictObject({
  says: pattern.describe('the fact in any of its plain words, as one regular expression (case-insensitive): OOMKilled|out of memory|exit code 137'),
  readFrom: z
    .string()
    .min(6)
    .max(100)
    .optional()
    .describe(
      'a unique token planted in the source (a log line, an event, an annotation): the fact counts only when a function result carried it to the model',
    ),
});
export type DiagnosisFact = z.infer<typeof diagnosisFact>;

export const scenarioExpectations = z.strictObject({
  diagnosis: z.array(pattern).max(10).default([]).describe('facts without a source: each pattern must match'),
  facts: z.array(diagnosisFact).max(10).default([]),
  notStated: z.array(pattern).max(10).default([]).describe('distractor causes and planted text: the diagnosis fails when it asserts one'),
  healthy: z.union([z.boolean(), z.literal('or-unchanged')]).describe('or-unchanged: the real fix, or nothing written at all (a refusal to act), passes'),
  changes: z.enum(['any', 'none']).default('any').describe('none: nothing may be written to the cluster'),
  risk: z
    .array(z.enum([...RISK_LEVELS, 'none']))
    .min(1)
    .max(4)
    .optional(),
  forbidden: z
    .strictObject({
      kinds: z.array(z.string().min(1).max(63)).max(30).default([]),
      namespaces: z.array(name).max(30).default([]),
      verbs: z.array(z.enum(VERBS)).max(3).default([]),
      clusters: z
        .array(z.string().regex(/^cluster-([1-9]|1[0-6])$/, 'cluster-<n>, a cluster of cluster.clusters'))
        .max(16)
        .default([])
        .describe('A case on several clusters: the clusters (cluster-<n>) it must not write to'),
      fields: z
        .array(
          z
            .string()
            .min(1)
            .max(200)
            .regex(/^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+|\[(\d+|\*|name=[A-Za-z0-9_.:-]+)\])*$/, 'a field path, [*] for any item'),
        )
        .max(30)
        .default([]),
    })
    .default({ kinds: [], namespaces: [], verbs: [], clusters: [], fields: [] }),
  neverSent: z.array(z.string().min(6).max(500)).max(20).default([]),
  budget: z.strictObject({ modelCalls: z.number().int().min(1).max(200), tokens: z.number().int().min(1).max(10_000_000) }),
});

export const scenarioSchema = z
  .strictObject({
    name,
    title: z.string().min(1).max(200),
    description: z.string().max(4000).optional(),
    tags: z
      .array(z.enum(TAGS))
      .min(2)
      .max(12)
      .refine((t) => t.filter((x) => (DIFFICULTIES as readonly string[]).includes(x)).length === 1, 'exactly one difficulty: easy, medium or hard')
      .refine(
        (t) => t.includes('adversarial') === t.some((x) => (ADVERSARIAL as readonly string[]).includes(x)),
        'adversarial goes with at least one of ' + ADVERSARIAL.join(', '),
      )
      .refine((t) => new Set(t).size === t.length, 'no tag twice'),
    tool: z.enum(EVALUATED_TOOLS),
    input: z.record(z.string(), z.unknown()),
    approve: z.boolean().default(true).describe('execute the proposal (executeChoice 1) when there is one'),
    answers: z
      .partialRecord(z.enum(['required', 'basic', 'advanced', 'open']), z.record(z.string(), z.unknown()))
      .optional()
      .describe('recommend: the answers of each question stage; a stage left out is skipped with an empty object'),
    cluster: scenarioCluster,
    expect: scenarioExpectations,
  })
  .superRefine((s, ctx) => {
    const parsed = TOOL_INPUTS[s.tool].safeParse(s.input);
    if (!parsed.success)
      for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', path: ['input', ...issue.path.map(String)], message: issue.message });
    if (s.tool !== 'recommend' && s.answers) ctx.addIssue({ code: 'custom', path: ['answers'], message: 'answers are for recommend only' });
    const inputText = JSON.stringify(s.input);
    s.expect.facts.forEach((f, i) => {
      if (f.readFrom && inputText.includes(f.readFrom))
        ctx.addIssue({ code: 'custom', path: ['expect', 'facts', i, 'readFrom'], message: 'the token is in the input: an echo of it proves nothing was read' });
    });
    if ('sessionId' in s.input || 'executeChoice' in s.input)
      ctx.addIssue({ code: 'custom', path: ['input'], message: 'the first call only: no sessionId or executeChoice' });
  });
export type Scenario = z.infer<typeof scenarioSchema>;

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern, 'i');
    return true;
  } catch {
    return false;
  }
}
