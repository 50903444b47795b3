import { expect } from 'chai';
import { ValidationError } from '../../domain/errors.js';
import { isSessionId, newSessionId, unknownSession } from '../../domain/sessions/session-id.js';

const HEX = '0123456789abcdef0123456789abcdef';

describe('session ids', () => {
  it('puts the kind prefix before 32 hex digits', () => {
    expect(newSessionId('remediation', HEX)).to.equal(`rem_${HEX}`);
    expect(newSessionId('operation', HEX)).to.equal(`opr_${HEX}`);
    expect(newSessionId('solution', HEX)).to.equal(`sol_${HEX}`);
  });

  it('refuses randomness that is not 32 lowercase hex digits', () => {
    for (const r of ['', HEX.slice(1), `${HEX}0`, HEX.toUpperCase(), `${HEX.slice(0, 31)}g`, `../${HEX.slice(3)}`]) {
      expect(() => newSessionId('solution', r), r).to.throw(/32 lowercase hex digits/);
    }
  });

  it('accepts a well-formed id of the asked kind only', () => {
    expect(isSessionId(`rem_${HEX}`, 'remediation')).to.equal(true);
    expect(isSessionId(`rem_${HEX}`, 'operation')).to.equal(false);
    expect(isSessionId(`opr_${HEX}`, 'operation')).to.equal(true);
    expect(isSessionId(`sol_${HEX}`, 'remediation')).to.equal(false);
  });

  it('rejects anything that could be a path, or is not a string', () => {
    const bad: unknown[] = [
      '',
      'rem_',
      `rem_${HEX}0`,
      `rem_${HEX.slice(1)}`,
      `REM_${HEX}`,
      `rem_${HEX.toUpperCase()}`,
      `rem_${HEX}\n`,
      ` rem_${HEX}`,
      `rem-${HEX}`,
      '../../etc/passwd',
      'rem_../x',
      `rem_${HEX}/../x`,
      `/tmp/rem_${HEX}`,
      `xyz_${HEX}`,
      undefined,
      null,
      42,
      { id: `rem_${HEX}` },
    ];
    for (const id of bad) expect(isSessionId(id, 'remediation'), String(id)).to.equal(false);
  });

  it('says which call starts a new session, echoing only a well-formed id', () => {
    const known = unknownSession('operation', `opr_${HEX}`, 'Start with operate {intent}.');
    expect(known).to.be.instanceOf(ValidationError);
    expect(known.message).to.equal(`Unknown or expired session: opr_${HEX}. Start with operate {intent}.`);
    const malformed = unknownSession('operation', '<script>../../etc/passwd', 'Start with operate {intent}.');
    expect(malformed.message).to.equal('Unknown or expired session: (malformed id). Start with operate {intent}.');
    expect(unknownSession('operation', `rem_${HEX}`, 'x').message).to.contain('(malformed id)');
  });
});
