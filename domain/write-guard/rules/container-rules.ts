import { verdict, type FieldRule, type RuleInput, type RuleVerdict } from './field-rule.js';

/** The fields of a security context the API defines (pod-level ones beside them in POD_SECURITY): every value is judged by the Pod Security Standards. */
export const SECURITY = [
  'securityContext.{privileged,runAsUser,runAsGroup,runAsNonRoot,readOnlyRootFilesystem,allowPrivilegeEscalation,procMount}',
  'securityContext.capabilities.{add,drop}[]',
  'securityContext.capabilities.{add,drop}',
  'securityContext.{seccompProfile,appArmorProfile}.{type,localhostProfile}',
  'securityContext.seLinuxOptions.{user,role,type,level}',
  'securityContext.windowsOptions.{gmsaCredentialSpecName,gmsaCredentialSpec,runAsUserName,hostProcess}',
  'securityContext',
];
const HANDLER = [
  'exec.command[]',
  'httpGet.{path,port,scheme,host}',
  'httpGet.httpHeaders[].{name,value}',
  'tcpSocket.{port,host}',
  'grpc.{port,service}',
  'sleep.seconds',
];
const PROBES = [
  '{livenessProbe,readinessProbe,startupProbe}.{initialDelaySeconds,periodSeconds,timeoutSeconds,successThreshold,failureThreshold,terminationGracePeriodSeconds}',
  ...HANDLER.map((h) => `{livenessProbe,readinessProbe,startupProbe}.${h}`),
  ...HANDLER.map((h) => `lifecycle.{postStart,preStop}.${h}`),
  'lifecycle.stopSignal',
];
const medium = (): RuleVerdict => verdict('medium');
const container = (id: string, paths: string[], safe: string, judge: (i: RuleInput) => RuleVerdict = medium): FieldRule => ({
  id,
  area: 'Containers',
  scope: 'container',
  paths,
  safe,
  judge,
});

/**
 * Container rules, relative to a container found by shape in any kind (a
 * pod spec's `containers`, an Argo template's `container`, a Tekton step):
 * every field svc knows is medium (its pods are replaced); what the whole
 * pod says (the Pod Security Standards, new references, image registries)
 * is judged in pod-risk.ts.
 */
export const CONTAINER_RULES: FieldRule[] = [
  container(
    'container.fields',
    [
      'name',
      'image',
      'imagePullPolicy',
      '{command,args}',
      '{command,args}[]',
      'workingDir',
      'script',
      'source',
      'env[].{name,value}',
      'env[].valueFrom.{secretKeyRef,configMapKeyRef}.{name,key,optional}',
      'env[].valueFrom.fieldRef.{fieldPath,apiVersion}',
      'env[].valueFrom.resourceFieldRef.{containerName,resource,divisor}',
      'envFrom[].prefix',
      'envFrom[].{secretRef,configMapRef}.{name,optional}',
      '{env,envFrom}',
      'resources.{limits,requests}.*',
      'resources.claims[].{name,request}',
      'resizePolicy[].{resourceName,restartPolicy}',
      'ports[].{containerPort,name,protocol,hostPort,hostIP}',
      ...PROBES,
      ...SECURITY,
      'volumeDevices[].{name,devicePath}',
      'terminationMessagePath',
      'terminationMessagePolicy',
      'stdin',
      'stdinOnce',
      'tty',
      'restartPolicy',
      'restartPolicyRules[].**',
      'targetContainerName',
    ],
    'medium; an image from a registry new to the object: high; a new Secret, ConfigMap or claim: high; Pod Security Standards as below',
  ),
  container(
    'container.mounts',
    ['volumeMounts[].{name,mountPath,subPath,subPathExpr,readOnly,recursiveReadOnly,mountPropagation}', 'volumeMounts'],
    'medium; Bidirectional mount propagation: high',
    (i) =>
      i.path.at(-1) === 'mountPropagation' && i.change.to === 'Bidirectional'
        ? verdict('high', `${i.kind} ${i.shown}: propagates mounts back to the node`)
        : medium(),
  ),
];
