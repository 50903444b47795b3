import { expect } from 'chai';
import { ListTools } from '../../application/list-tools.js';
import { TOOL_DEFINITIONS } from '../../domain/tools/tool-definitions.js';
import { ToolRegistry } from '../../domain/tools/tool-registry.js';

const list = new ListTools(new ToolRegistry(TOOL_DEFINITIONS));
const names = async (input: Parameters<ListTools['execute']>[0]) => (await list.execute(input)).map((t) => t.name);

describe('application/list-tools: the tool catalog, filtered', () => {
  it('lists every tool without a filter', async () => {
    expect(await names({})).to.deep.equal(TOOL_DEFINITIONS.map((t) => t.name));
  });

  it('filters by exact category, by any of the tags, and by a case-insensitive search of name or description', async () => {
    const [first] = TOOL_DEFINITIONS;
    const byCategory = await names({ category: first.category });
    expect(byCategory).to.include(first.name);
    expect(byCategory).to.deep.equal(TOOL_DEFINITIONS.filter((t) => t.category === first.category).map((t) => t.name));
    expect(await names({ category: first.category.toUpperCase() + 'x' })).to.deep.equal([]);
    const tag = first.tags[0];
    expect(await names({ tags: ['no-such-tag', tag] })).to.deep.equal(TOOL_DEFINITIONS.filter((t) => t.tags.includes(tag)).map((t) => t.name));
    expect(await names({ search: first.name.toUpperCase() })).to.include(first.name);
  });

  it('combines the filters, and ignores empty tags', async () => {
    const [first] = TOOL_DEFINITIONS;
    expect(await names({ tags: [''] })).to.have.length(TOOL_DEFINITIONS.length);
    expect(await names({ category: first.category, search: 'zz-nothing-matches-zz' })).to.deep.equal([]);
  });
});
