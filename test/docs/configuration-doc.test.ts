import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../infrastructure/project-root.js';

const root = projectRoot();

/** Every variable the configuration code reads: `parser(env, 'NAME'` and `env.NAME` in infrastructure/config, and the CLI's own. */
function variablesInCode(): Set<string> {
  const names = new Set<string>();
  const dir = path.join(root, 'infrastructure', 'config');
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(dir, f));
  files.push(path.join(root, 'interfaces', 'cli', 'cli-config.ts'));
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\w+\(\s*env\s*,\s*'([A-Z][A-Z0-9_]+)'/g)) names.add(m[1]);
    for (const m of text.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)) names.add(m[1]);
    for (const m of text.matchAll(/\benv\[\s*'([A-Z][A-Z0-9_]+)'\s*\]/g)) names.add(m[1]);
  }
  return names;
}

/** Every variable docs/configuration.md lists in the first column of its tables. */
function variablesInDoc(): Set<string> {
  const names = new Set<string>();
  for (const line of readFileSync(path.join(root, 'docs', 'configuration.md'), 'utf8').split('\n')) {
    const first = /^\|([^|]*)\|/.exec(line)?.[1];
    if (!first) continue;
    for (const m of first.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) names.add(m[1]);
  }
  return names;
}

describe('docs/configuration.md lists every variable the configuration code reads, and no other', () => {
  it('reads the code: the parsers of infrastructure/config and the CLI', () => {
    // a sanity check of the scan itself: a few variables every version has
    expect([...variablesInCode()]).to.include.members(['PORT', 'SVC_AUTH_TOKEN', 'KUBECONFIG', 'OPENAI_API_KEY', 'SVC_URL']);
  });

  it('no variable is missing from the page', () => {
    const doc = variablesInDoc();
    expect([...variablesInCode()].filter((v) => !doc.has(v)).sort()).to.deep.equal([]);
  });

  it('no variable on the page is stale', () => {
    const code = variablesInCode();
    expect([...variablesInDoc()].filter((v) => !code.has(v)).sort()).to.deep.equal([]);
  });
});
