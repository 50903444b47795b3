import { expect } from 'chai';
import { GenerateManifests } from '../../../application/deployment/generate-manifests.js';
import { SolutionSessions } from '../../../application/deployment/solution-sessions.js';
import { NO_SECOND_APPROVER } from '../../../domain/auth/session-owner.js';
import { deployKit, manifestsAnswer, recommendAnswer, webManifests } from '../../support/deploy-kit.js';
import { rejection } from '../../support/rejection.js';

/** The deploy kit with a GenerateManifests of this test's own over its model, cluster and session store. */
function generateOver() {
  const kit = deployKit();
  const generate = new GenerateManifests(kit.llm, kit.cluster, kit.cluster, new SolutionSessions(kit.store, NO_SECOND_APPROVER), kit.clock, {
    maxTokens: 1_000_000,
    timeoutMs: 60_000,
  });
  return { kit, generate };
}

describe('GenerateManifests: the model writes the manifests from the answers; svc checks, labels and dry-runs them and keeps them in the session', () => {
  it('refuses before the required questions are answered, asking the model nothing', async () => {
    const { kit, generate } = generateOver();
    kit.llm.push(recommendAnswer());
    const solutionId = (await kit.recommend.execute({ intent: 'an nginx web server' })).solutions[0].solutionId;
    await kit.choose.execute({ solutionId });
    const calls = kit.llm.calls.length;
    await rejection(generate.execute({ solutionId }));
    expect(kit.llm.calls).to.have.length(calls);
  });

  it('sends the answers to the model, keeps the generated manifests in the session and points at deployManifests; nothing is written', async () => {
    const { kit, generate } = generateOver();
    kit.llm.push(recommendAnswer());
    const solutionId = (await kit.recommend.execute({ intent: 'an nginx web server' })).solutions[0].solutionId;
    await kit.choose.execute({ solutionId });
    await kit.answer.execute({ solutionId, stage: 'required', answers: { name: 'web', namespace: 'shop', 'deployment-image': 'nginx:1.25' } });
    kit.llm.push(manifestsAnswer(webManifests()));
    const generated = await generate.execute({ solutionId });
    expect(generated).to.deep.include({ solutionId, status: 'generated', attempts: 1 });
    expect(generated.objects.map((o) => `${o.kind} ${o.namespace}/${o.name}`)).to.deep.equal(['Deployment shop/web', 'Service shop/web']);
    expect(generated.nextSteps.map((s) => s.tool)).to.include('deployManifests');
    expect(JSON.stringify(kit.llm.calls.at(-1)!.messages)).to.include('nginx:1.25');
    const stored = (await kit.store.get('solution', solutionId)) as { state: { manifests?: { yaml: string; generatedAt: string } } } | undefined;
    expect(stored?.state.manifests?.yaml).to.equal(generated.manifests);
    expect(kit.cluster.writes).to.deep.equal([]);
  });
});
