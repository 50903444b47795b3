import { actingAsService } from '../cluster/acting-caller.js';
import { withinCluster } from '../cluster/current-cluster.js';
import { NotFoundError, ValidationError } from '../../domain/errors.js';
import { requireConfigured } from '../ai/require-configured.js';
import { matchesTarget, uniqueTargets, type ScanTarget } from '../../domain/orgdata/capability.js';
import { cancelScan, newScanState, toProgress, type ScanFailure, type ScanProgress, type ScanState } from '../../domain/orgdata/scan-state.js';
import { outsideRun } from '../runs/run-scope.js';
import { ScanRun, type ScanDeps } from './scan-run.js';

export type { ScanDeps, ScanSettings } from './scan-run.js';

/**
 * The capability scan: `start` answers at once with the scan id and its
 * progress while the kinds are analysed in the background, `batchSize` at a
 * time. Progress is saved after every kind under a lease, so only one scan
 * runs at a time and a restarted svc `resume`s from where it stopped. A kind
 * that fails is recorded in `failures`; the others go on.
 */
export class ScanCapabilities {
  private active?: Promise<void>;
  private lock: Promise<unknown> = Promise.resolve();
  private current?: ScanRun;
  private halted = false;
  private cancelRetry?: () => void;

  constructor(private readonly d: ScanDeps) {}

  /** `ownRun`: the scan is the current run's (Prefer: respond-async); otherwise it runs outside whatever run started it. */
  async start(resources?: readonly string[], ownRun = false) {
    requireConfigured({ llm: this.d.llm, cluster: this.d.cluster });
    return this.exclusive(async () => {
      if (this.active) return this.alreadyRunning(await this.d.states.load());
      await this.d.collection.assertDimension();
      const lease = await this.d.states.acquire(this.d.holder, this.d.settings.leaseMs);
      if (!lease.acquired) return this.alreadyRunning(await this.d.states.load());
      try {
        const { targets, unknown } = this.select(uniqueTargets(await this.d.cluster.listApiResources()), resources);
        const previous = await this.d.states.load();
        const state = newScanState(this.d.newScanId(), resources ? [...resources] : 'all', targets, unknown, this.now());
        if (targets.length === 0) Object.assign(state, { status: 'completed', finishedAt: state.startedAt });
        await this.d.states.save(state);
        const superseded = previous?.status === 'running' ? ` It replaces the interrupted scan ${previous.id}.` : '';
        const progress = toProgress(state);
        if (state.status === 'running') this.launch(state, ownRun);
        else await this.d.states.release(this.d.holder);
        return {
          dataType: 'capabilities',
          operation: 'scan',
          started: true,
          scanId: state.id,
          message: `Scan of ${state.total} kinds started in the background; ask for its progress with operation progress.${superseded}`,
          progress,
        };
      } catch (e) {
        await this.d.states.release(this.d.holder);
        throw e;
      }
    });
  }

  async progress(id?: string) {
    const state = await this.d.states.load();
    if (!state)
      return { dataType: 'capabilities', operation: 'progress', progress: null, message: 'No capability scan has run yet: start one with operation scan' };
    if (id !== undefined && id !== state.id) throw new NotFoundError('NOT_FOUND', `No scan with id ${JSON.stringify(id)}; the latest scan is ${state.id}`);
    return { dataType: 'capabilities', operation: 'progress', progress: toProgress(state) };
  }

  /**
   * Resumes an interrupted scan (called once at start-up). When another
   * holder's lease has not expired yet, tries again when it does.
   */
  async resume(): Promise<'resumed' | 'waiting' | 'none'> {
    return this.exclusive(async () => {
      if (this.active || this.halted) return 'none';
      const state = await this.d.states.load();
      if (!state || state.status !== 'running') return 'none';
      if (!this.d.llm.status().configured) {
        this.d.logger.warn('an interrupted capability scan cannot resume: no AI provider is configured', { scanId: state.id });
        return 'none';
      }
      const lease = await this.d.states.acquire(this.d.holder, this.d.settings.leaseMs);
      if (!lease.acquired) {
        const wait = Math.max(100, lease.lease.expiresAt - this.d.clock.now() + 100);
        this.cancelRetry = this.d.clock.schedule(wait, () => void this.resume().catch((e) => this.d.logger.error('scan resume failed', { err: String(e) })));
        return 'waiting';
      }
      state.resumed += 1;
      state.inFlight = [];
      state.updatedAt = this.now();
      await this.d.states.save(state);
      this.d.logger.info('resuming interrupted capability scan', { scanId: state.id, pending: state.pending.length });
      this.launch(state);
      return 'resumed';
    });
  }

  /** Stops taking kinds, saves nothing more and releases the lease; kinds not finished stay pending for the next resume. */
  async stop(): Promise<void> {
    this.halted = true;
    this.cancelRetry?.();
    await this.current?.halt();
    await this.d.states.release(this.d.holder).catch(() => undefined);
  }

  /**
   * Follows the scan `scanId` this process runs until it ends (the run of a
   * scan started with Prefer: respond-async): `onKind` hears each kind as it
   * finishes, an abort of `signal` cancels the scan. Answers the progress the
   * `progress` operation answers once it has ended.
   */
  async follow(scanId: string, signal: AbortSignal, onKind: (resource: string, progress: ScanProgress) => void): Promise<ScanProgress> {
    const run = this.current;
    const active = this.active;
    let cancelled: Promise<void> | undefined;
    if (run && active && run.scanId === scanId) {
      const unwatch = run.watch((resource, state) => onKind(resource, toProgress(state)));
      const onAbort = () => (cancelled = this.cancel(scanId));
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      try {
        await active;
      } finally {
        unwatch();
        signal.removeEventListener('abort', onAbort);
      }
    }
    await cancelled;
    const state = await this.d.states.load();
    if (!state || state.id !== scanId) throw new NotFoundError('NOT_FOUND', `The scan ${scanId} is no longer the latest scan`);
    return toProgress(state);
  }

  /**
   * Cancels the scan `scanId` this process runs: no further kind starts,
   * nothing more is saved but the scan's end, `cancelled` (never resumed), and
   * the lease is released. A scan not running here is left alone.
   */
  cancel(scanId: string): Promise<void> {
    return this.exclusive(async () => {
      const run = this.current;
      if (!run || run.scanId !== scanId) return;
      await run.halt();
      const state = await this.d.states.load();
      if (state?.id === scanId && state.status === 'running') {
        cancelScan(state, this.now());
        await this.d.states.save(state);
      }
      await this.d.states.release(this.d.holder);
      this.d.logger.info('capability scan cancelled', { scanId });
    });
  }

  /** Resolves when the background scan of this process (if any) has finished. */
  async idle(): Promise<void> {
    await this.active;
  }

  private select(served: ScanTarget[], resources?: readonly string[]): { targets: ScanTarget[]; unknown: ScanFailure[] } {
    if (!resources) return { targets: served, unknown: [] };
    const targets = new Map<string, ScanTarget>();
    const unknown: ScanFailure[] = [];
    for (const name of resources) {
      const found = served.filter((t) => matchesTarget(name, t));
      if (found.length === 0) unknown.push({ resource: name, reason: 'the cluster does not serve this resource' });
      for (const t of found) targets.set(t.id, t);
    }
    if (targets.size === 0) {
      const kinds = served.slice(0, 40).map((t) => t.kind);
      throw new ValidationError(
        `None of the resources to scan is served by the cluster: ${resources.join(', ')}. It serves: ${kinds.join(', ')}${served.length > 40 ? ', …' : ''}`,
      );
    }
    return { targets: [...targets.values()], unknown };
  }

  private alreadyRunning(state: ScanState | undefined) {
    const where = this.d.clusterName === undefined ? '' : ` in ${this.d.clusterName}`;
    return {
      dataType: 'capabilities',
      operation: 'scan',
      started: false,
      ...(state ? { scanId: state.id } : {}),
      message: `A capability scan is already running${where}; only one runs at a time${where ? ' in a cluster' : ''}. Ask for its progress with operation progress.`,
      progress: state ? toProgress(state) : null,
    };
  }

  private launch(state: ScanState, ownRun = false): void {
    const run = new ScanRun(this.d, state);
    this.current = run;
    // background work for no caller, even when a caller's scan request started it: svc's own cluster identity
    const cluster = this.d.clusterName;
    this.d.logger.info("capability scan runs with svc's own Kubernetes identity", { scanId: state.id, kubeIdentity: 'svc', ...(cluster ? { cluster } : {}) });
    // an MCP call's scope ends with its answer: the scan it started must not be cancelled with it; a run's own scan is the run
    const work = () => actingAsService(() => (ownRun ? run.execute() : outsideRun(() => run.execute())));
    // a resumed scan has no call around it: its cluster's scope is set here, so every request and write is that cluster's
    this.active = (cluster === undefined ? work() : withinCluster(cluster, work))
      .catch((e) => this.d.logger.error('capability scan stopped', { scanId: state.id, err: e instanceof Error ? e.stack : String(e) }))
      .finally(() => {
        this.active = undefined;
        this.current = undefined;
      });
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.lock.then(fn, fn);
    this.lock = next.catch(() => undefined);
    return next;
  }

  private now(): string {
    return new Date(this.d.clock.now()).toISOString();
  }
}
