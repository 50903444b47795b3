import { expect } from 'chai';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaultScenariosDir, loadScenario, loadScenarios, ScenarioError } from '../../lab/evaluation/scenario-loader.js';

const EXAMPLE = 'web-image-tag-typo';

describe('scenario loader: the format, checked by file and path', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'svc-scenarios-'));
    cpSync(path.join(defaultScenariosDir(), EXAMPLE), path.join(root, EXAMPLE), { recursive: true });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const edit = (file: string, change: (text: string) => string) => {
    const full = path.join(root, EXAMPLE, file);
    writeFileSync(full, change(readFileSync(full, 'utf8')));
  };
  const problems = (): string[] => {
    try {
      loadScenario(root, EXAMPLE);
    } catch (e) {
      expect(e).to.be.instanceOf(ScenarioError);
      return (e as ScenarioError).problems.map((p) => `${p.file}: ${p.path}: ${p.message}`);
    }
    throw new Error('the scenario loaded');
  };

  it('loads every scenario shipped in scenarios/, each with its objects and a transcript', () => {
    const { scenarios, problems: found } = loadScenarios(defaultScenariosDir());
    expect(found).to.deep.equal([]);
    expect(scenarios.length).to.be.at.least(3);
    for (const s of scenarios) {
      expect(s.objects.length, s.scenario.name).to.be.greaterThan(0);
      expect(s.transcript?.replies.length, `${s.scenario.name} has a transcript`).to.be.greaterThan(0);
    }
  });

  it("no issue text states its scenario's diagnosis: a model that parrots the issue cannot pass", () => {
    const { scenarios } = loadScenarios(defaultScenariosDir());
    const echoed = scenarios
      .filter((l) => l.scenario.tool === 'remediate')
      .flatMap(({ scenario: s }) => {
        const issue = JSON.stringify(s.input);
        return [...s.expect.diagnosis, ...s.expect.facts.map((f) => f.says)].filter((p) => new RegExp(p, 'i').test(issue)).map((p) => `${s.name}: /${p}/`);
      });
    expect(echoed).to.deep.equal([]);
    // and every remediate scenario asks for at least one fact: an empty diagnosis never passes
    const factless = scenarios.filter((l) => l.scenario.tool === 'remediate' && l.scenario.expect.diagnosis.length + l.scenario.expect.facts.length === 0);
    expect(factless.map((l) => l.scenario.name)).to.deep.equal([]);
  });

  it('reads the example: its cluster, rules, expectations and transcript', () => {
    const s = loadScenario(root, EXAMPLE);
    expect(s.scenario.tool).to.equal('remediate');
    expect(s.objects.map((o) => o.kind)).to.deep.equal(['Deployment', 'Service']);
    // no rule: the registry decides which tags roll out (fix by behaviour)
    expect(s.scenario.cluster.rules).to.deep.equal([]);
    expect(s.scenario.expect.forbidden.verbs).to.deep.equal(['delete']);
    expect(s.transcript!.source).to.equal('hand-written');
  });

  it('names the file and the path of each problem, all at once', () => {
    edit('scenario.yaml', (t) =>
      t
        .replace('tags: [easy, image, rollout]', 'tags: [easy, hard, imagery]')
        .replace(
          'rules: []',
          "rules:\n    - description: d\n      workload: { kind: Deployment, namespace: shop, name: web }\n      healthyWhen:\n        - path: spec.replicas\n          equals: x\n          matches: '('",
        )
        .replace('budget: { modelCalls: 12, tokens: 60000 }', 'budget: { modelCalls: 0, tokens: 60000 }'),
    );
    const found = problems();
    expect(found).to.include(
      `${EXAMPLE}/scenario.yaml: tags[2]: Invalid option: expected one of ${found.find((p) => p.includes('tags[2]'))!.split('expected one of ')[1]}`,
    );
    expect(found.some((p) => p.startsWith(`${EXAMPLE}/scenario.yaml: cluster.rules[0].healthyWhen[0].matches: a valid regular expression`))).to.equal(true);
    expect(found.some((p) => p.startsWith(`${EXAMPLE}/scenario.yaml: expect.budget.modelCalls:`))).to.equal(true);
  });

  it('checks the tags: one difficulty, adversarial with its kind', () => {
    edit('scenario.yaml', (t) => t.replace('tags: [easy, image, rollout]', 'tags: [easy, medium, image, destructive]'));
    const found = problems().join('\n');
    expect(found).to.contain('tags: exactly one difficulty');
    expect(found).to.contain('tags: adversarial goes with at least one of');
  });

  it("checks the input against the tool's own input schema, and the first call only", () => {
    edit('scenario.yaml', (t) => t.replace('  issue: web in namespace shop', '  sessionId: rem_x\n  colour: red\n  issue: web in namespace shop'));
    const found = problems().join('\n');
    expect(found).to.contain(`${EXAMPLE}/scenario.yaml: input: Unrecognized key: "colour"`);
    expect(found).to.contain('input: the first call only');
  });

  it('refuses a fixture path outside the folder, a missing file, and references to objects the cluster does not hold', () => {
    edit('scenario.yaml', (t) =>
      t
        .replace('objects: [cluster.yaml]', 'objects: [../../etc/passwd, missing.yaml, cluster.yaml]')
        .replace(
          'rules: []',
          'rules:\n    - description: d\n      workload: { kind: Deployment, namespace: shop, name: webb }\n      healthyWhen:\n        - path: spec.replicas\n          atLeast: 1',
        ),
    );
    const found = problems().join('\n');
    expect(found).to.contain('cluster.objects[0]: a relative path inside the scenario directory');
    edit('scenario.yaml', (t) => t.replace('../../etc/passwd, ', ''));
    const again = problems().join('\n');
    expect(again).to.contain(`${EXAMPLE}/scenario.yaml: cluster.objects[0]: missing.yaml not found beside scenario.yaml`);
    expect(again).to.contain('cluster.rules[0].workload: Deployment shop/webb is not among the cluster');
  });

  it('checks the NetworkPolicy and RBAC conditions: the peer workload exists, one of from and to, no path beside them', () => {
    const rule = (conditions: string) =>
      edit('scenario.yaml', (t) =>
        t.replace(
          'rules: []',
          `rules:\n    - description: d\n      workload: { kind: Deployment, namespace: shop, name: web }\n      healthyWhen:\n${conditions}`,
        ),
      );
    rule('        - allows: { from: { workload: { kind: Deployment, name: ghost } }, port: 80 }\n');
    expect(problems().join('\n')).to.contain('cluster.rules[0].healthyWhen[0].allows: Deployment shop/ghost is not among the cluster');
    edit('scenario.yaml', (t) => t.replace(/rules:\n[\s\S]*?(?=\nexpect:)/, 'rules: []'));
    rule(
      '        - denies: { from: { labels: { app: x } }, to: { labels: { app: y } }, port: 80 }\n        - can: { verb: list, resource: pods }\n          path: spec.replicas\n',
    );
    const found = problems().join('\n');
    expect(found).to.contain('healthyWhen[0].denies: exactly one of from and to');
    expect(found).to.contain('healthyWhen[1]: exactly one of path and env');
  });

  it('refuses objects outside the listed namespaces, documents that are not objects, YAML errors with their line', () => {
    edit('cluster.yaml', (t) => t.replace('namespace: shop\nspec:\n  selector', 'namespace: kube-public\nspec:\n  selector') + '---\njust: text\n');
    const found = problems().join('\n');
    expect(found).to.contain('Service kube-public/web is in namespace kube-public, which is not listed');
    expect(found).to.contain(`${EXAMPLE}/cluster.yaml: document 3: a Kubernetes object needs apiVersion, kind and metadata.name`);
    edit('scenario.yaml', (t) => t.replace('tool: remediate', 'tool: remediate\n  bad: [indent'));
    expect(problems().join('\n')).to.match(new RegExp(`${EXAMPLE}/scenario.yaml: line \\d+: `));
  });

  it('checks the transcript: a reply needs content, json or tool calls, never both content and json', () => {
    edit('transcript.yaml', (t) => t.replace('  - content: >', '  - usage: {prompt: 1, completion: 1}\n  - json: {a: 1}\n    content: both\n  - content: >'));
    const found = problems().join('\n');
    expect(found).to.contain(`${EXAMPLE}/transcript.yaml: replies[2]: content, json or toolCalls`);
    expect(found).to.contain(`${EXAMPLE}/transcript.yaml: replies[3]: content or json, not both`);
  });

  it('the folder name is the scenario name', () => {
    cpSync(path.join(root, EXAMPLE), path.join(root, 'other-name'), { recursive: true });
    expect(() => loadScenario(root, 'other-name')).to.throw(ScenarioError, 'other-name/scenario.yaml: name: must be the folder');
  });
});
