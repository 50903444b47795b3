import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import path from 'node:path';
import { ERROR_CODES } from '../../domain/errors.js';
import type { Clock } from '../../domain/ports/clock.js';
import type { Logger } from '../../domain/ports/logger.js';
import { INTERRUPTED_MESSAGE, isFinished, isRunId } from '../../domain/runs/run.js';
import { isTempName, writeFileDurably } from '../fs/durable-file.js';
import { MemoryRunStore, type HeldRun } from './memory-run-store.js';

/** Events are written at most this often per run; transitions and `done` at once. */
const EVENT_FLUSH_MS = 250;

/**
 * Runs of one process: in memory, each also kept as `<runId>.json` (0600,
 * atomic rename) under SVC_DATA_DIR/runs, so a restarted svc still shows
 * them. A run left queued or running by a process that stopped is read back
 * as failed, "interrupted: the replica running it stopped": there is no
 * other process that could still be running it.
 */
export class FileRunStore extends MemoryRunStore {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly writing = new Map<string, Promise<void>>();

  constructor(
    private readonly dir: string,
    options: { ttlMs: number; clock: Clock; logger: Logger },
  ) {
    super(options, (id, held, urgent) => this.persist(id, held, urgent));
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.load(options.logger);
  }

  override async close(): Promise<void> {
    for (const [id, timer] of this.timers) {
      clearTimeout(timer);
      this.timers.delete(id);
      this.flush(id);
    }
    await Promise.all(this.writing.values());
    await super.close();
  }

  private persist(id: string, held: HeldRun | undefined, urgent: boolean): void {
    if (!held) {
      clearTimeout(this.timers.get(id));
      this.timers.delete(id);
      this.chain(id, () => unlink(this.file(id)).catch(() => undefined));
      return;
    }
    if (urgent) {
      clearTimeout(this.timers.get(id));
      this.timers.delete(id);
      this.flush(id);
    } else if (!this.timers.has(id)) {
      const timer = setTimeout(() => {
        this.timers.delete(id);
        this.flush(id);
      }, EVENT_FLUSH_MS);
      timer.unref();
      this.timers.set(id, timer);
    }
  }

  /** Writes what is held now, after the run's previous write (so files never go back in time). */
  private flush(id: string): void {
    this.chain(id, async () => {
      const held = this.runs.get(id);
      if (held) await writeFileDurably(this.file(id), JSON.stringify(held));
    });
  }

  private chain(id: string, work: () => Promise<void>): void {
    const next = (this.writing.get(id) ?? Promise.resolve()).then(work).catch(() => undefined);
    this.writing.set(id, next);
    void next.then(() => {
      if (this.writing.get(id) === next) this.writing.delete(id);
    });
  }

  private file(id: string): string {
    return path.join(this.dir, `${id}.json`);
  }

  private load(logger: Logger): void {
    const now = this.options.clock.now();
    for (const name of readdirSync(this.dir)) {
      const id = name.replace(/\.json$/, '');
      if (isTempName(name) || !isRunId(id)) continue;
      try {
        const held = JSON.parse(readFileSync(this.file(id), 'utf8')) as HeldRun;
        if (held.expiresAt <= now) {
          void unlink(this.file(id)).catch(() => undefined);
          continue;
        }
        if (!isFinished(held.record.status)) {
          const at = new Date(now).toISOString();
          held.record = { ...held.record, status: 'failed', finishedAt: at, error: { code: ERROR_CODES.INTERRUPTED, message: INTERRUPTED_MESSAGE } };
          held.events.push({ id: (held.events.at(-1)?.id ?? 0) + 1, type: 'done', at, data: { status: 'failed' } });
          held.expiresAt = now + this.options.ttlMs;
          this.runs.set(id, held);
          this.flush(id);
        }
        this.runs.set(id, held);
      } catch (e) {
        logger.warn('unreadable run file skipped', { file: name, error: (e as Error).message });
      }
    }
  }
}
