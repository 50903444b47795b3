/**
 * The building blocks of the stand-in's OpenAPI v3 documents (kube-openapi-docs.ts):
 * schema helpers in kube-apiserver's shapes (`allOf` references with a
 * description and `default: {}`, enums with "Possible enum values" text) and the
 * schemas every document includes: ObjectMeta, LabelSelector, Quantity,
 * IntOrString, PodTemplateSpec, PodSpec, Container and its parts,
 * PersistentVolumeClaim (for StatefulSet claim templates).
 */
export type Schema = Record<string, unknown>;

export const ref = (name: string, description: string) => ({ allOf: [{ $ref: `#/components/schemas/${name}` }], description, default: {} });
export const str = (description: string, extra: Schema = {}) => ({ type: 'string', description, ...extra });
export const int32 = (description: string, extra: Schema = {}) => ({ type: 'integer', format: 'int32', description, ...extra });
export const bool = (description: string) => ({ type: 'boolean', description });
export const strMap = (description: string) => ({ type: 'object', description, additionalProperties: { type: 'string', default: '' } });
export const list = (item: string, description: string) => ({
  type: 'array',
  description,
  items: { allOf: [{ $ref: `#/components/schemas/${item}` }], default: {} },
});
export const oneOf = (values: string[], description: string) =>
  str(`${description}\n\nPossible enum values:\n${values.map((v) => ` - \`"${v}"\``).join('\n')}`, { enum: values });
export const gvk = (group: string, version: string, kind: string) => ({ 'x-kubernetes-group-version-kind': [{ group, kind, version }] });

export const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
export const SELECTOR = 'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector';
export const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
export const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
export const core = (kind: string) => `io.k8s.api.core.v1.${kind}`;

export const kindSchema = (description: string, spec: string | undefined, group: string, version: string, kind: string, extra: Schema = {}) => ({
  description,
  type: 'object',
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
export const COMMON: Record<string, Schema> = {
  [META]: {
    description: 'ObjectMeta is metadata that all persisted resources must have.',
    type: 'object',
    properties: {
      name: str('Name must be unique within a namespace.'),
      namespace: str('Namespace defines the space within which each name must be unique.'),
      labels: strMap('Map of string keys and values that can be used to organize and categorize objects.'),
      annotations: strMap('Annotations is an unstructured key value map stored with a resource.'),
    },
  },
  [SELECTOR]: {
    description: 'A label selector is a label query over a set of resources.',
    type: 'object',
    'x-kubernetes-map-type': 'atomic',
    properties: { matchLabels: strMap('matchLabels is a map of {key,value} pairs.') },
  },
  [QUANTITY]: { description: 'Quantity is a fixed-point representation of a number, e.g. 128Mi, 500m, 1Gi.', type: 'string' },
  [INT_OR_STRING]: { description: 'IntOrString is a type that can hold an int32 or a string.', type: 'string', format: 'int-or-string' },
  [core('PodTemplateSpec')]: {
    description: 'PodTemplateSpec describes the data a pod should have when created from a template',
    type: 'object',
    properties: { metadata: ref(META, 'metadata'), spec: ref(core('PodSpec'), 'Specification of the desired behavior of the pod.') },
  },
  [core('PodSpec')]: {
    description: 'PodSpec is a description of a pod.',
    type: 'object',
    required: ['containers'],
    properties: {
      containers: list(core('Container'), 'List of containers belonging to the pod. There must be at least one container in a Pod. Cannot be updated.'),
      restartPolicy: oneOf(['Always', 'Never', 'OnFailure'], 'Restart policy for all containers within the pod. Default to Always.'),
      serviceAccountName: str('ServiceAccountName is the name of the ServiceAccount to use to run this pod.'),
      nodeSelector: strMap('NodeSelector is a selector which must be true for the pod to fit on a node.'),
      terminationGracePeriodSeconds: {
        type: 'integer',
        format: 'int64',
        description: 'Optional duration in seconds the pod needs to terminate gracefully. Defaults to 30 seconds.',
      },
    },
  },
  [core('Container')]: {
    description: 'A single application container that you want to run within a pod.',
    type: 'object',
    required: ['name'],
    properties: {
      name: str('Name of the container specified as a DNS_LABEL. Each container in a pod must have a unique name.'),
      image: str('Container image name.'),
      imagePullPolicy: oneOf(
        ['Always', 'IfNotPresent', 'Never'],
        'Image pull policy. Defaults to Always if :latest tag is specified, or IfNotPresent otherwise.',
      ),
      command: { type: 'array', description: 'Entrypoint array. Not executed within a shell.', items: { type: 'string', default: '' } },
      args: { type: 'array', description: 'Arguments to the entrypoint.', items: { type: 'string', default: '' } },
      ports: list(core('ContainerPort'), 'List of ports to expose from the container.'),
      env: list(core('EnvVar'), 'List of environment variables to set in the container.'),
      resources: ref(core('ResourceRequirements'), 'Compute Resources required by this container.'),
    },
  },
  [core('ContainerPort')]: {
    description: 'ContainerPort represents a network port in a single container.',
    type: 'object',
    required: ['containerPort'],
    properties: {
      containerPort: int32("Number of port to expose on the pod's IP address. This must be a valid port number, 0 < x < 65536."),
      name: str('If specified, this must be an IANA_SVC_NAME and unique within the pod.'),
      protocol: oneOf(['SCTP', 'TCP', 'UDP'], 'Protocol for port. Must be UDP, TCP, or SCTP. Defaults to "TCP".'),
    },
  },
  [core('EnvVar')]: {
    description: 'EnvVar represents an environment variable present in a Container.',
    type: 'object',
    required: ['name'],
    properties: {
      name: str('Name of the environment variable. Must be a C_IDENTIFIER.'),
      value: str('Variable references $(VAR_NAME) are expanded. Defaults to "".'),
    },
  },
  [core('ResourceRequirements')]: {
    description: 'ResourceRequirements describes the compute resource requirements.',
    type: 'object',
    properties: {
      limits: { type: 'object', description: 'Limits describes the maximum amount of compute resources allowed.', additionalProperties: ref(QUANTITY, '') },
      requests: {
        type: 'object',
        description: 'Requests describes the minimum amount of compute resources required.',
        additionalProperties: ref(QUANTITY, ''),
      },
    },
  },
  [core('PersistentVolumeClaim')]: kindSchema(
    "PersistentVolumeClaim is a user's request for and claim to a persistent volume",
    core('PersistentVolumeClaimSpec'),
    '',
    'v1',
    'PersistentVolumeClaim',
  ),
  [core('PersistentVolumeClaimSpec')]: {
    description: 'PersistentVolumeClaimSpec describes the common attributes of storage devices and allows a Source for provider-specific attributes',
    type: 'object',
    properties: {
      accessModes: {
        type: 'array',
        description: 'accessModes contains the desired access modes the volume should have.',
        items: oneOf(['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'], ''),
      },
      resources: ref(core('VolumeResourceRequirements'), 'resources represents the minimum resources the volume should have.'),
      storageClassName: str('storageClassName is the name of the StorageClass required by the claim.'),
      volumeMode: oneOf(
        ['Block', 'Filesystem'],
        'volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when not included in claim spec.',
      ),
      volumeName: str('volumeName is the binding reference to the PersistentVolume backing this claim.'),
      selector: ref(SELECTOR, 'selector is a label query over volumes to consider for binding.'),
    },
  },
  [core('VolumeResourceRequirements')]: {
    description: 'VolumeResourceRequirements describes the storage resource requirements for a volume.',
    type: 'object',
    properties: {
      requests: {
        type: 'object',
        description: 'Requests describes the minimum amount of storage required, e.g. storage: 1Gi.',
        additionalProperties: ref(QUANTITY, ''),
      },
    },
  },
};
