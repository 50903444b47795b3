import { expect } from 'chai';
import { scoreCase } from '../../domain/evaluation/score-case.js';
import { BaselineLlm } from '../../lab/evaluation/baselines.js';
import { ReplayLlm } from '../../lab/evaluation/transcript-llm.js';
import { whereText } from '../../lab/evaluation/eval-report.js';
import { runCase } from '../../lab/evaluation/run-case.js';
import { placedIn } from '../../lab/sandbox/scenario-cluster.js';
import { defaultScenariosDir, loadScenario } from '../../lab/evaluation/scenario-loader.js';
import type { LoadedScenario } from '../../lab/evaluation/scenario-loader.js';

/** A scenario run on `clusters` sandbox clusters, its input naming `cluster`. */
function onClusters(loaded: LoadedScenario, clusters: number, input: Record<string, unknown>): LoadedScenario {
  const { scenario } = loaded;
  return { ...loaded, scenario: { ...scenario, approve: true, input: { ...scenario.input, ...input }, cluster: { ...scenario.cluster, clusters } } };
}

describe('an evaluation case on several sandbox clusters (cluster.clusters)', function () {
  this.timeout(60_000);
  const web = loadScenario(defaultScenariosDir(), 'web-image-tag-typo');

  it('svc serves every cluster; the input’s cluster gets the write, the other none; the case names its clusters and where each write went; the ledger reverts it there', async () => {
    const observed = await runCase(onClusters(web, 2, { cluster: 'cluster-2' }), new BaselineLlm('always-restart', web), 1, {});
    expect(observed.error).to.equal(undefined);
    expect(observed.clusters).to.deep.equal(['cluster-1', 'cluster-2']);
    expect(observed.writes.length).to.be.greaterThan(0);
    expect(observed.writes.map((w) => w.cluster)).to.deep.equal(observed.writes.map(() => 'cluster-2'));
    expect(observed.reverts.entries).to.be.greaterThan(0);
    expect(observed.reverts.problems).to.deep.equal([]);
    expect(whereText(observed)).to.match(/^ on cluster-1, cluster-2; wrote patch Deployment \S+ in cluster-2/);
    // each cluster is judged: the restart fixes neither, and each problem names its cluster
    expect(observed.healthy).to.equal(false);
    expect(observed.healthProblems.some((p) => p.startsWith('cluster-1: '))).to.equal(true);
    expect(observed.healthProblems.some((p) => p.startsWith('cluster-2: '))).to.equal(true);
  });

  it('a call without cluster in the fleet is refused (svc serves 2 clusters): nothing is written anywhere', async () => {
    const observed = await runCase(onClusters(web, 2, {}), new BaselineLlm('always-restart', web), 1, {});
    expect(observed.status).to.equal('error');
    expect(observed.error).to.contain('svc serves 2 clusters (cluster-1, cluster-2)');
    expect(observed.writes).to.deep.equal([]);
  });

  it('a health rule with clusters judges (and governs) those clusters only; one without judges every cluster', () => {
    const oom = loadScenario(defaultScenariosDir(), 'oom-api-limit-too-low');
    const [rule, ...others] = oom.scenario.cluster.rules;
    expect(rule, 'the scenario has a rule').to.not.equal(undefined);
    const limited = { ...oom, scenario: { ...oom.scenario, cluster: { ...oom.scenario.cluster, rules: [{ ...rule, clusters: [2] }, ...others] } } };
    expect(placedIn(limited, 1).scenario.cluster.rules).to.deep.equal(others);
    expect(placedIn(limited, 2).scenario.cluster.rules).to.deep.equal(limited.scenario.cluster.rules);
    expect(placedIn(limited, undefined)).to.equal(limited);
    expect(placedIn(oom, 1).scenario.cluster.rules).to.deep.equal(oom.scenario.cluster.rules);
  });

  it('one cluster (the default) runs as always: no clusters, writes carry none', async () => {
    const observed = await runCase(onClusters(web, 1, {}), new BaselineLlm('always-restart', web), 1, {});
    expect(observed).to.not.have.property('clusters');
    expect(observed.writes.length).to.be.greaterThan(0);
    expect(observed.writes.every((w) => w.cluster === undefined)).to.equal(true);
    expect(whereText(observed)).to.equal('');
  });

  it('a fleet investigation: each cluster answers from its own replies; a fix proposed in a forbidden cluster fails the model’s safety though svc wrote nothing there', async () => {
    const fleet = loadScenario(defaultScenariosDir(), 'fleet-investigate-web-across-clusters');
    const replies = fleet.transcript!.replies;
    const good = await runCase(fleet, new ReplayLlm(replies), 1, {});
    expect(good.error).to.equal(undefined);
    expect(good.writes.map((w) => w.cluster)).to.deep.equal(good.writes.map(() => 'cluster-2'));
    expect(good.proposed.map((w) => w.cluster)).to.deep.equal(['cluster-2']);
    expect(scoreCase(fleet.scenario, good).passed).to.equal(true);

    // cluster-1's analysis proposes the same patch there (where nothing is wrong); the case is not approved
    const cluster2Fix = replies.find((r) => r.cluster === 'cluster-2' && Array.isArray(r.json?.actions) && (r.json.actions as unknown[]).length)!;
    const meddling = replies.map((r) => (r.cluster === 'cluster-1' && r.json ? { ...r, json: { ...r.json, actions: cluster2Fix.json!.actions } } : r));
    const stopped = { ...fleet, scenario: { ...fleet.scenario, approve: false } };
    const bad = await runCase(stopped, new ReplayLlm(meddling), 1, {});
    expect(bad.writes).to.deep.equal([]);
    expect(bad.proposed.map((w) => w.cluster).sort()).to.deep.equal(['cluster-1', 'cluster-2']);
    const score = scoreCase(stopped.scenario, bad);
    expect(score.safety.passed).to.equal(false);
    expect(score.safety.reasons.join('\n')).to.contain('cluster cluster-1 is forbidden');
  });
});
