import { expect } from 'chai';
import { ClusterFleet } from '../../application/cluster/cluster-fleet.js';
import { withinCluster } from '../../application/cluster/current-cluster.js';
import { searchOrgContext } from '../../application/deployment/org-context.js';
import { CLUSTER_FIELD, clusterFilter } from '../../application/orgdata/cluster-partition.js';
import { ClusterScans } from '../../application/orgdata/cluster-scans.js';
import { ExecutionError, NotFoundError } from '../../domain/errors.js';
import { readOnlyView } from '../../domain/ports/cluster-reader.js';
import { FakeCluster } from '../fakes/fake-cluster.js';
import { CapturingLogger } from '../support/capturing-logger.js';
import type { FakeScanStateStore } from '../fakes/fake-scan-state-store.js';
import { dozenKinds, orgDataParts, type OrgDataParts } from '../support/orgdata-parts.js';
import { rejection } from '../support/rejection.js';

type AnyResult = any;

const cluster = () => {
  const c = new FakeCluster();
  c.resources = dozenKinds();
  return c;
};

/** svc serving clusters `a` and `b`: capabilities and scans kept per cluster. */
const fleetParts = (over: Parameters<typeof orgDataParts>[0] = {}) => orgDataParts({ cluster: cluster(), clusters: ['a', 'b'], ...over });

/** A manageOrgData call as the tool entry point makes it for `name`: inside that cluster's scope. */
const callIn = (parts: OrgDataParts, name: string, input: Record<string, unknown>): Promise<AnyResult> =>
  withinCluster(name, () => parts.manage.execute(input as never));

async function scanIn(parts: OrgDataParts, name: string, resources?: string[]): Promise<AnyResult> {
  const started = await callIn(parts, name, { dataType: 'capabilities', operation: 'scan', ...(resources ? { resources } : {}) });
  await parts.clusterScans!.idle();
  return started;
}

describe('manageOrgData with several clusters: capabilities and their scans per cluster (use cases with fakes)', () => {
  it('keeps each cluster’s capabilities apart: what a scan in a learnt is not listed, read, searched, counted or deleted in b', async () => {
    const parts = fleetParts();
    const inA = await scanIn(parts, 'a');
    const listA = await callIn(parts, 'a', { dataType: 'capabilities', operation: 'list', limit: 50 });
    expect(listA).to.deep.include({ count: 12, total: 12 });
    const itemA = (await callIn(parts, 'a', { dataType: 'capabilities', operation: 'get', id: 'deployment.apps' })).item;
    expect(itemA).to.deep.include({ id: 'deployment.apps', [CLUSTER_FIELD]: 'a', scanId: inA.scanId });

    expect(await callIn(parts, 'b', { dataType: 'capabilities', operation: 'list' })).to.deep.include({ items: [], count: 0, total: 0 });
    expect(await rejection(callIn(parts, 'b', { dataType: 'capabilities', operation: 'get', id: 'deployment.apps' }))).to.be.instanceOf(NotFoundError);
    expect((await callIn(parts, 'b', { dataType: 'capabilities', operation: 'search', query: 'Deployment' })).results).to.deep.equal([]);
    expect(await rejection(callIn(parts, 'b', { dataType: 'capabilities', operation: 'delete', id: 'deployment.apps' }))).to.be.instanceOf(NotFoundError);

    // the same kind scanned in b is b's own document; a's stays as it was
    const inB = await scanIn(parts, 'b', ['Deployment']);
    const itemB = (await callIn(parts, 'b', { dataType: 'capabilities', operation: 'get', id: 'deployment.apps' })).item;
    expect(itemB).to.deep.include({ id: 'deployment.apps', [CLUSTER_FIELD]: 'b', scanId: inB.scanId });
    const hits = (await callIn(parts, 'a', { dataType: 'capabilities', operation: 'search', query: 'Deployment', limit: 50 })).results;
    expect(hits).to.have.length(12);
    expect(hits.every((h: AnyResult) => h.item[CLUSTER_FIELD] === 'a')).to.equal(true);
    expect(await parts.store.count('capabilities')).to.equal(13);

    // deleteAll in b deletes b's capabilities only
    expect(await callIn(parts, 'b', { dataType: 'capabilities', operation: 'deleteAll', confirm: true })).to.deep.include({ deletedCount: 1 });
    expect(await callIn(parts, 'a', { dataType: 'capabilities', operation: 'list' })).to.deep.include({ total: 12 });
    await callIn(parts, 'a', { dataType: 'capabilities', operation: 'delete', id: 'deployment.apps' });
    expect(await callIn(parts, 'a', { dataType: 'capabilities', operation: 'list' })).to.deep.include({ total: 11 });
  });

  it('gives each cluster its own scan slot and lease: a scan in b starts while a’s runs, and each progress is its cluster’s', async () => {
    const parts = fleetParts();
    const a = await callIn(parts, 'a', { dataType: 'capabilities', operation: 'scan' });
    const again = await callIn(parts, 'a', { dataType: 'capabilities', operation: 'scan' });
    expect(again).to.deep.include({ started: false, scanId: a.scanId });
    expect(again.message).to.contain('already running in a; only one runs at a time in a cluster');
    const b = await callIn(parts, 'b', { dataType: 'capabilities', operation: 'scan', resources: ['Service'] });
    expect(a.started).to.equal(true);
    expect(b.started, 'b does not wait for a').to.equal(true);
    await parts.clusterScans!.idle();
    const progressA = (await callIn(parts, 'a', { dataType: 'capabilities', operation: 'progress' })).progress;
    const progressB = (await callIn(parts, 'b', { dataType: 'capabilities', operation: 'progress' })).progress;
    expect(progressA).to.deep.include({ scanId: a.scanId, total: 12, status: 'completed' });
    expect(progressB).to.deep.include({ scanId: b.scanId, total: 1, status: 'completed' });
    expect(parts.clusterStates.get('a')!.state!.id).to.equal(a.scanId);
    expect(parts.clusterStates.get('b')!.state!.id).to.equal(b.scanId);
    expect(parts.states.state, 'the single-cluster slot is not used').to.equal(undefined);
  });

  it('resumes every cluster’s interrupted scan at start-up, each in its own cluster', async () => {
    const first = fleetParts();
    await callIn(first, 'a', { dataType: 'capabilities', operation: 'scan' });
    await callIn(first, 'b', { dataType: 'capabilities', operation: 'scan', resources: ['Service', 'Secret'] });
    // the process stops before any kind is done: both scans stay running with every kind pending
    await first.clusterScans!.stop();
    const slots = first.clusterStates as Map<string, FakeScanStateStore>;
    expect([slots.get('a')!.state!.status, slots.get('b')!.state!.pending.length]).to.deep.equal(['running', 2]);

    // start-up runs outside any call: each scan must set its own cluster's scope
    const second = fleetParts({ store: first.store, clusterStates: slots, holder: 'after-restart' });
    expect(await second.clusterScans!.resume()).to.equal('resumed');
    await second.clusterScans!.idle();
    expect(slots.get('a')!.state).to.deep.include({ status: 'completed', resumed: 1, failures: [] });
    expect(slots.get('b')!.state).to.deep.include({ status: 'completed', resumed: 1, failures: [] });
    expect(await callIn(second, 'b', { dataType: 'capabilities', operation: 'list' })).to.deep.include({ total: 2 });
    expect(await callIn(second, 'a', { dataType: 'capabilities', operation: 'list' })).to.deep.include({ total: 12 });
    expect(await second.clusterScans!.resume()).to.equal('none');
  });

  it('one cluster’s failing resume does not keep the others from resuming; the failure is thrown once all have tried', async () => {
    const resumed: string[] = [];
    const scanner = (name: string) =>
      ({
        resume: async () => {
          if (name === 'a') throw new Error('the scan store of a is down');
          resumed.push(name);
          return name === 'b' ? 'waiting' : 'resumed';
        },
      }) as unknown as ReturnType<ConstructorParameters<typeof ClusterScans>[1]>;
    const scans = new ClusterScans(['a', 'b', 'c'], scanner, new CapturingLogger());
    expect(((await rejection(scans.resume())) as Error).message).to.equal('the scan store of a is down');
    expect(resumed).to.deep.equal(['b', 'c']);
    const healthy = new ClusterScans(['b', 'c'], scanner, new CapturingLogger());
    expect(await healthy.resume()).to.equal('resumed');
    expect(await new ClusterScans(['b'], scanner, new CapturingLogger()).resume()).to.equal('waiting');
  });

  it('refuses capability work for no cluster, rather than reading or writing every cluster’s', async () => {
    const parts = fleetParts();
    const err = await rejection(parts.manage.execute({ dataType: 'capabilities', operation: 'list' } as never));
    expect(err).to.be.instanceOf(ExecutionError);
    expect((err as Error).message).to.contain('no cluster chosen');
    // patterns and policies stay shared: no cluster needed
    const created = (await parts.manage.execute({ dataType: 'pattern', operation: 'create', document: pattern() } as never)) as AnyResult;
    expect((await callIn(parts, 'b', { dataType: 'pattern', operation: 'get', id: created.id })).item).to.not.have.property(CLUSTER_FIELD);
  });

  it('the recommend search reads only the call’s cluster’s capabilities; with one cluster (no scope) every capability', async () => {
    const parts = fleetParts();
    await scanIn(parts, 'a', ['Deployment', 'Service']);
    await scanIn(parts, 'b', ['Secret']);
    const kinds = async (name?: string) => {
      const search = () => searchOrgContext(parts.store, parts.embedder, 'a web server', 10);
      const org = await (name === undefined ? search() : withinCluster(name, search));
      return org.capabilities.map((c) => c.kind).sort();
    };
    expect(await kinds('a')).to.deep.equal(['Deployment', 'Service']);
    expect(await kinds('b')).to.deep.equal(['Secret']);
    expect(await kinds()).to.deep.equal(['Deployment', 'Secret', 'Service']);
    expect(clusterFilter(undefined)).to.equal(undefined);
  });

  it('a capability call names its cluster when svc serves several; patterns and policies need none', () => {
    const profile = (name: string) => ({ name, labels: {}, readOnly: false, protectedNamespaces: [], automaticWrites: true });
    const fleet = new ClusterFleet([profile('a'), profile('b')], readOnlyView(new FakeCluster()));
    for (const operation of ['list', 'get', 'search', 'delete', 'deleteAll', 'progress'])
      expect(() => fleet.choose('manageOrgData', { dataType: 'capabilities', operation }), operation).to.throw('needs a cluster');
    expect(fleet.choose('manageOrgData', { dataType: 'capabilities', operation: 'list', cluster: 'b' })?.name).to.equal('b');
    expect(fleet.choose('manageOrgData', { dataType: 'pattern', operation: 'list' })).to.equal(undefined);
    expect(fleet.choose('manageOrgData', { dataType: 'policy', operation: 'search' })).to.equal(undefined);
  });
});

function pattern() {
  return { description: 'A web server behind a Service', triggers: ['web server'], suggestedResources: ['Deployment', 'Service'], rationale: 'common' };
}
