import { expect } from 'chai';
import { CollectionOperations, DocumentOperations } from '../../../application/orgdata/document-operations.js';
import { ManageOrgData } from '../../../application/orgdata/manage-org-data.js';
import { OrgCollection } from '../../../application/orgdata/org-collection.js';
import type { ToolContext } from '../../../application/tool-handler.js';
import type { ToolInput } from '../../../domain/tools/tool-definitions.js';
import { FakeClock } from '../../support/fake-clock.js';
import { FakeEmbedder } from '../../support/fake-embedder.js';
import { FakeVectorStore } from '../../support/fake-vector-store.js';
import { patternDoc, policyDoc } from '../../support/orgdata-fixtures.js';
import { orgDataParts } from '../../support/orgdata-parts.js';
import { rejection } from '../../support/rejection.js';

type Input = ToolInput<'manageOrgData'>;

/** ManageOrgData over collections in memory (the scan from the orgdata kit, unused here). */
function manageOver() {
  const store = new FakeVectorStore();
  const clock = new FakeClock();
  const collection = (name: string) => new OrgCollection(name, store, new FakeEmbedder(8), `manageOrgData deleteAll for ${name}`);
  let n = 0;
  const ids = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
  const manage = new ManageOrgData(
    new DocumentOperations('pattern', collection('patterns'), clock, ids),
    new DocumentOperations('policy', collection('policies'), clock, ids),
    new CollectionOperations('capabilities', collection('capabilities')),
    orgDataParts().scan,
  );
  return { store, run: (input: Record<string, unknown>, context?: ToolContext) => manage.execute(input as Input, context) as Promise<Record<string, unknown>> };
}
const context = (over: { person?: string } = {}): ToolContext => ({
  requestId: 'r',
  caller: { id: 'tokens-file:svc:bob', username: 'bob', groups: [], roles: ['viewer', 'operator', 'admin'], kind: 'tokens-file', ...over },
});

describe('ManageOrgData: each dataType and operation dispatched to its collection', () => {
  it('patterns and policies go to their own collections', async () => {
    const { store, run } = manageOver();
    await run({ dataType: 'pattern', operation: 'create', document: patternDoc });
    await run({ dataType: 'policy', operation: 'create', document: policyDoc });
    await run({ dataType: 'policy', operation: 'create', document: policyDoc });
    expect([await store.count('patterns'), await store.count('policies')]).to.deep.equal([1, 2]);
    expect(await run({ dataType: 'policy', operation: 'list' })).to.deep.include({ dataType: 'policy', total: 2 });
  });

  it("a document that names no creator records the caller's person, else their username, else anonymous", async () => {
    const { run } = manageOver();
    const { createdBy: _named, ...unnamed } = patternDoc;
    const creator = async (ctx?: ToolContext) =>
      ((await run({ dataType: 'pattern', operation: 'create', document: unnamed }, ctx)).item as { createdBy: string }).createdBy;
    expect(await creator(context({ person: 'Bob Baker' }))).to.equal('Bob Baker');
    expect(await creator(context())).to.equal('bob');
    expect(await creator()).to.equal('anonymous');
  });

  it('refuses what the schema would have, for a caller that skipped it: a combination that does not exist, a missing id, deleteAll unconfirmed', async () => {
    const { store, run } = manageOver();
    await run({ dataType: 'pattern', operation: 'create', document: patternDoc });
    const wrong = await rejection(run({ dataType: 'capabilities', operation: 'create', document: patternDoc }));
    expect(wrong.message).to.match(/^operation 'create' is not valid for dataType 'capabilities'\. Valid combinations: /);
    const noId = await rejection(run({ dataType: 'pattern', operation: 'get' }));
    expect(noId.message).to.equal('id is required for this operation');
    const unconfirmed = await rejection(run({ dataType: 'pattern', operation: 'deleteAll' }));
    expect(unconfirmed.message).to.equal('deleteAll needs confirm: true');
    for (const err of [wrong, noId, unconfirmed]) expect(err).to.have.property('code', 'VALIDATION_ERROR');
    expect(await store.count('patterns')).to.equal(1);
    expect(await run({ dataType: 'pattern', operation: 'deleteAll', confirm: true })).to.deep.include({ deletedCount: 1 });
  });
});
