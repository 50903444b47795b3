import { expect } from 'chai';
import { createAuthenticator } from '../../infrastructure/auth/create-authenticator.js';
import { loadConfig } from '../../infrastructure/config/config.js';
import { CapturingLogger } from '../support/capturing-logger.js';
import { OidcServer } from '../support/oidc-server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a key removed from the JWKS stops working at the next fetch (issue 31 item 6)', function () {
  this.timeout(20000);

  it('past the cool-down, the first verification fetches the set again: a token never seen before, signed with the removed key, is refused, and so is one remembered', async () => {
    const idp = await OidcServer.start(['RS256']);
    const parts = createAuthenticator(
      loadConfig({ HOST: '127.0.0.1', SVC_ROLES: 'viewer=*', ...idp.env({ SVC_OIDC_JWKS_COOLDOWN_MS: '1000' }) }),
      new CapturingLogger(),
    )!;
    try {
      const { authenticator } = parts;
      const seen = await idp.token({ sub: 'seen' });
      const unseen = await idp.token({ sub: 'unseen' });
      expect(await authenticator.authenticate(seen)).to.have.nested.property('caller.username', 'oidc:seen');
      await idp.rotate('RS256');
      // within the cool-down the set is not fetched again (a flood of tokens cannot hammer the provider): the documented bound
      await sleep(1100);
      expect(await authenticator.authenticate(unseen)).to.deep.equal({ refused: 'unknown signing key' });
      expect(await authenticator.authenticate(seen)).to.deep.equal({ refused: 'unknown signing key' });
      // the new key works
      expect(await authenticator.authenticate(await idp.token({ sub: 'fresh' }))).to.have.nested.property('caller.username', 'oidc:fresh');
    } finally {
      parts.stop();
      await idp.close();
    }
  });
});
