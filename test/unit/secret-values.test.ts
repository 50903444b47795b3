import { expect } from 'chai';
import { scrubSecretValues, secretValuesOf, secretValuesWritten } from '../../domain/security/secret-values.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const PASSWORD = 'hunter2-canary-value';
const secret = (data: Record<string, string>, stringData?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'db', namespace: 'shop' },
  data,
  ...(stringData ? { stringData } : {}),
});

describe('Secret values: collected from Secrets, scrubbed by value in every spelling', () => {
  it('collects data as stored (base64) and decoded, and stringData as written', () => {
    expect(secretValuesOf(secret({ password: b64(PASSWORD) }, { token: 'plain-token-1' }))).to.deep.equal([b64(PASSWORD), PASSWORD, 'plain-token-1']);
  });

  it('collects from every Secret of a list, and from nothing else', () => {
    const list = { items: [secret({ a: b64('first-value') }), { apiVersion: 'v1', kind: 'ConfigMap', data: { b: 'not-a-secret' } }] };
    expect(secretValuesOf(list)).to.deep.equal([b64('first-value'), 'first-value']);
    expect(secretValuesOf({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'configuration' } })).to.deep.equal([]);
  });

  it("leaves out values too short to scrub, svc's own *** and binary data decoded", () => {
    const binary = Buffer.from([0, 1, 2, 3, 255, 254, 253, 0]).toString('base64');
    expect(secretValuesOf(secret({ short: b64('ab'), redacted: '***', binary }))).to.deep.equal([binary]);
  });

  it('collects what a write puts into a Secret: a manifest, an object patch, JSON Patch values under /data and /stringData', () => {
    const target = { apiVersion: 'v1', kind: 'Secret' };
    expect(secretValuesWritten(target, { stringData: { password: 'new-password-1' } })).to.deep.equal(['new-password-1']);
    expect(secretValuesWritten(target, secret({ password: b64(PASSWORD) }))).to.deep.equal([b64(PASSWORD), PASSWORD]);
    expect(
      secretValuesWritten(target, [
        { op: 'replace', path: '/data/password', value: b64(PASSWORD) },
        { op: 'add', path: '/stringData', value: { token: 'json-patch-token' } },
        { op: 'replace', path: '/metadata/labels/a', value: 'not-a-secret-value' },
      ]),
    ).to.deep.equal([b64(PASSWORD), PASSWORD, 'json-patch-token']);
    expect(secretValuesWritten({ apiVersion: 'v1', kind: 'ConfigMap' }, { data: { a: 'configuration' } })).to.deep.equal([]);
  });

  it('scrubs a value raw, base64, base64url, percent-encoded and inside a longer encoded value, in keys too, wherever it is', () => {
    const values = secretValuesOf(secret({ password: b64(PASSWORD) }));
    const leaky = {
      diff: [{ path: 'metadata.annotations.leak', to: b64(PASSWORD) }],
      message: `the password is ${PASSWORD}`,
      url: `https://x.example/?p=${encodeURIComponent(PASSWORD + '/?')}`,
      basic: `Basic ${b64(`user:${PASSWORD}`)}`,
      url64: Buffer.from(PASSWORD).toString('base64url'),
      [PASSWORD]: 'as a key',
      nested: [[{ deep: `x${PASSWORD}y` }]],
      kept: 'ordinary text',
    };
    const scrubbed = scrubSecretValues(leaky, values);
    const text = JSON.stringify(scrubbed);
    expect(text).to.not.contain(PASSWORD).and.not.contain(b64(PASSWORD)).and.not.contain(Buffer.from(PASSWORD).toString('base64url'));
    expect(text).to.not.contain(b64(`user:${PASSWORD}`).slice(8, 24));
    expect(scrubbed.message).to.equal('the password is ***');
    expect(scrubbed.kept).to.equal('ordinary text');
    expect(scrubbed.nested[0][0]).to.deep.equal({ deep: 'x***y' });
    // with no values, the very object comes back
    expect(scrubSecretValues(leaky, [])).to.equal(leaky);
  });
});
