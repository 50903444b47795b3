import SwaggerParser from '@apidevtools/swagger-parser';
import { expect } from 'chai';
import type { Socket } from 'node:net';
import request from 'supertest';
import { sourceKey } from '../../domain/uploads/source-identifier.js';
import { bytesOf, filesTotalling, manifestOf, skillFiles } from '../support/upload-manifests.js';
import { buildUploadsApp, listen, rawPost, SOURCES, uploadAuth } from '../support/uploads-app.js';

const CAP = 524288;

/** The JSON text of `manifest`, padded with JSON whitespace to exactly `size` bytes: a valid JSON shape at any size. */
function jsonOfSize(manifest: unknown, size: number): Buffer {
  const text = JSON.stringify(manifest);
  if (text.length > size) throw new Error(`manifest is already ${text.length} bytes`);
  return Buffer.from(text + ' '.repeat(size - text.length));
}

const atDecodedLimit = () => manifestOf('local:limit', filesTotalling(262144, 100), true);

describe('POST /api/v1/prompts/sources', () => {
  it('is bearer-gated and reads no body without the token', async () => {
    const { app, store } = buildUploadsApp();
    const res = await request(app).post(SOURCES).send(manifestOf('local:a', skillFiles())).expect(401);
    expect(res.body.error.code).to.equal('UNAUTHORIZED');
    expect(store.stats().count).to.equal(0);
  });

  it('ingests a manifest and answers the envelope with source, contentHash, fileCount and status', async () => {
    const { app, store } = buildUploadsApp();
    const m = manifestOf('https://me:tok3n-secret@git.internal.example/skills.git', skillFiles(), true);
    const res = await request(app).post(SOURCES).set(uploadAuth).send(m).expect(200);
    expect(res.body.success).to.equal(true);
    expect(res.body.data).to.deep.equal({
      source: 'https://***:***@git.internal.example/skills.git',
      contentHash: m.contentHash,
      fileCount: 2,
      status: 'ingested',
    });
    expect(res.body.meta.requestId).to.equal(res.headers['x-request-id']);
    expect(JSON.stringify(res.body)).not.to.include('tok3n-secret');
    expect(store.stats()).to.deep.equal({ count: 1, bytes: skillFiles().reduce((n, f) => n + f.bytes.length, 0) });
  });

  describe('transitions', () => {
    it('not cached -> ingested; same hash -> unchanged; other hash -> ingested; no hash -> ingested', async () => {
      const { app, store } = buildUploadsApp();
      const post = (body: unknown) =>
        request(app)
          .post(SOURCES)
          .set(uploadAuth)
          .send(body as object)
          .expect(200);
      const one = manifestOf('local:alice-skills', skillFiles('one'), true);
      expect((await post(one)).body.data.status).to.equal('ingested');
      const cached = await store.get(sourceKey('local:alice-skills'));
      expect((await post(one)).body.data.status).to.equal('unchanged');
      expect(await store.get(sourceKey('local:alice-skills'))).to.equal(cached);
      const two = manifestOf('local:alice-skills', skillFiles('two'), true);
      expect((await post(two)).body.data.status).to.equal('ingested');
      expect((await store.get(sourceKey('local:alice-skills')))!.files[0].path).to.equal('skills/two/SKILL.md');
      const res = await post(manifestOf('local:alice-skills', skillFiles('two')));
      expect(res.body.data).to.deep.equal({ source: 'local:alice-skills', fileCount: 2, status: 'ingested' });
      expect(store.stats().count).to.equal(1);
    });

    it('a rejected upload leaves the cached copy intact', async () => {
      const { app, store } = buildUploadsApp();
      const good = manifestOf('local:keep', skillFiles(), true);
      await request(app).post(SOURCES).set(uploadAuth).send(good).expect(200);
      const before = await store.get(sourceKey('local:keep'));
      const bad: object[] = [
        { ...good, files: [...good.files, { path: 'x/../../etc/passwd', content: '' }] },
        { ...good, files: [...good.files, { path: 'bad.b64', content: 'a b c d' }] },
        { ...good, contentHash: `sha256:${'1'.repeat(64)}` },
        manifestOf('local:keep', filesTotalling(262145, 3)),
        manifestOf(
          'local:keep',
          Array.from({ length: 101 }, (_, i) => ({ path: `f${i}`, bytes: Buffer.from('x') })),
        ),
      ];
      for (const body of bad) {
        const res = await request(app).post(SOURCES).set(uploadAuth).send(body).expect(400);
        expect(res.body.error.code).to.equal('VALIDATION_ERROR');
        expect(await store.get(sourceKey('local:keep'))).to.equal(before);
      }
      await request(app)
        .post(SOURCES)
        .set(uploadAuth)
        .set('Content-Type', 'application/json')
        .send(jsonOfSize(good, CAP + 1))
        .expect(413);
      expect(await store.get(sourceKey('local:keep'))).to.equal(before);
      expect(store.stats().count).to.equal(1);
    });

    it('evicts the least recently used source beyond SVC_SOURCES_MAX', async () => {
      const { app, store } = buildUploadsApp({ SVC_SOURCES_MAX: '2' });
      const post = (id: string) =>
        request(app)
          .post(SOURCES)
          .set(uploadAuth)
          .send(manifestOf(id, skillFiles(), true))
          .expect(200);
      await post('local:a');
      await post('local:b');
      expect((await post('local:a')).body.data.status).to.equal('unchanged'); // a is now the most recent
      await post('local:c');
      expect(await store.get(sourceKey('local:b'))).to.equal(undefined);
      expect((await post('local:a')).body.data.status).to.equal('unchanged');
      expect((await post('local:b')).body.data.status).to.equal('ingested');
    });

    it('evicts by decoded bytes beyond SVC_SOURCES_MAX_BYTES', async () => {
      const { app, store } = buildUploadsApp({ SVC_SOURCES_MAX_BYTES: String(262144 * 2) });
      for (const id of ['local:x', 'local:y', 'local:z']) {
        await request(app)
          .post(SOURCES)
          .set(uploadAuth)
          .send(manifestOf(id, filesTotalling(262144, 4)))
          .expect(200);
      }
      expect(store.stats()).to.deep.equal({ count: 2, bytes: 262144 * 2 });
      expect(await store.get(sourceKey('local:x'))).to.equal(undefined);
    });
  });

  describe('limits at their boundaries', () => {
    it('takes 100 files and refuses 101', async () => {
      const { app, store } = buildUploadsApp();
      const files = (n: number) => Array.from({ length: n }, (_, i) => ({ path: `p/${i}.md`, bytes: Buffer.from(`#${i}`) }));
      const ok = await request(app)
        .post(SOURCES)
        .set(uploadAuth)
        .send(manifestOf('local:100', files(100)))
        .expect(200);
      expect(ok.body.data.fileCount).to.equal(100);
      const res = await request(app)
        .post(SOURCES)
        .set(uploadAuth)
        .send(manifestOf('local:101', files(101)))
        .expect(400);
      expect(res.body.error).to.deep.equal({ code: 'VALIDATION_ERROR', message: 'Too many files: 101 (at most 100 per manifest)' });
      expect(store.stats().count).to.equal(1);
    });

    it('takes 256 KiB decoded exactly and refuses one byte more', async () => {
      const { app, store } = buildUploadsApp();
      const at = atDecodedLimit();
      const wire = JSON.stringify(at).length;
      expect(wire).to.be.within(340 * 1024, 345 * 1024); // about 341 KiB on the wire
      const ok = await request(app).post(SOURCES).set(uploadAuth).send(at).expect(200);
      expect(ok.body.data).to.include({ status: 'ingested', fileCount: 100 });
      expect(store.stats().bytes).to.equal(262144);
      const over = manifestOf('local:over', filesTotalling(262145, 100));
      const res = await request(app).post(SOURCES).set(uploadAuth).send(over).expect(400);
      expect(res.body.error.message).to.match(/^Decoded upload payload exceeds 262144 bytes \(256 KiB\): reached 262145 bytes at file f\/099\.bin$/);
      expect(await store.get(sourceKey('local:over'))).to.equal(undefined);
    });

    for (const chunked of [false, true]) {
      const how = chunked ? 'streamed without Content-Length' : 'with Content-Length';
      it(`takes a raw body of exactly 524288 bytes and refuses 524289 with 413, ${how}`, async () => {
        const { app, store } = buildUploadsApp();
        const { server, port } = await listen(app);
        try {
          const headers = (size: number): Record<string, string | number> => ({
            ...uploadAuth,
            'Content-Type': 'application/json',
            ...(chunked ? {} : { 'Content-Length': size }),
          });
          const send = (size: number) => rawPost(port, { headers: headers(size), body: jsonOfSize(atDecodedLimit(), size), chunked, waitForClose: size > CAP });
          const at = await send(CAP);
          expect(at.status).to.equal(200);
          expect(JSON.parse(at.body).data.status).to.equal('ingested');
          const over = await send(CAP + 1);
          expect(over.status, JSON.stringify(over)).to.equal(413);
          expect(JSON.parse(over.body).error).to.deep.equal({
            code: 'PAYLOAD_TOO_LARGE',
            message: 'Upload body exceeds the limit of 524288 bytes (512 KiB)',
          });
          expect(over.headers.connection).to.equal('close');
          expect(over.closed, JSON.stringify(over)).to.equal(true);
          expect(store.stats().count).to.equal(1);
        } finally {
          server.closeAllConnections();
          server.close();
        }
      });
    }

    it('refuses a huge streamed body at the cap: answers 413, closes, and does not read the rest', async () => {
      const { app, store } = buildUploadsApp();
      const { server, port } = await listen(app);
      const sockets: Socket[] = [];
      server.on('connection', (s: Socket) => sockets.push(s));
      try {
        const total = 64 * 1024 * 1024;
        const answer = await rawPost(port, {
          headers: { ...uploadAuth, 'Content-Type': 'application/json' },
          body: { chunk: Buffer.alloc(64 * 1024, 0x20), total },
          chunked: true,
          waitForClose: true,
        });
        const seen = JSON.stringify({ ...answer, body: answer.body.slice(0, 200), bytesRead: sockets[0]?.bytesRead });
        expect(answer.status, seen).to.equal(413);
        expect(answer.closed, seen).to.equal(true);
        expect(sockets, seen).to.have.length(1);
        expect(sockets[0].destroyed, seen).to.equal(true);
        // the server stopped reading shortly after the cap; the rest of the 64 MiB never arrived
        expect(sockets[0].bytesRead, seen).to.be.lessThan(2 * 1024 * 1024);
        expect(store.stats().count).to.equal(0);
      } finally {
        server.closeAllConnections();
        server.close();
      }
    });

    it('refuses a declared Content-Length over the cap before reading the body', async () => {
      const { app } = buildUploadsApp();
      const { server, port } = await listen(app);
      const sockets: Socket[] = [];
      server.on('connection', (s: Socket) => sockets.push(s));
      try {
        const total = 32 * 1024 * 1024;
        const answer = await rawPost(port, {
          headers: { ...uploadAuth, 'Content-Type': 'application/json', 'Content-Length': total },
          body: { chunk: Buffer.alloc(64 * 1024, 0x20), total },
          waitForClose: true,
        });
        const seen = JSON.stringify({ ...answer, bytesRead: sockets[0]?.bytesRead });
        expect(answer.status, seen).to.equal(413);
        expect(JSON.parse(answer.body).error.message, seen).to.equal('Upload body exceeds the limit of 524288 bytes (512 KiB)');
        expect(answer.closed, seen).to.equal(true);
        expect(sockets[0].bytesRead, seen).to.be.lessThan(2 * 1024 * 1024);
      } finally {
        server.closeAllConnections();
        server.close();
      }
    });

    it('keeps an accepted connection alive', async () => {
      const { app } = buildUploadsApp();
      const { server, port } = await listen(app);
      try {
        const body = Buffer.from(JSON.stringify(manifestOf('local:alive', skillFiles())));
        const answer = await rawPost(port, { headers: { ...uploadAuth, 'Content-Type': 'application/json', 'Content-Length': body.length }, body });
        expect(answer.status).to.equal(200);
        expect(answer.headers.connection).to.equal('keep-alive');
      } finally {
        server.closeAllConnections();
        server.close();
      }
    });
  });

  describe('body and manifest checks', () => {
    const { app, store } = buildUploadsApp();
    const refuse = async (body: string | object, type = 'application/json', extra: Record<string, string> = {}) => {
      const res = await request(app).post(SOURCES).set(uploadAuth).set('Content-Type', type).set(extra).send(body).expect(400);
      expect(res.body.success).to.equal(false);
      expect(res.body.error.code).to.equal('VALIDATION_ERROR');
      return res.body.error.message as string;
    };
    afterEach(() => expect(store.stats().count).to.equal(0));

    it('refuses bodies that are not a JSON manifest', async () => {
      expect(await refuse('{"source":')).to.equal('Request body is not valid JSON');
      expect(await refuse('')).to.equal('Request body is empty: send the upload manifest as a JSON object');
      expect(await refuse('[]')).to.match(/^Upload manifest must be a JSON object/);
      expect(await refuse('"x"')).to.match(/^Upload manifest must be a JSON object/);
      expect(await refuse(Buffer.from([0x7b, 0xff, 0x7d]).toString('latin1'))).to.match(/not valid (UTF-8|JSON)/);
      expect(await refuse('{}', 'text/plain')).to.equal('Content-Type must be application/json, got text/plain');
      expect(await refuse('{}', 'application/json; charset=latin1')).to.equal('Unsupported charset latin1: send the manifest as UTF-8');
      expect(await refuse('{}', 'application/json', { 'Content-Encoding': 'gzip' })).to.equal(
        'Content-Encoding gzip is not accepted for uploads: send the manifest uncompressed',
      );
    });

    it('requires source and files', async () => {
      expect(await refuse({ files: [{ path: 'a', content: '' }] })).to.match(/^Missing required field source/);
      expect(await refuse({ source: 'just-a-label', files: [{ path: 'a', content: '' }] })).to.match(/^Invalid source just-a-label: expected a git URL/);
      expect(await refuse({ source: 'local:a' })).to.match(/^Missing required field files/);
      expect(await refuse({ source: 'local:a', files: [] })).to.equal('Invalid files: must not be empty');
    });

    const badPaths: [string, string][] = [
      ['a\0b.md', 'contains null byte'],
      ['\0', 'contains null byte'],
      ['../x.md', 'contains a .. segment'],
      ['a/../../x.md', 'contains a .. segment'],
      ['..\\x.md', 'contains a .. segment'],
      ['a/..', 'contains a .. segment'],
      ['/etc/passwd', 'must be relative, not absolute'],
      ['\\\\server\\share\\x', 'must be relative, not absolute'],
      ['C:\\x.md', 'must be relative, not a drive path'],
      ['c:/x.md', 'must be relative, not a drive path'],
      ['C:x.md', 'must be relative, not a drive path'],
      ['', 'is empty'],
      ['.', 'names a directory, not a file'],
      ['dir/', 'names a directory, not a file'],
      ['a\tb', 'contains a control character'],
    ];
    for (const [path, reason] of badPaths) {
      it(`refuses the path ${JSON.stringify(path)}: ${reason}`, async () => {
        const m = {
          source: 'local:a',
          files: [
            { path: 'ok.md', content: '' },
            { path, content: 'aGk=' },
          ],
        };
        expect(await refuse(m)).to.equal(`Invalid file path ${path}: ${reason}`);
      });
    }

    it('refuses duplicates after normalisation', async () => {
      const m = {
        source: 'local:a',
        files: [
          { path: 'a/b.md', content: '' },
          { path: 'a\\.\\b.md', content: '' },
        ],
      };
      expect(await refuse(m)).to.equal('Duplicate file path a\\.\\b.md: same file as a/b.md after normalisation');
    });

    for (const content of ['aGVsbG8', 'aGVs\nbG8=', 'aGV-bG8_', 'QR==', '!!!!', 'aGk=aGk=']) {
      it(`refuses the bad base64 ${JSON.stringify(content)}`, async () => {
        const m = { source: 'local:a', files: [{ path: 'x/y.md', content }] };
        expect(await refuse(m)).to.match(/^Invalid base64 content in file x\/y\.md: /);
      });
    }

    it('refuses a malformed or mismatching contentHash', async () => {
      const m = manifestOf('local:a', skillFiles(), true);
      expect(await refuse({ ...m, contentHash: 'md5:abc' })).to.match(/^Invalid contentHash md5:abc: expected sha256:<64 hex digits>$/);
      expect(await refuse({ ...m, contentHash: `sha256:${'f'.repeat(64)}` })).to.match(
        new RegExp(`^contentHash mismatch: sent sha256:f{64}, computed ${m.contentHash}`),
      );
    });
  });

  it('sanitises modes: 4755, 1777, 0644, 777, abc and absent', async () => {
    const { app, store } = buildUploadsApp();
    const modes: [string | undefined, number][] = [
      ['4755', 0o755],
      ['1777', 0o777],
      ['0644', 0o644],
      ['777', 0o777],
      ['abc', 0o644],
      [undefined, 0o644],
    ];
    const files = modes.map(([mode], i) => ({ path: `m${i}`, bytes: bytesOf(10, i + 1), mode }));
    await request(app).post(SOURCES).set(uploadAuth).send(manifestOf('local:modes', files)).expect(200);
    const cached = (await store.get(sourceKey('local:modes')))!;
    expect(cached.files.map((f) => f.mode)).to.deep.equal(modes.map(([, m]) => m));
  });
});

describe('POST /api/v1/prompts/sources in the OpenAPI document', () => {
  it('is described, with its limits, and the document stays valid', async () => {
    const { app } = buildUploadsApp();
    const doc = (await request(app).get('/api/v1/openapi').expect(200)).body;
    await SwaggerParser.validate(structuredClone(doc));
    const op = doc.paths[SOURCES].post;
    expect(op.responses).to.include.keys('200', '400', '401', '413');
    expect(doc.components.schemas.UploadManifest.properties.files.maxItems).to.equal(100);
  });
});
