import { rolloutReportOutput } from '../../../../domain/tools/outputs/rollout-output.js';
import { schemaCases } from '../../../support/schema-cases.js';

type Report = Record<string, unknown> & { rollback?: Record<string, unknown> & { action: Record<string, unknown> } };
const target = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' };

describe("tool outputs: a changed workload's rollout", () =>
  schemaCases<Report>(
    rolloutReportOutput,
    () => ({
      target,
      state: 'failed',
      message: 'progress deadline exceeded',
      waitedMs: 60000,
      rollback: {
        patch: { spec: { template: { spec: { containers: [{ name: 'web', image: 'ghcr.io/a:1' }] } } } },
        kubectlPatch: 'kubectl patch ...',
        kubectlUndo: 'kubectl rollout undo ...',
        action: { type: 'patch', target, patch: { spec: { replicas: 2 } }, description: 'put the image back', risk: 'medium', rationale: 'the rollout failed' },
      },
    }),
    [['a rollout that finished, with no rollback', (r) => ((r.state = 'rolled-out'), delete r.rollback)]],
    [
      ['a state outside the four', (r) => void (r.state = 'progressing')],
      // the rollback's action is one a caller may send back: it must be a valid cluster action
      ['a rollback action the write port does not take', (r) => void (r.rollback!.action.type = 'exec')],
      ['a rollback action with an empty patch', (r) => void (r.rollback!.action.patch = {})],
      ['a rollback action without its rationale', (r) => void delete r.rollback!.action.rationale],
    ],
  ));
