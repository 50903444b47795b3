import { expect } from 'chai';
import { configSecrets } from '../../infrastructure/config/config-secrets.js';
import { loadConfig } from '../../infrastructure/config/config.js';

describe('configSecrets', () => {
  it('collects credential values by key name, at any depth, and nothing else', () => {
    const found = configSecrets({
      server: { authToken: 'tok-1234567890abcdef', host: '127.0.0.1', port: 3456 },
      llm: { apiKey: 'sk-abc', model: 'gpt' },
      vector: { qdrant: { url: 'http://q', apiKey: 'qk-1' } },
      git: { token: 'ghp_x', allowedHosts: ['github.com'] },
      cluster: { password: 'pw', clientSecret: 'cs' },
      tracing: { serviceName: 'svc-mcp' },
    });
    expect(found.sort()).to.deep.equal(['cs', 'ghp_x', 'pw', 'qk-1', 'sk-abc', 'tok-1234567890abcdef']);
  });

  it('finds the bearer token of the real config', () => {
    expect(configSecrets(loadConfig({ SVC_AUTH_TOKEN: 'a-long-enough-token-123' }))).to.deep.equal(['a-long-enough-token-123']);
  });
});
