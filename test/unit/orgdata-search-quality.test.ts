import { expect } from 'chai';
import { HashingEmbedder } from '../../infrastructure/embeddings/hashing-embedder.js';
import { orgDataParts } from '../support/orgdata-parts.js';
import { SEED_PATTERNS } from '../support/seed-patterns.js';

type AnyResult = any;

describe('manageOrgData: search quality with the local hashing embedder', () => {
  it('finds a pattern first for its own trigger phrase for at least 45 of 50 seeded patterns', async () => {
    expect(SEED_PATTERNS).to.have.length(50);
    const { manage } = orgDataParts({ embedder: new HashingEmbedder() });
    const ids: string[] = [];
    for (const [description, triggers, suggestedResources] of SEED_PATTERNS) {
      const created = (await manage.execute({
        dataType: 'pattern',
        operation: 'create',
        document: { description, triggers, suggestedResources, rationale: 'seeded', createdBy: 'test' },
      })) as AnyResult;
      ids.push(created.id);
    }
    const misses: string[] = [];
    for (let i = 0; i < SEED_PATTERNS.length; i++) {
      const trigger = SEED_PATTERNS[i][1][i % SEED_PATTERNS[i][1].length];
      const { results } = (await manage.execute({ dataType: 'pattern', operation: 'search', query: trigger, limit: 3 })) as AnyResult;
      if (results[0]?.item.id !== ids[i]) misses.push(`${trigger} -> ${results[0]?.item.description}`);
    }
    expect(SEED_PATTERNS.length - misses.length, misses.join('\n')).to.be.at.least(45);
  });
});
