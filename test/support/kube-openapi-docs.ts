/**
 * OpenAPI v3 documents of the Kubernetes API stand-in, one per group version
 * (`api/v1`, `apis/apps/v1`, `apis/batch/v1`, `apis/example.com/v1`), shaped
 * like kube-apiserver's: component schemas named `io.k8s.api.<group>.<v>.<Kind>`,
 * references wrapped in `allOf` with a description and `default: {}`, enums
 * with "Possible enum values" text, `required` lists, the
 * `x-kubernetes-group-version-kind` extension on top-level kinds, and every
 * referenced schema included in each document. Abridged: the fields a
 * configuration question would ask about (Deployment, StatefulSet, Service,
 * ConfigMap, PersistentVolumeClaim, CronJob, Pod template, Container), with
 * the real descriptions shortened. The Widget CRD carries the minimum,
 * maximum, enum and pattern a CRD's structural schema can have, and a schema
 * that refers to itself (like JSONSchemaProps).
 */
type Schema = Record<string, unknown>;

const ref = (name: string, description: string) => ({ allOf: [{ $ref: `#/components/schemas/${name}` }], description, default: {} });
const str = (description: string, extra: Schema = {}) => ({ type: 'string', description, ...extra });
const int32 = (description: string, extra: Schema = {}) => ({ type: 'integer', format: 'int32', description, ...extra });
const bool = (description: string) => ({ type: 'boolean', description });
const strMap = (description: string) => ({ type: 'object', description, additionalProperties: { type: 'string', default: '' } });
const list = (item: string, description: string) => ({ type: 'array', description, items: { allOf: [{ $ref: `#/components/schemas/${item}` }], default: {} } });
const oneOf = (values: string[], description: string) => str(`${description}\n\nPossible enum values:\n${values.map((v) => ` - \`"${v}"\``).join('\n')}`, { enum: values });
const gvk = (group: string, version: string, kind: string) => ({ 'x-kubernetes-group-version-kind': [{ group, kind, version }] });

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const SELECTOR = 'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector';
const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
const core = (kind: string) => `io.k8s.api.core.v1.${kind}`;

const kindSchema = (description: string, spec: string | undefined, group: string, version: string, kind: string, extra: Schema = {}) => ({
  description, type: 'object',
  properties: {
    apiVersion: str('APIVersion defines the versioned schema of this representation of an object.'),
    kind: str('Kind is a string value representing the REST resource this object represents.'),
    metadata: ref(META, "Standard object's metadata."),
    ...(spec ? { spec: ref(spec, `Specification of the desired behavior of the ${kind}.`) } : {}),
    ...extra,
  },
  ...gvk(group, version, kind),
});

/** The schemas every document refers to: metadata, selectors, quantities, the pod template and claims. */
const COMMON: Record<string, Schema> = {
  [META]: {
    description: 'ObjectMeta is metadata that all persisted resources must have.', type: 'object',
    properties: {
      name: str('Name must be unique within a namespace.'), namespace: str('Namespace defines the space within which each name must be unique.'),
      labels: strMap('Map of string keys and values that can be used to organize and categorize objects.'),
      annotations: strMap('Annotations is an unstructured key value map stored with a resource.'),
    },
  },
  [SELECTOR]: {
    description: 'A label selector is a label query over a set of resources.', type: 'object', 'x-kubernetes-map-type': 'atomic',
    properties: { matchLabels: strMap('matchLabels is a map of {key,value} pairs.') },
  },
  [QUANTITY]: { description: 'Quantity is a fixed-point representation of a number, e.g. 128Mi, 500m, 1Gi.', type: 'string' },
  [INT_OR_STRING]: { description: 'IntOrString is a type that can hold an int32 or a string.', type: 'string', format: 'int-or-string' },
  [core('PodTemplateSpec')]: {
    description: 'PodTemplateSpec describes the data a pod should have when created from a template', type: 'object',
    properties: { metadata: ref(META, 'metadata'), spec: ref(core('PodSpec'), 'Specification of the desired behavior of the pod.') },
  },
  [core('PodSpec')]: {
    description: 'PodSpec is a description of a pod.', type: 'object', required: ['containers'],
    properties: {
      containers: list(core('Container'), 'List of containers belonging to the pod. There must be at least one container in a Pod. Cannot be updated.'),
      restartPolicy: oneOf(['Always', 'Never', 'OnFailure'], 'Restart policy for all containers within the pod. Default to Always.'),
      serviceAccountName: str('ServiceAccountName is the name of the ServiceAccount to use to run this pod.'),
      nodeSelector: strMap('NodeSelector is a selector which must be true for the pod to fit on a node.'),
      terminationGracePeriodSeconds: { type: 'integer', format: 'int64', description: 'Optional duration in seconds the pod needs to terminate gracefully. Defaults to 30 seconds.' },
    },
  },
  [core('Container')]: {
    description: 'A single application container that you want to run within a pod.', type: 'object', required: ['name'],
    properties: {
      name: str('Name of the container specified as a DNS_LABEL. Each container in a pod must have a unique name.'),
      image: str('Container image name.'),
      imagePullPolicy: oneOf(['Always', 'IfNotPresent', 'Never'], 'Image pull policy. Defaults to Always if :latest tag is specified, or IfNotPresent otherwise.'),
      command: { type: 'array', description: 'Entrypoint array. Not executed within a shell.', items: { type: 'string', default: '' } },
      args: { type: 'array', description: 'Arguments to the entrypoint.', items: { type: 'string', default: '' } },
      ports: list(core('ContainerPort'), 'List of ports to expose from the container.'),
      env: list(core('EnvVar'), 'List of environment variables to set in the container.'),
      resources: ref(core('ResourceRequirements'), 'Compute Resources required by this container.'),
    },
  },
  [core('ContainerPort')]: {
    description: 'ContainerPort represents a network port in a single container.', type: 'object', required: ['containerPort'],
    properties: {
      containerPort: int32('Number of port to expose on the pod\'s IP address. This must be a valid port number, 0 < x < 65536.'),
      name: str('If specified, this must be an IANA_SVC_NAME and unique within the pod.'),
      protocol: oneOf(['SCTP', 'TCP', 'UDP'], 'Protocol for port. Must be UDP, TCP, or SCTP. Defaults to "TCP".'),
    },
  },
  [core('EnvVar')]: {
    description: 'EnvVar represents an environment variable present in a Container.', type: 'object', required: ['name'],
    properties: { name: str('Name of the environment variable. Must be a C_IDENTIFIER.'), value: str('Variable references $(VAR_NAME) are expanded. Defaults to "".') },
  },
  [core('ResourceRequirements')]: {
    description: 'ResourceRequirements describes the compute resource requirements.', type: 'object',
    properties: {
      limits: { type: 'object', description: 'Limits describes the maximum amount of compute resources allowed.', additionalProperties: ref(QUANTITY, '') },
      requests: { type: 'object', description: 'Requests describes the minimum amount of compute resources required.', additionalProperties: ref(QUANTITY, '') },
    },
  },
  [core('PersistentVolumeClaim')]: kindSchema('PersistentVolumeClaim is a user\'s request for and claim to a persistent volume', core('PersistentVolumeClaimSpec'), '', 'v1', 'PersistentVolumeClaim'),
  [core('PersistentVolumeClaimSpec')]: {
    description: 'PersistentVolumeClaimSpec describes the common attributes of storage devices and allows a Source for provider-specific attributes', type: 'object',
    properties: {
      accessModes: { type: 'array', description: 'accessModes contains the desired access modes the volume should have.', items: oneOf(['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'], '') },
      resources: ref(core('VolumeResourceRequirements'), 'resources represents the minimum resources the volume should have.'),
      storageClassName: str('storageClassName is the name of the StorageClass required by the claim.'),
      volumeMode: oneOf(['Block', 'Filesystem'], 'volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when not included in claim spec.'),
      volumeName: str('volumeName is the binding reference to the PersistentVolume backing this claim.'),
      selector: ref(SELECTOR, 'selector is a label query over volumes to consider for binding.'),
    },
  },
  [core('VolumeResourceRequirements')]: {
    description: 'VolumeResourceRequirements describes the storage resource requirements for a volume.', type: 'object',
    properties: { requests: { type: 'object', description: 'Requests describes the minimum amount of storage required, e.g. storage: 1Gi.', additionalProperties: ref(QUANTITY, '') } },
  },
};

const doc = (title: string, schemas: Record<string, Schema>) => ({
  openapi: '3.0.0', info: { title, version: 'v1.31.0' }, paths: {}, components: { schemas: { ...schemas, ...COMMON } },
});

const apps = (kind: string) => `io.k8s.api.apps.v1.${kind}`;
const replicas = { type: 'integer', format: 'int32', description: 'Number of desired pods.' };
const workload = {
  selector: ref(SELECTOR, 'Label selector for pods. It must match the pod template\'s labels.'),
  template: ref(core('PodTemplateSpec'), 'Template describes the pods that will be created.'),
  minReadySeconds: int32('Minimum number of seconds for which a newly created pod should be ready without any of its container crashing, for it to be considered available. Defaults to 0.'),
  revisionHistoryLimit: int32('The number of old history to retain to allow rollback. Defaults to 10.'),
};

/** One OpenAPI v3 document per group version, keyed by the index path (`apis/apps/v1`). */
export const OPENAPI_DOCS: Record<string, Record<string, unknown>> = {
  'api/v1': doc('Kubernetes', {
    [core('ConfigMap')]: kindSchema('ConfigMap holds configuration data for pods to consume.', undefined, '', 'v1', 'ConfigMap', {
      data: strMap('Data contains the configuration data. Each key must consist of alphanumeric characters, \'-\', \'_\' or \'.\'.'),
      binaryData: { type: 'object', description: 'BinaryData contains the binary data.', additionalProperties: { type: 'string', format: 'byte' } },
      immutable: bool('Immutable, if set to true, ensures that data stored in the ConfigMap cannot be updated.'),
    }),
    [core('Service')]: kindSchema('Service is a named abstraction of software service consisting of local port that the proxy listens on, and the selector that determines which pods will answer requests sent through the proxy.', core('ServiceSpec'), '', 'v1', 'Service'),
    [core('ServiceSpec')]: {
      description: 'ServiceSpec describes the attributes that a user creates on a service.', type: 'object',
      properties: {
        type: oneOf(['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'], 'type determines how the Service is exposed. Defaults to ClusterIP.'),
        ports: list(core('ServicePort'), 'The list of ports that are exposed by this service.'),
        selector: strMap('Route service traffic to pods with label keys and values matching this selector.'),
        sessionAffinity: oneOf(['ClientIP', 'None'], 'Supports "ClientIP" and "None". Used to maintain session affinity. Defaults to None.'),
        externalTrafficPolicy: oneOf(['Cluster', 'Local'], 'externalTrafficPolicy describes how nodes distribute service traffic they receive on one of the Service\'s "externally-facing" addresses.'),
        clusterIP: str('clusterIP is the IP address of the service and is usually assigned randomly.'),
      },
    },
    [core('ServicePort')]: {
      description: 'ServicePort contains information on service\'s port.', type: 'object', required: ['port'],
      properties: {
        name: str('The name of this port within the service. This must be a DNS_LABEL.'),
        port: int32('The port that will be exposed by this service.'),
        targetPort: ref(INT_OR_STRING, 'Number or name of the port to access on the pods targeted by the service.'),
        nodePort: int32('The port on each node on which this service is exposed when type is NodePort or LoadBalancer.'),
        protocol: oneOf(['SCTP', 'TCP', 'UDP'], 'The IP protocol for this port. Supports "TCP", "UDP", and "SCTP". Default is TCP.'),
      },
    },
  }),
  'apis/apps/v1': doc('Kubernetes', {
    [apps('Deployment')]: kindSchema('Deployment enables declarative updates for Pods and ReplicaSets.', apps('DeploymentSpec'), 'apps', 'v1', 'Deployment'),
    [apps('DeploymentSpec')]: {
      description: 'DeploymentSpec is the specification of the desired behavior of the Deployment.', type: 'object', required: ['selector', 'template'],
      properties: {
        replicas, ...workload,
        strategy: ref(apps('DeploymentStrategy'), 'The deployment strategy to use to replace existing pods with new ones.'),
        progressDeadlineSeconds: int32('The maximum time in seconds for a deployment to make progress before it is considered to be failed. Defaults to 600s.'),
        paused: bool('Indicates that the deployment is paused.'),
      },
    },
    [apps('DeploymentStrategy')]: {
      description: 'DeploymentStrategy describes how to replace existing pods with new ones.', type: 'object',
      properties: {
        type: oneOf(['Recreate', 'RollingUpdate'], 'Type of deployment. Can be "Recreate" or "RollingUpdate". Default is RollingUpdate.'),
        rollingUpdate: {
          type: 'object', description: 'Rolling update config params. Present only if DeploymentStrategyType = RollingUpdate.',
          properties: {
            maxSurge: ref(INT_OR_STRING, 'The maximum number of pods that can be scheduled above the desired number of pods. Value can be an absolute number (ex: 5) or a percentage of desired pods (ex: 10%). Defaults to 25%.'),
            maxUnavailable: ref(INT_OR_STRING, 'The maximum number of pods that can be unavailable during the update. Defaults to 25%.'),
          },
        },
      },
    },
    [apps('StatefulSet')]: kindSchema('StatefulSet represents a set of pods with consistent identities.', apps('StatefulSetSpec'), 'apps', 'v1', 'StatefulSet'),
    [apps('StatefulSetSpec')]: {
      description: 'A StatefulSetSpec is the specification of a StatefulSet.', type: 'object', required: ['selector', 'template', 'serviceName'],
      properties: {
        replicas: int32('replicas is the desired number of replicas of the given Template. Defaults to 1.'), ...workload,
        serviceName: str('serviceName is the name of the service that governs this StatefulSet.'),
        podManagementPolicy: oneOf(['OrderedReady', 'Parallel'], 'podManagementPolicy controls how pods are created during initial scale up, when replacing pods on nodes, or when scaling down. The default policy is `OrderedReady`.'),
        volumeClaimTemplates: list(core('PersistentVolumeClaim'), 'volumeClaimTemplates is a list of claims that pods are allowed to reference.'),
      },
    },
  }),
  'apis/batch/v1': doc('Kubernetes', {
    'io.k8s.api.batch.v1.CronJob': kindSchema('CronJob represents the configuration of a single cron job.', 'io.k8s.api.batch.v1.CronJobSpec', 'batch', 'v1', 'CronJob'),
    'io.k8s.api.batch.v1.CronJobSpec': {
      description: 'CronJobSpec describes how the job execution will look like and when it will actually run.', type: 'object', required: ['schedule', 'jobTemplate'],
      properties: {
        schedule: str('The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.'),
        timeZone: str('The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones.'),
        concurrencyPolicy: oneOf(['Allow', 'Forbid', 'Replace'], 'Specifies how to treat concurrent executions of a Job. Defaults to Allow.'),
        suspend: bool('This flag tells the controller to suspend subsequent executions. Defaults to false.'),
        startingDeadlineSeconds: { type: 'integer', format: 'int64', description: 'Optional deadline in seconds for starting the job if it misses scheduled time for any reason.' },
        successfulJobsHistoryLimit: int32('The number of successful finished jobs to retain. Value must be non-negative integer. Defaults to 3.'),
        failedJobsHistoryLimit: int32('The number of failed finished jobs to retain. Value must be non-negative integer. Defaults to 1.'),
        jobTemplate: ref('io.k8s.api.batch.v1.JobTemplateSpec', 'Specifies the job that will be created when executing a CronJob.'),
      },
    },
    'io.k8s.api.batch.v1.JobTemplateSpec': {
      description: 'JobTemplateSpec describes the data a Job should have when created from a template', type: 'object',
      properties: { metadata: ref(META, 'Standard object\'s metadata of the jobs created from this template.'), spec: ref('io.k8s.api.batch.v1.JobSpec', 'Specification of the desired behavior of the job.') },
    },
    'io.k8s.api.batch.v1.JobSpec': {
      description: 'JobSpec describes how the job execution will look like.', type: 'object', required: ['template'],
      properties: {
        template: ref(core('PodTemplateSpec'), 'Describes the pod that will be created when executing a job. The only allowed template.spec.restartPolicy values are "Never" or "OnFailure".'),
        backoffLimit: int32('Specifies the number of retries before marking this job failed. Defaults to 6'),
        completions: int32('Specifies the desired number of successfully finished pods the job should be run with.'),
        parallelism: int32('Specifies the maximum desired number of pods the job should run at any given time.'),
        activeDeadlineSeconds: { type: 'integer', format: 'int64', description: 'Specifies the duration in seconds relative to the startTime that the job may be continuously active before the system tries to terminate it.' },
        ttlSecondsAfterFinished: int32('ttlSecondsAfterFinished limits the lifetime of a Job that has finished execution.'),
      },
    },
  }),
  'apis/example.com/v1': {
    openapi: '3.0.0',
    info: { title: 'Kubernetes CRD Swagger', version: 'v0.1.0' },
    paths: {},
    components: {
      schemas: {
        'com.example.v1.Widget': {
          type: 'object', description: 'A Widget is a made-up custom resource served by a CRD.',
          properties: { metadata: ref(META, 'metadata'), spec: { $ref: '#/components/schemas/com.example.v1.Node' } },
          ...gvk('example.com', 'v1', 'Widget'),
        },
        // a schema that refers to itself, like JSONSchemaProps: inlining must stop
        'com.example.v1.Node': {
          type: 'object', required: ['size'],
          properties: {
            size: { type: 'integer', description: 'How many parts the widget has.', minimum: 1, maximum: 100 },
            color: { type: 'string', description: 'Paint colour.', enum: ['red', 'green', 'blue'], default: 'red' },
            label: { type: 'string', description: 'A DNS-1123 label.', maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' },
            children: { type: 'array', items: { $ref: '#/components/schemas/com.example.v1.Node' } },
          },
        },
        [META]: COMMON[META],
      },
    },
  },
};
