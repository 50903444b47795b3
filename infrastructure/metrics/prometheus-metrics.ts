import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { Metrics, RefusalReason, TokenUsage, ToolOutcome } from '../../domain/ports/metrics.js';
import { BoundedLabels } from './bounded-labels.js';
import { HttpRequestSeries } from './http-request-series.js';

/** What GET /metrics sends. */
export interface MetricsExposition {
  contentType: string;
  render(): Promise<string>;
}

/** Seconds: from a fast-lane answer (well under a millisecond) to a long tool run. */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * The process defaults (CPU, memory, event-loop lag, GC, handles) are the
 * process's, not a container's: collected once into their own registry,
 * however many containers a process builds (the tests build hundreds).
 */
let processRegistry: Registry | undefined;
function processDefaults(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
    processCpuSeconds(processRegistry);
  }
  return processRegistry;
}

/**
 * CPU seconds since the process started, as /proc/self/stat counts them
 * (process.cpuUsage() is cumulative): prom-client's own counters start from
 * the moment they were registered, so they miss the startup (loading modules,
 * reading configuration), which is most of the CPU a quiet process used.
 */
function processCpuSeconds(registry: Registry): void {
  const names = { user: 'process_cpu_user_seconds_total', system: 'process_cpu_system_seconds_total', total: 'process_cpu_seconds_total' };
  for (const name of Object.values(names)) registry.removeSingleMetric(name);
  const counter = (name: string, help: string, seconds: (u: NodeJS.CpuUsage) => number) =>
    new Counter({
      name,
      help: `${help}, since the process started.`,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(seconds(process.cpuUsage()) / 1e6);
      },
    });
  counter(names.user, 'Total user CPU time spent in seconds', (u) => u.user);
  counter(names.system, 'Total system CPU time spent in seconds', (u) => u.system);
  counter(names.total, 'Total user and system CPU time spent in seconds', (u) => u.user + u.system);
}

/**
 * The Metrics port over prom-client: one registry per container (svc's own
 * counters), rendered after the process defaults in the Prometheus text
 * format. Every label value goes through BoundedLabels first.
 */
export class PrometheusMetrics implements Metrics, MetricsExposition {
  private readonly registry = new Registry();
  private readonly labels = new BoundedLabels();

  /** `fleet`: svc serves SVC_CLUSTERS, and the per-cluster counters carry `cluster`. */
  constructor(private readonly options: { fleet?: boolean } = {}) {
    this.writes = new Counter<'cluster' | 'verb' | 'outcome'>({
      name: 'svc_cluster_writes_total',
      help: options.fleet
        ? 'Writes sent to the Kubernetes API (dry runs excluded), by cluster, verb and outcome (success or the error code)'
        : 'Writes sent to the Kubernetes API (dry runs excluded), by verb and outcome (success or the error code)',
      labelNames: options.fleet ? ['cluster', 'verb', 'outcome'] : ['verb', 'outcome'],
      registers: [this.registry],
    });
  }
  readonly contentType = this.registry.contentType;
  /** The per-request metrics, kept outside prom-client: they are recorded on every answer (see HttpRequestSeries). */
  private readonly http = new HttpRequestSeries(DURATION_BUCKETS);
  private readonly tools = new Counter({
    name: 'svc_tool_runs_total',
    help: 'Tool runs ended (REST, MCP and runs), by tool and outcome (success, error, cancelled)',
    labelNames: ['tool', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly clusterTools = new Counter({
    name: 'svc_cluster_tool_runs_total',
    help: 'With SVC_CLUSTERS: tool runs for one cluster ended, by cluster, tool and outcome (success, error, cancelled)',
    labelNames: ['cluster', 'tool', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly modelCalls = new Counter({
    name: 'svc_model_calls_total',
    help: 'Calls to the model, by provider, model and outcome (success or the error code)',
    labelNames: ['provider', 'model', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly tokens = new Counter({
    name: 'svc_model_tokens_total',
    help: 'Tokens the model reported, by provider, model and direction (input, output)',
    labelNames: ['provider', 'model', 'direction'] as const,
    registers: [this.registry],
  });
  /** With a fleet (SVC_CLUSTERS) also by `cluster` (names from config, so bounded); without one, the series as ever. */
  private readonly writes: Counter<'cluster' | 'verb' | 'outcome'>;
  private readonly refusals = new Counter({
    name: 'svc_refusals_total',
    help: 'Calls or changes svc refused, by reason (role, allow-list, policy, risk)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  private readonly ledger = new Counter({
    name: 'svc_ledger_appends_total',
    help: 'Change-ledger appends, by outcome (success, error)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly runs = new Gauge({ name: 'svc_runs_active', help: 'Runs this replica is running now', registers: [this.registry] });
  private readonly limited = new Counter({
    name: 'svc_rate_limited_total',
    help: 'Requests refused by a rate limit (429), by budget (ai, other, runs)',
    labelNames: ['budget'] as const,
    registers: [this.registry],
  });

  httpRequest(method: string, route: string, status: number, seconds: number): void {
    this.http.record(method, route, status, seconds);
  }

  toolRun(tool: string, outcome: ToolOutcome): void {
    this.tools.inc({ tool: this.labels.of('tool', tool), outcome });
  }

  clusterToolRun(cluster: string, tool: string, outcome: ToolOutcome): void {
    this.clusterTools.inc({ cluster: this.labels.of('cluster', cluster), tool: this.labels.of('tool', tool), outcome });
  }

  modelCall(provider: string, model: string, outcome: string, usage?: TokenUsage): void {
    const labels = { provider: this.labels.of('provider', provider), model: this.labels.of('model', model) };
    this.modelCalls.inc({ ...labels, outcome: this.labels.of('outcome', outcome) });
    if (usage?.inputTokens) this.tokens.inc({ ...labels, direction: 'input' }, usage.inputTokens);
    if (usage?.outputTokens) this.tokens.inc({ ...labels, direction: 'output' }, usage.outputTokens);
  }

  clusterWrite(verb: string, outcome: string, cluster?: string): void {
    const labels = { verb: this.labels.of('verb', verb), outcome: this.labels.of('outcome', outcome) };
    // a write outside any cluster's scope is refused by the fleet port before it is sent: `none` says so
    this.writes.inc(this.options.fleet ? { cluster: this.labels.of('cluster', cluster ?? 'none'), ...labels } : labels);
  }

  refusal(reason: RefusalReason): void {
    this.refusals.inc({ reason: this.labels.of('reason', reason) });
  }

  ledgerAppend(outcome: 'success' | 'error'): void {
    this.ledger.inc({ outcome });
  }

  runsActive(count: number): void {
    this.runs.set(count);
  }

  rateLimited(budget: string): void {
    this.limited.inc({ budget: this.labels.of('budget', budget) });
  }

  async render(): Promise<string> {
    const [defaults, own] = await Promise.all([processDefaults().metrics(), this.registry.metrics()]);
    return `${defaults}\n${this.http.render()}\n${own}`;
  }
}
