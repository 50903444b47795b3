/**
 * Watches (`?watch=1` or `watch=true`), as kube-apiserver streams them: a
 * chunked `application/json` answer of one WatchEvent per line
 * (`{"type":"ADDED|MODIFIED|DELETED","object":{...}}`). Without a
 * `resourceVersion` (or with `0`) the objects that exist come first as ADDED;
 * with one, only what changed after it (objects whose resourceVersion is
 * newer come as MODIFIED). Then the stand-in looks every `pollMs` for changes
 * to the objects the list would answer (and, on a wall clock, lets the
 * simulation catch up first), until `timeoutSeconds` pass or the client goes.
 * Asked as a Table (`kubectl get -w`), each event's object is a one-row Table,
 * the column definitions only in the first.
 */
import type { ServerResponse } from 'node:http';
import type { Obj } from './kube-cluster.js';
import { table } from './kube-tables.js';

export interface WatchSource {
  /** The objects the watched list answers now, with apiVersion and kind. */
  current(): Obj[];
  /** Lets the simulated clock catch up with the wall clock (a no-op otherwise). */
  step(): void;
  nowMs(): number;
}

export interface WatchOptions {
  kind: string;
  resourceVersion: string | null;
  timeoutSeconds: number | null;
  asTable: boolean;
  includeObject: string | null;
  pollMs?: number;
}

const key = (o: Obj) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;

export function streamWatch(res: ServerResponse, source: WatchSource, o: WatchOptions): void {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
  let columns = true;
  const emit = (type: string, obj: Obj) => {
    const object = o.asTable ? table(o.kind, [obj], source.nowMs(), o.includeObject, { resourceVersion: obj.metadata.resourceVersion }, columns) : obj;
    columns = false;
    res.write(`${JSON.stringify({ type, object })}\n`);
  };
  const seen = new Map<string, string>();
  const since = o.resourceVersion && o.resourceVersion !== '0' ? Number(o.resourceVersion) : undefined;
  for (const obj of source.current()) {
    seen.set(key(obj), obj.metadata.resourceVersion);
    if (since === undefined) emit('ADDED', obj);
    else if (Number(obj.metadata.resourceVersion) > since) emit('MODIFIED', obj);
  }
  let last = new Map(source.current().map((x) => [key(x), x]));
  const poll = setInterval(() => {
    if (res.destroyed) return stop();
    source.step();
    const now = new Map(source.current().map((x) => [key(x), x]));
    for (const [k, obj] of now) {
      const was = seen.get(k);
      if (was === undefined) emit('ADDED', obj);
      else if (was !== obj.metadata.resourceVersion) emit('MODIFIED', obj);
      seen.set(k, obj.metadata.resourceVersion);
    }
    for (const [k, obj] of last)
      if (!now.has(k)) {
        emit('DELETED', obj);
        seen.delete(k);
      }
    last = now;
  }, o.pollMs ?? 250);
  const timeout = o.timeoutSeconds ? setTimeout(() => stop(), o.timeoutSeconds * 1000) : undefined;
  function stop(): void {
    clearInterval(poll);
    if (timeout) clearTimeout(timeout);
    if (!res.destroyed && !res.writableEnded) res.end();
  }
  res.on('close', stop);
}
