import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { CLUSTER_READER_METHODS } from '../../domain/ports/cluster-reader.js';
import { CLUSTER_WRITER_METHODS } from '../../domain/ports/cluster-writer.js';
import type { ClusterClient, ImpersonatingClusterClients } from '../../domain/ports/cluster-client.js';
import type { ClusterStatus } from '../../domain/ports/cluster-reader.js';
import { NotConfiguredError } from '../../domain/errors.js';
import { ConfigError } from '../config/env-parsers.js';

/**
 * The configured cluster client, built on first use: @kubernetes/client-node
 * costs about 0.4 s and 70 MB to load, which start-up need not pay. The
 * kubeconfig files are still read and parsed at start-up (a file that does
 * not parse stops it, naming KUBECONFIG), and `context()` answers from that
 * parse without loading the library.
 */
type Built = ClusterClient & ImpersonatingClusterClients;

export class LazyClusterClient {
  private real?: Built;

  private constructor(
    private readonly build: () => Built,
    private readonly contextName: string,
  ) {}

  static create(build: () => Built, contextName: string): Built {
    const lazy = new LazyClusterClient(build, contextName);
    const client: Partial<Record<string, unknown>> = {
      actingAs: (identity: Parameters<Built['actingAs']>[0]) => lazy.client().actingAs(identity),
      context: () => lazy.real?.context() ?? lazy.contextName,
      // never throws, as the port says: a kubeconfig the library refuses is `connected: false`
      status: async (): Promise<ClusterStatus> => {
        try {
          return await lazy.client().status();
        } catch (e) {
          return { connected: false, context: lazy.contextName, error: (e as Error).message };
        }
      },
    };
    for (const name of [...CLUSTER_READER_METHODS, ...CLUSTER_WRITER_METHODS]) {
      if (name === 'context' || name === 'status') continue;
      client[name] = (...args: unknown[]) => (lazy.client()[name] as (...a: unknown[]) => unknown)(...args);
    }
    return client as unknown as Built;
  }

  private client(): Built {
    if (this.real) return this.real;
    try {
      return (this.real = this.build());
    } catch (e) {
      // the library refused a kubeconfig that parsed as YAML: the message names KUBECONFIG and quotes no line
      if (e instanceof ConfigError) throw new NotConfiguredError('The Kubernetes cluster', e.message);
      throw e;
    }
  }
}

/**
 * Reads each kubeconfig file and parses it as YAML, as start-up's check; the
 * current context is the first file's that names one (kubectl's merge rule).
 * A file that does not parse is a ConfigError that quotes none of its lines.
 */
export function kubeconfigContext(files: readonly string[], variable: string): string {
  let context = '';
  for (const file of files) {
    let doc: unknown;
    try {
      doc = parse(readFileSync(file, 'utf8'));
    } catch (e) {
      // parser messages quote the offending lines (which may hold a token): keep the first line only
      const first = (e instanceof Error ? e.message : String(e)).split('\n')[0].slice(0, 200);
      throw new ConfigError(variable, `file ${file} is not a usable kubeconfig: ${first}`);
    }
    if (doc !== null && typeof doc !== 'object') throw new ConfigError(variable, `file ${file} is not a usable kubeconfig: expected a YAML mapping`);
    const current = (doc as { 'current-context'?: unknown } | null)?.['current-context'];
    if (!context && typeof current === 'string') context = current;
  }
  return context;
}
