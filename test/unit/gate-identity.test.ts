import { expect } from 'chai';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { rolesUpTo, type Caller } from '../../domain/auth/caller.js';
import type { Authentication, Authenticator } from '../../domain/ports/authenticator.js';
import { identityOf } from '../../interfaces/http/gate-identity.js';

/** An authenticator that counts what it judged: `good-*` tokens pass until `until`, anything else is refused. */
class CountingAuthenticator implements Authenticator {
  epoch = 0;
  until = Infinity;
  readonly judged: string[] = [];
  authenticate(token: string): Authentication {
    this.judged.push(token);
    if (!token.startsWith('good-')) return { refused: 'invalid token' };
    const caller: Caller = { id: `oidc:https://idp.test:${token.slice(5)}`, username: token.slice(5), groups: [], roles: rolesUpTo('viewer'), kind: 'oidc' };
    return { caller, until: this.until };
  }
}

const request = (socket: Socket, token?: string) =>
  ({ socket, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } }) as unknown as IncomingMessage;

describe('identityOf: verdicts kept per connection', () => {
  it('several callers alternating on one pooled connection are each judged once', () => {
    const auth = new CountingAuthenticator();
    const identify = identityOf(auth);
    const socket = {} as Socket;
    for (let i = 0; i < 20; i++) {
      const who = identify(request(socket, `good-${['a', 'b', 'c', 'd'][i % 4]}`)) as Caller;
      expect(who.username).to.equal(['a', 'b', 'c', 'd'][i % 4]);
    }
    expect(auth.judged).to.deep.equal(['good-a', 'good-b', 'good-c', 'good-d']);
  });

  it('keeps at most four per connection: a fifth caller evicts the least recent', () => {
    const auth = new CountingAuthenticator();
    const identify = identityOf(auth);
    const socket = {} as Socket;
    for (const t of ['a', 'b', 'c', 'd', 'e']) identify(request(socket, `good-${t}`));
    identify(request(socket, 'good-e'));
    identify(request(socket, 'good-b'));
    identify(request(socket, 'good-a'));
    expect(auth.judged).to.deep.equal(['good-a', 'good-b', 'good-c', 'good-d', 'good-e', 'good-a']);
  });

  it('a verdict is not shared across connections', () => {
    const auth = new CountingAuthenticator();
    const identify = identityOf(auth);
    identify(request({} as Socket, 'good-a'));
    identify(request({} as Socket, 'good-a'));
    expect(auth.judged).to.have.length(2);
  });

  it('judges again after the epoch changes or the verdict expires, and never keeps a refusal', () => {
    const auth = new CountingAuthenticator();
    const identify = identityOf(auth);
    const socket = {} as Socket;
    identify(request(socket, 'good-a'));
    auth.epoch++;
    identify(request(socket, 'good-a'));
    expect(auth.judged).to.have.length(2);

    auth.until = Date.now() - 1;
    identify(request(socket, 'good-b'));
    identify(request(socket, 'good-b'));
    expect(auth.judged).to.have.length(4);

    expect(identify(request(socket, 'bad'))).to.deep.equal({ refused: 'invalid token' });
    expect(identify(request(socket, 'bad'))).to.deep.equal({ refused: 'invalid token' });
    expect(auth.judged.filter((t) => t === 'bad')).to.have.length(2);
    expect(identify(request(socket))).to.deep.equal({ missing: true });
  });
});
