import type { DryRunResult, KubeObject, WaitResult } from '../../domain/cluster/kube-types.js';
import { CancelledError } from '../../domain/errors.js';
import type { ClusterWriter } from '../../domain/ports/cluster-writer.js';
import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import { currentRun, reportProgress, throwIfCancelled, withRunSignal } from './run-scope.js';

/** A rollout wait inside a run reports its ready counts and checks for a cancel this often. */
export const WAIT_SLICE_MS = 2000;

/**
 * The model port as every AI tool sees it: inside a run, each call is a
 * `model-call` event, none starts after a cancel, and the one in flight is
 * aborted by it. Outside a run it is the port itself.
 */
export function runAwareLlm(llm: LlmProvider): LlmProvider {
  return {
    status: () => llm.status(),
    // async: a cancel is the promise's rejection, as every other failure of a model call is, never a throw at the call
    async chat(messages, options = {}) {
      if (!currentRun()) return llm.chat(messages, options);
      throwIfCancelled();
      reportProgress('model-call', { model: options.model ?? llm.status().model ?? 'unknown' });
      return llm.chat(messages, { ...options, signal: withRunSignal(options.signal) });
    },
  };
}

type Target = { kind: string; name: string; namespace?: string };

const where = (o: { kind?: string; metadata?: { name?: string; namespace?: string }; name?: string; namespace?: string }): Target => ({
  kind: String(o.kind ?? '').slice(0, 63),
  name: String(o.metadata?.name ?? o.name ?? '').slice(0, 253),
  ...((o.metadata?.namespace ?? o.namespace) ? { namespace: String(o.metadata?.namespace ?? o.namespace).slice(0, 63) } : {}),
});

/**
 * The write port as every tool sees it: inside a run, no dry run, write or
 * wait starts after a cancel; a write already sent runs to its end and is
 * recorded as it ended (`applied` with its status); each dry run is a
 * `dry-run` event; a rollout wait is cut in slices that report `waiting`
 * with the ready counts and stop at a cancel.
 */
export function runAwareWriter(writer: ClusterWriter): ClusterWriter {
  /** A write: not started after a cancel; once sent, it ends and is recorded as it ended. */
  async function write<R>(method: string, target: Target, call: () => Promise<R>): Promise<R> {
    if (!currentRun()) return call();
    throwIfCancelled();
    try {
      const out = await call();
      reportProgress('applied', { method, ...target, status: 'applied' });
      return out;
    } catch (e) {
      reportProgress('applied', { method, ...target, status: 'failed' });
      throw e;
    }
  }
  async function dry(method: string, target: Target, call: () => Promise<DryRunResult>): Promise<DryRunResult> {
    if (!currentRun()) return call();
    throwIfCancelled();
    const verdict = await call();
    reportProgress('dry-run', { method, ...target, accepted: verdict.accepted });
    return verdict;
  }
  return {
    // every argument passed on as given (options included), so the view never changes what is sent
    dryRunApply: (...a: Parameters<ClusterWriter['dryRunApply']>) => dry('apply', where(a[0]), () => writer.dryRunApply(...a)),
    dryRunCreate: (...a: Parameters<ClusterWriter['dryRunCreate']>) => dry('create', where(a[0]), () => writer.dryRunCreate(...a)),
    create: (...a: Parameters<ClusterWriter['create']>) => write('create', where(a[0]), () => writer.create(...a)),
    dryRunPatch: (...a: Parameters<ClusterWriter['dryRunPatch']>) => dry('patch', where(a[0]), () => writer.dryRunPatch(...a)),
    dryRunDelete: (...a: Parameters<ClusterWriter['dryRunDelete']>) => dry('delete', where(a[0]), () => writer.dryRunDelete(...a)),
    apply: (...a: Parameters<ClusterWriter['apply']>) => write('apply', where(a[0]), () => writer.apply(...a)),
    patch: (...a: Parameters<ClusterWriter['patch']>) => write('patch', where(a[0]), () => writer.patch(...a)),
    delete: (...a: Parameters<ClusterWriter['delete']>) => write('delete', where(a[0]), () => writer.delete(...a)),
    async waitFor(ref, condition, options) {
      const run = currentRun();
      if (!run) return writer.waitFor(ref, condition, options);
      let elapsedMs = 0;
      for (;;) {
        throwIfCancelled();
        const slice = Math.max(1, Math.min(WAIT_SLICE_MS, options.timeoutMs - elapsedMs));
        const r = await untilCancelled(writer.waitFor(ref, condition, { ...options, timeoutMs: slice }), run.signal);
        elapsedMs += r.met ? r.elapsedMs : Math.max(r.elapsedMs, slice);
        reportProgress('waiting', { ...where(ref), ...readyCounts(r.object), met: r.met });
        if (r.met || elapsedMs >= options.timeoutMs) return { ...r, elapsedMs };
      }
    },
  };
}

/** Ready counts of a workload as `kubectl rollout status` reads them. */
export function readyCounts(object: KubeObject | undefined): { ready?: number; desired?: number; updated?: number } {
  const spec = (object?.spec ?? {}) as { replicas?: unknown };
  const status = (object?.status ?? {}) as { readyReplicas?: unknown; updatedReplicas?: unknown };
  const num = (v: unknown) => (typeof v === 'number' ? v : 0);
  if (!object) return {};
  return { ready: num(status.readyReplicas), desired: typeof spec.replicas === 'number' ? spec.replicas : 1, updated: num(status.updatedReplicas) };
}

function untilCancelled(work: Promise<WaitResult>, signal: AbortSignal): Promise<WaitResult> {
  if (signal.aborted) return Promise.reject(new CancelledError());
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new CancelledError());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
