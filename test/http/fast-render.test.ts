import { expect } from 'chai';
import { gzipSync } from 'node:zlib';
import { pairOf } from '../support/fast-pair.js';
import { manifestOf } from '../support/upload-manifests.js';
import { auth, buildTestApp } from '../support/test-app.js';
import { promptFile, WritingGitFetcher } from '../support/writing-git-fetcher.js';

const json = (body: string | Uint8Array, type = 'application/json'): RequestInit => ({ method: 'POST', headers: { 'content-type': type }, body });

/**
 * Every answer POST /api/v1/prompts/{name} gives, through svc as served (gate,
 * fast lane, express) and through the express app alone: the same status,
 * headers and body bytes (timestamp and request id aside). `fast` says who
 * must have answered: the lane (true) or express behind it (false).
 */
const CASES: { name: string; path: string; init: RequestInit; status: number; fast: boolean }[] = [
  { name: 'arguments', path: 'hello', init: json('{"arguments":{"who":"Ann"}}'), status: 200, fast: true },
  { name: 'arguments, spaced and on lines', path: 'hello', init: json('\n { "arguments" : { "who" : "Ann" } }\n'), status: 200, fast: true },
  { name: 'numbers and booleans as values', path: 'strict', init: json('{"arguments":{"pod":7,"extra":true}}'), status: 200, fast: true },
  { name: 'a null value of an optional argument', path: 'hello', init: json('{"arguments":{"who":null}}'), status: 200, fast: true },
  { name: 'a value that holds a placeholder', path: 'hello', init: json('{"arguments":{"who":"{{who}} \\u00e9\\"<"}}'), status: 200, fast: true },
  { name: 'a repeated key (the last wins)', path: 'hello', init: json('{"arguments":{"who":"a"},"arguments":{"who":"b"}}'), status: 200, fast: true },
  { name: 'empty arguments with spaces', path: 'plain', init: json('{ "arguments": { } }'), status: 200, fast: true },
  { name: 'a skill with files', path: 'skill', init: json('{"arguments":{"who":"Ann"}}'), status: 200, fast: true },
  { name: 'a missing required argument', path: 'strict', init: json('{"arguments":{"other":"x"}}'), status: 400, fast: true },
  { name: 'a blank required argument', path: 'strict', init: json('{"arguments":{"pod":"  "}}'), status: 400, fast: true },
  { name: 'several missing required arguments', path: 'two', init: json('{"arguments":{"c":"x"}}'), status: 400, fast: true },
  { name: 'an object as a value', path: 'hello', init: json('{"arguments":{"who":{"a":1}}}'), status: 400, fast: true },
  { name: 'an array as a value', path: 'hello', init: json('{"arguments":{"who":[1]}}'), status: 400, fast: true },
  { name: 'an unknown prompt', path: 'nope', init: json('{"arguments":{"who":"x"}}'), status: 404, fast: true },
  { name: 'malformed JSON', path: 'hello', init: json('{"arguments":'), status: 400, fast: true },
  { name: 'malformed JSON, another way', path: 'nope', init: json('{"arguments":{"who":"x",}}'), status: 400, fast: true },
  {
    name: 'invalid UTF-8 in a value',
    path: 'hello',
    init: json(Buffer.from([...Buffer.from('{"arguments":{"who":"'), 0xc3, 0x28, ...Buffer.from('"}}')])),
    status: 200,
    fast: true,
  },
  { name: 'a body too large', path: 'hello', init: json(`{"arguments":{"who":"${'x'.repeat(1024 * 1024)}"}}`), status: 413, fast: false },
  { name: 'a long body under the limit', path: 'hello', init: json(`{"arguments":{"who":"${'x'.repeat(9000)}"}}`), status: 200, fast: false },
  { name: 'a wrong content type', path: 'strict', init: json('{"arguments":{"pod":"p"}}', 'text/plain'), status: 400, fast: false },
  {
    name: 'a wrong content type on a prompt without required arguments',
    path: 'hello',
    init: json('{"arguments":{"who":"x"}}', 'text/plain'),
    status: 200,
    fast: false,
  },
  {
    name: 'no content type',
    path: 'strict',
    init: { method: 'POST', body: new Uint8Array(Buffer.from('{"arguments":{"pod":"p"}}')) },
    status: 400,
    fast: false,
  },
  { name: 'an unsupported charset', path: 'hello', init: json('{"arguments":{"who":"x"}}', 'application/json; charset=latin1'), status: 400, fast: false },
  {
    name: 'a compressed body',
    path: 'hello',
    init: { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipSync('{"arguments":{"who":"z"}}') },
    status: 200,
    fast: false,
  },
  { name: 'a top-level array', path: 'hello', init: json('[{"arguments":{"who":"x"}}]'), status: 400, fast: false },
  { name: 'a top-level string', path: 'hello', init: json('"x"'), status: 400, fast: false },
  { name: 'null', path: 'hello', init: json('null'), status: 400, fast: false },
  { name: 'only spaces', path: 'hello', init: json('   '), status: 400, fast: false },
  { name: 'a byte-order mark', path: 'hello', init: json('\ufeff{"arguments":{"who":"x"}}'), status: 200, fast: false },
  { name: 'an extra property', path: 'hello', init: json('{"arguments":{"who":"x"},"extra":1}'), status: 400, fast: false },
  { name: 'arguments that are a string', path: 'hello', init: json('{"arguments":"who"}'), status: 400, fast: false },
  { name: 'arguments that are null', path: 'hello', init: json('{"arguments":null}'), status: 400, fast: false },
  { name: 'arguments that are an array', path: 'hello', init: json('{"arguments":["x"]}'), status: 400, fast: false },
  { name: 'a __proto__ argument', path: 'hello', init: json('{"arguments":{"__proto__":{"who":"x"},"who":"y"}}'), status: 200, fast: false },
  { name: 'a per-request repository', path: 'hello?repo=https%3A%2F%2F127.0.0.1%2Fx.git', init: json('{"arguments":{"who":"x"}}'), status: 400, fast: false },
  {
    name: 'a git token header',
    path: 'hello',
    init: { ...json('{"arguments":{"who":"x"}}'), headers: { 'content-type': 'application/json', 'X-Svc-Git-Token': 't' } },
    status: 200,
    fast: false,
  },
  { name: 'an encoded name', path: 'hel%6Co', init: json('{"arguments":{"who":"x"}}'), status: 200, fast: false },
];

describe('render with arguments on the fast lane: every answer as express gives it, byte for byte', function () {
  this.timeout(30000);
  const remote = new WritingGitFetcher({
    'hello.md': promptFile('hello', 'Say hello', 'Hello {{who}}!', [{ name: 'who', required: false }]),
    'plain.md': promptFile('plain', 'No arguments', 'Just text.'),
    'strict.md': promptFile('strict', 'One required argument', 'Look at {{pod}} {{extra}}', [
      { name: 'pod', required: true },
      { name: 'extra', required: false },
    ]),
    'two.md': promptFile('two', 'Two required', '{{a}} {{b}} {{c}}', [
      { name: 'a', required: true },
      { name: 'b', required: true },
      { name: 'c', required: false },
    ]),
    'skill/SKILL.md': promptFile('skill', 'A skill folder', 'Use the script, {{who}}.', [{ name: 'who', required: true }]),
    'skill/run.sh': '#!/bin/sh\necho hi\n',
  });
  const t = buildTestApp({ SVC_USER_PROMPTS_REPO: 'https://git.example/team/prompts.git' }, { gitFetcher: remote });
  let pair: Awaited<ReturnType<typeof pairOf>>;
  before(async () => {
    pair = await pairOf(t);
    // the configured source loaded, as on a warm server
    await pair.same('/api/v1/prompts');
  });
  after(async () => pair.close());

  for (const c of CASES) {
    it(`${c.name}: ${c.status}, answered by ${c.fast ? 'the fast lane' : 'express'}`, async () => {
      const r = await pair.same(`/api/v1/prompts/${c.path}`, c.init);
      expect(r.status).to.equal(c.status);
      expect(r.byFastLane).to.equal(c.fast);
    });
  }

  it('answers the messages express gives for missing and mistyped arguments', async () => {
    const messages: string[] = [];
    for (const [path, body] of [
      ['strict', '{"arguments":{}}'],
      ['two', '{"arguments":{"c":"x"}}'],
      ['hello', '{"arguments":{"who":{"a":1}}}'],
      ['nope', '{"arguments":{"who":"x"}}'],
      ['hello', '{"arguments":'],
    ]) {
      const r = await pair.same(`/api/v1/prompts/${path}`, json(body));
      messages.push(((r.body as Record<string, unknown>).error as { message: string }).message);
    }
    expect(messages).to.deep.equal([
      'Missing required argument: pod',
      'Missing required arguments: a, b',
      'Invalid argument who: expected a string, number or boolean',
      'Prompt not found: nope',
      'Request body is not valid JSON',
    ]);
  });

  it('answers a request without a token, or with a wrong one, in the gate as before', async () => {
    for (const authorization of [undefined, 'Bearer wrong']) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (authorization) headers.authorization = authorization;
      const res = await fetch(`${pair.running.url}/api/v1/prompts/hello`, { method: 'POST', headers, body: '{"arguments":{"who":"x"}}' });
      expect(res.status).to.equal(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).to.equal('UNAUTHORIZED');
    }
  });

  it('renders with arguments pipelined on one keep-alive connection and from a body sent after the headers', async () => {
    const answer = await pair.pipelined('/api/v1/prompts/hello', '{"arguments":{"who":"Di"}}', 3);
    expect(answer.match(/Hello Di!/g)).to.have.length(3);
    const missing = await pair.pipelined('/api/v1/prompts/strict', '{"arguments":{"x":"1"}}', 2);
    expect(missing.match(/Missing required argument: pod/g)).to.have.length(2);
    const late = await pair.split('/api/v1/prompts/strict', '{"arguments":{"pod":"p9"}}', 60);
    expect([late.status, late.byFastLane]).to.deep.equal([200, true]);
    const lateBad = await pair.split('/api/v1/prompts/strict', '{"arguments":', 60);
    expect([lateBad.status, lateBad.byFastLane]).to.deep.equal([400, true]);
  });

  it('renders an uploaded source with arguments on the lane, and a source never uploaded through express', async () => {
    const id = 'https://bob:pw@git.corp.example/team/skills.git';
    const q = `?source=${encodeURIComponent(id)}`;
    const never = await pair.same(`/api/v1/prompts/note${q}`, json('{"arguments":{"who":"x"}}'));
    expect([never.status, never.byFastLane]).to.deep.equal([400, false]);
    const manifest = manifestOf(id, [{ path: 'note.md', bytes: Buffer.from(promptFile('note', 'A note', 'Dear {{who}}', [{ name: 'who', required: true }])) }]);
    const up = await fetch(`${pair.running.url}/api/v1/prompts/sources`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(manifest),
    });
    expect(up.status).to.equal(200);
    const r = await pair.same(`/api/v1/prompts/note${q}`, json('{"arguments":{"who":"Eve"}}'));
    expect([r.status, r.byFastLane]).to.deep.equal([200, true]);
    expect(((r.body as Record<string, unknown>).data as { messages: { content: { text: string } }[] }).messages[0].content.text).to.equal('Dear Eve\n');
    const missing = await pair.same(`/api/v1/prompts/note${q}`, json('{"arguments":{}}'));
    expect([missing.status, missing.byFastLane]).to.deep.equal([400, true]);
  });
});
