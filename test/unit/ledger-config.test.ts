import { expect } from 'chai';
import { configSecrets } from '../../infrastructure/config/config-secrets.js';
import { loadConfig } from '../../infrastructure/config/config.js';
import { ConfigError } from '../../infrastructure/config/env-parsers.js';
import { ledgerKeys, parseLedgerConfig } from '../../infrastructure/config/ledger-config.js';

const KEY = 'a-ledger-key-of-at-least-32-chars-000';
const OLD = 'the-key-before-the-rotation-0123456789';
const HASH = 'ab'.repeat(32);

describe('ledger config: keys, rotation, an accepted head', () => {
  it('reads SVC_LEDGER_KEY_PREVIOUS and SVC_LEDGER_ACCEPT_HEAD beside SVC_LEDGER_KEY, as the adapters take them', () => {
    const config = parseLedgerConfig({ SVC_LEDGER_KEY: KEY, SVC_LEDGER_KEY_PREVIOUS: OLD, SVC_LEDGER_ACCEPT_HEAD: `1204:${HASH}` });
    expect(ledgerKeys(config)).to.deep.equal({ key: KEY, previousKey: OLD, acceptHead: { seq: 1204, hash: HASH } });
    expect(ledgerKeys(parseLedgerConfig({}))).to.deep.equal({});
  });

  it('refuses what cannot work, naming the variable', () => {
    expect(() => parseLedgerConfig({ SVC_LEDGER_KEY_PREVIOUS: OLD })).to.throw(ConfigError, /SVC_LEDGER_KEY_PREVIOUS needs SVC_LEDGER_KEY/);
    expect(() => parseLedgerConfig({ SVC_LEDGER_KEY: KEY, SVC_LEDGER_KEY_PREVIOUS: KEY })).to.throw(
      ConfigError,
      /SVC_LEDGER_KEY_PREVIOUS is the same as SVC_LEDGER_KEY/,
    );
    expect(() => parseLedgerConfig({ SVC_LEDGER_KEY: KEY, SVC_LEDGER_KEY_PREVIOUS: 'short' })).to.throw(
      ConfigError,
      /SVC_LEDGER_KEY_PREVIOUS must be at least 32/,
    );
    expect(() => parseLedgerConfig({ SVC_LEDGER_ACCEPT_HEAD: `3:${HASH}` })).to.throw(ConfigError, /SVC_LEDGER_ACCEPT_HEAD needs SVC_LEDGER_KEY/);
    for (const bad of ['3', `0:${HASH}`, `3:${HASH.toUpperCase()}`, `3:${HASH}0`, ` 3:${HASH}x`, `-1:${HASH}`])
      expect(() => parseLedgerConfig({ SVC_LEDGER_KEY: KEY, SVC_LEDGER_ACCEPT_HEAD: bad }), bad).to.throw(
        ConfigError,
        /SVC_LEDGER_ACCEPT_HEAD must be <seq>:<hash>/,
      );
  });

  it('both keys are credentials: scrubbed wherever svc scrubs its own', () => {
    const secrets = configSecrets(loadConfig({ SVC_AUTH_TOKEN: 'a-long-enough-token-123', SVC_LEDGER_KEY: KEY, SVC_LEDGER_KEY_PREVIOUS: OLD }));
    expect(secrets).to.include.members([KEY, OLD]);
  });
});
