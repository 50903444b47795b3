import { expect } from 'chai';
import { ConfigError } from '../../infrastructure/config/env-parsers.js';
import { DEFAULT_SESSION_TTL_SECONDS, parseSessionsConfig } from '../../infrastructure/config/sessions-config.js';

describe('sessions config', () => {
  it('defaults to a TTL of one day', () => {
    expect(parseSessionsConfig({})).to.deep.equal({ ttlSeconds: 86400 });
    expect(parseSessionsConfig({ SVC_SESSION_TTL: '  ' }).ttlSeconds).to.equal(DEFAULT_SESSION_TTL_SECONDS);
  });

  it('reads SVC_SESSION_TTL in whole seconds, from one minute to thirty days', () => {
    expect(parseSessionsConfig({ SVC_SESSION_TTL: '3600' })).to.deep.equal({ ttlSeconds: 3600 });
    expect(parseSessionsConfig({ SVC_SESSION_TTL: '60' }).ttlSeconds).to.equal(60);
    expect(parseSessionsConfig({ SVC_SESSION_TTL: '2592000' }).ttlSeconds).to.equal(2592000);
  });

  it('refuses bad values, naming the variable', () => {
    expect(() => parseSessionsConfig({ SVC_SESSION_TTL: '59' })).to.throw(ConfigError, /SVC_SESSION_TTL must be between 60 and 2592000, got 59/);
    expect(() => parseSessionsConfig({ SVC_SESSION_TTL: '2592001' })).to.throw(ConfigError, /SVC_SESSION_TTL must be between/);
    for (const v of ['1h', '90.5', '-60', '1e5']) {
      expect(() => parseSessionsConfig({ SVC_SESSION_TTL: v }), v).to.throw(ConfigError, /SVC_SESSION_TTL must be a whole number/);
    }
  });
});
