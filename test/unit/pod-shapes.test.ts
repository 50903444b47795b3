import { expect } from 'chai';
import { formatPath } from '../../domain/operations/object-diff.js';
import { findPods } from '../../domain/write-guard/pod-shapes.js';
import { allowed, at, judge, obj } from '../support/write-guard-kit.js';

const privileged = { securityContext: { privileged: true } };
const found = (o: unknown) =>
  findPods(o).map((p) => ({ at: formatPath(p.segments), containers: p.containers.map((c) => `${c.list}:${String(c.container.name ?? c.container.image)}`) }));

/** Where a pod hides, in known and unknown kinds: each shape the guard must judge as a pod. */
const SHAPES: [string, Record<string, unknown>, string][] = [
  [
    'a containers list (any custom resource)',
    { spec: { workers: { template: { containers: [{ name: 'w', image: 'ghcr.io/a:1', ...privileged }] } } } },
    'spec.workers.template',
  ],
  ['initContainers only', { spec: { initContainers: [{ name: 'i', image: 'ghcr.io/a:1', ...privileged }] } }, 'spec'],
  ['ephemeralContainers', { spec: { ephemeralContainers: [{ name: 'e', image: 'ghcr.io/a:1', ...privileged }] } }, 'spec'],
  [
    'an Argo Workflow template container',
    { spec: { templates: [{ name: 'main', container: { image: 'ghcr.io/a:1', ...privileged } }] } },
    'spec.templates[name=main]',
  ],
  ['an Argo script', { spec: { templates: [{ name: 's', script: { image: 'ghcr.io/a:1', source: 'id', ...privileged } }] } }, 'spec.templates[name=s]'],
  ['Tekton steps', { spec: { taskSpec: { steps: [{ name: 'build', image: 'ghcr.io/a:1', ...privileged }] } } }, 'spec.taskSpec'],
  [
    'Tekton sidecars',
    { spec: { taskSpec: { steps: [{ name: 'b', image: 'ghcr.io/a:1' }], sidecars: [{ name: 'dind', image: 'docker:dind', ...privileged }] } } },
    'spec.taskSpec',
  ],
  ['a Tekton stepTemplate', { spec: { taskSpec: { stepTemplate: privileged, steps: [{ name: 'b', image: 'ghcr.io/a:1' }] } } }, 'spec.taskSpec'],
  [
    'an image with a command, deep in a list',
    { spec: { stages: [{ jobs: [{ run: { image: 'ghcr.io/a:1', command: ['sh'], ...privileged } }] }] } },
    'spec.stages[0].jobs[0]',
  ],
];

describe('pods wherever they are: found by shape in any kind, at any depth, and judged as pods', () => {
  for (const [name, spec, where] of SHAPES)
    it(`${name}: found at ${where}, and a privileged container there is high even with SVC_KIND_RISK=low`, () => {
      expect(found({ apiVersion: 'acme.io/v1', kind: 'Thing', ...spec }).map((p) => p.at)).to.include(where);
      const v = allowed(
        judge({
          target: at('acme.io', 'Thing'),
          live: null,
          result: obj('acme.io/v1', 'Thing', spec),
          settings: { kindRisks: [{ group: 'acme.io', kind: 'Thing', risk: 'low' }], imageRegistries: ['ghcr.io', 'docker.io'] },
        }),
      );
      expect(v.risk).to.equal('high');
      expect(v.riskReasons.join('; ')).to.match(/securityContext\.privileged: true breaks the baseline Pod Security Standard/);
    });

  it("a podTemplate's pod-level fields apply to the steps beside it (Tekton TaskRun)", () => {
    const taskRun = { spec: { podTemplate: { hostNetwork: true }, taskSpec: { steps: [{ name: 'b', image: 'ghcr.io/a:1' }] } } };
    expect(findPods(taskRun)[0]!.spec.hostNetwork).to.equal(true);
    const v = allowed(
      judge({
        target: at('tekton.dev', 'TaskRun'),
        live: null,
        result: obj('tekton.dev/v1', 'TaskRun', taskRun),
        settings: { kindRisks: [{ group: 'tekton.dev', kind: 'TaskRun', risk: 'low' }] },
      }),
    );
    expect(v.riskReasons.join('; ')).to.match(/hostNetwork: true breaks the baseline/);
  });

  it("an Argo Workflow's pod-level fields (the workflow's, the template's) apply to its container", () => {
    const wf = { spec: { hostNetwork: true, templates: [{ name: 'main', securityContext: { runAsUser: 0 }, container: { image: 'ghcr.io/a:1' } }] } };
    const pod = findPods(wf)[0]!;
    expect(pod.spec).to.deep.include({ hostNetwork: true, securityContext: { runAsUser: 0 } });
  });

  it('status is not searched, and an object without containers holds no pod', () => {
    expect(found({ status: { containers: [{ name: 'a', image: 'x' }] } })).to.deep.equal([]);
    expect(found({ spec: { template: { spec: { volumes: [] } } } })).to.deep.equal([]);
    expect(found({ spec: { steps: [{ name: 'no image', run: 'x' }] } })).to.deep.equal([]);
  });

  it('each container is found once, with its list', () => {
    const pod = { spec: { initContainers: [{ name: 'i', image: 'a' }], containers: [{ name: 'c', image: 'b', command: ['x'] }] } };
    expect(found(pod)).to.deep.equal([{ at: 'spec', containers: ['containers:c', 'initContainers:i'] }]);
  });
});
