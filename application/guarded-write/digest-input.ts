import { refOf } from '../../domain/write-guard/resolved-target.js';
import { sentChangeOf } from './operation-calls.js';
import type { GuardedWriteResult } from './write-request.js';

/**
 * What a plan digest covers of one guarded write: the target, the call as
 * it is sent (body and preconditions), the live version it was judged
 * against, its effect, svc's risk with its reasons, and its refusal. Not the
 * diff nor the dry run's warnings: the dry run's server-assigned values (a
 * Service's clusterIP, a uid) differ at every dry run, and the diff follows
 * from what is digested.
 */
export function digestInputOf(r: GuardedWriteResult): Record<string, unknown> {
  return {
    target: r.target ? refOf(r.target) : r.ref,
    sent: sentChangeOf(r.operation),
    ...(r.resourceVersion ? { resourceVersion: r.resourceVersion } : {}),
    ...(r.uid ? { uid: r.uid } : {}),
    ...(r.effect ? { effect: r.effect } : {}),
    ...(r.changed !== undefined ? { changed: r.changed } : {}),
    risk: r.risk,
    riskReasons: r.riskReasons,
    ...(r.refusal ? { refusal: { reason: r.refusal.reason, message: r.refusal.message } } : {}),
  };
}
