import { mkdir, rename } from 'node:fs/promises';
import * as path from 'node:path';
import { DependencyError } from '../../domain/errors.js';
import type { ScanState } from '../../domain/orgdata/scan-state.js';
import { SCAN_ID } from '../../domain/orgdata/scan-state.js';
import type { Clock } from '../../domain/ports/clock.js';
import type { Logger } from '../../domain/ports/logger.js';
import type { LeaseOutcome, ScanLease, ScanStateStore } from '../../domain/ports/scan-state-store.js';
import { KeyedMutex } from '../sessions/keyed-mutex.js';
import { removeFile, writeFileDurably } from '../fs/durable-file.js';
import { readFileBounded } from '../sessions/session-files.js';

export interface FileScanStateStoreOptions {
  /** `$SVC_DATA_DIR/scans`; created (0700) on the first write. */
  dir: string;
  clock: Clock;
  logger?: Logger;
}

/** A scan of every kind of a large cluster stays well under this. */
const MAX_STATE_BYTES = 8 * 1024 * 1024;

/**
 * ScanStateStore on the local filesystem: `<dir>/state.json` and
 * `<dir>/lease.json`, files 0600, each written whole (temp file, fsync,
 * rename, fsync of the directory), so a crash leaves the old or the new file.
 *
 * Limits: the lease is exclusive within this process (one lock around read,
 * compare and write). Two processes sharing the directory could both take an
 * expired lease: run one replica per data directory, as for sessions; a shared
 * adapter (Redis) gives leases across replicas. A corrupt state file is set
 * aside (`state.json.corrupt-<time>`, logged) and reads as absent; a corrupt
 * lease reads as none.
 */
export class FileScanStateStore implements ScanStateStore {
  private readonly lock = new KeyedMutex();
  private readonly stateFile: string;
  private readonly leaseFile: string;

  constructor(private readonly options: FileScanStateStoreOptions) {
    this.stateFile = path.join(options.dir, 'state.json');
    this.leaseFile = path.join(options.dir, 'lease.json');
  }

  load(): Promise<ScanState | undefined> {
    return this.io(() => this.lock.run('state', () => this.readState()));
  }

  save(state: ScanState): Promise<void> {
    const text = JSON.stringify(state);
    return this.io(() =>
      this.lock.run('state', async () => {
        await this.ensureDir();
        await writeFileDurably(this.stateFile, text);
      }),
    );
  }

  acquire(holder: string, ttlMs: number): Promise<LeaseOutcome> {
    return this.io(() =>
      this.lock.run('lease', async () => {
        const now = this.options.clock.now();
        const current = await this.readLease();
        if (current && current.holder !== holder && now <= current.expiresAt) return { acquired: false, lease: current };
        const lease = { holder, expiresAt: now + ttlMs };
        await this.writeLease(lease);
        return { acquired: true, lease };
      }),
    );
  }

  renew(holder: string, ttlMs: number): Promise<boolean> {
    return this.io(() =>
      this.lock.run('lease', async () => {
        const current = await this.readLease();
        if (!current || current.holder !== holder) return false;
        await this.writeLease({ holder, expiresAt: this.options.clock.now() + ttlMs });
        return true;
      }),
    );
  }

  release(holder: string): Promise<void> {
    return this.io(() =>
      this.lock.run('lease', async () => {
        const current = await this.readLease();
        if (current?.holder === holder) await removeFile(this.leaseFile);
      }),
    );
  }

  private async readState(): Promise<ScanState | undefined> {
    const text = await readFileBounded(this.stateFile, MAX_STATE_BYTES).catch((e) => {
      if ((e as Error).name === 'CorruptSessionFileError') return '';
      throw e;
    });
    if (text === undefined) return undefined;
    try {
      const state = JSON.parse(text) as ScanState;
      if (!SCAN_ID.test(state.id) || !Array.isArray(state.pending) || !Array.isArray(state.completed) || !Array.isArray(state.failures))
        throw new Error('not a scan state');
      return state;
    } catch (e) {
      const aside = `${this.stateFile}.corrupt-${this.options.clock.now()}`;
      await rename(this.stateFile, aside).catch(() => undefined);
      this.options.logger?.warn('scan state file is corrupt: set aside, reading as no scan', { file: aside, err: (e as Error).message });
      return undefined;
    }
  }

  private async readLease(): Promise<ScanLease | undefined> {
    const text = await readFileBounded(this.leaseFile, 64 * 1024).catch(() => undefined);
    if (text === undefined) return undefined;
    try {
      const lease = JSON.parse(text) as ScanLease;
      return typeof lease.holder === 'string' && Number.isFinite(lease.expiresAt) ? lease : undefined;
    } catch {
      return undefined;
    }
  }

  private async writeLease(lease: ScanLease): Promise<void> {
    await this.ensureDir();
    await writeFileDurably(this.leaseFile, JSON.stringify(lease));
  }

  private async ensureDir(): Promise<void> {
    await mkdir(this.options.dir, { recursive: true, mode: 0o700 });
  }

  private async io<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      throw new DependencyError('scans', `The scan state store failed: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  }
}
