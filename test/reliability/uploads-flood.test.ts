import { expect } from 'chai';
import type { InMemoryIngestedSourceStore } from '../../infrastructure/uploads/in-memory-ingested-source-store.js';
import { TOKENS } from '../../infrastructure/tokens.js';
import { startServer, type RunningServer } from '../../interfaces/http/server.js';
import { auth, buildTestApp } from '../support/test-app.js';
import { filesTotalling, manifestOf } from '../support/upload-manifests.js';
import { figures, record } from './reliability-kit.js';
import { appParts } from '../../infrastructure/composition-root.js';

const RAW_CAP = 524288;
const DECODED_CAP = 262144;

describe('reliability: a flood of maximum-size uploads', function () {
  this.timeout(120_000);
  let running: RunningServer;
  let store: InMemoryIngestedSourceStore;

  before(async () => {
    const { container } = buildTestApp({ SVC_SOURCES_MAX: '6', SVC_SOURCES_MAX_BYTES: String(DECODED_CAP * 4), SVC_RATE_LIMIT_ENABLED: 'false' });
    store = container.resolve(TOKENS.IngestedSourceStore) as InMemoryIngestedSourceStore;
    running = await startServer(appParts(container));
  });
  after(() => running?.close());

  it('takes 60 uploads at the decoded limit, 8 at a time, refuses oversize ones with 413, and the cache bound holds throughout', async () => {
    const UPLOADS = 60;
    const body = (i: number) => JSON.stringify(manifestOf(`local:flood-${i}`, filesTotalling(DECODED_CAP, 100, `f${i}`), true));
    const oversize = JSON.stringify(manifestOf('local:too-big', filesTotalling(DECODED_CAP, 100))) + ' '.repeat(RAW_CAP);
    const statuses: Record<number, number> = {};
    let maxCount = 0;
    let maxBytes = 0;
    let next = 0;
    const started = Date.now();
    const worker = async () => {
      for (let i = next++; i < UPLOADS; i = next++) {
        const oversized = i % 10 === 9;
        const text = oversized ? oversize : body(i);
        if (!oversized) expect(Buffer.byteLength(text)).to.be.within(DECODED_CAP, RAW_CAP);
        const res = await fetch(`${running.url}/api/v1/prompts/sources`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: text,
        });
        await res.arrayBuffer();
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        expect(res.status, `upload ${i}`).to.equal(oversized ? 413 : 200);
        const s = store.stats();
        maxCount = Math.max(maxCount, s.count);
        maxBytes = Math.max(maxBytes, s.bytes);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    figures.requestsServed += UPLOADS;
    record('upload flood (60 x 341 KiB)', `${JSON.stringify(statuses)} in ${Date.now() - started} ms; cache peak ${maxCount} sources, ${maxBytes} bytes`);
    expect(maxCount).to.be.at.most(6);
    expect(maxBytes).to.be.at.most(DECODED_CAP * 4);
    expect(store.stats().bytes).to.equal(DECODED_CAP * 4);
    // the server still answers at once
    const res = await fetch(`${running.url}/api/v1/tools`, { headers: auth });
    expect(res.status).to.equal(200);
  });
});
