import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../infrastructure/config/config.js';
import { isLoopbackHost } from '../../infrastructure/config/server-config.js';

describe('config', () => {
  it('has embedded defaults: 127.0.0.1:3456, open on loopback', () => {
    const c = loadConfig({}, '/srv');
    expect(c.server).to.include({ host: '127.0.0.1', port: 3456, allowUnauthenticated: false });
    expect(c.server.authToken).to.equal(undefined);
    expect(c.server.dataDir).to.equal('/srv/.svc-data');
  });

  it('refuses to start open on a non-loopback bind, naming the variable', () => {
    for (const host of ['0.0.0.0', '::', '10.0.0.5', 'svc.example.com']) {
      expect(() => loadConfig({ HOST: host }), host).to.throw(ConfigError, /SVC_AUTH_TOKEN .*SVC_ALLOW_UNAUTHENTICATED=true/);
    }
  });

  it('starts open on a non-loopback bind only with SVC_ALLOW_UNAUTHENTICATED=true', () => {
    expect(loadConfig({ HOST: '0.0.0.0', SVC_ALLOW_UNAUTHENTICATED: 'true' }).server.authToken).to.equal(undefined);
    expect(loadConfig({ HOST: '0.0.0.0', SVC_AUTH_TOKEN: 'a-long-enough-token-123' }).server.authToken).to.equal('a-long-enough-token-123');
  });

  it('names the variable of a bad value', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).to.throw(/PORT must be a whole number/);
    expect(() => loadConfig({ PORT: '70000' })).to.throw(/PORT must be between 0 and 65535/);
    expect(() => loadConfig({ SVC_ALLOW_UNAUTHENTICATED: 'maybe' })).to.throw(/SVC_ALLOW_UNAUTHENTICATED must be true or false/);
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).to.throw(/LOG_LEVEL must be one of/);
    expect(() => loadConfig({ SVC_AUTH_TOKEN: 'short' })).to.throw(/SVC_AUTH_TOKEN must be at least 16/);
  });

  it('knows loopback binds', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) expect(isLoopbackHost(h), h).to.equal(true);
    for (const h of ['0.0.0.0', '::', '192.168.1.1', 'example.com', '::ffff:10.0.0.1']) expect(isLoopbackHost(h), h).to.equal(false);
  });
});
