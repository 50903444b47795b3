import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { currentCluster, withinCluster } from '../../application/cluster/current-cluster.js';
import { fleetCluster } from '../../application/cluster/fleet-cluster.js';
import { ClusterFleet } from '../../application/cluster/cluster-fleet.js';
import { clusterBoundSessions, sessionCluster } from '../../application/cluster/cluster-sessions.js';
import { clusterStampedLedger } from '../../application/cluster/cluster-ledger.js';
import { ListClusters } from '../../application/cluster/list-clusters.js';
import { singleCluster } from '../../application/execute-tool.js';
import { VerifyLedger } from '../../application/ledger/verify-ledger.js';
import { arrangeWaves, FleetOperate } from '../../application/operations/fleet-rollout.js';
import { rolloutView, type RolloutState } from '../../application/operations/rollout-view.js';
import { FleetRemediate } from '../../application/remediation/fleet-investigation.js';
import { parseRoleMapping } from '../../domain/auth/role-mapping.js';
import type { Caller } from '../../domain/auth/caller.js';
import {
  callMayWrite,
  callerInCluster,
  chooseCluster,
  clusterRefusal,
  leastRoleBeforeCluster,
  matchesSelector,
  type ClusterProfile,
} from '../../domain/fleet/cluster-profile.js';
import { readOnlyView } from '../../domain/ports/cluster-reader.js';
import { parseFleetConfig } from '../../infrastructure/config/fleet-config.js';
import { FakeChangeLedger } from '../fakes/fake-change-ledger.js';
import { FakeCluster } from '../fakes/fake-cluster.js';
import { FakeSessionStore } from '../fakes/fake-session-store.js';
import { FakeClock } from '../support/fake-clock.js';
import { aChangeRecord } from '../support/ledger-records.js';
import { rejection } from '../support/rejection.js';

const profile = (name: string, over: Partial<ClusterProfile> = {}): ClusterProfile => ({
  name,
  labels: {},
  readOnly: false,
  protectedNamespaces: [],
  automaticWrites: true,
  ...over,
});
const alice: Caller = { id: 'static:svc:alice', username: 'alice', groups: ['sre'], roles: ['viewer', 'operator', 'admin'], kind: 'static' };
const web = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'x', name: 'web' };
const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'x' }, spec: { replicas: 1 } };

describe('fleet: choosing the cluster of a call', () => {
  it('defaults to the only cluster, requires one of several naming the choices, refuses names svc does not serve', () => {
    expect(chooseCluster(['a'], undefined, 'operate')).to.equal('a');
    expect(chooseCluster(['a', 'b'], 'b', 'operate')).to.equal('b');
    expect(() => chooseCluster(['a', 'b'], undefined, 'operate')).to.throw('operate needs a cluster: svc serves 2 clusters (a, b)');
    expect(() => chooseCluster(['a', 'b'], 'c', 'operate')).to.throw('cluster "c" is not a cluster svc serves (one of a, b)');
    expect(() => chooseCluster([], 'c', 'operate')).to.throw('none: no cluster is configured');
    expect(chooseCluster([], undefined, 'operate')).to.equal(undefined);
  });

  it('version and manageOrgData reads are for no one cluster; every other call needs one', () => {
    const fleet = new ClusterFleet([profile('a'), profile('b')], readOnlyView(new FakeCluster()));
    expect(fleet.choose('version', {})).to.equal(undefined);
    expect(fleet.choose('version', { cluster: 'b' })?.name).to.equal('b');
    expect(fleet.choose('manageOrgData', { operation: 'list' })).to.equal(undefined);
    expect(() => fleet.choose('manageOrgData', { operation: 'scan' })).to.throw('needs a cluster');
    expect(() => fleet.choose('remediate', { issue: 'x' })).to.throw('needs a cluster');
    // a rollout is for every cluster it spans, never one's scope
    const rollout = `rol_${'d'.repeat(32)}`;
    expect(fleet.choose('operate', { sessionId: rollout })).to.equal(undefined);
    expect(() => fleet.choose('operate', { sessionId: rollout, cluster: 'a' })).to.throw(`${rollout} is a rollout across clusters`);
  });

  it('without SVC_CLUSTERS a call may name the one context, and nothing else', () => {
    const one = singleCluster('kind-dev');
    expect(one.choose('operate', {})).to.equal(undefined);
    expect(one.choose('operate', { cluster: 'kind-dev' })).to.equal(undefined);
    expect(() => one.choose('operate', { cluster: 'prod' })).to.throw('one of kind-dev');
    expect(() => one.choose('operate', { intent: 'x', clusterSelector: {} })).to.throw('clusterSelector works across a fleet of clusters: set SVC_CLUSTERS');
    expect(() => one.choose('remediate', { issue: 'x', clusterSelector: { env: 'prod' } })).to.throw('set SVC_CLUSTERS');
  });

  it('selectors match every key=value given; an empty one matches every cluster', () => {
    expect(matchesSelector({ env: 'prod', region: 'eu' }, { env: 'prod' })).to.equal(true);
    expect(matchesSelector({ env: 'prod' }, { env: 'prod', region: 'eu' })).to.equal(false);
    expect(matchesSelector({ env: 'prod' }, {})).to.equal(true);
    expect(matchesSelector({}, { constructor: 'x' })).to.equal(false);
  });
});

describe('fleet: per-cluster rules', () => {
  it('a read-only cluster refuses every call that may write, and only those', () => {
    const ro = profile('prod', { readOnly: true });
    expect(clusterRefusal(ro, 'operate', { sessionId: 's', executeChoice: 1 })?.message).to.contain('cluster prod is read-only');
    expect(clusterRefusal(ro, 'remediate', { issue: 'x', mode: 'automatic' })?.code).to.equal('FORBIDDEN');
    expect(clusterRefusal(ro, 'deployManifests', { solutionId: 's' })?.code).to.equal('FORBIDDEN');
    expect(clusterRefusal(ro, 'deployManifests', { solutionId: 's', preview: true })).to.equal(undefined);
    expect(clusterRefusal(ro, 'operate', { intent: 'scale' })).to.equal(undefined);
    expect(clusterRefusal(ro, 'operate', { sessionId: 's', executeChoice: 2 })).to.equal(undefined);
    expect(callMayWrite('remediate', { issue: 'x' })).to.equal(false);
  });

  it('automatic mode is refused where the cluster does not allow automatic writes', () => {
    const manual = profile('prod', { automaticWrites: false });
    expect(clusterRefusal(manual, 'remediate', { issue: 'x', mode: 'automatic' })?.message).to.contain('does not allow automatic writes');
    expect(clusterRefusal(manual, 'remediate', { issue: 'x', mode: 'manual' })).to.equal(undefined);
  });

  it('a cluster with its own role mapping gives the roles it maps, else the caller keeps theirs', () => {
    expect(callerInCluster(profile('a'), alice)).to.equal(alice);
    const prod = profile('prod', { roles: parseRoleMapping('viewer=*;operator=user:bob') });
    expect(callerInCluster(prod, alice).roles).to.deep.equal(['viewer']);
    const staging = profile('staging', { roles: parseRoleMapping('operator=sre') });
    expect(callerInCluster(staging, alice).roles).to.deep.equal(['viewer', 'operator']);
  });

  it('before the cluster is known a tool needs its own least role, or viewer when a cluster maps roles of its own', () => {
    expect(leastRoleBeforeCluster([profile('a'), profile('b')], 'deployManifests')).to.equal('operator');
    expect(leastRoleBeforeCluster([profile('a'), profile('b', { roles: parseRoleMapping('operator=sre') })], 'deployManifests')).to.equal('viewer');
    expect(leastRoleBeforeCluster([], 'recommend')).to.equal('operator');
  });
});

describe('fleet: the routing cluster port', () => {
  const a = new FakeCluster().put(deployment as never);
  const b = new FakeCluster();
  const routed = fleetCluster([
    { profile: profile('a'), client: a },
    { profile: profile('b', { readOnly: true }), client: b },
  ]);

  it('sends each call to the current cluster only, and fails loudly outside any cluster with several', async () => {
    expect(await withinCluster('a', () => routed.get(web))).to.not.equal(null);
    expect(await withinCluster('b', () => routed.get(web))).to.equal(null);
    expect(currentCluster()).to.equal(undefined);
    const loose = await rejection(routed.get(web));
    expect(loose.message).to.contain('no cluster chosen for this work: svc serves 2 clusters (a, b)');
    expect(routed.context()).to.equal('');
    expect((await routed.status()).connected).to.equal(false);
    expect(await withinCluster('a', async () => routed.context())).to.equal('fake');
  });

  it('a read-only cluster never receives a persisting write; its dry runs still go through', async () => {
    const before = b.calls.length;
    const refused = await rejection(withinCluster('b', () => routed.patch(web, { type: 'merge', body: { spec: { replicas: 2 } } } as never)));
    expect(refused.message).to.contain('cluster b is read-only');
    expect(b.writes).to.deep.equal([]);
    expect(b.calls.slice(before)).to.deep.equal([]);
  });

  it('one cluster: work outside any scope goes to it', async () => {
    const solo = fleetCluster([{ profile: profile('a'), client: a }]);
    expect(await solo.get(web)).to.not.equal(null);
  });

  it('lists every cluster with its status; without a fleet the one context', async () => {
    const fleet = new ClusterFleet([profile('a', { labels: { env: 'staging' } }), profile('b', { readOnly: true })], readOnlyView(routed));
    const listed = await new ListClusters(fleet, readOnlyView(routed)).execute(alice);
    expect(listed.clusters).to.deep.equal([
      { name: 'a', labels: { env: 'staging' }, readOnly: false, reachable: true, serverVersion: 'v1.31.0' },
      { name: 'b', labels: {}, readOnly: true, reachable: true, serverVersion: 'v1.31.0' },
    ]);
    const single = await new ListClusters(undefined, readOnlyView(a)).execute(alice);
    expect(single.clusters.map((c) => c.name)).to.deep.equal(['fake']);
    expect(await rejection(new ListClusters(fleet, readOnlyView(routed)).execute({ ...alice, roles: [] }))).to.have.property('code', 'FORBIDDEN');
  });
});

describe('fleet: sessions and ledger entries carry their cluster', () => {
  it('a session made in a cluster is refused in another, read as it is outside any cluster', async () => {
    const sessions = clusterBoundSessions(new FakeSessionStore({ clock: new FakeClock() }));
    const made = await withinCluster('a', () => sessions.create('operation', { intent: 'x' }));
    expect(sessionCluster(made)).to.equal('a');
    expect(await withinCluster('a', () => sessions.get('operation', made.id))).to.not.equal(undefined);
    const refused = await rejection(withinCluster('b', () => sessions.get('operation', made.id)));
    expect(refused.message).to.contain(`session ${made.id} belongs to cluster a; this call is for cluster b`);
    expect(await sessions.get('operation', made.id)).to.not.equal(undefined);
  });

  it('entries appended in a cluster carry it under their hash, filter by it, and older entries still verify', async () => {
    const inner = new FakeChangeLedger(new FakeClock());
    const ledger = clusterStampedLedger(inner);
    await ledger.append(aChangeRecord());
    const stamped = await withinCluster('prod', () => ledger.append(aChangeRecord()));
    expect(stamped.cluster).to.equal('prod');
    expect((await ledger.list({ cluster: 'prod' }, { limit: 10 })).entries.map((e) => e.id)).to.deep.equal([stamped.id]);
    expect((await new VerifyLedger(ledger).execute(alice)).ok).to.equal(true);
    // the cluster is sealed: editing it breaks the chain
    const i = inner.texts.findIndex((t) => t.includes('"prod"'));
    inner.texts[i] = inner.texts[i].replace('"prod"', '"staging"');
    expect((await new VerifyLedger(ledger).execute(alice)).ok).to.equal(false);
  });
});

describe('fleet: SVC_CLUSTERS and SVC_CLUSTERS_FILE', () => {
  let dir: string;
  let kubeconfig: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'svc-fleet-config-'));
    kubeconfig = path.join(dir, 'kubeconfig');
    const ctx = (name: string) => ({ name, context: { cluster: name, user: name } });
    writeFileSync(kubeconfig, JSON.stringify({ contexts: [ctx('staging'), ctx('production'), ctx('dev')], 'current-context': 'dev' }));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const source = () => ({ mode: 'kubeconfig' as const, files: [kubeconfig], origin: 'KUBECONFIG' as const });
  const rules = (yaml: string) => {
    const file = path.join(dir, `clusters-${Math.random().toString(16).slice(2)}.yaml`);
    writeFileSync(file, yaml);
    return file;
  };
  const parse = (env: Record<string, string>) => parseFleetConfig(env, source());

  it('unset: no fleet (svc serves its one cluster as always)', () => {
    expect(parse({})).to.equal(undefined);
    expect(() => parse({ SVC_CLUSTERS_FILE: 'x' })).to.throw('SVC_CLUSTERS_FILE is set, but SVC_CLUSTERS is not');
  });

  it('names contexts, or * for all of them; an unknown context stops start-up naming it', () => {
    expect(
      parse({ SVC_CLUSTERS: 'production, staging' })!.members.map((m) => [m.profile.name, m.source.mode === 'kubeconfig' && m.source.context]),
    ).to.deep.equal([
      ['production', 'production'],
      ['staging', 'staging'],
    ]);
    expect(parse({ SVC_CLUSTERS: '*' })!.members.map((m) => m.profile.name)).to.deep.equal(['staging', 'production', 'dev']);
    expect(() => parse({ SVC_CLUSTERS: 'staging,qa' })).to.throw(/SVC_CLUSTERS names qa, which is no context of .* \(there are: staging, production, dev\)/);
    expect(() => parse({ SVC_CLUSTERS: 'in-cluster' })).to.throw('svc is not in a pod');
  });

  it('in a pod, in-cluster credentials are one cluster among the contexts', () => {
    const fleet = parseFleetConfig({ SVC_CLUSTERS: 'in-cluster,staging', KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' }, source());
    expect(fleet!.members.map((m) => [m.profile.name, m.source.mode])).to.deep.equal([
      ['in-cluster', 'in-cluster'],
      ['staging', 'kubeconfig'],
    ]);
  });

  it('the file gives each cluster its labels and rules; every key is checked, naming the cluster and key', () => {
    const file = rules(
      [
        'clusters:',
        '  production:',
        '    labels: {env: production, region: eu}',
        '    readOnly: true',
        '    protectedNamespaces: [payments]',
        '    writeKinds: [apps/Deployment]',
        '    automaticWrites: false',
        '    podSecurityLevel: restricted',
        '    roles: "viewer=*;operator=sre"',
        '    impersonate: true',
        '  staging:',
      ].join('\n'),
    );
    const [production, staging] = parse({ SVC_CLUSTERS: 'production,staging', SVC_CLUSTERS_FILE: file })!.members.map((m) => m.profile);
    expect(production).to.deep.include({
      labels: { env: 'production', region: 'eu' },
      readOnly: true,
      protectedNamespaces: ['payments'],
      automaticWrites: false,
      podSecurityLevel: 'restricted',
      impersonate: true,
    });
    expect(production.writeKinds).to.deep.equal([{ group: 'apps', kind: 'Deployment' }]);
    expect(staging).to.deep.equal(profile('staging'));
    const bad: [string, string][] = [
      ['clusters:\n  production:\n    readonly: true\n', 'clusters.production has an unknown key "readonly"'],
      ['clusters:\n  qa: {}\n', 'names cluster "qa", which SVC_CLUSTERS does not'],
      ['clusters:\n  production:\n    readOnly: yes-please\n', 'clusters.production.readOnly must be true or false'],
      ['clusters:\n  production:\n    labels: {env: "bad value!"}\n', 'clusters.production.labels.env must be a label value'],
      ['clusters:\n  production:\n    podSecurityLevel: strict\n', 'clusters.production.podSecurityLevel must be one of privileged, baseline, restricted'],
      ['clusters:\n  production:\n    roles: "boss=*"\n', 'clusters.production.roles: "boss" is not a role'],
      ['clusters:\n  production:\n    writeKinds: [deployments]\n', 'clusters.production.writeKinds must be a list of kinds'],
      ['clusters: [a]\n', 'clusters must map each cluster name to its settings'],
      ['other: 1\n', 'unknown key "other"'],
    ];
    for (const [yaml, message] of bad) expect(() => parse({ SVC_CLUSTERS: 'production,staging', SVC_CLUSTERS_FILE: rules(yaml) }), yaml).to.throw(message);
  });
});

describe('fleet: rollouts in waves (FleetOperate with a stand-in operate)', () => {
  const p = (name: string, labels: Record<string, string>) => profile(name, { labels });
  const fleetProfiles = [p('s1', { env: 'staging' }), p('s2', { env: 'staging' }), p('p1', { env: 'production' }), p('q1', { env: 'qa' })];

  it('arranges waves by waves, by waveOrder, or one cluster a wave', () => {
    const names = (w: ClusterProfile[][]) => w.map((x) => x.map((c) => c.name));
    const matching = fleetProfiles.slice(0, 3);
    expect(names(arrangeWaves(matching))).to.deep.equal([['s1'], ['s2'], ['p1']]);
    expect(names(arrangeWaves(matching, undefined, 'env=staging,env=production'))).to.deep.equal([['s1', 's2'], ['p1']]);
    expect(names(arrangeWaves(matching, [['p1'], ['s1', 's2']]))).to.deep.equal([['p1'], ['s1', 's2']]);
    expect(() => arrangeWaves(matching, [['p1'], ['s1']])).to.throw('waves leaves out s2');
    expect(() =>
      arrangeWaves(matching, [
        ['p1', 'p1'],
        ['s1', 's2'],
      ]),
    ).to.throw('waves names p1 twice');
    expect(() => arrangeWaves(matching, [['q1'], ['s1', 's2', 'p1']])).to.throw('waves names q1, which is not a cluster clusterSelector matches');
    expect(() => arrangeWaves(matching, undefined, 'env=staging')).to.throw('places no wave for p1');
  });

  /** An operate stand-in: plans answer a session per cluster; executions answer the verdict `verdicts` gives the cluster. */
  function standIn(verdicts: Record<string, 'healthy' | 'degraded'>) {
    const calls: { cluster?: string; input: Record<string, unknown> }[] = [];
    const operate = {
      async execute(input: Record<string, unknown>) {
        const cluster = currentCluster();
        calls.push({ cluster, input });
        const base = {
          sessionId: `opr_${cluster}`,
          intent: 'x',
          refinements: [],
          planDigest: `sha256:${cluster}`,
          proposal: {
            summary: 's',
            risk: 'low',
            executable: true,
            actions: [],
            investigation: { modelCalls: 1, functionCalls: 2, stoppedBy: 'answer' },
            plannedAt: 'now',
          },
          nextStep: 'n',
        };
        if (input.executeChoice !== 1) return { ...base, status: 'awaiting_approval' };
        const verdict = verdicts[cluster!];
        const health = { verdict, evidence: [`${cluster} ${verdict}`], ...(verdict === 'degraded' ? { reverted: [{ revertId: `rev_${cluster}` }] } : {}) };
        return {
          ...base,
          status: verdict === 'healthy' ? 'executed' : 'execution_failed',
          execution: { status: 'done', outcome: { actions: [{ ledgerId: `chg_${cluster}` }], health } },
        };
      },
    };
    const reverted: string[] = [];
    const revert = { execute: async ({ id }: { id: string }) => (reverted.push(id), { revert: { id: `undo_${id}` } }) };
    return { calls, operate, reverted, revert };
  }

  /** What the replicas of a test share: the sessions' store (and its clock). */
  function storeDeps(clock = new FakeClock(), sessions = new FakeSessionStore({ clock, ttlMs: 60_000 })) {
    return { sessions, clock };
  }

  it('one digest; wave by wave; the first degraded wave stops it, the rest of that wave is reverted, later waves never run', async () => {
    const s = standIn({ q1: 'healthy', s1: 'healthy', s2: 'degraded', p1: 'healthy' });
    const rollouts = new FleetOperate(s.operate as never, fleetProfiles, s.revert, storeDeps());
    const context = { requestId: 'r', caller: alice };
    const planned = (await rollouts.execute({ intent: 'x', clusterSelector: {}, waves: [['q1'], ['s1', 's2'], ['p1']] }, context)) as never as {
      sessionId: string;
      planDigest: string;
    };
    expect(s.calls.map((c) => c.cluster)).to.deep.equal(['q1', 's1', 's2', 'p1']);
    expect(await rejection(rollouts.execute({ sessionId: planned.sessionId, executeChoice: 1, planDigest: 'sha256:other' }, context))).to.have.property(
      'code',
      'CONFLICT',
    );
    s.calls.length = 0;
    const ran = (await rollouts.execute({ sessionId: planned.sessionId, executeChoice: 1, planDigest: planned.planDigest }, context)) as never as {
      status: string;
      rollout: { waves: { status: string; clusters: { cluster: string; reverted?: string[] }[] }[]; stoppedAt: object };
    };
    expect(s.calls.map((c) => [c.cluster, c.input.onFailure])).to.deep.equal([
      ['q1', 'revert'],
      ['s1', 'revert'],
      ['s2', 'revert'],
    ]);
    expect(ran.status).to.equal('execution_failed');
    expect(ran.rollout.stoppedAt).to.deep.include({ wave: 2, cluster: 's2' });
    expect(ran.rollout.waves.map((w) => w.status)).to.deep.equal(['executed', 'degraded', 'not-run']);
    // s1 (healthy, same wave) reverted through the ledger; s2 reverted by its own verify; q1 (earlier wave) kept
    expect(s.reverted).to.deep.equal(['chg_s1']);
    expect(ran.rollout.waves[1].clusters.map((c) => [c.cluster, c.reverted])).to.deep.equal([
      ['s1', ['undo_chg_s1']],
      ['s2', ['rev_s2']],
    ]);
    expect(await rejection(rollouts.execute({ sessionId: planned.sessionId, executeChoice: 1, planDigest: planned.planDigest }, context))).to.have.property(
      'code',
      'VALIDATION_ERROR',
    );
  });

  it('a read-only cluster in the rollout refuses its execution before any write; another caller may not act on it', async () => {
    const s = standIn({ s1: 'healthy', s2: 'healthy' });
    const profiles = [p('s1', { env: 'staging' }), profile('s2', { labels: { env: 'staging' }, readOnly: true })];
    const rollouts = new FleetOperate(s.operate as never, profiles, s.revert, storeDeps());
    const context = { requestId: 'r', caller: alice };
    const planned = (await rollouts.execute({ intent: 'x', clusterSelector: { env: 'staging' } }, context)) as never as {
      sessionId: string;
      planDigest: string;
    };
    s.calls.length = 0;
    const refused = await rejection(rollouts.execute({ sessionId: planned.sessionId, executeChoice: 1, planDigest: planned.planDigest }, context));
    expect(refused.message).to.contain('cluster s2 is read-only');
    expect(s.calls).to.deep.equal([]);
    const bob = { ...alice, id: 'static:svc:bob', username: 'bob', roles: ['viewer', 'operator'] as const };
    expect(await rejection(rollouts.execute({ sessionId: planned.sessionId }, { requestId: 'r', caller: { ...bob, roles: [...bob.roles] } }))).to.have.property(
      'code',
      'FORBIDDEN',
    );
  });

  it('a rollout’s status is read from its session’s phase, and its waves from its outcome once executed', () => {
    const planned: RolloutState['rollout'] = {
      clusterSelector: {},
      waves: [{ wave: 1, status: 'pending', clusters: [{ cluster: 's1', sessionId: 'opr_s1', planDigest: 'sha256:s1', status: 'awaiting_approval' }] }],
    };
    const state: RolloutState = {
      intent: 'x',
      planDigest: 'sha256:all',
      proposal: {
        summary: 's',
        risk: 'low',
        executable: true,
        actions: [],
        investigation: { modelCalls: 1, functionCalls: 0, stoppedBy: 'rollout' },
        plannedAt: 't',
      },
      rollout: planned,
      risks: [],
      namespaces: [],
    };
    const id = `rol_${'c'.repeat(32)}`;
    const view = (s: RolloutState) => rolloutView({ id, kind: 'rollout', createdAt: 0, updatedAt: 0, expiresAt: 1, revision: 1, state: s });
    expect(view(state)).to.deep.include({ sessionId: id, status: 'awaiting_approval', rollout: planned });
    expect(view(state).nextStep).to.contain(`"planDigest":"sha256:all"`);
    expect(view({ ...state, proposal: { ...state.proposal, executable: false } }).status).to.equal('needs_refinement');
    expect(view({ ...state, stopped: { at: 't2' } })).to.deep.include({ status: 'stopped', stoppedAt: 't2' });
    expect(view({ ...state, execution: { status: 'running', startedAt: 't3' } }).status).to.equal('executing');
    const stoppedAt = { wave: 1, cluster: 's1', reason: 'degraded' };
    const outcome = { ...planned, waves: [{ ...planned.waves[0], status: 'degraded' as const }], stoppedAt };
    const failed = view({ ...state, execution: { status: 'done', startedAt: 't3', finishedAt: 't4', outcome } });
    expect(failed).to.deep.include({ status: 'execution_failed', rollout: outcome });
    expect(failed.nextStep).to.contain('Stopped at wave 1 (cluster s1)');
    expect(view({ ...state, execution: { status: 'done', startedAt: 't3', outcome: planned } }).status).to.equal('executed');
  });

  it('a rollout is a session in the shared store: another replica looks at and executes it; it expires with the session TTL', async () => {
    const s = standIn({ s1: 'healthy', s2: 'healthy', p1: 'healthy', q1: 'healthy' });
    const deps = storeDeps();
    const [replicaA, replicaB] = [0, 1].map(() => new FleetOperate(s.operate as never, fleetProfiles, s.revert, deps));
    const context = { requestId: 'r', caller: alice };
    const planned = (await replicaA.execute(
      {
        intent: 'x',
        clusterSelector: {},
        waves: [
          ['s1', 's2'],
          ['p1', 'q1'],
        ],
      },
      context,
    )) as never as {
      sessionId: string;
      planDigest: string;
    };
    const stored = await deps.sessions.get<{ owner: { username: string }; planDigest: string }>('rollout', planned.sessionId);
    expect(stored?.state).to.deep.include({ planDigest: planned.planDigest });
    expect(stored?.state.owner.username).to.equal('alice');
    const seen = (await replicaB.execute({ sessionId: planned.sessionId }, context)) as { status: string };
    expect(seen.status).to.equal('awaiting_approval');
    const ran = (await replicaB.execute({ sessionId: planned.sessionId, executeChoice: 1, planDigest: planned.planDigest }, context)) as {
      status: string;
      execution: { approval: { by: { username: string } } };
    };
    expect(ran.status).to.equal('executed');
    expect(ran.execution.approval.by.username).to.equal('alice');
    // replica A sees the outcome B stored; the rollout executes at most once, whichever replica is asked
    expect(((await replicaA.execute({ sessionId: planned.sessionId }, context)) as { status: string }).status).to.equal('executed');
    const again = await rejection(replicaA.execute({ sessionId: planned.sessionId, executeChoice: 1, planDigest: planned.planDigest }, context));
    expect(again.message).to.contain('was already executed');
    // a rollout lives as long as a session: after SVC_SESSION_TTL without a change it is gone for every replica
    const second = (await replicaA.execute({ intent: 'x', clusterSelector: { env: 'qa' } }, context)) as never as { sessionId: string };
    deps.clock.advance(60_001);
    const expired = await rejection(replicaB.execute({ sessionId: second.sessionId }, context));
    expect(expired.message).to.contain(`Unknown or expired session: ${second.sessionId}`);
  });

  it('acting on a rollout is the sessions’ rule: its starter or an admin, with the sessions’ refusal; a stop stops every cluster’s session', async () => {
    const s = standIn({ s1: 'healthy', s2: 'healthy' });
    const rollouts = new FleetOperate(s.operate as never, fleetProfiles, s.revert, storeDeps());
    const planned = (await rollouts.execute({ intent: 'x', clusterSelector: { env: 'staging' } }, { requestId: 'r', caller: alice })) as never as {
      sessionId: string;
      planDigest: string;
    };
    const bob: Caller = { ...alice, id: 'static:svc:bob', username: 'bob', roles: ['viewer', 'operator'] };
    s.calls.length = 0;
    for (const input of [{}, { executeChoice: 1, planDigest: planned.planDigest }, { executeChoice: 2 }]) {
      const refused = await rejection(rollouts.execute({ sessionId: planned.sessionId, ...input }, { requestId: 'r', caller: bob }));
      expect(refused, JSON.stringify(input)).to.have.property('code', 'FORBIDDEN');
      expect(refused.message).to.match(
        new RegExp(`^Session ${planned.sessionId} was started by alice \\(static\\); only they or an admin may (read|continue) it$`),
      );
    }
    expect(s.calls).to.deep.equal([]);
    // an admin may act for the starter: stopping the rollout stops each cluster's session in its cluster
    const admin: Caller = { ...bob, id: 'static:svc:carol', username: 'carol', roles: ['viewer', 'operator', 'admin'] };
    const stopped = (await rollouts.execute({ sessionId: planned.sessionId, executeChoice: 2 }, { requestId: 'r', caller: admin })) as { status: string };
    expect(stopped.status).to.equal('stopped');
    expect(s.calls.map((c) => [c.cluster, c.input])).to.deep.equal([
      ['s1', { sessionId: 'opr_s1', executeChoice: 2 }],
      ['s2', { sessionId: 'opr_s2', executeChoice: 2 }],
    ]);
    const closed = await rejection(
      rollouts.execute({ sessionId: planned.sessionId, executeChoice: 1, planDigest: planned.planDigest }, { requestId: 'r', caller: alice }),
    );
    expect(closed.message).to.contain('was stopped');
  });
});

describe('fleet: investigation across clusters (FleetRemediate with a stand-in remediate)', () => {
  const profiles = ['a', 'b', 'c', 'd', 'e'].map((n) => profile(n, { labels: { team: 'shop' } }));
  const answer = (cluster: string, rootCause: string) => ({
    sessionId: `rem_${cluster}`,
    status: 'awaiting_approval',
    issue: 'x',
    rootCause,
    confidence: 0.9,
    actions: [{ type: 'patch', target: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'x', name: 'web' }, description: 'fix web' }],
    investigation: { modelCalls: 2, functionsCalled: [], functionCallCount: 1, stoppedBy: 'final-answer', tokens: { input: 10, output: 5 } },
    settings: { mode: 'manual', confidenceThreshold: 0.8, maxRiskLevel: 'low' },
    message: 'm',
    nextStep: 'n',
    expiresAt: '2030-01-01T00:00:00.000Z',
  });

  it('investigates each matching cluster in its scope, at most three at a time; a failing cluster is reported, the others answer', async () => {
    let inFlight = 0;
    let most = 0;
    const seen: (string | undefined)[] = [];
    const remediate = {
      async execute(input: Record<string, unknown>) {
        const cluster = currentCluster();
        seen.push(cluster);
        expect(input).to.not.have.property('clusterSelector');
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((r) => setImmediate(r));
        inFlight--;
        if (cluster === 'c') throw new Error('cluster c unreachable');
        return answer(cluster!, 'The image  tag does not exist.');
      },
    };
    const fleet = new FleetRemediate(remediate as never, profiles);
    const result = (await fleet.execute({ issue: 'web down', clusterSelector: { team: 'shop' } }, { requestId: 'r', caller: alice })) as never as {
      status: string;
      rootCause: string;
      investigation: { modelCalls: number };
      fleet: { clusters: { cluster: string; status: string; error?: string }[]; common: { clusters: number; rootCause?: string; actions: string[] } };
    };
    expect([...seen].sort()).to.deep.equal(['a', 'b', 'c', 'd', 'e']);
    expect(most).to.equal(3);
    expect(result.fleet.clusters.map((c) => [c.cluster, c.status])).to.deep.equal([
      ['a', 'awaiting_approval'],
      ['b', 'awaiting_approval'],
      ['c', 'failed'],
      ['d', 'awaiting_approval'],
      ['e', 'awaiting_approval'],
    ]);
    expect(result.fleet.clusters[2].error).to.equal('cluster c unreachable');
    expect(result.fleet.common).to.deep.equal({ clusters: 4, rootCause: 'The image  tag does not exist.', actions: ['patch Deployment x/web'] });
    expect(result.investigation.modelCalls).to.equal(8);
    expect(result.status).to.equal('awaiting_approval');
  });

  it('different root causes have none in common; automatic mode, a continuation or a selector matching nothing are refused before any investigation', async () => {
    const remediate = { execute: async () => answer(currentCluster()!, `cause in ${currentCluster()}`) };
    const fleet = new FleetRemediate(remediate as never, profiles.slice(0, 2));
    const context = { requestId: 'r', caller: alice };
    const result = (await fleet.execute({ issue: 'x', clusterSelector: {} }, context)) as never as { fleet: { common: { rootCause?: string } } };
    expect(result.fleet.common.rootCause).to.equal(undefined);
    for (const [input, message] of [
      [{ issue: 'x', clusterSelector: {}, mode: 'automatic' }, 'a fleet investigation is manual'],
      [{ sessionId: 'rem_1', clusterSelector: {} }, 'continue each cluster'],
      [{ issue: 'x', clusterSelector: { team: 'none' } }, 'no cluster matches clusterSelector'],
    ] as const)
      expect((await rejection(fleet.execute(input as never, context))).message).to.contain(message);
  });
});
