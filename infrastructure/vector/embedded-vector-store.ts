import { mkdir, readdir, readFile, rename, unlink } from 'node:fs/promises';
import * as path from 'node:path';
import { DependencyError } from '../../domain/errors.js';
import type { Logger } from '../../domain/ports/logger.js';
import type {
  CollectionInfo,
  CollectionSpec,
  ListPage,
  ListQuery,
  PayloadFilter,
  ScoredPoint,
  SearchQuery,
  StoredPoint,
  VectorPoint,
  VectorStore,
  VectorStoreHealth,
} from '../../domain/ports/vector-store.js';
import { CollectionNotFoundError, VectorDimensionError } from '../../domain/vector/vector-errors.js';
import {
  assertCollectionName,
  assertFilter,
  assertIds,
  assertList,
  assertSearch,
  assertSpec,
  firstWrongLength,
  preparePoints,
} from '../../domain/vector/vector-rules.js';
import { EmbeddedCollection } from './embedded-collection.js';
import { isTempName, removeFileDurably, writeFileDurably } from '../fs/durable-file.js';
import { CorruptFileError, decodeCollection, encodeCollection, FILE_SUFFIX } from './embedded-file.js';

export interface EmbeddedVectorStoreOptions {
  /** Directory of the collection files (`<SVC_DATA_DIR>/vectors`); created when absent. */
  dir: string;
  logger?: Logger;
}

const MAX_WARNINGS = 20;

/**
 * In-process VectorStore: exact cosine search over memory, one file per
 * collection rewritten atomically after every change. A write resolves only
 * once its file is durable; changes that arrive while a write runs share the
 * next one (group commit). Single process only: two processes must not share
 * one directory.
 */
export class EmbeddedVectorStore implements VectorStore {
  private readonly collections = new Map<string, EmbeddedCollection>();
  private readonly warnings: string[] = [];
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly pendingFlush = new Map<string, Promise<void>>();
  private loading?: Promise<void>;

  constructor(private readonly options: EmbeddedVectorStoreOptions) {}

  private fileOf(name: string): string {
    return path.join(this.options.dir, name + FILE_SUFFIX);
  }

  private ready(): Promise<void> {
    this.loading ??= this.load().catch((e: unknown) => {
      this.loading = undefined; // a later call retries (for example once a volume is mounted)
      throw new DependencyError('vector-db', `Embedded vector store cannot use ${this.options.dir}: ${(e as Error).message}`);
    });
    return this.loading;
  }

  private async load(): Promise<void> {
    await mkdir(this.options.dir, { recursive: true, mode: 0o700 });
    for (const entry of await readdir(this.options.dir)) {
      const file = path.join(this.options.dir, entry);
      // never acknowledged: a crash interrupted the write before its rename (`.tmp-<pid>-<n>`: the name before 0.2)
      if (isTempName(entry) || entry.includes(`${FILE_SUFFIX}.tmp-`)) {
        await unlink(file).catch(() => undefined);
        continue;
      }
      if (!entry.endsWith(FILE_SUFFIX)) continue;
      const name = entry.slice(0, -FILE_SUFFIX.length);
      try {
        this.collections.set(name, decodeCollection(await readFile(file), name));
      } catch (e) {
        if (!(e instanceof CorruptFileError)) throw e;
        await this.setAside(file, name, e.message);
      }
    }
  }

  private async setAside(file: string, name: string, reason: string): Promise<void> {
    const aside = `${file}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    await rename(file, aside);
    const warning = `collection '${name}': file was corrupt (${reason}); moved to ${path.basename(aside)}, the collection starts empty`;
    this.warnings.push(warning);
    if (this.warnings.length > MAX_WARNINGS) this.warnings.shift();
    this.options.logger?.error('embedded vector store: corrupt collection file set aside', { collection: name, reason, movedTo: aside });
  }

  /** Resolves once the collection's current state is on disk. */
  private flush(name: string): Promise<void> {
    let run = this.pendingFlush.get(name);
    if (!run) {
      const tail = this.queues.get(name) ?? Promise.resolve();
      run = tail.then(async () => {
        this.pendingFlush.delete(name); // changes made from here on need a later write
        const c = this.collections.get(name);
        if (c) await writeFileDurably(this.fileOf(name), encodeCollection(c));
        else await removeFileDurably(this.fileOf(name));
      });
      this.pendingFlush.set(name, run);
      this.queues.set(
        name,
        run.catch(() => undefined),
      );
    }
    return run.catch((e: unknown) => {
      throw new DependencyError('vector-db', `Embedded vector store could not persist collection '${name}': ${(e as Error).message}`);
    });
  }

  async health(): Promise<VectorStoreHealth> {
    try {
      await this.ready();
      return { connected: true, provider: 'embedded', ...(this.warnings.length ? { warnings: [...this.warnings] } : {}) };
    } catch (e) {
      return { connected: false, provider: 'embedded', error: (e as Error).message };
    }
  }

  async listCollections(): Promise<string[]> {
    await this.ready();
    return [...this.collections.keys()].sort();
  }

  async collectionExists(collection: string): Promise<boolean> {
    assertCollectionName(collection);
    await this.ready();
    return this.collections.has(collection);
  }

  async describeCollection(collection: string): Promise<CollectionInfo | undefined> {
    assertCollectionName(collection);
    await this.ready();
    const c = this.collections.get(collection);
    return c && { name: collection, dimension: c.dimension, distance: 'cosine', count: c.size };
  }

  async ensureCollection(collection: string, spec: CollectionSpec): Promise<void> {
    assertCollectionName(collection);
    assertSpec(spec);
    await this.ready();
    const existing = this.collections.get(collection);
    if (existing) {
      if (existing.dimension !== spec.dimension) throw new VectorDimensionError(collection, existing.dimension, spec.dimension);
      return;
    }
    this.collections.set(collection, new EmbeddedCollection(collection, spec.dimension));
    await this.flush(collection);
  }

  async deleteCollection(collection: string): Promise<void> {
    assertCollectionName(collection);
    await this.ready();
    if (this.collections.delete(collection)) await this.flush(collection);
  }

  async upsert(collection: string, points: readonly VectorPoint[]): Promise<void> {
    assertCollectionName(collection);
    const prepared = preparePoints(points);
    await this.ready();
    const c = this.collections.get(collection);
    if (!c) throw new CollectionNotFoundError(collection);
    const wrong = firstWrongLength(
      prepared.map((p) => p.vector),
      c.dimension,
    );
    if (wrong !== undefined) throw new VectorDimensionError(collection, c.dimension, wrong);
    if (prepared.length === 0) return;
    c.upsert(prepared);
    await this.flush(collection);
  }

  async search(collection: string, query: SearchQuery): Promise<ScoredPoint[]> {
    assertCollectionName(collection);
    assertSearch(query);
    await this.ready();
    const c = this.collections.get(collection);
    if (!c) return [];
    if (query.vector.length !== c.dimension) throw new VectorDimensionError(collection, c.dimension, query.vector.length);
    return c.search(query);
  }

  async get(collection: string, ids: readonly string[]): Promise<StoredPoint[]> {
    assertCollectionName(collection);
    assertIds(ids);
    await this.ready();
    return this.collections.get(collection)?.get(ids) ?? [];
  }

  async delete(collection: string, ids: readonly string[]): Promise<void> {
    assertCollectionName(collection);
    assertIds(ids);
    await this.ready();
    const c = this.collections.get(collection);
    if (c && c.delete(ids) > 0) await this.flush(collection);
  }

  async count(collection: string, filter?: PayloadFilter): Promise<number> {
    assertCollectionName(collection);
    assertFilter(filter);
    await this.ready();
    return this.collections.get(collection)?.count(filter) ?? 0;
  }

  async list(collection: string, query: ListQuery): Promise<ListPage> {
    assertCollectionName(collection);
    assertList(query);
    await this.ready();
    return this.collections.get(collection)?.list(query) ?? { points: [] };
  }
}
