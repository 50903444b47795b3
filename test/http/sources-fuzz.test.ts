import { expect } from 'chai';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import type { IngestedSource } from '../../domain/uploads/ingested-source.js';
import { sourceKey } from '../../domain/uploads/source-identifier.js';
import { ManifestFuzzer, type FuzzBody } from '../support/manifest-fuzzer.js';
import { clientContentHash } from '../support/upload-manifests.js';
import { buildUploadsApp, listen, rawPost, uploadAuth } from '../support/uploads-app.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const RUNS = 3000;
const SEED = Number(process.env.FUZZ_SEED ?? 20261121);
const MAX_SOURCES = 5;
const MAX_BYTES = 262144 * 4;

function memory(): { heap: number; buffers: number } {
  for (let i = 0; i < 3; i++) gc();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, buffers: m.arrayBuffers };
}

const normalise = (p: string) =>
  p
    .split(/[\\/]/)
    .filter((s) => s !== '' && s !== '.')
    .join('/');

/** The cached entry holds exactly the manifest that was sent: every file, byte for byte, nothing else. */
function expectWhole(
  entry: IngestedSource | undefined,
  sent: { source: string; contentHash?: string; files: { path: string; content: string }[] },
  label: string,
) {
  expect(entry, label).to.not.equal(undefined);
  expect(entry!.files.length, label).to.equal(sent.files.length);
  for (const f of sent.files) {
    const got = entry!.files.find((g) => g.path === normalise(f.path));
    expect(got, `${label}: ${f.path}`).to.not.equal(undefined);
    expect(Buffer.from(got!.content).equals(Buffer.from(f.content, 'base64')), `${label}: ${f.path}`).to.equal(true);
  }
  expect(entry!.totalBytes, label).to.equal(entry!.files.reduce((n, f) => n + f.content.byteLength, 0));
  expect(entry!.contentHash, label).to.equal(sent.contentHash?.toLowerCase());
  if (entry!.contentHash !== undefined) {
    const files = entry!.files.map((f) => ({ path: f.path, mode: f.mode, bytes: Buffer.from(f.content) }));
    expect(clientContentHash(files), `${label}: cached hash verified`).to.equal(entry!.contentHash);
  }
}

describe('POST /api/v1/prompts/sources under fuzzing', function () {
  this.timeout(300_000);

  it(`answers ${RUNS} random and mutated manifests with no 5xx, no partial store, and memory back to baseline (seed ${SEED})`, async () => {
    const { app, store } = buildUploadsApp({ SVC_SOURCES_MAX: String(MAX_SOURCES), SVC_SOURCES_MAX_BYTES: String(MAX_BYTES) });
    const { server, port } = await listen(app);
    const fuzzer = new ManifestFuzzer(SEED);
    const send = async (body: FuzzBody) => {
      const bytes = 'raw' in body ? body.raw : Buffer.from(JSON.stringify(body.json));
      const headers = { ...uploadAuth, 'Content-Type': 'application/json', 'Content-Length': bytes.length };
      const answer = await rawPost(port, { headers, body: bytes });
      return { status: answer.status, body: JSON.parse(answer.body) };
    };
    const statuses: Record<number, number> = {};
    const outcomes: Record<string, number> = {};
    let baseline = { heap: 0, buffers: 0 };
    try {
      for (let i = 0; i < RUNS; i++) {
        if (i === 200) baseline = memory(); // after the warm-up: JIT, pools and the store at its bound
        const body = fuzzer.next();
        const json = 'json' in body ? (body.json as Record<string, unknown> | null) : undefined;
        const id = json && typeof json === 'object' && typeof json.source === 'string' ? json.source : undefined;
        const before = id === undefined ? undefined : await store.get(sourceKey(id));
        const res = await send(body);
        const label = `run ${i} (seed ${SEED}): ${res.status} ${JSON.stringify(res.body?.error ?? res.body?.data)}`;
        statuses[res.status!] = (statuses[res.status!] ?? 0) + 1;
        expect([200, 400, 413], label).to.include(res.status);
        expect(res.body.success, label).to.equal(res.status === 200);
        expect(res.body.meta?.requestId, label).to.be.a('string');
        const after = id === undefined ? undefined : await store.get(sourceKey(id));
        if (res.status === 200) {
          outcomes[res.body.data.status] = (outcomes[res.body.data.status] ?? 0) + 1;
          if (res.body.data.status === 'unchanged') expect(after, label).to.equal(before);
          else expectWhole(after, json as never, label);
        } else {
          expect(res.body.error.code, label).to.equal(res.status === 413 ? 'PAYLOAD_TOO_LARGE' : 'VALIDATION_ERROR');
          expect(after, label).to.equal(before);
        }
        const { count, bytes } = store.stats();
        expect(count, label).to.be.at.most(MAX_SOURCES);
        expect(bytes, label).to.be.at.most(MAX_BYTES);
      }
    } finally {
      server.closeAllConnections();
      server.close();
    }
    console.log(`      statuses ${JSON.stringify(statuses)}, outcomes ${JSON.stringify(outcomes)}`);
    // every kind of answer happened, so the run exercised what it claims
    expect(statuses[200]).to.be.greaterThan(RUNS / 20);
    expect(statuses[400]).to.be.greaterThan(RUNS / 2);
    expect(outcomes.ingested).to.be.greaterThan(10);
    expect(outcomes.unchanged).to.be.greaterThan(10);
    const end = memory();
    // The store holds at most MAX_BYTES of contents; anything beyond that and a little slack is a leak.
    expect(end.buffers - baseline.buffers, 'arrayBuffers growth').to.be.at.most(MAX_BYTES + 2 * 1024 * 1024);
    expect(end.heap - baseline.heap, 'heap growth').to.be.at.most(8 * 1024 * 1024);
    console.log(`      heap ${((end.heap - baseline.heap) / 1048576).toFixed(2)} MiB, buffers ${((end.buffers - baseline.buffers) / 1048576).toFixed(2)} MiB`);
  });
});
