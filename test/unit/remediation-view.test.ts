import { expect } from 'chai';
import type { RemediationState } from '../../application/remediation/remediation-state.js';
import { remediationStatus, remediationView, type RemediationStatus } from '../../application/remediation/remediation-view.js';
import type { Session } from '../../domain/sessions/session.js';
import { containerPatch } from '../support/remediation-fixtures.js';

const ID = `rem_${'a'.repeat(32)}`;
const AT = '2026-12-02T10:00:00.000Z';
const BASE: RemediationState = {
  issue: 'web does not start',
  settings: { mode: 'manual', confidenceThreshold: 0.8, maxRiskLevel: 'low' },
  investigation: { modelCalls: 3, functionsCalled: [], functionCallCount: 0, stoppedBy: 'final-answer', tokens: { input: 1, output: 1 } },
  namespacesRead: ['x'],
  investigatedAt: AT,
};
const ANALYSIS = { rootCause: 'the image does not exist', confidence: 0.9, evidence: ['ImagePullBackOff'], actions: [containerPatch('nginx:1.27')] };
const applied = { action: 1, description: 'Set the image of web to nginx:1.27', kubectl: 'kubectl patch ...', status: 'applied' as const };
const done = (over: object) => ({
  status: 'done' as const,
  startedAt: AT,
  finishedAt: AT,
  outcome: { report: { dryRunPassed: true, outcomes: [applied] }, ...over },
});
const session = (state: RemediationState): Session<RemediationState> => ({
  id: ID,
  kind: 'remediation',
  state,
  revision: 1,
  createdAt: Date.parse(AT),
  updatedAt: Date.parse(AT),
  expiresAt: Date.parse(AT) + 86_400_000,
});

/** Each phase of the lifecycle, and each outcome, with the status and the next step a caller is told. */
const CASES: [string, RemediationState, RemediationStatus, RegExp][] = [
  ['no analysis', BASE, 'investigation_incomplete', /^Nothing to execute\./],
  ['an analysis without actions', { ...BASE, analysis: { ...ANALYSIS, actions: [] } }, 'no_action', /^Nothing to execute\./],
  ['proposed', { ...BASE, analysis: ANALYSIS }, 'awaiting_approval', /"executeChoice":1\} to execute .*"executeChoice":2\} to stop\.$/],
  ['stopped', { ...BASE, analysis: ANALYSIS, stopped: { at: AT } }, 'stopped', /^Start a new investigation/],
  ['executing', { ...BASE, analysis: ANALYSIS, execution: { status: 'running', startedAt: AT } }, 'executing', /to see its outcome/],
  ['executed', { ...BASE, analysis: ANALYSIS, execution: done({}) }, 'executed', /^Look at the cluster, or start a new investigation/],
  [
    'executed, a refused dry run',
    {
      ...BASE,
      analysis: ANALYSIS,
      execution: {
        ...done({}),
        outcome: { report: { dryRunPassed: false, outcomes: [], refused: { action: 1, description: 'd', reason: 'Invalid', message: 'no', causes: [] } } },
      },
    } as RemediationState,
    'not_executed',
    /^Start a new investigation/,
  ],
  [
    'executed, the verdict degraded',
    { ...BASE, analysis: ANALYSIS, execution: done({ health: { verdict: 'degraded', summary: 'worse', reverted: [{}] } }) } as RemediationState,
    'execution_failed',
    /^The change was reverted/,
  ],
  [
    'failed',
    { ...BASE, analysis: ANALYSIS, execution: { status: 'failed', startedAt: AT, finishedAt: AT, error: 'the API server went away' } },
    'execution_failed',
    /^Look at the cluster before anything else/,
  ],
];

describe('remediationView: what remediate answers in each phase (application/remediation/remediation-view.ts)', () => {
  for (const [name, state, status, next] of CASES)
    it(`${name}: ${status}`, () => {
      expect(remediationStatus(state)).to.equal(status);
      const view = remediationView(session(state));
      expect(view.status).to.equal(status);
      expect(view.nextStep).to.match(next);
      expect(view.sessionId).to.equal(ID);
      expect(view.expiresAt).to.equal('2026-12-03T10:00:00.000Z');
      // a plan has a digest to approve; without an analysis there is none
      if (state.analysis) expect(view.planDigest).to.match(/^sha256:[0-9a-f]{64}$/);
      else expect(view).to.not.have.property('planDigest');
    });

  it('the failed execution says why, and the stopped one when', () => {
    expect(remediationView(session(CASES[8][1])).message).to.equal(
      'the execution failed: the API server went away. 0 action(s) before it were applied; the rest were not run.',
    );
    expect(remediationView(session(CASES[3][1])).message).to.equal(`Stopped at ${AT}; nothing was applied.`);
  });

  it('automatic mode that did not act says why, and the proposal stays to approve', () => {
    const view = remediationView(
      session({
        ...BASE,
        analysis: ANALYSIS,
        automatic: { execute: false, reason: 'not executed automatically: a second approver is needed (it includes a high-risk action)' },
      }),
    );
    expect(view.status).to.equal('awaiting_approval');
    expect(view.message).to.equal(
      'Automatic mode did not act: not executed automatically: a second approver is needed (it includes a high-risk action). 1 action(s) proposed; nothing was changed.',
    );
    expect(view.automaticExecution).to.deep.equal({
      executed: false,
      reason: 'not executed automatically: a second approver is needed (it includes a high-risk action)',
    });
  });
});
