import { expect } from 'chai';
import { isCredentialName, scrubSecretsInText, scrubSecretsInValue } from '../../domain/security/scrub-secrets.js';

describe('scrubbing what a model is sent (domain/security/scrub-secrets)', () => {
  it('redacts credentials in log text: bearer and basic values, password-style pairs, URLs, token shapes, private keys', () => {
    const cases: [string, string][] = [
      ['Authorization: Bearer abc.def-123456', 'Authorization: Bearer ***'],
      ['auth header Basic dXNlcjpwYXNzd29yZA==', 'auth header Basic ***'],
      ['DB_PASSWORD=hunter2-long pool=10', 'DB_PASSWORD=*** pool=10'],
      ['{"apiKey": "k-12345678", "user": "bob"}', '{"apiKey": "***", "user": "bob"}'],
      ['--client-secret=s3cr3t --port=8080', '--client-secret=*** --port=8080'],
      ["x-auth-token: 'tok123456'", "x-auth-token: '***'"],
      ['dial postgres://admin:pw@db:5432/app failed', 'dial postgres://***:***@db:5432/app failed'],
      ['GET /cb?code=abc123&state=ok', 'GET /cb?code=abc123&state=ok'],
      ['GET https://h/cb?code=abc123&state=ok', 'GET https://h/cb?code=***&state=ok'],
      [`push ghp_${'a1'.repeat(18)} done`, 'push *** done'],
      ['key AKIAABCDEFGHIJKLMNOP used', 'key *** used'],
      [`jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlLXZhbHVl end`, 'jwt *** end'],
      ['-----BEGIN RSA PRIVATE KEY-----\nMIIE\nabc\n-----END RSA PRIVATE KEY-----\nnext', '***\nnext'],
      ['-----BEGIN PRIVATE KEY-----\nMIIE cut here', '***'],
      ['-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----', '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----'],
      // a credential pair inside another pair's value: the outer key is no credential, the inner one is
      ['Deployment x/web: password=abc', 'Deployment x/web: password=***'],
      ['x: password=abc', 'x: password=***'],
      ['env=DB_TOKEN=t0ken-42 ok', 'env=DB_TOKEN=*** ok'],
      ['a=b=c=secret=s3 tail', 'a=b=c=secret=*** tail'],
    ];
    for (const [input, expected] of cases) expect(scrubSecretsInText(input), input).to.equal(expected);
  });

  it('leaves ordinary text alone: prose after Basic, references to secrets, flags and numbers', () => {
    for (const text of [
      'Basic authentication failed for user bob',
      'secretName: tls-cert',
      'tokenPath=/var/run/secrets/token',
      'automountServiceAccountToken: true',
      'token_ttl=3600',
      'MountVolume.SetUp failed for volume "creds": secret "db" not found',
      'Back-off restarting failed container app in pod web-1',
    ])
      expect(scrubSecretsInText(text), text).to.equal(text);
    expect(isCredentialName('DB_PASSWORD')).to.equal(true);
    expect(isCredentialName('secretKeyRef')).to.equal(false);
  });

  it('redacts in objects: Secret data values (keys kept), credential env values, credential keys, the last-applied annotation', () => {
    const scrubbed = scrubSecretsInValue({
      kind: 'Secret',
      metadata: { name: 'db', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"data":{"password":"aHVudGVyMg=="}}' } },
      data: { password: 'aHVudGVyMg==', user: 'Ym9i' },
    });
    expect(scrubbed).to.deep.equal({
      kind: 'Secret',
      metadata: { name: 'db', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '(left out by svc: it repeats the object)' } },
      data: { password: '***', user: '***' },
    });
    const env = [
      { name: 'API_TOKEN', value: 'abc' },
      { name: 'API_TOKEN_FILE', value: '/run/token' },
      { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } },
      { name: 'URL', value: 'https://u:p@h/' },
    ];
    expect(scrubSecretsInValue({ env, password: 'x1', passwordSecretRef: 'db' })).to.deep.equal({
      env: [
        { name: 'API_TOKEN', value: '***' },
        { name: 'API_TOKEN_FILE', value: '/run/token' },
        { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } },
        { name: 'URL', value: 'https://***:***@h/' },
      ],
      password: '***',
      passwordSecretRef: 'db',
    });
  });

  it('handles a megabyte of hostile text without backtracking (a quadratic pattern would pass the test timeout)', () => {
    for (const text of ['a'.repeat(1_000_000), '=:'.repeat(500_000), '-----BEGIN '.repeat(90_000), 'Bearer '.repeat(140_000)])
      expect(scrubSecretsInText(text)).to.equal(text);
    expect(scrubSecretsInText(`${'password'.repeat(125_000)}=x1`)).to.match(/password=\*\*\*$/);
  });
});
