import { DomainError } from '../../domain/errors.js';
import type { ScanTarget } from '../../domain/orgdata/capability.js';
import { finishKind, type ScanState } from '../../domain/orgdata/scan-state.js';
import type { Clock, Timers } from '../../domain/ports/clock.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import type { Logger } from '../../domain/ports/logger.js';
import type { ScanStateStore } from '../../domain/ports/scan-state-store.js';
import type { Tracer } from '../../domain/ports/tracer.js';
import type { AnalyseCapability } from './analyse-capability.js';
import type { OrgCollection } from './org-collection.js';

export interface ScanSettings {
  /** Kinds analysed at once. */
  batchSize: number;
  /** Lease length, milliseconds; renewed after every kind and every third of it. */
  leaseMs: number;
}

export interface ScanDeps {
  cluster: ClusterReader;
  llm: LlmProvider;
  collection: OrgCollection;
  analyse: AnalyseCapability;
  states: ScanStateStore;
  clock: Clock & Timers;
  tracer: Tracer;
  logger: Logger;
  /**
   * The cluster this scanner scans while svc serves several (SVC_CLUSTERS):
   * its state and lease are that cluster's, and its background work runs in
   * that cluster's scope. Undefined for svc's one cluster.
   */
  clusterName?: string;
  /** This scanner's lease holder id (unique per process). */
  holder: string;
  newScanId: () => string;
  settings: ScanSettings;
}

const MAX_REASON = 500;

/**
 * One scan's background loop, in this process: `batchSize` kinds at a time,
 * the state saved after every kind once the lease is renewed. It stops when
 * nothing is pending, when halted, or when the lease is lost (then it saves
 * nothing more: another holder owns the scan).
 */
export class ScanRun {
  private saves: Promise<boolean> = Promise.resolve(true);
  private halted = false;
  private readonly watchers = new Set<(resource: string, state: ScanState) => void>();

  constructor(
    private readonly d: ScanDeps,
    private readonly state: ScanState,
  ) {}

  get scanId(): string {
    return this.state.id;
  }

  /** Hears each kind as it finishes (with the state after it) until the returned function is called. */
  watch(watcher: (resource: string, state: ScanState) => void): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  /** Takes no further kind and saves nothing more; resolves once a save in progress is done. */
  halt(): Promise<unknown> {
    this.halted = true;
    return this.saves;
  }

  async execute(): Promise<void> {
    const state = this.state;
    const stopBeat = this.heartbeat();
    try {
      while (state.pending.length > 0 && !this.halted) {
        const batch = state.pending.slice(0, this.d.settings.batchSize);
        state.inFlight = batch.map((t) => t.id);
        state.updatedAt = this.now();
        if (!(await this.persist(state))) return;
        await Promise.all(batch.map((t) => this.scanOne(state, t)));
      }
      if (state.status === 'completed' && !this.halted) await this.d.states.release(this.d.holder);
    } finally {
      stopBeat();
    }
  }

  private async scanOne(state: ScanState, target: ScanTarget): Promise<void> {
    let reason: string | undefined;
    try {
      await this.d.tracer.inSpan('scan_capability', { 'svc.scan.id': state.id, 'k8s.resource': target.id, 'svc.kube.identity': 'svc' }, () =>
        this.d.analyse.execute(target, state.id, () => this.now()),
      );
    } catch (e) {
      reason = e instanceof DomainError ? e.message.slice(0, MAX_REASON) : 'unexpected failure; see the server log';
      this.d.logger.warn('capability scan: kind failed', { scanId: state.id, resource: target.id, err: e instanceof Error ? e.message : String(e) });
    }
    if (this.halted) return;
    finishKind(state, target.id, this.now(), reason);
    const saved = this.persist(state);
    for (const w of this.watchers) w(target.id, state);
    await saved;
  }

  /** Saves a snapshot after renewing the lease, one save at a time; false once the lease is lost or the scanner halted. */
  private persist(state: ScanState): Promise<boolean> {
    const snapshot = structuredClone(state);
    this.saves = this.saves.then(async () => {
      if (this.halted) return false;
      try {
        if (!(await this.d.states.renew(this.d.holder, this.d.settings.leaseMs))) {
          this.d.logger.warn('capability scan: lease lost to another holder, stopping', { scanId: state.id });
          this.halted = true;
          return false;
        }
        await this.d.states.save(snapshot);
        return true;
      } catch (e) {
        this.d.logger.error('capability scan: progress not saved', { scanId: state.id, err: String(e) });
        return true;
      }
    });
    return this.saves;
  }

  private heartbeat(): () => void {
    let done = false;
    let cancel = () => {};
    const beat = () => {
      cancel = this.d.clock.schedule(Math.max(100, Math.floor(this.d.settings.leaseMs / 3)), () => {
        if (done || this.halted) return;
        this.d.states.renew(this.d.holder, this.d.settings.leaseMs).then(
          (ok) => (ok ? beat() : undefined),
          () => beat(),
        );
      });
    };
    beat();
    return () => {
      done = true;
      cancel();
    };
  }

  private now(): string {
    return new Date(this.d.clock.now()).toISOString();
  }
}
