import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { defaultScenariosDir, plainTags, scenarioNames, scenarioTags } from '../../lab/evaluation/scenario-index.js';
import { listScenarios } from '../../lab/sandbox/sandbox-main.js';

describe('svc sandbox --list reads the tags without the YAML parser', () => {
  const dir = defaultScenariosDir();

  it('reads the same tags as the YAML parser, for every shipped scenario', () => {
    const names = scenarioNames(dir);
    expect(names.length).to.be.greaterThan(100);
    for (const name of names) {
      const parsed = (parse(readFileSync(path.join(dir, name, 'scenario.yaml'), 'utf8')) as { tags: string[] }).tags;
      expect(scenarioTags(dir, name), name).to.deep.equal(parsed);
    }
  });

  it('reads a flow list and a block list; anything else is left to the full parser (undefined)', () => {
    expect(plainTags('name: a\ntags: [easy, rbac]\ntool: remediate\n')).to.deep.equal(['easy', 'rbac']);
    expect(plainTags('name: a\ntags:\n  - hard\n  - pvc\ntool: operate\n')).to.deep.equal(['hard', 'pvc']);
    expect(plainTags('tags:\r\n  - hard\r\n  - pvc\r\n')).to.deep.equal(['hard', 'pvc']);
    for (const odd of [
      'tags:\n  - "hard"\n  - pvc\n', // quoted
      'tags:\n  - hard # why\n', // a comment
      'tags: &t [easy, rbac]\n', // an anchor
      'tags:\n  - easy\n    - nested\n', // not a plain list
      'name: a\n', // none
      'tags: [easy]\ntags: [hard]\n', // twice
      'tags: [easy]\n---\ntags: [hard]\n', // several documents
      'tags: []\n', // empty
      'description: |\n  tags: [easy]\n', // not top level
    ])
      expect(plainTags(odd), odd).to.equal(undefined);
  });

  it('lists one line per scenario, the name padded, then the tags', () => {
    const lines = listScenarios(dir);
    expect(lines.length).to.equal(scenarioNames(dir).length);
    expect(lines[0]).to.match(/^[a-z0-9-]+ +\S.*$/);
    const name = scenarioNames(dir)[0];
    expect(lines[0].split(/ +/).slice(1)).to.deep.equal(scenarioTags(dir, name));
  });
});
