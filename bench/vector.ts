/**
 * Embedded vector store benchmark: exact cosine search latency and throughput
 * at 1k, 10k and 100k points of 384 dimensions, against a plain loop over a
 * Float32Array measured in the same run (the ratio is the store's overhead),
 * and the growth of cost with size. Run with `npm run bench:vector`.
 * BENCH_SIZES=1000,10000 narrows the sizes; BENCH_QUERIES sets queries per size.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { EmbeddedVectorStore } from '../infrastructure/vector/embedded-vector-store.js';

const DIM = 384;
const K = 10;
const BATCH = 10_000;

/** mulberry32: a small seeded PRNG, so every run searches the same data. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
  };
}

function normalise(v: Float32Array, offset: number): void {
  let n = 0;
  for (let i = 0; i < DIM; i++) n += v[offset + i] * v[offset + i];
  const s = 1 / Math.sqrt(n);
  for (let i = 0; i < DIM; i++) v[offset + i] *= s;
}

/** Keeps `top` (rows) and `scores` sorted best-first, at most K long. */
function insertTop(top: number[], scores: number[], row: number, dot: number): void {
  if (top.length === K && dot <= scores[K - 1]) return;
  let at = top.length;
  while (at > 0 && scores[at - 1] < dot) at--;
  top.splice(at, 0, row);
  scores.splice(at, 0, dot);
  if (top.length > K) {
    top.pop();
    scores.pop();
  }
}

/** The baseline: a plain loop of multiply-adds over one Float32Array of unit vectors. */
function plainTopK(data: Float32Array, rows: number, q: Float32Array): number[] {
  const top: number[] = [];
  const scores: number[] = [];
  for (let r = 0, base = 0; r < rows; r++, base += DIM) {
    let dot = 0;
    for (let i = 0; i < DIM; i++) dot += q[i] * data[base + i];
    insertTop(top, scores, r, dot);
  }
  return top;
}

/** The store's kernel (four running sums) without the store around it, to isolate the store's own overhead. */
function kernelTopK(data: Float32Array, rows: number, q: Float32Array): number[] {
  const top: number[] = [];
  const scores: number[] = [];
  for (let r = 0, base = 0; r < rows; r++, base += DIM) {
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    for (let i = 0; i < DIM; i += 4) {
      s0 += q[i] * data[base + i];
      s1 += q[i + 1] * data[base + i + 1];
      s2 += q[i + 2] * data[base + i + 2];
      s3 += q[i + 3] * data[base + i + 3];
    }
    insertTop(top, scores, r, s0 + s1 + s2 + s3);
  }
  return top;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

interface Row {
  size: number;
  plainMs: number;
  plainP99: number;
  kernelMs: number;
  storeMs: number;
  storeP99: number;
  qps: number;
  loadS: number;
}

async function measure(size: number, queries: number): Promise<Row> {
  const random = rng(size);
  const data = new Float32Array(size * DIM);
  for (let i = 0; i < data.length; i++) data[i] = random();
  for (let r = 0; r < size; r++) normalise(data, r * DIM);
  const qs = Array.from({ length: queries }, () => {
    const q = new Float32Array(DIM).map(() => random());
    normalise(q, 0);
    return q;
  });

  const dir = await mkdtemp(path.join(tmpdir(), 'svc-bench-vector-'));
  try {
    const store = new EmbeddedVectorStore({ dir });
    await store.ensureCollection('bench', { dimension: DIM, distance: 'cosine' });
    const loadStart = performance.now();
    for (let start = 0; start < size; start += BATCH) {
      const points = [];
      for (let r = start; r < Math.min(size, start + BATCH); r++) {
        points.push({ id: `p-${r}`, vector: Array.from(data.subarray(r * DIM, (r + 1) * DIM)), payload: { row: r, kind: r % 3 === 0 ? 'app' : 'db' } });
      }
      await store.upsert('bench', points);
    }
    const loadS = (performance.now() - loadStart) / 1000;

    // same answers first: a benchmark of a wrong search measures nothing
    for (const q of qs.slice(0, 3)) {
      const expected = plainTopK(data, size, q).map((r) => `p-${r}`);
      const got = (await store.search('bench', { vector: Array.from(q), limit: K })).map((h) => h.id);
      if (got.join() !== expected.join()) throw new Error(`store and plain loop disagree at ${size} points`);
    }

    const plain: number[] = [];
    const kernel: number[] = [];
    const viaStore: number[] = [];
    // warm-up, then alternate so all three see the same machine load
    plainTopK(data, size, qs[0]);
    kernelTopK(data, size, qs[0]);
    await store.search('bench', { vector: Array.from(qs[0]), limit: K });
    for (const q of qs) {
      let t = performance.now();
      plainTopK(data, size, q);
      plain.push(performance.now() - t);
      t = performance.now();
      kernelTopK(data, size, q);
      kernel.push(performance.now() - t);
      const vector = Array.from(q);
      t = performance.now();
      await store.search('bench', { vector, limit: K });
      viaStore.push(performance.now() - t);
    }
    for (const list of [plain, kernel, viaStore]) list.sort((a, b) => a - b);
    const storeTotal = viaStore.reduce((s, x) => s + x, 0);
    return {
      size,
      plainMs: percentile(plain, 50),
      plainP99: percentile(plain, 99),
      kernelMs: percentile(kernel, 50),
      storeMs: percentile(viaStore, 50),
      storeP99: percentile(viaStore, 99),
      qps: (queries / storeTotal) * 1000,
      loadS,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function main() {
  const sizes = (process.env.BENCH_SIZES ?? '1000,10000,100000').split(',').map(Number);
  const rows: Row[] = [];
  for (const size of sizes) {
    const queries = Number(process.env.BENCH_QUERIES ?? (size >= 100_000 ? 50 : 200));
    rows.push(await measure(size, queries));
  }
  console.log(`Exact cosine top-${K}, ${DIM} dimensions, Node ${process.version}\n`);
  console.log(
    '| points | plain loop p50 ms | plain p99 ms | same kernel p50 ms | store p50 ms | store p99 ms | store/plain | store/kernel | store queries/s | load (upserts) s |',
  );
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    console.log(
      `| ${r.size} | ${r.plainMs.toFixed(3)} | ${r.plainP99.toFixed(3)} | ${r.kernelMs.toFixed(3)} | ${r.storeMs.toFixed(3)} | ${r.storeP99.toFixed(3)} | ${(r.storeMs / r.plainMs).toFixed(2)}x | ${(r.storeMs / r.kernelMs).toFixed(2)}x | ${r.qps.toFixed(0)} | ${r.loadS.toFixed(2)} |`,
    );
  }
  console.log('\nstore/plain < 1: the store beats a plain loop (its kernel keeps four running sums); store/kernel is its own overhead.');
  console.log('\nGrowth of store p50 latency with size (linear scan: ~10x per 10x points):');
  for (let i = 1; i < rows.length; i++) {
    const a = rows[i - 1];
    const b = rows[i];
    console.log(`  ${a.size} -> ${b.size}: x${(b.storeMs / a.storeMs).toFixed(1)} (plain loop x${(b.plainMs / a.plainMs).toFixed(1)})`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
