import type { RunEvent, RunView } from '../../domain/runs/run.js';
import { Interrupted, RequestFailed } from './cli-errors.js';
import type { SvcClient } from './svc-client.js';

const FRAMES = ['|', '/', '-', '\\'];

/** One event in words: the type and the fact that matters (function name, object, ready counts, final status). */
export function describeEvent(e: Pick<RunEvent, 'type' | 'data'>): string {
  const d = e.data as Record<string, unknown>;
  const obj = d.kind ? ` ${String(d.kind)}${d.namespace ? ` ${String(d.namespace)}/` : ' '}${String(d.name ?? '')}` : '';
  switch (e.type) {
    case 'function-call':
      return `function-call ${String(d.name)}`;
    case 'dry-run':
      return `dry-run ${String(d.method)}${obj}: ${d.accepted ? 'accepted' : 'refused'}`;
    case 'applied':
      return `${String(d.method)}${obj}: ${String(d.status)}`;
    case 'waiting':
      return d.total !== undefined
        ? `waiting: ${String(d.ready)}/${String(d.total)} ready`
        : `waiting${obj}: ${String(d.ready ?? 0)}/${String(d.desired ?? '?')} ready`;
    case 'scanned':
      return `scanned ${String(d.resource)}${d.ok === false ? ' (failed)' : ''}: ${String(d.done)}/${String(d.total)}`;
    case 'verify':
      return verifyWords(d);
    case 'done':
      return `done: ${String(d.status)}`;
    default:
      return e.type;
  }
}

/** svc's verdict steps (docs/verify.md): the snapshot, each change of verdict, the verdict with its first evidence, each revert. */
function verifyWords(d: Record<string, unknown>): string {
  switch (d.step) {
    case 'snapshot':
      return `verify: snapshot of ${String(d.objects)} object(s) before the write`;
    case 'observed':
      return `verify: ${String(d.verdict)} after ${String(d.afterMs)} ms`;
    case 'verdict':
      return `verify: verdict ${String(d.verdict)}${Array.isArray(d.evidence) && d.evidence.length ? `: ${d.evidence.map(String).join('; ')}` : ''}`;
    case 'reverted':
      return `verify: reverted ${String(d.ledgerId)} by ${String(d.revertId)}`;
    case 'revert-failed':
      return `verify: could NOT revert ${String(d.ledgerId)}: ${String(d.reason)}`;
    default:
      return 'verify';
  }
}

export interface WatchOptions {
  /** Spinner and the latest event redrawn in place (a terminal, text output); else one line per event. */
  live: boolean;
  stream?: NodeJS.WriteStream;
  /** Ctrl-C: cancel the run on the server (a command that started it); watch-only commands just stop watching. */
  cancelOnInterrupt: boolean;
}

/**
 * Follows a run to its end over its event stream (reconnecting with
 * Last-Event-ID if the stream drops), showing progress on stderr, and answers
 * the run as it ended. Ctrl-C cancels it on the server and says so.
 */
export async function watchRun(client: SvcClient, runId: string, options: WatchOptions): Promise<RunView> {
  const out = options.stream ?? process.stderr;
  const started = Date.now();
  let latest = 'queued';
  let frame = 0;
  const draw = () => out.write(`\r\x1b[K${FRAMES[frame++ % FRAMES.length]} ${runId}: ${latest} (${Math.round((Date.now() - started) / 1000)} s)`);
  const spinner = options.live ? setInterval(draw, 120) : undefined;
  const abort = new AbortController();
  let interrupted = false;
  const onInterrupt = () => {
    interrupted = true;
    abort.abort();
  };
  process.once('SIGINT', onInterrupt);
  try {
    let last = 0;
    for (let attempt = 0; attempt < 20 && !interrupted; attempt++) {
      last = await client
        .stream(
          `/api/v1/runs/${runId}/events`,
          last,
          (event, data) => {
            const text = describeEvent({ type: event as RunEvent['type'], data: (data as RunEvent).data ?? {} });
            latest = text;
            if (options.live) draw();
            else out.write(`${runId}: ${text}\n`);
          },
          abort.signal,
        )
        .catch((e: Error) => {
          if (e.name === 'AbortError') return last;
          throw e;
        });
      const run = await client.get<RunView>(`/api/v1/runs/${runId}`);
      if (!['queued', 'running'].includes(run.status) && !interrupted) return run;
    }
    if (!interrupted) throw new RequestFailed('STREAM_LOST', `Lost the event stream of ${runId}; \`svc runs show ${runId}\` shows where it is`);
    if (!options.cancelOnInterrupt) {
      out.write(`${options.live ? '\r\x1b[K' : ''}Stopped watching ${runId}; it goes on: \`svc runs watch ${runId}\` follows it again\n`);
      throw new Interrupted();
    }
    const cancelled = await client.delete<RunView>(`/api/v1/runs/${runId}`).catch((e: RequestFailed) => {
      if (e.status === 409) return client.get<RunView>(`/api/v1/runs/${runId}`);
      throw e;
    });
    out.write(
      `${options.live ? '\r\x1b[K' : ''}Interrupted: run ${runId} ${cancelled.status === 'cancelled' ? 'was cancelled on the server' : `had already ended (${cancelled.status})`}\n`,
    );
    throw new Interrupted();
  } finally {
    process.removeListener('SIGINT', onInterrupt);
    if (spinner) {
      clearInterval(spinner);
      out.write('\r\x1b[K');
    }
  }
}
