import { expect } from 'chai';
import { BaselineLlm } from '../../lab/evaluation/baselines.js';
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
});
