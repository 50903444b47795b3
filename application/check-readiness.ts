import type { Clock, Timers } from '../domain/ports/clock.js';
import type { Embedder } from '../domain/ports/embedder.js';
import type { Logger } from '../domain/ports/logger.js';
import type { SharedState } from '../domain/ports/shared-state.js';
import type { VectorStore } from '../domain/ports/vector-store.js';
import { isUsableVector } from '../domain/vector/embedding-rules.js';

/** The /readyz body (SPEC.md, "Readiness body"). */
export interface ReadinessReport {
  ready: boolean;
  vectorDBHealthy: boolean;
  /** false only when the collection is absent or its existence could not be determined. */
  collectionAccessible: boolean;
  embeddingsRequired: true;
  embeddingHealthy: boolean;
  /** Omitted when the count did not answer in time; 0 when the collection is absent. */
  storedCount?: number;
  /** ISO 8601 */
  checkedAt: string;
  /**
   * Whether the store replicas share (Redis) answers; present only when one is
   * configured (REDIS_URL). Informational: `ready` keeps SPEC.md's rule.
   */
  sharedStateHealthy?: boolean;
  /** Deployment problems worth a look (REDIS_URL without QDRANT_URL: vectors are not shared); omitted when none. */
  warnings?: string[];
  /** With SVC_CLUSTERS: whether each cluster answers. Informational: an unreachable cluster degrades its own calls, never `ready`. */
  clusters?: { name: string; reachable: boolean }[];
}

export interface ReadinessOptions {
  /** The collection a scan writes to; informational only. Default 'capabilities'. */
  collection?: string;
  /** Default 30 s (SPEC.md, Limits). */
  cacheMs?: number;
  /** Per dependency; default 10 s (SPEC.md, Limits). */
  timeoutMs?: number;
  /** The store several replicas share; probed only when configured. */
  sharedState?: SharedState;
  /** Fixed by the configuration, repeated in every report. */
  warnings?: readonly string[];
  /** With SVC_CLUSTERS: each cluster's reachability (never rejects). */
  clusters?: () => Promise<{ name: string; reachable: boolean }[]>;
}

type Outcome<T> = { ok: true; value: T } | { ok: false; reason: string };

const PROBE_TEXT = 'readiness probe: deployment of a web application with a database';

/**
 * Scan readiness: ready when the vector database answers and a real embedding
 * call returns a finite vector of the expected dimension. One probe at a time
 * (concurrent callers share it); its result is kept for 30 s; each dependency
 * gets 10 s, after which it counts as unavailable.
 */
export class CheckReadiness {
  private cached?: { report: ReadinessReport; at: number };
  private inflight?: Promise<ReadinessReport>;
  private readonly collection: string;
  private readonly cacheMs: number;
  private readonly timeoutMs: number;
  private readonly sharedState?: SharedState;
  private readonly warnings: readonly string[];
  private readonly clusters?: () => Promise<{ name: string; reachable: boolean }[]>;
  private lastEmbeddingProblem?: string;

  constructor(
    private readonly vectorStore: VectorStore,
    private readonly embedder: Embedder,
    private readonly clock: Clock & Timers,
    private readonly logger?: Logger,
    options: ReadinessOptions = {},
  ) {
    this.collection = options.collection ?? 'capabilities';
    this.cacheMs = options.cacheMs ?? 30_000;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.sharedState = options.sharedState;
    this.warnings = options.warnings ?? [];
    this.clusters = options.clusters;
  }

  execute(): Promise<ReadinessReport> {
    if (this.cached && this.clock.now() - this.cached.at < this.cacheMs) return Promise.resolve(this.cached.report);
    this.inflight ??= this.probe().then((report) => {
      this.cached = { report, at: this.clock.now() };
      this.inflight = undefined;
      return report;
    });
    return this.inflight;
  }

  /** Never rejects: a failure, an exception or silence past the timeout is an unsuccessful outcome. */
  private within<T>(what: string, call: () => Promise<T>): Promise<Outcome<T>> {
    return new Promise((resolve) => {
      const cancel = this.clock.schedule(this.timeoutMs, () => resolve({ ok: false, reason: `${what} did not answer within ${this.timeoutMs} ms` }));
      const settle = (outcome: Outcome<T>) => {
        cancel();
        resolve(outcome);
      };
      let pending: Promise<T>;
      try {
        pending = call();
      } catch (e) {
        pending = Promise.reject(e);
      }
      pending.then(
        (value) => settle({ ok: true, value }),
        (e: unknown) => settle({ ok: false, reason: `${what}: ${e instanceof Error ? e.message : String(e)}` }),
      );
    });
  }

  /** Why the last probe found the embeddings unhealthy (the adapter's words: refused key, unknown model, unreachable), or undefined. */
  embeddingProblem(): string | undefined {
    return this.lastEmbeddingProblem;
  }

  private async probe(): Promise<ReadinessReport> {
    const [health, exists, count, embedding, shared, clusters] = await Promise.all([
      this.within('vector database', () => this.vectorStore.health()),
      this.within(`collection ${this.collection}`, () => this.vectorStore.collectionExists(this.collection)),
      this.within(`count of ${this.collection}`, () => this.vectorStore.count(this.collection)),
      this.within('embedding service', () => this.embedder.embed([PROBE_TEXT])),
      this.sharedState ? this.within('shared state', () => this.sharedState!.status()) : Promise.resolve<Outcome<undefined>>({ ok: true, value: undefined }),
      this.clusters ? this.within('clusters', this.clusters) : Promise.resolve<Outcome<undefined>>({ ok: true, value: undefined }),
    ]);
    const reasons: string[] = [];
    const vectorDBHealthy = health.ok && health.value.connected;
    if (!health.ok) reasons.push(health.reason);
    else if (!health.value.connected) reasons.push(`vector database: ${health.value.error ?? 'not connected'}`);

    let embeddingHealthy = false;
    this.lastEmbeddingProblem = undefined;
    if (!embedding.ok) reasons.push((this.lastEmbeddingProblem = embedding.reason));
    else {
      const expected = this.embedder.info().dimension;
      const vectors = embedding.value;
      embeddingHealthy = Array.isArray(vectors) && vectors.length === 1 && isUsableVector(vectors[0], expected);
      if (!embeddingHealthy) reasons.push((this.lastEmbeddingProblem = `embedding service returned no finite vector of dimension ${expected ?? '(any)'}`));
    }

    const absent = exists.ok && exists.value === false;
    const report: ReadinessReport = {
      ready: vectorDBHealthy && embeddingHealthy,
      vectorDBHealthy,
      collectionAccessible: exists.ok && exists.value === true,
      embeddingsRequired: true,
      embeddingHealthy,
      checkedAt: new Date(this.clock.now()).toISOString(),
    };
    if (absent) report.storedCount = 0;
    if (shared.ok && shared.value?.configured) {
      report.sharedStateHealthy = shared.value.connected;
      if (!shared.value.connected) reasons.push(`shared state: ${shared.value.error ?? 'not connected'}`);
    } else if (!shared.ok) {
      report.sharedStateHealthy = false;
      reasons.push(shared.reason);
    }
    if (clusters.ok && clusters.value) report.clusters = clusters.value;
    if (this.warnings.length > 0) report.warnings = [...this.warnings];
    else if (count.ok && Number.isInteger(count.value) && count.value >= 0) report.storedCount = count.value;
    if (!report.ready) this.logger?.warn('not ready', { reasons });
    else if (report.sharedStateHealthy === false) this.logger?.warn('shared state unavailable', { reasons });
    return report;
  }
}
