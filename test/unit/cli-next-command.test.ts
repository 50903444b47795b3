import { expect } from 'chai';
import { approvalCommandText, nextCommandText } from '../../interfaces/cli/next-command.js';

describe('svc run: the next command after remediate or operate proposes a plan', () => {
  const digest = `sha256:${'ab'.repeat(32)}`;

  it('prints the svc run lines that execute exactly the plan shown (with its planDigest) or stop it, not a REST body', () => {
    const text = approvalCommandText('remediate', {
      sessionId: 'rem_1234',
      status: 'awaiting_approval',
      planDigest: digest,
      nextStep: 'Call remediate with {...}',
    });
    expect(text).to.equal(
      [
        '',
        'Next: execute the plan as shown (every action is dry-run first; the digest pins it to what you reviewed)',
        `  svc run remediate --sessionId rem_1234 --executeChoice 1 --planDigest ${digest}`,
        'Or: stop without changing anything',
        '  svc run remediate --sessionId rem_1234 --executeChoice 2',
      ].join('\n'),
    );
    expect(approvalCommandText('operate', { sessionId: 'op_9', status: 'awaiting_approval', planDigest: digest })).to.include(
      `svc run operate --sessionId op_9 --executeChoice 1 --planDigest ${digest}`,
    );
  });

  it('prints nothing once the plan ran or stopped, for other tools, or for an answer without a session', () => {
    for (const status of ['executed', 'stopped', 'execution_failed', 'no_action'])
      expect(approvalCommandText('remediate', { sessionId: 'rem_1', status, planDigest: digest })).to.equal(undefined);
    expect(approvalCommandText('version', { sessionId: 'rem_1', status: 'awaiting_approval' })).to.equal(undefined);
    expect(approvalCommandText('remediate', { status: 'awaiting_approval' })).to.equal(undefined);
    expect(approvalCommandText('remediate', null)).to.equal(undefined);
    // the deployment workflow's own next steps are unchanged
    expect(nextCommandText({ nextSteps: [] })).to.include('Done');
  });
});
