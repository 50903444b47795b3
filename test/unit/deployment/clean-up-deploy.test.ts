import { expect } from 'chai';
import { CleanUpDeploy } from '../../../application/deployment/clean-up-deploy.js';
import { SolutionSessions } from '../../../application/deployment/solution-sessions.js';
import type { RevertChange } from '../../../application/ledger/revert-change.js';
import type { ToolContext } from '../../../application/tool-handler.js';
import { ANONYMOUS_CALLER } from '../../../domain/auth/caller.js';
import { NO_SECOND_APPROVER } from '../../../domain/auth/session-owner.js';
import type { SolutionState } from '../../../domain/deployment/solution.js';
import { ConflictError } from '../../../domain/errors.js';
import { FakeSessionStore } from '../../fakes/fake-session-store.js';
import { InstantClock } from '../../support/instant-clock.js';
import { rejection } from '../../support/rejection.js';

const context: ToolContext = { requestId: 'req-1', caller: ANONYMOUS_CALLER };
type Outcomes = NonNullable<NonNullable<SolutionState['deployment']>['outcomes']>;
const object = (name: string, outcome: string, ledgerId?: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  name,
  namespace: 'shop',
  outcome,
  ...(ledgerId ? { ledgerId } : {}),
});

/** CleanUpDeploy over a solution whose last deploy did `outcomes`, with a ledger whose revert answers `revert` (and records what it was asked). */
async function cleanup(outcomes: Outcomes | undefined, revert: (id: string) => Promise<{ revert: { id: string } }>) {
  const clock = new InstantClock(() => Date.UTC(2026, 11, 3, 9, 0));
  const sessions = new SolutionSessions(new FakeSessionStore({ clock }), NO_SECOND_APPROVER);
  const deployment = outcomes ? { deployment: { deployedAt: '2026-12-03T08:00:00.000Z', ready: true, deployments: 1, outcomes } } : {};
  const session = await sessions.create({ intent: 'shop config', answers: {}, policies: [], ...deployment } as unknown as SolutionState, context);
  const asked: string[] = [];
  const ledger = { execute: ({ id }: { id: string }) => (asked.push(id), revert(id)) } as unknown as RevertChange;
  const useCase = new CleanUpDeploy(sessions, ledger, clock);
  return { asked, run: () => useCase.execute(session.id, context), stored: async () => (await sessions.load(session.id)).state.deployment };
}

describe("application/deployment/clean-up-deploy: deleting what the last deploy created, through the ledger's revert", () => {
  it('reverts only the created objects, newest first, and records the cleanup on the session', async () => {
    const { asked, run, stored } = await cleanup(
      [object('a', 'created', 'chg_1'), object('b', 'updated', 'chg_2'), object('c', 'created', 'chg_3')],
      async (id) => ({
        revert: { id: `rev_${id}` },
      }),
    );
    const out = await run();
    expect(asked).to.deep.equal(['chg_3', 'chg_1']);
    expect(out.status).to.equal('cleaned_up');
    expect(out.cleanup.map((o) => [o.name, o.outcome, o.revertId])).to.deep.equal([
      ['c', 'deleted', 'rev_chg_3'],
      ['a', 'deleted', 'rev_chg_1'],
    ]);
    const deployment = await stored();
    expect(deployment!.ready).to.equal(false);
    expect(deployment!.cleanup).to.deep.equal({ at: '2026-12-03T09:00:00.000Z', objects: out.cleanup });
  });

  it('keeps an object the ledger did not record or whose revert is refused, saying why, and deletes the rest', async () => {
    const { asked, run } = await cleanup([object('a', 'created'), object('b', 'created', 'chg_2'), object('c', 'created', 'chg_3')], async (id) => {
      if (id === 'chg_3') throw new ConflictError('ConfigMap c changed since the deploy');
      return { revert: { id: `rev_${id}` } };
    });
    const out = await run();
    expect(asked).to.deep.equal(['chg_3', 'chg_2']);
    expect(out.status).to.equal('cleanup_incomplete');
    expect(out.cleanup.map((o) => [o.name, o.outcome])).to.deep.equal([
      ['c', 'kept'],
      ['b', 'deleted'],
      ['a', 'kept'],
    ]);
    expect(out.cleanup[0].message).to.equal('ConfigMap c changed since the deploy');
    expect(out.cleanup[2].message).to.contain('kubectl delete configmap/a -n shop');
  });

  it('is a 409 without asking the ledger when the solution was never deployed or its deploy created nothing', async () => {
    for (const outcomes of [undefined, [object('b', 'updated', 'chg_2')]]) {
      const { asked, run, stored } = await cleanup(outcomes, async () => ({ revert: { id: 'rev' } }));
      expect(await rejection(run())).to.be.instanceOf(ConflictError);
      expect(asked).to.deep.equal([]);
      expect((await stored())?.cleanup).to.equal(undefined);
    }
  });

  it('is a 409 naming the earlier reverts when every created object was already deleted, and records nothing', async () => {
    const { run, stored } = await cleanup([object('a', 'created', 'chg_1')], async () => {
      throw new ConflictError('already reverted', { revertedBy: 'chg_9' });
    });
    const e = await rejection(run());
    expect(e).to.be.instanceOf(ConflictError);
    expect((e as Error).message).to.contain('ConfigMap a by chg_9');
    expect((await stored())!.cleanup).to.equal(undefined);
  });
});
