import { ExecutionError } from '../../domain/errors.js';
import type { Logger } from '../../domain/ports/logger.js';
import { partitionCluster } from './cluster-partition.js';
import type { ScanCapabilities } from './scan-capabilities.js';

type ResumeOutcome = Awaited<ReturnType<ScanCapabilities['resume']>>;

/**
 * The capability scans of svc serving several clusters (SVC_CLUSTERS): one
 * scanner per cluster, each with its own progress, lease and background
 * work, so a scan in one cluster neither waits for nor replaces another
 * cluster's. A call reaches the scanner of its cluster; start-up resumes
 * every cluster's unfinished scan.
 */
export class ClusterScans {
  private readonly scans: ReadonlyMap<string, ScanCapabilities>;

  constructor(
    clusters: readonly string[],
    scannerFor: (cluster: string) => ScanCapabilities,
    private readonly logger: Logger,
  ) {
    this.scans = new Map(clusters.map((c) => [c, scannerFor(c)]));
  }

  /** The scanner of the cluster the current call is for. */
  current(): ScanCapabilities {
    const cluster = partitionCluster();
    const scan = this.scans.get(cluster);
    if (!scan) throw new ExecutionError(`cluster ${cluster} is not one svc serves (${[...this.scans.keys()].join(', ')})`);
    return scan;
  }

  /**
   * Resumes each cluster's interrupted scan; one cluster's failure does not
   * keep the others from resuming, and is thrown once they all have tried.
   */
  async resume(): Promise<ResumeOutcome> {
    const entries = [...this.scans];
    const settled = await Promise.allSettled(entries.map(([, scan]) => scan.resume()));
    const outcomes: ResumeOutcome[] = [];
    let failure: unknown;
    settled.forEach((s, i) => {
      if (s.status === 'fulfilled') {
        outcomes.push(s.value);
        if (s.value !== 'none') this.logger.info('interrupted capability scan', { cluster: entries[i][0], outcome: s.value });
      } else failure ??= s.reason;
    });
    if (failure !== undefined) throw failure;
    return outcomes.includes('resumed') ? 'resumed' : outcomes.includes('waiting') ? 'waiting' : 'none';
  }

  async stop(): Promise<void> {
    await Promise.all([...this.scans.values()].map((s) => s.stop()));
  }

  /** Resolves when every cluster's background scan in this process has finished. */
  async idle(): Promise<void> {
    await Promise.all([...this.scans.values()].map((s) => s.idle()));
  }
}
