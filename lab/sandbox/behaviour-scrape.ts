import type { FieldCondition } from '../../domain/evaluation/scenario.js';
import type { Obj } from './stand-in.js';

/**
 * The `scraped` behaviour condition (docs/evaluation.md, "Behaviour
 * conditions"): whether Prometheus, with the usual `kubernetes-pods` scrape
 * job (the Prometheus Helm chart's and the examples' relabelling), scrapes the
 * workload's pods at a port and path. That job keeps a pod whose annotation
 * `prometheus.io/scrape` is `true`, replaces the target's port with
 * `prometheus.io/port` (else it scrapes each port the containers declare) and
 * the metrics path with `prometheus.io/path` (default `/metrics`). Leaving the
 * default path out and writing it both pass; a wrong port, a path elsewhere or
 * no scrape annotation fail.
 */

type Wanted = NonNullable<FieldCondition['scraped']>;

const DEFAULT_METRICS_PATH = '/metrics';

/** The ports the scrape job finds in a pod without a port annotation: every declared container port. */
function declaredPorts(podSpec: Obj): number[] {
  return ((podSpec.containers ?? []) as Obj[]).flatMap((k) => ((k.ports ?? []) as Obj[]).map((p) => Number(p.containerPort)));
}

/** Whether pods of this template (metadata and spec) are scraped at `wanted.port` and `wanted.path`. */
export function scrapedAt(template: Obj, wanted: Wanted): boolean {
  const annotations = (template.metadata?.annotations ?? {}) as Record<string, unknown>;
  if (String(annotations['prometheus.io/scrape'] ?? '').toLowerCase() !== 'true') return false;
  const port = annotations['prometheus.io/port'];
  const ports = port === undefined ? declaredPorts(template.spec ?? {}) : [Number(String(port).trim())];
  const path = annotations['prometheus.io/path'] === undefined ? DEFAULT_METRICS_PATH : String(annotations['prometheus.io/path']);
  return ports.includes(wanted.port) && path === (wanted.path ?? DEFAULT_METRICS_PATH);
}
