import type { RunScope } from '../../application/runs/run-scope.js';

/** What the tools/call handler is given by the SDK that this needs. */
interface CallExtra {
  signal: AbortSignal;
  requestId: string | number;
  sendNotification(notification: {
    method: 'notifications/progress';
    params: { progressToken: string | number; progress: number; message?: string };
  }): Promise<void>;
}

/**
 * `tools/call` runs in flight on this server, by caller and JSON-RPC id: the
 * route is stateless (each POST its own MCP server), so the
 * `notifications/cancelled` for a call arrives on another POST and is matched
 * here. Ids are the client's; two calls of one caller with the same id are
 * both cancelled (a client reuses an id only after its call ended).
 */
export class McpCallRegistry {
  private readonly calls = new Map<string, Set<AbortController>>();

  register(callerKey: string, id: string | number): { signal: AbortSignal; release(): void } {
    const key = `${callerKey}\u0000${JSON.stringify(id)}`;
    const controller = new AbortController();
    const set = this.calls.get(key) ?? new Set();
    this.calls.set(key, set.add(controller));
    return {
      signal: controller.signal,
      release: () => {
        set.delete(controller);
        if (set.size === 0 && this.calls.get(key) === set) this.calls.delete(key);
      },
    };
  }

  cancel(callerKey: string, id: unknown): void {
    if (typeof id !== 'string' && typeof id !== 'number') return;
    for (const c of this.calls.get(`${callerKey}\u0000${JSON.stringify(id)}`) ?? []) c.abort();
  }
}

/**
 * The run scope of one `tools/call`: cancelled by the client's
 * `notifications/cancelled` (or its leaving); with a `progressToken`, every
 * progress event is a `notifications/progress` (message: the event as JSON)
 * and one more every `heartbeatMs` keeps the response alive through idle timeouts.
 *
 * The scope outlives the call in whatever async resources the call created
 * (a keep-alive socket carries its async context), so it holds neither the
 * SDK's `extra` nor its signal once `finish` ran: its own signal, and a
 * sender that `finish` drops; otherwise every such socket would keep a
 * request's MCP server and transport reachable.
 */
export function mcpRunScope(
  extra: CallExtra,
  cancelled: AbortSignal,
  progressToken: string | number | undefined,
  heartbeatMs: number,
): { run: RunScope; finish(status: string): void } {
  const controller = new AbortController();
  const abort = () => controller.abort();
  for (const s of [extra.signal, cancelled]) {
    if (s.aborted) controller.abort();
    else s.addEventListener('abort', abort, { once: true });
  }
  let progress = 0;
  const sender: Sender = {};
  if (progressToken !== undefined) {
    sender.send = (message) => {
      progress += 1;
      extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, message } }).catch(() => undefined);
    };
  }
  const timer = sender.send ? setInterval(() => sender.send?.(JSON.stringify({ type: 'heartbeat' })), heartbeatMs) : undefined;
  timer?.unref();
  return {
    run: scopeOf(controller.signal, sender),
    finish(status) {
      clearInterval(timer);
      sender.send?.(JSON.stringify({ type: 'done', data: { status } }));
      sender.send = undefined;
      for (const s of [extra.signal, cancelled]) s.removeEventListener('abort', abort);
    },
  };
}

type Sender = { send?: (message: string) => void };

/** Built outside mcpRunScope, so its closure's context holds the sender only, never the SDK's `extra`. */
function scopeOf(signal: AbortSignal, sender: Sender): RunScope {
  return { signal, progress: (type, data) => sender.send?.(JSON.stringify({ type, data })) };
}
