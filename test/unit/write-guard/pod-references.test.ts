import { expect } from 'chai';
import type { JsonObject } from '../../../domain/json-object.js';
import { podReferences } from '../../../domain/write-guard/pod-references.js';
import { findPods } from '../../../domain/write-guard/pod-shapes.js';

const refs = (spec: JsonObject, container: JsonObject = {}) =>
  [...podReferences(findPods({ spec: { containers: [{ name: 'app', image: 'ghcr.io/a:1', ...container }], ...spec } })[0]!)].sort();

describe('write guard: what a pod reads from elsewhere', () => {
  it('a pod that reads nothing', () => expect(refs({ volumes: [{ name: 'tmp', emptyDir: {} }] })).to.deep.equal([]));

  const table: [string, JsonObject, JsonObject, string[]][] = [
    ['an env Secret key', {}, { env: [{ name: 'P', valueFrom: { secretKeyRef: { name: 'db', key: 'p' } } }] }, ['Secret db']],
    ['an env ConfigMap key', {}, { env: [{ name: 'P', valueFrom: { configMapKeyRef: { name: 'web', key: 'p' } } }] }, ['ConfigMap web']],
    ['envFrom', {}, { envFrom: [{ secretRef: { name: 'db' } }, { configMapRef: { name: 'web' } }] }, ['ConfigMap web', 'Secret db']],
    ['a Secret volume', { volumes: [{ name: 'v', secret: { secretName: 'tls' } }] }, {}, ['Secret tls']],
    ['a ConfigMap volume', { volumes: [{ name: 'v', configMap: { name: 'cfg' } }] }, {}, ['ConfigMap cfg']],
    ['a claim', { volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'data' } }] }, {}, ['PersistentVolumeClaim data']],
    ['a CSI node publish Secret', { volumes: [{ name: 'v', csi: { driver: 'x', nodePublishSecretRef: { name: 'creds' } } }] }, {}, ['Secret creds']],
    ['an image pull Secret', { imagePullSecrets: [{ name: 'regcred' }] }, {}, ['Secret regcred']],
    // a projected volume hides its sources one level down
    [
      'projected sources',
      {
        volumes: [
          { name: 'v', projected: { sources: [{ secret: { name: 'a' } }, { configMap: { name: 'b' } }, { serviceAccountToken: { audience: 'vault' } }] } },
        ],
      },
      {},
      ['ConfigMap b', 'Secret a', 'a service account token for audience vault'],
    ],
    [
      'a token without an audience',
      { volumes: [{ name: 'v', projected: { sources: [{ serviceAccountToken: { path: 't' } }] } }] },
      {},
      ['a service account token for audience (the API server)'],
    ],
    // an empty name reads nothing; a name that is not a string is not a name
    [
      'an empty or odd name',
      {
        volumes: [
          { name: 'v', secret: { secretName: '' } },
          { name: 'w', configMap: { name: 7 } },
        ],
      },
      {},
      [],
    ],
  ];
  for (const [name, spec, container, expected] of table) it(name, () => expect(refs(spec, container)).to.deep.equal(expected));

  it('counts the init containers too', () => {
    const spec = { initContainers: [{ name: 'init', image: 'ghcr.io/a:1', envFrom: [{ secretRef: { name: 'seed' } }] }] };
    expect(refs(spec)).to.deep.equal(['Secret seed']);
  });
});
