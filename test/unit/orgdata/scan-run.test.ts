import { expect } from 'chai';
import { ScanRun } from '../../../application/orgdata/scan-run.js';
import { uniqueTargets } from '../../../domain/orgdata/capability.js';
import { newScanState } from '../../../domain/orgdata/scan-state.js';
import { FakeLlm } from '../../fakes/fake-llm.js';
import { capabilityReply, dozenKinds, kindOf, orgDataParts } from '../../support/orgdata-parts.js';

const NOW = '2026-01-01T00:00:00.000Z';

/** A scan run of the first `kinds` kinds, batches of two, over a model that answers nonsense about Secret; the lease taken by `holder`. */
async function scanRun(kinds: number, holder = 'holder-1') {
  const good = capabilityReply();
  const llm = new FakeLlm([], (messages) => (kindOf(messages) === 'Secret' ? 'not an analysis' : good(messages)));
  const parts = orgDataParts({ llm, batchSize: 2 });
  const targets = uniqueTargets(dozenKinds())
    .filter((t) => ['Deployment', 'Service', 'Secret'].includes(t.kind))
    .slice(0, kinds);
  const state = newScanState('scan_1', 'all', targets, [], NOW);
  await parts.states.acquire(holder, 60_000);
  return { parts, llm, run: new ScanRun(parts.deps, state) };
}

describe('application/orgdata/scan-run: one scan in the background, saved after every kind under the lease', () => {
  it('analyses every kind, records a failing one in failures, saves as it goes and releases the lease when done', async () => {
    const { parts, run } = await scanRun(3);
    const heard: string[] = [];
    run.watch((resource) => heard.push(resource));
    await run.execute();
    const saved = parts.states.state!;
    expect(saved.status).to.equal('completed');
    expect(saved.pending).to.deep.equal([]);
    expect(saved.completed).to.have.length(2);
    expect(saved.failures.map((f) => f.resource)).to.have.length(1);
    expect(heard).to.have.members([...saved.completed, ...saved.failures.map((f) => f.resource)]);
    // a save when each batch starts and one after each kind
    expect(parts.states.saves).to.have.length(2 + 3);
    const [collection] = await parts.store.listCollections();
    expect((await parts.store.describeCollection(collection))!.count).to.equal(2);
    expect(parts.states.lease).to.equal(undefined);
  });

  it('saves nothing and analyses nothing when another holder owns the lease', async () => {
    const { parts, llm, run } = await scanRun(2, 'someone-else');
    await run.execute();
    expect(parts.states.saves).to.deep.equal([]);
    expect(llm.calls).to.have.length(0);
    expect(parts.states.lease!.holder).to.equal('someone-else');
    expect(parts.logger.lines.map((l) => l.msg)).to.include('capability scan: lease lost to another holder, stopping');
  });

  it('takes no kind once halted', async () => {
    const { parts, run } = await scanRun(3);
    await run.halt();
    await run.execute();
    expect(parts.states.saves).to.deep.equal([]);
    expect(parts.states.lease!.holder).to.equal('holder-1');
  });
});
