import { expect } from 'chai';
import { clusterFunctions } from '../../application/ai/cluster-functions.js';
import { RunBudget } from '../../application/ai/run-budget.js';
import { cut, LOOP_LIMITS, runToolLoop } from '../../application/ai/tool-loop.js';
import type { ClusterEvent } from '../../domain/cluster/kube-types.js';
import { selectField } from '../../domain/cluster/field-path.js';
import { readOnlyView } from '../../domain/ports/cluster-reader.js';
import { FakeCluster } from '../fakes/fake-cluster.js';
import { FakeLlm } from '../fakes/fake-llm.js';
import { RecordingTracer } from '../support/recording-tracer.js';
import { WEB, webDeployment } from '../support/remediation-fixtures.js';

const user = [{ role: 'user' as const, content: 'why is web down?' }];
const bytes = (s: string) => Buffer.byteLength(s);

/** What the model was sent back for each function call, in order, through the real loop and the real functions. */
async function resultsOf(cluster: FakeCluster, ...calls: [string, Record<string, unknown>][]): Promise<string[]> {
  const llm = new FakeLlm([{ toolCalls: calls.map(([name, args]) => ({ name, arguments: args })) }, 'done']);
  const budget = new RunBudget({ maxCalls: 5, maxTokens: 1_000_000, timeoutMs: 5000 });
  await runToolLoop(llm, new RecordingTracer(), { messages: user, functions: clusterFunctions(readOnlyView(cluster)), budget });
  return llm.calls[1].messages.filter((m) => m.role === 'tool').map((m) => m.content);
}

/** web with a pod template over the result budget (200 env vars) and a status that says it is down. */
function bigWeb(): FakeCluster {
  const web = webDeployment('nginx:1.27');
  const container = (web.spec as any).template.spec.containers[0];
  container.env = Array.from({ length: 200 }, (_, i) => ({ name: `SETTING_${i}`, value: `value-${i}-${'x'.repeat(40)}` }));
  web.status = {
    observedGeneration: 3,
    replicas: 1,
    updatedReplicas: 1,
    availableReplicas: 0,
    conditions: [{ type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable' }],
  };
  const cluster = new FakeCluster().put(web);
  const event = (i: number): ClusterEvent => ({
    type: 'Warning',
    reason: i === 39 ? 'ProgressDeadline' : 'BackOff',
    message: `event ${i}: ${'back-off restarting failed container '.repeat(3)}`,
    count: i + 1,
    involvedObject: { kind: 'Deployment', name: 'web', namespace: 'x' },
  });
  cluster.clusterEvents = Array.from({ length: 40 }, (_, i) => event(i));
  return cluster;
}

describe('what the model sees of a function result (application/ai/cluster-functions, tool-loop)', () => {
  it('get_pod_logs over the budget keeps the tail: the crash lines at the end reach the model', async () => {
    const cluster = new FakeCluster();
    const lines = Array.from({ length: 800 }, (_, i) => `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}Z INFO request ${i} served in 3ms`);
    cluster.logTexts.set('x/web-1', [...lines, 'FATAL panic: assignment to entry in nil map', 'goroutine 1 [running]: main.main()'].join('\n'));
    const [result] = await resultsOf(cluster, ['get_pod_logs', { namespace: 'x', pod: 'web-1' }]);
    expect(bytes(result)).to.be.at.most(LOOP_LIMITS.resultBytes);
    expect(result).to.contain('FATAL panic: assignment to entry in nil map').and.contain('goroutine 1 [running]');
    expect(result).not.to.contain('request 0 served');
    expect(result).to.match(/^\[svc: result cut from \d+ to its last \d+ bytes; ask for less/);
    // whole lines only after the note
    expect(result.split('\n')[1]).to.match(/^2026-01-01T00:00:\d\dZ INFO request \d+ served in 3ms$/);
  });

  for (const name of ['get_resource', 'describe_resource'] as const) {
    it(`${name} over the budget keeps the summary, the status${name === 'describe_resource' ? ' and the newest events' : ''}: only the object's end is cut`, async () => {
      const [result] = await resultsOf(bigWeb(), [name, WEB]);
      expect(bytes(result)).to.be.at.most(LOOP_LIMITS.resultBytes);
      const [summary, status] = result.split('\n');
      expect(summary).to.equal('Deployment x/web: ready 0/1, updated 1, available 0, Available=False (MinimumReplicasUnavailable)');
      expect(status).to.equal(
        'status: {"observedGeneration":3,"replicas":1,"updatedReplicas":1,"availableReplicas":0,"conditions":[{"type":"Available","status":"False","reason":"MinimumReplicasUnavailable"}]}',
      );
      if (name === 'describe_resource') {
        expect(result).to.contain('Warning ProgressDeadline Deployment/web x40: event 39');
        expect(result).to.match(/events \(oldest first; \d+ older not shown\):/);
      }
      expect(result).to.contain('object (status above): {"apiVersion":"apps/v1"').and.contain('SETTING_0');
      expect(result).to.match(/\[svc: result cut from \d+ to \d+ bytes; ask for less \(a fieldPath/);
    });
  }

  it('get_resource with a fieldPath answers only that part: a subtree, a list item by name, or why there is none', async () => {
    const results = await resultsOf(
      bigWeb(),
      ['get_resource', { ...WEB, fieldPath: 'spec.template.spec.containers[name=app].image' }],
      ['get_resource', { ...WEB, fieldPath: 'status.conditions[0]' }],
      ['get_resource', { ...WEB, fieldPath: 'spec.template.spec.containers[name=api]' }],
      ['get_resource', { ...WEB, fieldPath: 'spec.replicaz' }],
      ['get_resource', { ...WEB, fieldPath: 'spec..x' }],
      ['get_resource', { ...WEB, fieldPath: `spec${'.a'.repeat(120)}` }],
    );
    expect(results[0]).to.equal(
      'Deployment x/web: ready 0/1, updated 1, available 0, Available=False (MinimumReplicasUnavailable)\nspec.template.spec.containers[name=app].image: "nginx:1.27"',
    );
    expect(results[1]).to.match(/\nstatus\.conditions\[0\]: \{"type":"Available","status":"False","reason":"MinimumReplicasUnavailable"\}$/);
    expect(JSON.parse(results[2]).error).to.equal('no item named api in spec.template.spec.containers (names: app)');
    expect(JSON.parse(results[3]).error).to.equal('no field replicaz in spec (it has: replicas, selector, template)');
    expect(JSON.parse(results[4]).error).to.contain('invalid arguments: fieldPath');
    expect(JSON.parse(results[5]).error).to.contain('invalid arguments: fieldPath');
  });

  it('selectField: indexes, names, bounds; never reads inherited properties', () => {
    const o = { spec: { containers: [{ name: 'a', ports: [{ containerPort: 80 }] }] } };
    expect(selectField(o, 'spec.containers.0.ports[0].containerPort')).to.deep.equal({ found: true, value: 80 });
    expect(selectField(o, 'spec.containers[3]')).to.deep.equal({ found: false, problem: 'spec.containers has 1 items; [3] is past the end' });
    expect(selectField(o, 'spec.containers.name')).to.deep.equal({ found: false, problem: 'spec.containers is a list, not an object with name' });
    expect(selectField(o, 'spec.constructor').found).to.equal(false);
    expect(selectField(o, 'spec.__proto__').found).to.equal(false);
    expect(selectField(o, `spec${'.a'.repeat(16)}`).found).to.equal(false);
  });

  it('cut keeps a head with the note after it, or a tail with the note before it, within the byte budget (multi-byte text too)', () => {
    const text = 'é'.repeat(10_000);
    for (const keep of ['head', 'tail'] as const) {
      const c = cut(text, keep);
      expect(bytes(c)).to.be.at.most(LOOP_LIMITS.resultBytes);
      expect(c).not.to.contain('\uFFFD');
    }
    expect(cut('short', 'tail')).to.equal('short');
  });
});
