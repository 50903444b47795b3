import { isJsonObject } from '../../json-object.js';
import { valueAt, verdict, type FieldRule, type RuleInput, type RuleVerdict } from './field-rule.js';
import { SECURITY } from './container-rules.js';
import { metadataKey } from './metadata-rules.js';

/** A pod's security context: a container's fields and the pod-level ones; every value is judged by the Pod Security Standards. */
const POD_SECURITY = [
  ...SECURITY,
  'securityContext.{fsGroup,fsGroupChangePolicy,supplementalGroupsPolicy,seLinuxChangePolicy}',
  'securityContext.supplementalGroups[]',
  'securityContext.sysctls[].{name,value}',
];
const CONTROL_PLANE = new Set(['node-role.kubernetes.io/control-plane', 'node-role.kubernetes.io/master']);
const medium = (): RuleVerdict => verdict('medium');
const high = (words: string) => (i: RuleInput) => verdict('high', `${i.kind} ${i.shown}: ${words}`);
/** Unset (back to the default: the scheduler, the runtime, the cluster's names) is medium; any value, high. */
const unsetOnly = (words: string) => (i: RuleInput) => (i.change.to === undefined ? medium() : high(words)(i));
/** `to` when it is the safe value, else high with the words. */
const safeWhen = (ok: (to: unknown, i: RuleInput) => boolean, words: string) => (i: RuleInput) => (ok(i.change.to, i) ? medium() : high(words)(i));
const pod = (id: string, area: string, paths: string[], safe: string, judge: (i: RuleInput) => RuleVerdict): FieldRule => ({
  id,
  area,
  scope: 'pod',
  paths,
  safe,
  judge,
});
/** The toleration (the list item) a leaf is in: tolerating a control-plane taint, or every taint, places pods on control-plane nodes. */
function toleration(i: RuleInput): RuleVerdict {
  // the leaf is tolerations[].<field>: its item is two steps from the start of the relative path
  const item = valueAt(i.result, i.change.segments.slice(0, i.change.segments.length - Math.max(0, i.path.length - 2)));
  if (!isJsonObject(item)) return medium();
  if (typeof item.key === 'string' && CONTROL_PLANE.has(item.key)) return high(`tolerates ${item.key} (control-plane placement)`)(i);
  if (!item.key && item.operator === 'Exists') return high('tolerates every taint (control-plane placement included)')(i);
  return medium();
}

/**
 * Pod rules, relative to a pod spec found by shape in any kind (a Pod's
 * `spec`, a Deployment's `spec.template.spec`, a custom resource's): every
 * change is at least medium (its pods are replaced); the pod's identity,
 * placement and data are high. The Pod Security Standards and new
 * references to Secrets, ConfigMaps and claims are judged on the whole pod
 * (pod-risk.ts), so their fields are medium here.
 */
export const POD_RULES: FieldRule[] = [
  pod('pod.containers', 'Pods', ['containers', 'initContainers', 'ephemeralContainers'], 'medium', medium),
  pod(
    'pod.service-account',
    'Pod identity',
    ['serviceAccountName', 'serviceAccount'],
    '"default" (or unset): medium; another account: high (its permissions)',
    (i) => (i.change.to === undefined || i.change.to === 'default' ? medium() : high(`runs the pod as service account ${String(i.change.to)}`)(i)),
  ),
  pod(
    'pod.token',
    'Pod identity',
    ['automountServiceAccountToken'],
    'false: medium; true or unset: high (the pod gets API credentials)',
    safeWhen((to) => to === false, 'mounts an API token into the pod'),
  ),
  pod(
    'pod.node-name',
    'Pod placement',
    ['nodeName'],
    'unset: medium; a node: high (binds the pod to one node, past the scheduler)',
    unsetOnly('binds the pod to a node past the scheduler'),
  ),
  pod('pod.node-selector', 'Pod placement', ['nodeSelector.*'], 'medium; a control-plane node label: high', (i) =>
    CONTROL_PLANE.has(i.path[1] ?? '') ? high('a nodeSelector for control-plane nodes')(i) : medium(),
  ),
  pod('pod.affinity', 'Pod placement', ['affinity.{nodeAffinity,podAffinity,podAntiAffinity}.**'], 'medium; naming control-plane nodes: high', (i) =>
    CONTROL_PLANE.has(String(i.change.to)) ? high('node affinity naming control-plane nodes')(i) : medium(),
  ),
  pod(
    'pod.tolerations',
    'Pod placement',
    ['tolerations[].{key,operator,value,effect,tolerationSeconds}'],
    'medium; a control-plane taint, or every taint: high',
    toleration,
  ),
  pod(
    'pod.priority-class',
    'Pod placement',
    ['priorityClassName'],
    'medium; a system-* class: high',
    safeWhen((to) => !(typeof to === 'string' && to.startsWith('system-')), 'a system priority class'),
  ),
  pod(
    'pod.scheduler',
    'Pod placement',
    ['schedulerName'],
    'default-scheduler: medium; another scheduler: high',
    safeWhen((to) => to === undefined || to === 'default-scheduler', 'another scheduler places the pod'),
  ),
  pod(
    'pod.runtime-class',
    'Pod placement',
    ['runtimeClassName'],
    'unset: medium; a class: high (the container runtime and its isolation)',
    unsetOnly('picks the container runtime (its isolation)'),
  ),
  pod('pod.os', 'Pod placement', ['os.name'], 'set when created: medium; changed after: high (which nodes, which Pod Security controls apply)', (i) =>
    i.created ? medium() : high('changes the operating system the pod runs on')(i),
  ),
  pod(
    'pod.dns-names',
    'Pod network',
    ['hostAliases[].{ip,hostnames}', 'hostAliases[].hostnames[]', 'dnsConfig.{nameservers,searches}[]', 'dnsConfig.options[].{name,value}'],
    'removed: medium; set or changed: high (what names resolve to)',
    unsetOnly('changes what names resolve to in the pod'),
  ),
  pod(
    'pod.dns-policy',
    'Pod network',
    ['dnsPolicy'],
    'ClusterFirst: medium; another policy: high',
    safeWhen((to) => to === undefined || to === 'ClusterFirst', 'changes how the pod resolves names'),
  ),
  pod(
    'pod.resource-claims',
    'Pod data',
    ['resourceClaims[].{name,resourceClaimName,resourceClaimTemplateName}'],
    'removed: medium; set or changed: high (devices claimed for the pod)',
    unsetOnly('claims devices for the pod'),
  ),
  pod(
    'pod.volumes',
    'Pod data',
    [
      'volumes[].name',
      'volumes[].emptyDir.{medium,sizeLimit}',
      'volumes[].{configMap,secret}.{name,secretName,defaultMode,optional}',
      'volumes[].{configMap,secret}.items[].{key,path,mode}',
      'volumes[].persistentVolumeClaim.{claimName,readOnly}',
      'volumes[].projected.defaultMode',
      'volumes[].projected.sources[].{secret,configMap,downwardAPI,serviceAccountToken,clusterTrustBundle}.**',
      'volumes[].downwardAPI.**',
      'volumes[].ephemeral.volumeClaimTemplate.**',
      'volumes[].hostPath.{path,type}',
      'volumes[].image.{reference,pullPolicy}',
      'volumes[].{emptyDir,configMap,secret,persistentVolumeClaim,projected,downwardAPI,ephemeral,hostPath,image}',
      'volumes',
      'imagePullSecrets[].name',
    ],
    'medium; a Secret, ConfigMap or claim the pod did not read before: high; a hostPath: high (Pod Security Standards); an image volume from a registry new to the object: high',
    medium,
  ),
  pod(
    'pod.security',
    'Pod security',
    ['hostNetwork', 'hostPID', 'hostIPC', 'hostUsers', 'shareProcessNamespace', ...POD_SECURITY],
    'medium when the pod meets the Pod Security Standards (below); high otherwise',
    medium,
  ),
  pod(
    'pod.other',
    'Pods',
    [
      'restartPolicy',
      'terminationGracePeriodSeconds',
      'activeDeadlineSeconds',
      'enableServiceLinks',
      'hostname',
      'subdomain',
      'setHostnameAsFQDN',
      'readinessGates[].conditionType',
      'topologySpreadConstraints[].**',
      'schedulingGates[].name',
      'overhead.*',
      'resources.{limits,requests}.*',
      'priority',
      'preemptionPolicy',
    ],
    'medium',
    medium,
  ),
  {
    id: 'pod-metadata',
    area: 'Pod template metadata',
    scope: 'pod-metadata',
    paths: ['*'],
    safe: `a key without a prefix, app.kubernetes.io/*, kubectl.kubernetes.io/restartedAt, the AppArmor annotation (Pod Security Standards): medium; another prefix: high (a webhook may inject into or change the pod)`,
    judge: (i) =>
      metadataKey(i.path[0] ?? '') !== 'unknown' || (i.path[0] ?? '').startsWith('container.apparmor.security.beta.kubernetes.io/')
        ? medium()
        : verdict('high', `svc does not know what ${i.shown} does on a pod (a webhook or controller may inject into or change the pod)`),
  },
];
