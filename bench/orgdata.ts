/**
 * manageOrgData benchmark (`npm run bench:orgdata`):
 * 1. create and search throughput of patterns through the use case at 10,000
 *    documents, on the embedded store and on the Qdrant adapter against the
 *    wire-faithful stand-in, each as a ratio to the raw store operation it
 *    wraps (one-point upsert, search with a ready vector) measured in the same run;
 * 2. the capability scan's own time per kind with a model that answers at once
 *    (fake cluster and model, real embedder, embedded store and file scan state).
 * BENCH_DOCS sets the collection size (default 10000), BENCH_OPS the measured operations.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { OrgCollection } from '../application/orgdata/org-collection.js';
import { DocumentOperations } from '../application/orgdata/document-operations.js';
import { documentEmbeddingText } from '../domain/orgdata/org-documents.js';
import type { VectorStore } from '../domain/ports/vector-store.js';
import { SystemClock } from '../infrastructure/clock/system-clock.js';
import { HashingEmbedder } from '../infrastructure/embeddings/hashing-embedder.js';
import { EmbeddedVectorStore } from '../infrastructure/vector/embedded-vector-store.js';
import { QdrantVectorStore } from '../infrastructure/vector/qdrant-vector-store.js';
import { QdrantServer } from '../test/support/qdrant-server.js';
import { SEED_PATTERNS } from '../test/support/seed-patterns.js';
import { benchScan } from './support/scan-bench.js';

const DOCS = Number(process.env.BENCH_DOCS ?? 10_000);
const OPS = Number(process.env.BENCH_OPS ?? 200);
const CONCURRENCY = 16;

interface Rate {
  label: string;
  opsPerSec: number;
  p50: number;
}

function docFor(i: number) {
  const [description, triggers, suggestedResources] = SEED_PATTERNS[i % SEED_PATTERNS.length];
  return { description: `${description} #${i}`, triggers: triggers.map((t) => `${t} ${i % 97}`), suggestedResources, rationale: 'bench', createdBy: 'bench' };
}

/** `n` calls of `op`, `concurrency` at a time: throughput and median latency. */
async function rate(label: string, n: number, concurrency: number, op: (i: number) => Promise<unknown>): Promise<Rate> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const t = performance.now();
        await op(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const total = performance.now() - started;
  latencies.sort((a, b) => a - b);
  return { label, opsPerSec: (n / total) * 1000, p50: latencies[Math.floor(latencies.length / 2)] };
}

/** Fills `patterns` to DOCS documents with raw batch upserts (the seeding is not what is measured). */
async function seed(store: VectorStore, embedder: HashingEmbedder): Promise<number> {
  const t = performance.now();
  await store.ensureCollection('patterns', { dimension: await embedder.dimension(), distance: 'cosine' });
  for (let start = 0; start < DOCS; start += 1000) {
    const docs = Array.from({ length: Math.min(1000, DOCS - start) }, (_, k) => ({ id: `seed-${start + k}`, ...docFor(start + k) }));
    const vectors = await embedder.embed(docs.map(documentEmbeddingText));
    await store.upsert(
      'patterns',
      docs.map((d, k) => ({ id: d.id, vector: vectors[k], payload: { ...d, dataType: 'pattern' } })),
    );
  }
  return (performance.now() - t) / 1000;
}

async function measureStore(name: string, store: VectorStore): Promise<Rate[]> {
  const embedder = new HashingEmbedder();
  const seconds = await seed(store, embedder);
  console.error(`${name}: seeded ${DOCS} documents in ${seconds.toFixed(1)} s`);
  let n = 0;
  const ops = new DocumentOperations('pattern', new OrgCollection('patterns', store, embedder, 'deleteAll'), new SystemClock(), () => `bench-${name}-${++n}`);
  const docs = Array.from({ length: OPS }, (_, i) => docFor(DOCS + i));
  const ready = await embedder.embed(docs.map(documentEmbeddingText));
  const queries = Array.from({ length: OPS }, (_, i) => SEED_PATTERNS[i % SEED_PATTERNS.length][1][0]);
  const queryVectors = await embedder.embed(queries);
  const rows: Rate[] = [];
  // alternate use case and raw so both see the same machine load
  for (const concurrency of [1, CONCURRENCY]) {
    rows.push(
      await rate(`${name}: raw upsert of one point, x${concurrency}`, OPS, concurrency, (i) =>
        store.upsert('patterns', [{ id: `raw-${concurrency}-${i}`, vector: ready[i], payload: { ...docs[i], dataType: 'pattern' } }]),
      ),
    );
    rows.push(await rate(`${name}: create (use case), x${concurrency}`, OPS, concurrency, (i) => ops.create(docs[i], 'bench')));
  }
  rows.push(await rate(`${name}: raw search top-10, x1`, OPS, 1, (i) => store.search('patterns', { vector: queryVectors[i], limit: 10 })));
  rows.push(await rate(`${name}: search (use case, embeds the query), x1`, OPS, 1, (i) => ops.search(queries[i], 10)));
  return rows;
}

function printRates(rows: Rate[]): void {
  console.log('| operation | ops/s | p50 ms | use case / raw |');
  console.log('|---|---:|---:|---:|');
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    const raw = r.label.includes('(use case') ? rows[i - 1] : undefined;
    console.log(`| ${r.label} | ${r.opsPerSec.toFixed(0)} | ${r.p50.toFixed(2)} | ${raw ? `${((r.opsPerSec / raw.opsPerSec) * 100).toFixed(0)}%` : ''} |`);
  }
}

async function main() {
  console.log(`manageOrgData at ${DOCS} documents, hashing embedder (384 dimensions), ${OPS} measured operations each, Node ${process.version}\n`);
  const dir = await mkdtemp(path.join(tmpdir(), 'svc-bench-orgdata-'));
  const qdrant = await new QdrantServer().start();
  try {
    printRates(await measureStore('embedded', new EmbeddedVectorStore({ dir: path.join(dir, 'vectors') })));
    console.log('');
    printRates(await measureStore('qdrant', new QdrantVectorStore({ url: qdrant.url })));
  } finally {
    await qdrant.stop();
    await rm(dir, { recursive: true, force: true });
  }
  console.log('\nCapability scan, model answering at once (fake cluster and model; hashing embedder, embedded store, file scan state):');
  console.log('| kinds | batch | total ms | ms per kind |');
  console.log('|---:|---:|---:|---:|');
  for (const batch of [1, 4]) {
    const r = await benchScan(48, batch);
    console.log(`| ${r.kinds} | ${batch} | ${r.totalMs.toFixed(0)} | ${(r.totalMs / r.kinds).toFixed(2)} |`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
