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
import { bool, COMMON, core, gvk, int32, INT_OR_STRING, kindSchema, list, META, oneOf, ref, type Schema, SELECTOR, str, strMap } from './kube-openapi-core.js';

const doc = (title: string, schemas: Record<string, Schema>) => ({
  openapi: '3.0.0',
  info: { title, version: 'v1.31.0' },
  paths: {},
  components: { schemas: { ...schemas, ...COMMON } },
});

const apps = (kind: string) => `io.k8s.api.apps.v1.${kind}`;
const replicas = { type: 'integer', format: 'int32', description: 'Number of desired pods.' };
const workload = {
  selector: ref(SELECTOR, "Label selector for pods. It must match the pod template's labels."),
  template: ref(core('PodTemplateSpec'), 'Template describes the pods that will be created.'),
  minReadySeconds: int32(
    'Minimum number of seconds for which a newly created pod should be ready without any of its container crashing, for it to be considered available. Defaults to 0.',
  ),
  revisionHistoryLimit: int32('The number of old history to retain to allow rollback. Defaults to 10.'),
};

/** One OpenAPI v3 document per group version, keyed by the index path (`apis/apps/v1`). */
export const OPENAPI_DOCS: Record<string, Record<string, unknown>> = {
  'api/v1': doc('Kubernetes', {
    [core('ConfigMap')]: kindSchema('ConfigMap holds configuration data for pods to consume.', undefined, '', 'v1', 'ConfigMap', {
      data: strMap("Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'."),
      binaryData: { type: 'object', description: 'BinaryData contains the binary data.', additionalProperties: { type: 'string', format: 'byte' } },
      immutable: bool('Immutable, if set to true, ensures that data stored in the ConfigMap cannot be updated.'),
    }),
    [core('Service')]: kindSchema(
      'Service is a named abstraction of software service consisting of local port that the proxy listens on, and the selector that determines which pods will answer requests sent through the proxy.',
      core('ServiceSpec'),
      '',
      'v1',
      'Service',
    ),
    [core('ServiceSpec')]: {
      description: 'ServiceSpec describes the attributes that a user creates on a service.',
      type: 'object',
      properties: {
        type: oneOf(['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'], 'type determines how the Service is exposed. Defaults to ClusterIP.'),
        ports: list(core('ServicePort'), 'The list of ports that are exposed by this service.'),
        selector: strMap('Route service traffic to pods with label keys and values matching this selector.'),
        sessionAffinity: oneOf(['ClientIP', 'None'], 'Supports "ClientIP" and "None". Used to maintain session affinity. Defaults to None.'),
        externalTrafficPolicy: oneOf(
          ['Cluster', 'Local'],
          'externalTrafficPolicy describes how nodes distribute service traffic they receive on one of the Service\'s "externally-facing" addresses.',
        ),
        clusterIP: str('clusterIP is the IP address of the service and is usually assigned randomly.'),
      },
    },
    [core('ServicePort')]: {
      description: "ServicePort contains information on service's port.",
      type: 'object',
      required: ['port'],
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
      description: 'DeploymentSpec is the specification of the desired behavior of the Deployment.',
      type: 'object',
      required: ['selector', 'template'],
      properties: {
        replicas,
        ...workload,
        strategy: ref(apps('DeploymentStrategy'), 'The deployment strategy to use to replace existing pods with new ones.'),
        progressDeadlineSeconds: int32('The maximum time in seconds for a deployment to make progress before it is considered to be failed. Defaults to 600s.'),
        paused: bool('Indicates that the deployment is paused.'),
      },
    },
    [apps('DeploymentStrategy')]: {
      description: 'DeploymentStrategy describes how to replace existing pods with new ones.',
      type: 'object',
      properties: {
        type: oneOf(['Recreate', 'RollingUpdate'], 'Type of deployment. Can be "Recreate" or "RollingUpdate". Default is RollingUpdate.'),
        rollingUpdate: {
          type: 'object',
          description: 'Rolling update config params. Present only if DeploymentStrategyType = RollingUpdate.',
          properties: {
            maxSurge: ref(
              INT_OR_STRING,
              'The maximum number of pods that can be scheduled above the desired number of pods. Value can be an absolute number (ex: 5) or a percentage of desired pods (ex: 10%). Defaults to 25%.',
            ),
            maxUnavailable: ref(INT_OR_STRING, 'The maximum number of pods that can be unavailable during the update. Defaults to 25%.'),
          },
        },
      },
    },
    [apps('StatefulSet')]: kindSchema('StatefulSet represents a set of pods with consistent identities.', apps('StatefulSetSpec'), 'apps', 'v1', 'StatefulSet'),
    [apps('StatefulSetSpec')]: {
      description: 'A StatefulSetSpec is the specification of a StatefulSet.',
      type: 'object',
      required: ['selector', 'template', 'serviceName'],
      properties: {
        replicas: int32('replicas is the desired number of replicas of the given Template. Defaults to 1.'),
        ...workload,
        serviceName: str('serviceName is the name of the service that governs this StatefulSet.'),
        podManagementPolicy: oneOf(
          ['OrderedReady', 'Parallel'],
          'podManagementPolicy controls how pods are created during initial scale up, when replacing pods on nodes, or when scaling down. The default policy is `OrderedReady`.',
        ),
        volumeClaimTemplates: list(core('PersistentVolumeClaim'), 'volumeClaimTemplates is a list of claims that pods are allowed to reference.'),
      },
    },
  }),
  'apis/batch/v1': doc('Kubernetes', {
    'io.k8s.api.batch.v1.CronJob': kindSchema(
      'CronJob represents the configuration of a single cron job.',
      'io.k8s.api.batch.v1.CronJobSpec',
      'batch',
      'v1',
      'CronJob',
    ),
    'io.k8s.api.batch.v1.CronJobSpec': {
      description: 'CronJobSpec describes how the job execution will look like and when it will actually run.',
      type: 'object',
      required: ['schedule', 'jobTemplate'],
      properties: {
        schedule: str('The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.'),
        timeZone: str('The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones.'),
        concurrencyPolicy: oneOf(['Allow', 'Forbid', 'Replace'], 'Specifies how to treat concurrent executions of a Job. Defaults to Allow.'),
        suspend: bool('This flag tells the controller to suspend subsequent executions. Defaults to false.'),
        startingDeadlineSeconds: {
          type: 'integer',
          format: 'int64',
          description: 'Optional deadline in seconds for starting the job if it misses scheduled time for any reason.',
        },
        successfulJobsHistoryLimit: int32('The number of successful finished jobs to retain. Value must be non-negative integer. Defaults to 3.'),
        failedJobsHistoryLimit: int32('The number of failed finished jobs to retain. Value must be non-negative integer. Defaults to 1.'),
        jobTemplate: ref('io.k8s.api.batch.v1.JobTemplateSpec', 'Specifies the job that will be created when executing a CronJob.'),
      },
    },
    'io.k8s.api.batch.v1.JobTemplateSpec': {
      description: 'JobTemplateSpec describes the data a Job should have when created from a template',
      type: 'object',
      properties: {
        metadata: ref(META, "Standard object's metadata of the jobs created from this template."),
        spec: ref('io.k8s.api.batch.v1.JobSpec', 'Specification of the desired behavior of the job.'),
      },
    },
    'io.k8s.api.batch.v1.JobSpec': {
      description: 'JobSpec describes how the job execution will look like.',
      type: 'object',
      required: ['template'],
      properties: {
        template: ref(
          core('PodTemplateSpec'),
          'Describes the pod that will be created when executing a job. The only allowed template.spec.restartPolicy values are "Never" or "OnFailure".',
        ),
        backoffLimit: int32('Specifies the number of retries before marking this job failed. Defaults to 6'),
        completions: int32('Specifies the desired number of successfully finished pods the job should be run with.'),
        parallelism: int32('Specifies the maximum desired number of pods the job should run at any given time.'),
        activeDeadlineSeconds: {
          type: 'integer',
          format: 'int64',
          description:
            'Specifies the duration in seconds relative to the startTime that the job may be continuously active before the system tries to terminate it.',
        },
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
          type: 'object',
          description: 'A Widget is a made-up custom resource served by a CRD.',
          properties: { metadata: ref(META, 'metadata'), spec: { $ref: '#/components/schemas/com.example.v1.Node' } },
          ...gvk('example.com', 'v1', 'Widget'),
        },
        // a schema that refers to itself, like JSONSchemaProps: inlining must stop
        'com.example.v1.Node': {
          type: 'object',
          required: ['size'],
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
