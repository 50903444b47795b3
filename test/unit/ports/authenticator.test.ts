import { expect } from 'chai';
import { MAX_TOKEN_CHARS } from '../../../domain/ports/authenticator.js';
import { createAuthenticator } from '../../../infrastructure/auth/create-authenticator.js';
import { loadConfig } from '../../../infrastructure/config/config.js';
import { CapturingLogger } from '../../support/capturing-logger.js';

describe('authenticator port: the longest token any authenticator reads', () => {
  // a static token exactly at the bound passes; one character more is refused unread, even when it is the configured token
  const judge = (configured: string, presented: string) => {
    const parts = createAuthenticator(loadConfig({ HOST: '127.0.0.1', SVC_AUTH_TOKEN: configured }), new CapturingLogger())!;
    try {
      return parts.authenticator.authenticate(presented);
    } finally {
      parts.stop();
    }
  };

  it('is a few KiB: room for a real JWT with its groups, not an unbounded header', () => {
    expect(MAX_TOKEN_CHARS).to.be.within(4 * 1024, 64 * 1024);
  });

  it('a token of exactly MAX_TOKEN_CHARS is read and passes when it is the configured one', () => {
    const token = 't'.repeat(MAX_TOKEN_CHARS);
    expect(judge(token, token)).to.have.property('caller');
  });

  it('a token one character longer is refused as too long before any lookup, even when it is the configured one', () => {
    const token = 't'.repeat(MAX_TOKEN_CHARS + 1);
    expect(judge(token, token)).to.deep.equal({ refused: 'token too long' });
  });
});
