import { expect } from 'chai';
import { RunBudget } from '../../../application/ai/run-budget.js';
import { generateWithRepair, MAX_MANIFEST_ATTEMPTS } from '../../../application/deployment/manifest-repair-loop.js';
import type { PolicyConstraint } from '../../../domain/orgdata/policy-constraint.js';
import type { DomainError } from '../../../domain/errors.js';
import { BUILT_IN_KINDS, FakeCluster } from '../../fakes/fake-cluster.js';
import { FakeLlm } from '../../fakes/fake-llm.js';
import { webManifest } from '../../support/operate-fixtures.js';
import { rejection } from '../../support/rejection.js';

const SOLUTION = `sol_${'d'.repeat(32)}`;
const FIRST = [
  { role: 'system' as const, content: 'write manifests' },
  { role: 'user' as const, content: 'a web app' },
];
const answer = (replicas = 2) => JSON.stringify({ manifests: [webManifest(replicas)] });
const refused = { accepted: false as const, reason: 'Invalid', message: 'spec.replicas: must be at most 4', causes: [] };

/** The repair loop over a cluster whose dry run answers as `verdict` says, a model answering `script`, and these policies. */
function repair(script: string[], verdict?: () => typeof refused | undefined, constraints: PolicyConstraint[] = []) {
  const cluster = new FakeCluster();
  cluster.rejectDryRun = verdict;
  const llm = new FakeLlm([...script]);
  const run = () =>
    generateWithRepair(llm, cluster, {
      messages: FIRST,
      solutionId: SOLUTION,
      served: BUILT_IN_KINDS,
      namespace: 'x',
      constraints,
      budget: new RunBudget({ maxCalls: MAX_MANIFEST_ATTEMPTS * 2, maxTokens: 10_000_000, timeoutMs: 10_000 }),
    });
  return { cluster, llm, run };
}

describe('generateWithRepair: manifests checked and dry-run, the errors sent back until the cluster accepts them', () => {
  it('objects the dry run accepts at once are answered labelled with the solution, in one attempt; nothing is written', async () => {
    const { cluster, run } = repair([answer()]);
    const { objects, attempts } = await run();
    expect(attempts).to.equal(1);
    expect(JSON.stringify(objects[0]!.metadata.labels)).to.include(SOLUTION.slice(4, 20));
    expect(cluster.writes).to.deep.equal([]);
  });

  it("a refusal goes back to the model with the API server's words, sending only the first messages, the last answer and its errors", async () => {
    let calls = 0;
    const { llm, run } = repair([answer(9), answer(8), answer(3)], () => (++calls <= 2 ? refused : undefined));
    expect((await run()).attempts).to.equal(3);
    // the third attempt carries the second answer and its errors, not the whole history
    for (const sent of [llm.calls[1]!.messages, llm.calls[2]!.messages]) {
      expect(sent).to.have.length(FIRST.length + 2);
      expect(sent[FIRST.length]).to.deep.include({ role: 'assistant' });
      expect(JSON.stringify(sent.at(-1))).to.include('the API server refused it (Invalid): spec.replicas: must be at most 4');
    }
    expect(JSON.stringify(llm.calls[2]!.messages)).to.include('\\"replicas\\":8').and.not.include('\\"replicas\\":9');
  });

  it("a policy the objects break is an error sent back like the API server's", async () => {
    const constraint = { kind: 'Deployment', field: 'spec.replicas', minimum: 3, message: 'production needs 3 replicas' } as PolicyConstraint;
    const { llm, run } = repair([answer(2), answer(3)], undefined, [constraint]);
    expect((await run()).attempts).to.equal(2);
    expect(JSON.stringify(llm.calls[1]!.messages.at(-1))).to.include('breaks a policy');
  });

  it(`after ${MAX_MANIFEST_ATTEMPTS} refused attempts it is an EXECUTION_ERROR listing the last errors`, async () => {
    const { llm, run } = repair(
      Array.from({ length: MAX_MANIFEST_ATTEMPTS }, () => answer(9)),
      () => refused,
    );
    const err = await rejection<DomainError>(run());
    expect(err.code).to.equal('EXECUTION_ERROR');
    expect(err.message).to.match(
      new RegExp(`^The manifests were refused ${MAX_MANIFEST_ATTEMPTS} times; nothing was stored\\. Last errors: .*must be at most 4`),
    );
    expect(llm.calls).to.have.length(MAX_MANIFEST_ATTEMPTS);
  });
});
