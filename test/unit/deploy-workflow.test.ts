import { expect } from 'chai';
import { parseAllDocuments } from 'yaml';
import { ExecutionError, ValidationError } from '../../domain/errors.js';
import { SOLUTION_LABEL } from '../../domain/deployment/manifest-labels.js';
import { rejection } from '../support/rejection.js';
import { availableAtOnce, deployKit, manifestsAnswer, recommendAnswer, webManifests } from '../support/deploy-kit.js';

type Kit = ReturnType<typeof deployKit>;

async function upToAnswers(kit: Kit, intent = 'an nginx web server for the shop front end') {
  kit.llm.push(recommendAnswer());
  const rec = await kit.recommend.execute({ intent });
  const solutionId = rec.solutions[0].solutionId;
  const chosen = await kit.choose.execute({ solutionId });
  await kit.answer.execute({ solutionId, stage: 'required', answers: { name: 'web', 'deployment-image': 'nginx:1.25' } });
  return { solutionId, chosen };
}

describe('deployment workflow use cases (fakes)', () => {
  it('runs recommend -> chooseSolution -> answerQuestion -> generateManifests -> deployManifests to ready objects', async () => {
    const kit = deployKit();
    kit.cluster.onWrite = availableAtOnce;
    kit.llm.push(recommendAnswer());
    const rec = await kit.recommend.execute({ intent: 'an nginx web server for the shop front end' });
    expect(rec.status).to.equal('solutions');
    expect(rec.notes.join(' ')).to.match(/API discovery alone/);
    const solutionId = rec.solutions[0].solutionId;
    expect(solutionId).to.match(/^sol_[0-9a-f]{32}$/);
    expect(rec.nextSteps[0]).to.deep.include({ tool: 'chooseSolution', params: { solutionId } });

    const chosen = await kit.choose.execute({ solutionId });
    expect(chosen.questions.required.map((q) => q.id)).to.deep.equal(['name', 'namespace', 'deployment-image']);
    expect(chosen.questions.basic.map((q) => q.id)).to.include.members(['deployment-replicas', 'deployment-port', 'service-type', 'service-port']);
    expect(chosen.questions.advanced.map((q) => q.id)).to.include('deployment-strategy');
    expect(chosen.questions.basic.find((q) => q.id === 'service-type')!.validation.enum).to.deep.equal([
      'ClusterIP',
      'ExternalName',
      'LoadBalancer',
      'NodePort',
    ]);
    expect(chosen.questions.open.map((q) => q.id)).to.deep.equal(['open']);

    const req = await kit.answer.execute({ solutionId, stage: 'required', answers: { name: 'web', namespace: 'shop', 'deployment-image': 'nginx:1.25' } });
    expect(req).to.include({ nextStage: 'basic', readyForManifests: true });
    expect(req.nextSteps.map((s) => s.tool)).to.deep.equal(['answerQuestion', 'generateManifests']);
    const basic = await kit.answer.execute({ solutionId, stage: 'basic', answers: { 'deployment-replicas': '2' } });
    expect(basic.accepted['deployment-replicas']).to.equal(2);
    await kit.answer.execute({ solutionId, stage: 'advanced', answers: {} });
    const open = await kit.answer.execute({ solutionId, stage: 'open', answers: { open: 'keep it small' } });
    expect(open.nextStage).to.equal(null);
    expect(open.nextSteps.map((s) => s.tool)).to.deep.equal(['generateManifests']);

    kit.llm.push(manifestsAnswer(webManifests()));
    const gen = await kit.generate.execute({ solutionId });
    expect(gen.attempts).to.equal(1);
    const docs = parseAllDocuments(gen.manifests).map((d) => d.toJS());
    expect(docs.map((d) => d.kind)).to.deep.equal(['Deployment', 'Service']);
    for (const d of docs) {
      expect(d.metadata.labels[SOLUTION_LABEL]).to.equal(solutionId);
      expect(d.metadata.namespace).to.equal('shop');
    }
    const sent = kit.llm.calls[1].messages.map((m) => m.content).join('\n');
    expect(sent).to.include('keep it small').and.include('"deployment-replicas"');

    const dep = await kit.deploy.execute({ solutionId, timeout: 5 });
    expect(dep.status).to.equal('ready');
    expect(dep.objects.map((o) => [o.kind, o.name, o.namespace, o.ready])).to.deep.equal([
      ['Service', 'web', 'shop', true],
      ['Deployment', 'web', 'shop', true],
    ]);
    expect(dep.nextSteps).to.deep.equal([]);
  });

  it('answers a vague intent with guidance and no model call; final: true asks for solutions anyway', async () => {
    const kit = deployKit();
    const vague = await kit.recommend.execute({ intent: 'a database' });
    expect(vague.status).to.equal('needs-clarification');
    expect((vague as { guidance: string[] }).guidance.length).to.be.greaterThan(0);
    expect(kit.llm.calls).to.have.length(0);

    kit.llm.push(recommendAnswer({ clarity: 'vague', guidance: ['Which database?'], solutions: [] }));
    const byModel = await kit.recommend.execute({ intent: 'some kind of thing for my team please' });
    expect(byModel).to.include({ status: 'needs-clarification' });
    expect((byModel as { guidance: string[] }).guidance).to.deep.equal(['Which database?']);

    kit.llm.push(recommendAnswer());
    const final = await kit.recommend.execute({ intent: 'a database', final: true });
    expect(final.status).to.equal('solutions');
    expect(kit.llm.calls[1].messages[1].content).to.include('<data name="final">\ntrue');
  });

  it('drops a kind the cluster does not serve, and refuses a solution left with none', async () => {
    const kit = deployKit();
    kit.llm.push(
      recommendAnswer({
        solutions: [
          {
            score: 95,
            description: 'magic',
            resources: [{ kind: 'PostgresCluster', apiVersion: 'acid.zalan.do/v1', purpose: 'db' }],
            patternsApplied: ['made-up'],
          },
          {
            score: 80,
            description: 'plain',
            resources: [{ kind: 'StatefulSet', apiVersion: 'apps/v1beta9' }, { kind: 'HorizontalPodAutoscaler' }],
            patternsApplied: ['made-up'],
          },
        ],
      }),
    );
    const rec = await kit.recommend.execute({ intent: 'a postgres database for orders' });
    expect(rec.solutions).to.have.length(1);
    const s = rec.solutions[0];
    expect(s.resources).to.deep.equal([{ apiVersion: 'apps/v1', kind: 'StatefulSet', namespaced: true, purpose: '' }]);
    expect(s.droppedResources.map((d) => d.kind)).to.deep.equal(['HorizontalPodAutoscaler']);
    expect(s.patternsApplied).to.deep.equal([]);
    expect(rec.notes.join(' '))
      .to.match(/refused.*PostgresCluster/)
      .and.match(/HorizontalPodAutoscaler was dropped/);
  });

  it('refuses an answer a policy forbids, naming the question and the rule', async () => {
    const kit = deployKit();
    await kit.vectors.ensureCollection('policies', { dimension: 4, distance: 'cosine' });
    await kit.vectors.upsert('policies', [
      {
        id: 'max-replicas',
        vector: [1, 2, 3, 4],
        payload: {
          dataType: 'policy',
          description: 'At most 3 replicas',
          triggers: ['replicas'],
          constraints: [
            { kind: 'Deployment', field: 'spec.replicas', maximum: 3, message: 'at most 3 replicas' },
            { kind: 'Deployment', field: 'metadata.labels.team', required: true, allowedValues: ['shop', 'ops'] },
            { kind: 'Nope', field: '', junk: 1 },
          ],
        },
      },
    ]);
    const { solutionId, chosen } = await upToAnswers(kit);
    const replicas = chosen.questions.basic.find((q) => q.id === 'deployment-replicas')!;
    expect(replicas.validation.maximum).to.equal(3);
    const team = chosen.questions.required.find((q) => q.id === 'policy-deployment-metadata-labels-team')!;
    expect(team.validation.enum).to.deep.equal(['shop', 'ops']);

    const err = await rejection(kit.answer.execute({ solutionId, stage: 'basic', answers: { 'deployment-replicas': 5 } }));
    expect(err).to.be.instanceOf(ValidationError);
    expect(err.message)
      .to.match(/question "deployment-replicas"/)
      .and.match(/at most 3/);

    // the final objects are checked too: a manifest breaking the policy goes back to the model
    kit.llm.push(
      manifestsAnswer(webManifests('web', 5)),
      manifestsAnswer(webManifests('web', 3).map((o) => ({ ...o, metadata: { ...o.metadata, labels: { team: 'shop' } } }))),
    );
    const gen = await kit.generate.execute({ solutionId });
    expect(gen.attempts).to.equal(2);
    expect(kit.llm.calls.at(-1)!.messages.at(-1)!.content).to.match(/spec.replicas breaks a policy/);
  });

  it('feeds dry-run refusals back: refused twice, accepted on the third attempt', async () => {
    const kit = deployKit();
    const { solutionId } = await upToAnswers(kit);
    let refusals = 0;
    kit.cluster.rejectDryRun = ({ ref }) =>
      ref.kind === 'Deployment' && refusals++ < 2
        ? {
            accepted: false,
            reason: 'Invalid',
            message: `Deployment.apps "web" is invalid: spec.template.metadata.labels: \`selector\` does not match template \`labels\` (${refusals})`,
            causes: [{ field: 'spec.template.metadata.labels', message: 'selector does not match' }],
          }
        : undefined;
    kit.llm.push(manifestsAnswer(webManifests()), manifestsAnswer(webManifests()), manifestsAnswer(webManifests()));
    const gen = await kit.generate.execute({ solutionId });
    expect(gen.attempts).to.equal(3);
    const third = kit.llm.calls.at(-1)!.messages;
    expect(third).to.have.length(4);
    expect(third[3].content).to.include('selector` does not match template `labels` (2)').and.include('<data name="errors">');
  });

  it('gives up after 10 attempts with the last errors, and stores nothing', async () => {
    const kit = deployKit();
    const { solutionId } = await upToAnswers(kit);
    kit.cluster.rejectDryRun = () => ({ accepted: false, reason: 'Invalid', message: 'spec.replicas: Invalid value: -1', causes: [] });
    for (let i = 0; i < 10; i++) kit.llm.push(manifestsAnswer(webManifests()));
    const err = await rejection(kit.generate.execute({ solutionId }));
    expect(err).to.be.instanceOf(ExecutionError);
    expect(err.message)
      .to.match(/refused 10 times/)
      .and.match(/Invalid value: -1/);
    expect((err as ExecutionError).details).to.deep.include({ attempts: 10 });
    expect(kit.llm.calls).to.have.length(11);
    const deploy = await rejection(kit.deploy.execute({ solutionId }));
    expect(deploy.message).to.match(/Next call: generateManifests/);
  });

  it('a deploy that times out names the pending objects with their events; a re-deploy is idempotent', async () => {
    const kit = deployKit();
    const { solutionId } = await upToAnswers(kit);
    kit.llm.push(manifestsAnswer(webManifests()));
    await kit.generate.execute({ solutionId });
    kit.cluster.clusterEvents = [
      {
        type: 'Warning',
        reason: 'Failed',
        message: 'Failed to pull image "nginx:1.25"',
        count: 3,
        involvedObject: { kind: 'Pod', name: 'web-7d9f-abcde', namespace: 'default' },
      },
    ];
    const started = kit.clock.now();
    const slow = await kit.deploy.execute({ solutionId, timeout: 5 });
    expect(slow.status).to.equal('timeout');
    expect(kit.clock.now() - started).to.be.within(5000, 6000);
    expect(slow.pending!.map((p) => p.name)).to.deep.equal(['web']);
    expect(slow.pending![0].events[0]).to.include({ object: 'Pod web-7d9f-abcde', reason: 'Failed' });
    expect(slow.message).to.match(/Deployment web \(0 of 2 replicas available/);
    expect(slow.nextSteps[0]).to.deep.include({ tool: 'deployManifests' });

    kit.cluster.onWrite = availableAtOnce;
    const applied = () => kit.cluster.writes.filter((w) => w.method === 'apply').length;
    const shape = () => [...kit.cluster.objects.values()].map((o) => JSON.stringify([o.metadata.uid, o.metadata.labels, o.spec]));
    const before = shape();
    const again = await kit.deploy.execute({ solutionId, timeout: 5 });
    const twice = await kit.deploy.execute({ solutionId, timeout: 5 });
    expect([again.status, twice.status]).to.deep.equal(['ready', 'ready']);
    expect(applied()).to.equal(6);
    expect(kit.cluster.objects.size).to.equal(4);
    expect(shape()).to.deep.equal(before);
  });

  it('refuses every out-of-order call with a 400 naming the call that comes next', async () => {
    const kit = deployKit();
    const unknown = 'sol_' + '0'.repeat(32);
    for (const call of [
      kit.choose.execute({ solutionId: unknown }),
      kit.generate.execute({ solutionId: 'nope' }),
      kit.deploy.execute({ solutionId: unknown }),
      kit.answer.execute({ solutionId: unknown, stage: 'required', answers: {} }),
    ]) {
      const e = await rejection(call);
      expect(e).to.be.instanceOf(ValidationError);
      expect(e.message).to.match(/Unknown or expired session.*recommend/);
    }
    kit.llm.push(recommendAnswer());
    const solutionId = (await kit.recommend.execute({ intent: 'an nginx web server please' })).solutions[0].solutionId;
    const expectNext = async (p: Promise<unknown>, next: RegExp) => {
      const e = await rejection(p);
      expect(e, String(e)).to.be.instanceOf(ValidationError);
      expect(e.message).to.match(next);
    };
    await expectNext(kit.answer.execute({ solutionId, stage: 'required', answers: {} }), /Next call: chooseSolution/);
    await expectNext(kit.generate.execute({ solutionId }), /Next call: chooseSolution/);
    await kit.choose.execute({ solutionId });
    await expectNext(kit.generate.execute({ solutionId }), /required questions are not answered. Next call: answerQuestion with stage "required"/);
    await expectNext(kit.deploy.execute({ solutionId }), /Next call: answerQuestion with stage "required"/);
    await expectNext(kit.answer.execute({ solutionId, stage: 'advanced', answers: {} }), /required stage comes before the advanced stage/);
    await expectNext(kit.answer.execute({ solutionId, stage: 'required', answers: { name: 'web' } }), /"deployment-image".*required/);
    await expectNext(kit.answer.execute({ solutionId, stage: 'required', answers: { name: 'Bad_Name', 'deployment-image': 'x' } }), /question "name": pattern/);
    await expectNext(
      kit.answer.execute({ solutionId, stage: 'required', answers: { namespace: 'missing', 'deployment-image': 'x' } }),
      /namespace missing does not exist/,
    );
    await kit.answer.execute({ solutionId, stage: 'required', answers: { 'deployment-image': 'nginx:1.25' } });
    await expectNext(kit.deploy.execute({ solutionId }), /deployManifests cannot run yet: no manifests.*Next call: generateManifests/);
    // an expired session is the same 400
    kit.clock.schedule(2 * 86_400_000, () => undefined);
    await new Promise((r) => setImmediate(r));
    await expectNext(kit.generate.execute({ solutionId }), /Unknown or expired session.*recommend/);
  });
});
