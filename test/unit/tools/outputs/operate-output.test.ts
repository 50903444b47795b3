import { operateOutput } from '../../../../domain/tools/outputs/operate-output.js';
import { schemaCases } from '../../../support/schema-cases.js';

type Out = Record<string, unknown> & { proposal: Record<string, unknown> & { actions: Record<string, unknown>[] } };
const target = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' };
const action = {
  action: 1,
  type: 'scale',
  description: 'scale web to 3',
  risk: 'low',
  rationale: 'more load',
  target,
  kubectl: 'kubectl scale deployment/web --replicas=3 -n shop',
  effect: 'update',
  dryRun: { accepted: true },
  diff: [{ path: 'spec.replicas', from: 2, to: 3 }],
};

describe('tool outputs: operate', () =>
  schemaCases<Out>(
    operateOutput,
    () => ({
      sessionId: 'opr_1',
      status: 'awaiting_approval',
      intent: 'scale web to 3',
      refinements: [],
      planDigest: 'sha256:x',
      proposal: {
        summary: 'scale',
        risk: 'low',
        executable: true,
        actions: [structuredClone(action)],
        investigation: { modelCalls: 1, functionCalls: 2, stoppedBy: 'final-answer' },
        plannedAt: 't',
      },
      nextStep: 'execute with executeChoice 1',
    }),
    [
      ['a managed object marked', (o) => void (o.proposal.actions[0]!.gitops = { controller: 'flux', owner: 'Kustomization flux-system/shop' })],
      [
        'a rollout across clusters',
        (o) =>
          void (o.rollout = {
            clusterSelector: { env: 'prod' },
            waves: [
              { wave: 1, status: 'executed', clusters: [{ cluster: 'eu', sessionId: 'opr_2', planDigest: 'd', status: 'executed', verdict: 'healthy' }] },
            ],
          }),
      ],
    ],
    [
      ['a status outside the session phases', (o) => void (o.status = 'approved')],
      ['an action at position 0', (o) => void (o.proposal.actions[0]!.action = 0)],
      ['an action risk outside low, medium, high', (o) => void (o.proposal.actions[0]!.risk = 'none')],
      ['an action without its kubectl line', (o) => void delete o.proposal.actions[0]!.kubectl],
      ['an action without its dry run', (o) => void delete o.proposal.actions[0]!.dryRun],
      ['an action type the write port does not take', (o) => void (o.proposal.actions[0]!.type = 'exec')],
      ['no plan digest', (o) => void delete o.planDigest],
      ['a wave numbered 0', (o) => void (o.rollout = { clusterSelector: {}, waves: [{ wave: 0, status: 'pending', clusters: [] }] })],
    ],
  ));
