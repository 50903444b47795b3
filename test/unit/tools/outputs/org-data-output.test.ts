import { expect } from 'chai';
import { orgDataOutput } from '../../../../domain/tools/outputs/org-data-output.js';
import { schemaCases } from '../../../support/schema-cases.js';

type Out = Record<string, unknown>;
const progress = { scanId: 's1', status: 'running', done: 1, total: 3, succeeded: 1, inFlight: [], failures: [], startedAt: 't', updatedAt: 't', resumed: 0 };

describe('tool outputs: manageOrgData', () => {
  schemaCases<Out>(
    orgDataOutput,
    () => ({ dataType: 'pattern', operation: 'list', items: [{ id: 'p1', description: 'a pattern' }], count: 1, total: 1 }),
    [
      ['a search', (o) => ((o.operation = 'search'), (o.query = 'redis'), (o.results = [{ score: 0.9, item: { id: 'p1' } }]))],
      ['no scan yet (progress null)', (o) => ((o.dataType = 'capabilities'), (o.operation = 'progress'), (o.progress = null))],
      ['a scan in progress', (o) => ((o.dataType = 'capabilities'), (o.operation = 'scan'), (o.progress = progress))],
    ],
    [
      ['a data type outside the three', (o) => void (o.dataType = 'secret')],
      ['an operation outside the eight', (o) => void (o.operation = 'update')],
      ['an item without its id', (o) => void (o.items = [{ description: 'x' }])],
      ['a fractional count', (o) => void (o.count = 1.5)],
    ],
  );

  it("keeps a document's own fields (documents are open)", () => {
    expect(orgDataOutput.parse({ dataType: 'policy', operation: 'get', item: { id: 'q', rule: 'no latest tag' } }).item).to.deep.equal({
      id: 'q',
      rule: 'no latest tag',
    });
  });
});
