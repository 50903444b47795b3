import { BoundedLabels } from './bounded-labels.js';

interface Answered {
  label: string;
  count: number;
}

/** One method and route template: its answers by status and its duration histogram (counts per bucket, not yet cumulative). */
interface RouteSeries {
  method: string;
  route: string;
  statuses: Map<number, Answered>;
  /** The statuses past the label limit, counted together. */
  other?: Answered;
  buckets: number[];
  sum: number;
  count: number;
}

const COUNTER = 'svc_http_requests_total';
const HISTOGRAM = 'svc_http_request_duration_seconds';
const COUNTER_HELP = 'HTTP requests answered, by method, route template and status';
const HISTOGRAM_HELP = 'Time from the request line to the last byte of the answer, by method and route template';

/** A label value as the Prometheus text format writes it. */
function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

/**
 * The two HTTP metrics (`svc_http_requests_total` by method, route and
 * status; `svc_http_request_duration_seconds` by method and route), kept as
 * plain numbers and written in the Prometheus text format when scraped.
 * Every request records here, so recording must cost next to nothing:
 * prom-client builds and hashes a label key per `inc` and per `observe`
 * (a few microseconds per request on the fast lane, measured with
 * bench:gateway); here a request is two map lookups on the strings it
 * already has and one bucket increment. The labels are bounded as
 * everywhere else (BoundedLabels): a method, route or status past the limit
 * counts as `other`, and the maps hold only bounded values.
 */
export class HttpRequestSeries {
  private readonly labels = new BoundedLabels();
  /** By route, then method: the strings callers pass (route templates, methods) are few and reused. */
  private readonly byRoute = new Map<string, Map<string, RouteSeries>>();
  /** Every series in the order it was first seen, for the scrape. */
  private readonly all: RouteSeries[] = [];

  constructor(private readonly bucketBounds: readonly number[]) {}

  record(method: string, route: string, status: number, seconds: number): void {
    const series = this.byRoute.get(route)?.get(method) ?? this.seriesOf(method, route);
    const answered = series.statuses.get(status) ?? this.statusOf(series, status);
    answered.count++;
    const bounds = this.bucketBounds;
    let i = 0;
    while (i < bounds.length && seconds > bounds[i]) i++;
    series.buckets[i]++;
    series.sum += seconds;
    series.count++;
  }

  /** A status this series has not answered before: its own count, or `other`'s past the label limit (not kept under its number, so the map stays bounded). */
  private statusOf(series: RouteSeries, status: number): Answered {
    const label = this.labels.of('status', String(status));
    if (label !== String(status)) return (series.other ??= { label, count: 0 });
    const answered = { label, count: 0 };
    series.statuses.set(status, answered);
    return answered;
  }

  /** The series of a method and route not found under the strings as given: kept under their bounded labels, so a raw string found again later is one that is kept as it is. */
  private seriesOf(method: string, route: string): RouteSeries {
    const m = this.labels.of('method', method);
    const r = this.labels.of('route', route);
    let methods = this.byRoute.get(r);
    if (!methods) this.byRoute.set(r, (methods = new Map()));
    let series = methods.get(m);
    if (!series) {
      series = { method: m, route: r, statuses: new Map(), buckets: new Array(this.bucketBounds.length + 1).fill(0), sum: 0, count: 0 };
      methods.set(m, series);
      this.all.push(series);
    }
    return series;
  }

  /** Both metric families in the Prometheus text format (0.0.4), as prom-client writes them. */
  render(): string {
    const counter = [`# HELP ${COUNTER} ${COUNTER_HELP}`, `# TYPE ${COUNTER} counter`];
    const histogram = [`# HELP ${HISTOGRAM} ${HISTOGRAM_HELP}`, `# TYPE ${HISTOGRAM} histogram`];
    for (const s of this.all) {
      const labels = `method="${escapeLabel(s.method)}",route="${escapeLabel(s.route)}"`;
      for (const answered of s.other ? [...s.statuses.values(), s.other] : s.statuses.values())
        counter.push(`${COUNTER}{${labels},status="${escapeLabel(answered.label)}"} ${answered.count}`);
      let cumulative = 0;
      this.bucketBounds.forEach((bound, i) => {
        cumulative += s.buckets[i];
        histogram.push(`${HISTOGRAM}_bucket{le="${bound}",${labels}} ${cumulative}`);
      });
      histogram.push(`${HISTOGRAM}_bucket{le="+Inf",${labels}} ${s.count}`);
      histogram.push(`${HISTOGRAM}_sum{${labels}} ${s.sum}`);
      histogram.push(`${HISTOGRAM}_count{${labels}} ${s.count}`);
    }
    return `${counter.join('\n')}\n\n${histogram.join('\n')}\n`;
  }
}
