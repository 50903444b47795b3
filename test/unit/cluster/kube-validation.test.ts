import type { KubeObject, PatchBody } from '../../../domain/cluster/kube-types.js';
import {
  MAX_LOG_BYTES,
  validateApiVersion,
  validateEventQuery,
  validateFieldManager,
  validateKind,
  validateListQuery,
  validateLogQuery,
  validateManifest,
  validateName,
  validateNamespace,
  validatePatch,
  validateWaitCondition,
  validateWaitOptions,
} from '../../../domain/cluster/kube-validation.js';
import { validationCases } from '../../support/validation-cases.js';

const manifest = (over: Partial<KubeObject> = {}, meta: Record<string, unknown> = {}) =>
  ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop', ...meta }, ...over }) as KubeObject;

describe('cluster: the checks before any request reaches the API server', () => {
  describe('names that end up in URL paths', () =>
    validationCases([
      ['v1', () => validateApiVersion('v1')],
      ['apps/v1', () => validateApiVersion('apps/v1')],
      ['a beta version of a custom group', () => validateApiVersion('acme.io/v2beta1')],
      ['a version with a path in it', () => validateApiVersion('apps/v1/../../api'), /Invalid apiVersion/],
      ['a version that is not one', () => validateApiVersion('apps/latest'), /Invalid apiVersion/],
      ['a kind', () => validateKind('Deployment')],
      ['a lower-case kind (a resource name is not a kind)', () => validateKind('deployments'), /Invalid kind/],
      ['an RBAC name with colons', () => validateName('system:controller:web')],
      ['a dotted name', () => validateName('web.v1')],
      ['a name stepping up a path', () => validateName('a..b'), /Invalid name/],
      ['a name with a slash', () => validateName('web/status'), /Invalid name/],
      ['a name with a query', () => validateName('web?watch=1'), /Invalid name/],
      ['a name with a newline', () => validateName('web\n'), /Invalid name/],
      ['a name that is not a string', () => validateName(7), /Invalid name/],
      ['a name of 254 characters', () => validateName('a'.repeat(254)), /Invalid name/],
      ['no namespace', () => validateNamespace(undefined)],
      ['a namespace with capitals', () => validateNamespace('Shop'), /Invalid namespace/],
      ['a namespace with a dot', () => validateNamespace('shop.prod'), /Invalid namespace/],
      ['an empty namespace', () => validateNamespace(''), /Invalid namespace/],
    ]));

  describe('manifests', () =>
    validationCases([
      ['a manifest', () => validateManifest(manifest())],
      ['a cluster-scoped manifest', () => validateManifest(manifest({}, { namespace: undefined }))],
      ['a list', () => validateManifest([] as unknown as KubeObject), /expected a JSON object/],
      ['no metadata', () => validateManifest({ apiVersion: 'v1', kind: 'ConfigMap' } as KubeObject), /metadata\.name is required/],
      ['a name with a path', () => validateManifest(manifest({}, { name: '../secrets' })), /Invalid name/],
    ]));

  describe('patches: never the identity of the object they patch', () =>
    validationCases([
      ['a merge patch', () => validatePatch({ spec: { replicas: 2 } })],
      ['labels in metadata', () => validatePatch({ metadata: { labels: { a: 'b' } } })],
      ['an empty merge patch', () => validatePatch({}), /non-empty JSON object/],
      ['a kind change', () => validatePatch({ kind: 'Secret' }), /kind cannot be patched/],
      ['a rename', () => validatePatch({ metadata: { name: 'other' } }), /metadata\.name and metadata\.namespace cannot be patched/],
      ['a move to another namespace', () => validatePatch({ metadata: { namespace: 'kube-system' } }), /cannot be patched/],
      ['a JSON Patch', () => validatePatch([{ op: 'replace', path: '/spec/replicas', value: 2 }])],
      ['a JSON Patch testing the name', () => validatePatch([{ op: 'test', path: '/metadata/name', value: 'web' }])],
      ['an empty JSON Patch', () => validatePatch([]), /1 to 100 operations/],
      ['101 operations', () => validatePatch(Array.from({ length: 101 }, () => ({ op: 'add', path: '/spec/x', value: 1 })) as PatchBody), /1 to 100/],
      ['an operation outside RFC 6902', () => validatePatch([{ op: 'merge', path: '/spec' }] as unknown as PatchBody), /operation 1 needs "op"/],
      ['a path that is not a pointer', () => validatePatch([{ op: 'add', path: 'spec/replicas', value: 1 }]), /JSON Pointer/],
      ['replacing the whole object', () => validatePatch([{ op: 'replace', path: '', value: {} }]), /may not change the whole object/],
      ['replacing the name', () => validatePatch([{ op: 'replace', path: '/metadata/name', value: 'x' }]), /may not change \/metadata\/name/],
      ['removing the namespace', () => validatePatch([{ op: 'remove', path: '/metadata/namespace' }]), /may not change/],
      ['replacing the whole metadata name via a deeper pointer', () => validatePatch([{ op: 'add', path: '/metadata/name/x', value: 1 }]), /may not change/],
      ['copying over the kind', () => validatePatch([{ op: 'copy', from: '/spec/x', path: '/kind' }]), /may not change \/kind/],
      ['moving the name away', () => validatePatch([{ op: 'move', from: '/metadata/name', path: '/metadata/labels/x' }]), /may not change \/metadata\/name/],
      // a key that merely starts like an identity field is another field
      ['a field named kindness', () => validatePatch([{ op: 'add', path: '/kindness', value: 1 }])],
    ]));

  describe('queries and options', () =>
    validationCases([
      ['a list query', () => validateListQuery({ apiVersion: 'v1', kind: 'Pod', namespace: 'shop', labelSelector: 'app=web', limit: 500 })],
      ['a limit of 501', () => validateListQuery({ apiVersion: 'v1', kind: 'Pod', limit: 501 }), /an integer from 1 to 500/],
      ['a fractional limit', () => validateListQuery({ apiVersion: 'v1', kind: 'Pod', limit: 1.5 }), /limit/],
      ['a selector with a newline', () => validateListQuery({ apiVersion: 'v1', kind: 'Pod', labelSelector: 'a=b\nc' }), /printable ASCII/],
      ['a selector past 1024 characters', () => validateListQuery({ apiVersion: 'v1', kind: 'Pod', fieldSelector: 'a'.repeat(1025) }), /printable ASCII/],
      ['an event query', () => validateEventQuery({ namespace: 'shop', involvedObject: { kind: 'Pod', name: 'web-1' } })],
      ['an event query naming a path', () => validateEventQuery({ involvedObject: { kind: 'Pod', name: 'a/b' } }), /Invalid name/],
      ['a log query', () => validateLogQuery({ namespace: 'shop', pod: 'web-1', container: 'app', tailLines: 100, limitBytes: MAX_LOG_BYTES })],
      ['a log query without a namespace', () => validateLogQuery({ pod: 'web-1' } as never), /required for logs/],
      ['a log query past the byte bound', () => validateLogQuery({ namespace: 'shop', pod: 'web-1', limitBytes: MAX_LOG_BYTES + 1 }), /limitBytes/],
      ['a container name with capitals', () => validateLogQuery({ namespace: 'shop', pod: 'web-1', container: 'App' }), /Invalid container name/],
      ['a field manager', () => validateFieldManager('svc')],
      ['a field manager with a space', () => validateFieldManager('svc admin'), /fieldManager/],
      ['wait options', () => validateWaitOptions({ timeoutMs: 1000, intervalMs: 10 })],
      ['wait options without a timeout', () => validateWaitOptions({} as never), /timeoutMs is required/],
      ['an interval under 10 ms', () => validateWaitOptions({ timeoutMs: 1000, intervalMs: 1 }), /intervalMs/],
      ['a rollout wait', () => validateWaitCondition({ type: 'rolloutFinished' })],
      ['a condition wait', () => validateWaitCondition({ type: 'condition', name: 'Available', status: 'True' })],
      [
        'a condition status outside the three',
        () => validateWaitCondition({ type: 'condition', name: 'Available', status: 'true' } as never),
        /True, False or Unknown/,
      ],
      ['a condition name that is not one', () => validateWaitCondition({ type: 'condition', name: 'available; rm' } as never), /condition name/],
      ['a wait of an unknown type', () => validateWaitCondition({ type: 'forever' } as never), /type must be/],
    ]));
});
