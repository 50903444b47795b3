import { expect } from 'chai';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import { isJsonObject, type JsonObject } from '../../domain/json-object.js';
import type { ResolvedTarget } from '../../domain/write-guard/resolved-target.js';
import { prng as random } from '../support/manifest-fuzzer.js';
import { allowed, at, deployment, judge, obj } from '../support/write-guard-kit.js';

const SEED = 0x40a5eed;
const CASES = 300;

/** Maps whose keys are data, not fields (a new key there is a label, a data key, a resource name): not where an unknown field goes. */
const MAPS = new Set(['labels', 'annotations', 'data', 'binaryData', 'nodeSelector', 'matchLabels', 'selector', 'limits', 'requests', 'hard']);

const KNOWN: [ResolvedTarget, () => KubeObject][] = [
  [
    at('apps', 'Deployment'),
    () => deployment({ volumes: [{ name: 'tmp', emptyDir: {} }] }, { env: [{ name: 'A', value: '1' }], resources: { limits: { memory: '1Gi' } } }),
  ],
  [
    at('', 'Service'),
    () => obj('v1', 'Service', { spec: { type: 'ClusterIP', selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] } }),
  ],
  [at('', 'ConfigMap'), () => obj('v1', 'ConfigMap', { data: { a: '1' } }, { labels: { app: 'web' } })],
  [
    at('batch', 'CronJob'),
    () =>
      obj('batch/v1', 'CronJob', {
        spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { spec: { containers: [{ name: 'j', image: 'ghcr.io/a:1' }] } } } } },
      }),
  ],
  [
    at('autoscaling', 'HorizontalPodAutoscaler'),
    () => obj('autoscaling/v2', 'HorizontalPodAutoscaler', { spec: { minReplicas: 1, maxReplicas: 3, metrics: [{ type: 'Resource' }] } }),
  ],
  [at('', 'PersistentVolumeClaim'), () => obj('v1', 'PersistentVolumeClaim', { spec: { resources: { requests: { storage: '1Gi' } } } })],
];

/** Every object node of `o` where a field could be added (not inside a data map), with its path. */
function nodes(o: unknown, path: string[] = []): { node: JsonObject; path: string[] }[] {
  if (Array.isArray(o)) return o.flatMap((x, i) => nodes(x, [...path, String(i)]));
  if (!isJsonObject(o)) return [];
  const here = path.length && MAPS.has(path.at(-1)!) ? [] : [{ node: o, path }];
  return [...here, ...Object.entries(o).flatMap(([k, v]) => nodes(v, [...path, k]))];
}

function fieldName(next: () => number): string {
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  return `zz${Array.from({ length: 3 + Math.floor(next() * 8) }, () => letters[Math.floor(next() * letters.length)]).join('')}`;
}
const value = (next: () => number): unknown => [true, 0, 'x', { a: 1 }, ['y'], 123456][Math.floor(next() * 6)];

/** The seed of the generator (mulberry32, test/support/manifest-fuzzer.ts): a failing case is the same case on every run. */
describe(`write guard: unknown kinds and fields are high (random changes, seed ${SEED.toString(16)})`, () => {
  it(`${CASES} fields no rule knows, added at a random place in objects of known kinds`, () => {
    const next = random(SEED);
    for (let i = 0; i < CASES; i++) {
      const [target, make] = KNOWN[Math.floor(next() * KNOWN.length)]!;
      const live = make();
      const result = make();
      const places = nodes(result);
      const { node, path } = places[Math.floor(next() * places.length)]!;
      const field = fieldName(next);
      node[field] = value(next);
      const v = allowed(judge({ target, live, result }));
      const where = `case ${i}: ${target.kind} ${[...path, field].join('.')}`;
      expect(v.risk, where).to.equal('high');
      expect(v.riskReasons.join('; '), where).to.match(new RegExp(`svc does not know what ${target.kind} \\S*${field}`));
    }
  });

  it(`${CASES} changes of random fields of kinds svc has no rules for`, () => {
    const next = random(SEED + 1);
    for (let i = 0; i < CASES; i++) {
      const kind = `K${fieldName(next)}`;
      const group = `${fieldName(next)}.example.com`;
      const live = obj(`${group}/v1`, kind, { spec: { size: 1, tiers: [{ name: 'a', weight: 1 }], labels: { a: 'b' } } });
      const result = structuredClone(live);
      const places = nodes(result).filter((p) => p.path.length > 0 && p.path[0] !== 'metadata');
      const { node } = places[Math.floor(next() * places.length)]!;
      const keys = Object.keys(node);
      node[next() < 0.5 && keys.length ? keys[Math.floor(next() * keys.length)]! : fieldName(next)] = value(next);
      const v = allowed(judge({ target: at(group, kind), live, result }));
      if (!v.riskReasons.length) continue; // the random value equalled the old one: no change
      expect(v.risk, `case ${i}`).to.equal('high');
      expect(v.riskReasons.join('; '), `case ${i}`).to.contain(`svc has no rules for ${group}/${kind}`);
    }
  });
});
