import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { AnalyseCapability } from '../../application/orgdata/analyse-capability.js';
import { OrgCollection } from '../../application/orgdata/org-collection.js';
import { ScanCapabilities } from '../../application/orgdata/scan-capabilities.js';
import { SystemClock } from '../../infrastructure/clock/system-clock.js';
import { HashingEmbedder } from '../../infrastructure/embeddings/hashing-embedder.js';
import { FileScanStateStore } from '../../infrastructure/scans/file-scan-state-store.js';
import { NoopTracer } from '../../infrastructure/tracing/noop-tracer.js';
import { EmbeddedVectorStore } from '../../infrastructure/vector/embedded-vector-store.js';
import { FakeCluster } from '../../test/fakes/fake-cluster.js';
import { FakeLlm } from '../../test/fakes/fake-llm.js';
import { CapturingLogger } from '../../test/support/capturing-logger.js';
import { capabilityReply } from '../../test/support/orgdata-parts.js';

/** One scan of `kinds` kinds with a model that answers at once: the scan's own cost (schema, template, check, embed, store, progress saves). */
export async function benchScan(kinds: number, batchSize: number): Promise<{ kinds: number; totalMs: number }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'svc-bench-scan-'));
  try {
    const clock = new SystemClock();
    const cluster = new FakeCluster();
    cluster.resources = Array.from({ length: kinds }, (_, i) => ({
      group: `g${i % 6}.example.com`,
      version: 'v1',
      apiVersion: `g${i % 6}.example.com/v1`,
      kind: `Kind${i}`,
      resource: `kind${i}s`,
      namespaced: true,
      verbs: ['get'],
      shortNames: [],
    }));
    const llm = new FakeLlm([], capabilityReply());
    const collection = new OrgCollection('capabilities', new EmbeddedVectorStore({ dir: path.join(dir, 'vectors') }), new HashingEmbedder(), 'deleteAll');
    const scan = new ScanCapabilities({
      cluster,
      llm,
      collection,
      analyse: new AnalyseCapability(cluster, llm, collection, { timeoutMs: 60_000, maxTokens: 100_000, maxOutputTokens: 2000 }),
      states: new FileScanStateStore({ dir: path.join(dir, 'scans'), clock }),
      clock,
      tracer: new NoopTracer(),
      logger: new CapturingLogger(),
      holder: 'bench',
      newScanId: () => `scan_${'0'.repeat(32)}`,
      settings: { batchSize, leaseMs: 60_000 },
    });
    const t = performance.now();
    await scan.start();
    await scan.idle();
    return { kinds, totalMs: performance.now() - t };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
