import { expect } from 'chai';
import { DeployOrDeliver } from '../../../application/deployment/deploy-or-deliver.js';
import type { ToolContext } from '../../../application/tool-handler.js';
import { ANONYMOUS_CALLER } from '../../../domain/auth/caller.js';
import { ValidationError } from '../../../domain/errors.js';
import type { ToolInput } from '../../../domain/tools/tool-definitions.js';

const context: ToolContext = { requestId: 'req-1', caller: ANONYMOUS_CALLER };
const solutionId = `sol_${'a'.repeat(32)}`;
const gitops = { repo: 'https://github.com/team/shop.git' };

// the deliver and cleanup use cases as the handler takes them (their own tests are theirs)
type Ways = ConstructorParameters<typeof DeployOrDeliver>;

/** Which of the three ways was taken, with what. */
function routed() {
  const taken: unknown[][] = [];
  const way = (name: string) => ({ execute: async (...args: unknown[]) => taken.push([name, ...args.slice(0, -1)]) });
  const handler = new DeployOrDeliver(way('deploy'), way('deliver') as unknown as Ways[1], way('cleanUp') as unknown as Ways[2]);
  return { taken, run: (input: Partial<ToolInput<'deployManifests'>>) => handler.execute({ solutionId, ...input } as ToolInput<'deployManifests'>, context) };
}

describe('application/deployment/deploy-or-deliver: deployManifests three ways', () => {
  it('applies to the cluster, pushes to git with gitops, deletes what the last deploy created with cleanup', async () => {
    const { taken, run } = routed();
    await run({ timeout: 5 });
    await run({ gitops });
    await run({ cleanup: true });
    expect(taken).to.deep.equal([
      ['deploy', { solutionId, timeout: 5 }],
      ['deliver', solutionId, gitops],
      ['cleanUp', solutionId],
    ]);
  });

  const refused: [string, Partial<ToolInput<'deployManifests'>>, string][] = [
    ['a preview of a cleanup', { preview: true, cleanup: true }, 'takes preview alone'],
    ['a preview of a git delivery', { preview: true, gitops }, 'takes preview alone'],
    ['a plan digest with gitops', { planDigest: 'a'.repeat(64), gitops }, 'planDigest with a deploy to the cluster only'],
    ['onFailure with a cleanup', { onFailure: 'report', cleanup: true }, 'onFailure goes with a deploy'],
    ['cleanup and gitops at once', { cleanup: true, gitops }, 'takes cleanup or gitops, not both'],
  ];
  for (const [name, input, message] of refused)
    it(`refuses ${name} before doing anything`, () => {
      const { taken, run } = routed();
      expect(() => run(input)).to.throw(ValidationError, message);
      expect(taken).to.deep.equal([]);
    });
});
