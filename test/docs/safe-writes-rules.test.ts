import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../infrastructure/project-root.js';
import { POD_SECURITY_CONTROLS } from '../../domain/write-guard/pod-security.js';
import { ruleTableMarkdown } from '../../domain/write-guard/rules/rule-table.js';

const page = () => readFileSync(path.join(projectRoot(), 'docs', 'safe-writes.md'), 'utf8');

/** docs/safe-writes.md shows the write guard's own table and controls, never a copy that drifted from them. */
describe('docs/safe-writes.md shows the write guard as the code has it', () => {
  it('the rule table between its markers is the domain table, row for row (regenerate it from ruleTableMarkdown() when a rule changes)', () => {
    const text = page();
    const block = /<!-- rule-table:start -->\n([\s\S]*?)\n<!-- rule-table:end -->/.exec(text)?.[1];
    expect(block, 'the markers are on the page').to.be.a('string');
    expect(block!.split('\n')).to.deep.equal(ruleTableMarkdown().split('\n'));
  });

  it('every Pod Security control is listed with its level and what it allows', () => {
    const text = page();
    for (const c of POD_SECURITY_CONTROLS) expect(text, c.name).to.contain(`| ${c.name} | ${c.level} | ${c.allows} |`);
  });
});
