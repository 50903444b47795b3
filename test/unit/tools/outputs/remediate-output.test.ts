import { remediateOutput } from '../../../../domain/tools/outputs/remediate-output.js';
import { schemaCases } from '../../../support/schema-cases.js';

type Out = Record<string, unknown> & { actions: Record<string, unknown>[]; investigation: Record<string, unknown>; settings: Record<string, unknown> };
const run = {
  modelCalls: 2,
  functionsCalled: [{ name: 'getResource', arguments: '{}', ok: true }],
  functionCallCount: 1,
  stoppedBy: 'final-answer',
  tokens: { input: 10, output: 5 },
};

describe('tool outputs: remediate', () =>
  schemaCases<Out>(
    remediateOutput,
    () => ({
      sessionId: 'rem_0123456789abcdef0123456789abcdef',
      status: 'awaiting_approval',
      issue: 'web is crash looping',
      rootCause: 'a bad image tag',
      confidence: 0.9,
      actions: [
        {
          action: 1,
          type: 'patch',
          target: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' },
          patch: { spec: { template: { spec: { containers: [{ name: 'web', image: 'ghcr.io/a:1' }] } } } },
          description: 'put the image back',
          risk: 'medium',
          rationale: 'the new tag does not exist',
          kubectl: 'kubectl patch ...',
        },
      ],
      investigation: { ...run, findings: 'the tag is missing' },
      settings: { mode: 'manual', confidenceThreshold: 0.8, maxRiskLevel: 'medium' },
      message: 'one action proposed',
      nextStep: 'execute with executeChoice 1',
      expiresAt: 't',
    }),
    [
      ['a JSON Patch as a list', (o) => void (o.actions[0]!.patch = [{ op: 'replace', path: '/spec/replicas', value: 2 }])],
      // the preview fields are optional on remediate: an action may be shown before its preview
      ['an action with part of its preview', (o) => void (o.actions[0]!.effect = 'update')],
      [
        'a run a limit ended',
        (o) => ((o.status = 'investigation_incomplete'), (o.investigation.stoppedBy = 'tokens'), (o.investigation.limit = 'token budget')),
      ],
      ['an undecided verification', (o) => void (o.verification = { resolved: null, summary: 'could not tell', run })],
    ],
    [
      ['a confidence above 1', (o) => void (o.confidence = 1.2)],
      ['a negative model call count', (o) => void (o.investigation.modelCalls = -1)],
      ['a run stopped by something else', (o) => void (o.investigation.stoppedBy = 'user')],
      ['a mode outside manual and automatic', (o) => void (o.settings.mode = 'yolo')],
      ['a status outside the session phases', (o) => void (o.status = 'approved')],
      ['an action without its rationale', (o) => void delete o.actions[0]!.rationale],
      ['a preview effect outside create, update, delete', (o) => void (o.actions[0]!.effect = 'patch')],
      ['no expiry', (o) => void delete o.expiresAt],
    ],
  ));
