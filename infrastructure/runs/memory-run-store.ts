import { isFinished, isRunId, MAX_RUN_EVENTS, callerKey, type RunEvent, type RunRecord, type RunStatus } from '../../domain/runs/run.js';
import type { Clock } from '../../domain/ports/clock.js';
import type { CreateResult, RunChange, RunPage, RunQuery, RunSignal, RunStore } from '../../domain/ports/run-store.js';
import { isAfterCursor, pageCursor, readCursor } from '../../domain/runs/run-cursor.js';

/** One run as this process keeps it. */
export interface HeldRun {
  record: RunRecord;
  events: RunEvent[];
  expiresAt: number;
}

/** Runs this process keeps at most; the oldest finished ones go first beyond it (TTL aside). */
const MAX_RUNS = 10_000;

const copy = <T>(v: T): T => structuredClone(v);

/**
 * Runs of one process, in memory. `onChange` is told of every change (the
 * file store persists them); subscribers are called synchronously in append
 * order, so a watcher never sees events out of order.
 */
export class MemoryRunStore implements RunStore {
  protected readonly runs = new Map<string, HeldRun>();
  private readonly listeners = new Map<string, Set<(s: RunSignal) => void>>();

  constructor(
    protected readonly options: { ttlMs: number; clock: Clock },
    private readonly onChange: (runId: string, held: HeldRun | undefined, urgent: boolean) => void = () => undefined,
  ) {}

  async create(run: RunRecord, maxActive?: number): Promise<CreateResult> {
    // count and store in one turn of the event loop: nothing of this process runs between them
    const active = maxActive === undefined ? 0 : this.activeOf(callerKey(run.caller));
    if (maxActive !== undefined && active >= maxActive) return { created: false, active };
    this.evict();
    this.runs.set(run.runId, { record: copy(run), events: [], expiresAt: this.options.clock.now() + this.options.ttlMs });
    this.onChange(run.runId, this.runs.get(run.runId), true);
    return { created: true };
  }

  async get(runId: string): Promise<RunRecord | undefined> {
    const held = this.held(runId);
    return held && copy(held.record);
  }

  async transition(runId: string, from: readonly RunStatus[], change: RunChange): Promise<RunRecord | undefined> {
    const held = this.held(runId);
    if (!held || !from.includes(held.record.status)) return undefined;
    held.record = { ...held.record, ...copy(change) };
    held.expiresAt = this.options.clock.now() + this.options.ttlMs;
    this.onChange(runId, held, true);
    return copy(held.record);
  }

  async append(runId: string, event: Omit<RunEvent, 'id'>): Promise<RunEvent | undefined> {
    const held = this.held(runId);
    if (!held || (held.events.length >= MAX_RUN_EVENTS && event.type !== 'done')) return undefined;
    const stored: RunEvent = { id: (held.events.at(-1)?.id ?? 0) + 1, ...copy(event) };
    held.events.push(stored);
    this.onChange(runId, held, event.type === 'done');
    this.deliver(runId, { type: 'event', event: stored });
    return copy(stored);
  }

  async events(runId: string, afterId: number): Promise<RunEvent[]> {
    return copy(this.held(runId)?.events.filter((e) => e.id > afterId) ?? []);
  }

  async subscribe(runId: string, listener: (signal: RunSignal) => void): Promise<() => void> {
    const set = this.listeners.get(runId) ?? new Set();
    this.listeners.set(runId, set);
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(runId) === set) this.listeners.delete(runId);
    };
  }

  async requestCancel(runId: string): Promise<void> {
    const held = this.held(runId);
    if (!held) return;
    held.record.cancelRequested = true;
    this.onChange(runId, held, true);
    this.deliver(runId, { type: 'cancel' });
  }

  async list(query: RunQuery): Promise<RunPage> {
    const after = readCursor(query.cursor);
    const all = [...this.runs.keys()]
      .map((id) => this.held(id)?.record)
      .filter((r): r is RunRecord => r !== undefined)
      .filter((r) => (!query.callerKey || callerKey(r.caller) === query.callerKey) && (!query.tool || r.tool === query.tool))
      .filter((r) => (!query.status || r.status === query.status) && (!query.cluster || r.cluster === query.cluster))
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.runId.localeCompare(a.runId))
      .filter((r) => isAfterCursor(r, after));
    const runs = all.slice(0, query.limit).map(copy);
    return { runs, ...(all.length > query.limit ? { nextCursor: pageCursor(runs.at(-1)!) } : {}) };
  }

  async countActive(key: string): Promise<number> {
    return this.activeOf(key);
  }

  private activeOf(key: string): number {
    let n = 0;
    for (const id of this.runs.keys()) {
      const r = this.held(id)?.record;
      if (r && !isFinished(r.status) && callerKey(r.caller) === key) n++;
    }
    return n;
  }

  async renewLease(runIds: readonly string[], owner: string, leaseUntil: number): Promise<void> {
    for (const id of runIds) {
      const held = this.held(id);
      if (held && held.record.owner === owner && !isFinished(held.record.status)) held.record.leaseUntil = leaseUntil;
    }
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }

  /** The live entry, or undefined (and removed) when expired. */
  protected held(runId: string): HeldRun | undefined {
    if (!isRunId(runId)) return undefined;
    const held = this.runs.get(runId);
    if (held && held.expiresAt <= this.options.clock.now()) {
      this.runs.delete(runId);
      this.onChange(runId, undefined, false);
      return undefined;
    }
    return held;
  }

  private deliver(runId: string, signal: RunSignal): void {
    for (const listener of [...(this.listeners.get(runId) ?? [])]) listener(copy(signal));
  }

  private evict(): void {
    if (this.runs.size < MAX_RUNS) return;
    for (const [id, held] of this.runs) {
      if (this.runs.size < MAX_RUNS) return;
      if (isFinished(held.record.status) || held.expiresAt <= this.options.clock.now()) {
        this.runs.delete(id);
        this.onChange(id, undefined, false);
      }
    }
  }
}
