import { expect } from 'chai';
import { CLUSTER_WRITER_METHODS } from '../../../domain/ports/cluster-writer.js';
import { FakeCluster } from '../../fakes/fake-cluster.js';

describe('ports: the cluster writer', () => {
  it('names each write once, every dry run beside its write', () => {
    expect(new Set(CLUSTER_WRITER_METHODS).size).to.equal(CLUSTER_WRITER_METHODS.length);
    for (const m of CLUSTER_WRITER_METHODS.filter((x) => x.startsWith('dryRun'))) {
      const write = m.slice('dryRun'.length).replace(/^./, (c) => c.toLowerCase());
      expect(CLUSTER_WRITER_METHODS, m).to.include(write);
    }
  });

  it('the fake cluster the use case tests write to has every method the list names', () => {
    const fake = new FakeCluster() as unknown as Record<string, unknown>;
    for (const m of CLUSTER_WRITER_METHODS) expect(typeof fake[m], m).to.equal('function');
  });
});
