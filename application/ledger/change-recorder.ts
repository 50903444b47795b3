import type { Caller } from '../../domain/auth/caller.js';
import type { RiskLevel } from '../../domain/actions/cluster-action.js';
import type { KubeObject, ResourceRef } from '../../domain/cluster/kube-types.js';
import { DomainError, ExecutionError } from '../../domain/errors.js';
import {
  ledgerCallerOf,
  REQUEST_MAX_CHARS,
  type ChangeApproval,
  type ChangeEntry,
  type ChangeOutcome,
  type ChangeRecord,
  type SentChange,
} from '../../domain/ledger/change-entry.js';
import { inverseOf } from '../../domain/ledger/inverse-change.js';
import { scrubRecord } from '../../domain/ledger/ledger-scrub.js';
import { scopeSecretValues } from '../security/secret-scope.js';
import { objectState, redactObject, targetOf } from '../../domain/ledger/object-state.js';
import { diffObjects, type FieldChange } from '../../domain/operations/object-diff.js';
import type { ChangeLedger } from '../../domain/ports/change-ledger.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { Logger } from '../../domain/ports/logger.js';
import { currentRun } from '../runs/run-scope.js';

/** Who and what a run of writes is for: the same for every write of one tool run. */
export interface WriteContext {
  caller: Caller;
  tool: string;
  sessionId?: string;
  /** The issue or intent (cut to 2,000 characters here). */
  request?: string;
  approval: ChangeApproval;
  /** The HTTP request the writes belong to (recorded on each intent). */
  requestId?: string;
  /** For an undo through the ledger: the entry it undoes. */
  revertOf?: string;
  /** Collects the ids of the entries written (the tool run's `ToolContext.ledgerIds`). */
  ledgerIds?: string[];
  /** This run's own credentials (the request's git token): `***` wherever they show in an entry. */
  secrets?: readonly string[];
}

/** The context of a tool run's writes: the caller approved them, unless an automatic rule did. */
export function writeContextFor(
  tool: string,
  sessionId: string,
  request: string,
  run: { caller: Caller; ledgerIds?: string[]; gitToken?: string; requestId?: string },
  automatic?: ChangeApproval,
): WriteContext {
  return {
    caller: run.caller,
    tool,
    sessionId,
    request,
    approval: automatic ?? { mode: 'manual', by: run.caller.username },
    ...(run.requestId ? { requestId: run.requestId } : {}),
    ...(run.ledgerIds ? { ledgerIds: run.ledgerIds } : {}),
    ...(run.gitToken ? { secrets: [run.gitToken] } : {}),
  };
}

/** One write about to be sent. */
export interface PlannedWrite {
  target: ResourceRef;
  /** The exact call: method, patch type, body. */
  change: SentChange;
  rationale?: string;
  risk?: RiskLevel;
  /** The server-side dry run of this write (its `object`: what the server would store). */
  dryRun: { accepted: boolean; message?: string; object?: KubeObject };
}

export interface RecordedWrite {
  /** The object as stored after the write (undefined after a delete, or when it failed). */
  object?: KubeObject;
  /** The ledger entry's id; undefined only when the ledger itself failed (logged, and said in `ledgerError`). */
  ledgerId?: string;
  ledgerError?: string;
  /** The write's own failure, rethrown by the caller's logic as it sees fit. */
  error?: unknown;
}

function outcomeOf(error: unknown): ChangeOutcome {
  if (error === undefined) return { status: 'applied' };
  if (error instanceof DomainError) {
    const reason = (error.details as { reason?: unknown } | undefined)?.reason;
    // the API server answered with a Status: a refusal, with its reason and message
    if (typeof reason === 'string') return { status: 'refused', reason, message: error.message.slice(0, 2000) };
    return { status: 'failed', message: error.message.slice(0, 2000) };
  }
  return { status: 'failed', message: 'the cluster call failed unexpectedly' };
}

const redactDiff = (kind: string, diff: FieldChange[]): FieldChange[] =>
  kind === 'Secret'
    ? diff.map((d) =>
        /^(data|stringData)\b/.test(d.path) ? { path: d.path, ...('from' in d ? { from: '***' } : {}), ...('to' in d ? { to: '***' } : {}) } : d,
      )
    : diff;

/**
 * What a writing use case records its writes through: the ChangeRecorder.
 * Always given (a use case built without one does not start); a test that
 * means to record nothing passes the null object named for it.
 */
export type WriteRecorder = Pick<ChangeRecorder, 'write'>;

/**
 * The intent of a write could not be recorded: the write was not sent
 * (nothing reaches a cluster that the ledger cannot record). 500
 * EXECUTION_ERROR; the message says what was not sent and why.
 */
export class LedgerIntentError extends ExecutionError {}

/**
 * The one place a write to a cluster is recorded, ahead of the write: reads
 * the object before, appends an `intent` entry (what is about to be sent, by
 * whom, for which session, run and request) and waits until it is durable
 * (file: fsynced; Redis: acknowledged), only then sends the write, and
 * appends the outcome entry naming the intent (`intentId`) with every field
 * (before state, dry-run verdict and diff, the exact change, the outcome with
 * the API server's refusal, resourceVersion after, the inverse). Secret
 * values and the last-applied annotation read `***`, and credentials in its
 * text (scrubRecord) too. An intent that cannot be appended stops the write:
 * LedgerIntentError, nothing sent. An outcome that cannot be appended leaves
 * the intent open (recovery closes it, see RecoverIntents); the write's own
 * failure is handed back, not thrown.
 */
export class ChangeRecorder {
  constructor(
    private readonly ledger: ChangeLedger,
    private readonly reader: ClusterReader,
    private readonly logger?: Logger,
    /** svc's own credential values (auth token, model API key and headers, git token): `***` wherever they show in an entry. */
    private readonly secrets: readonly string[] = [],
  ) {}

  async write(context: WriteContext, planned: PlannedWrite, send: () => Promise<KubeObject | undefined>): Promise<RecordedWrite> {
    // a before state that could not be read is not "absent": an undo built on that guess could delete a live object
    let beforeUnknown = false;
    const before = await this.reader.get(planned.target).catch(() => {
      beforeUnknown = true;
      return null;
    });
    const kind = planned.target.kind;
    const beforeState = objectState(before);
    const base = {
      caller: ledgerCallerOf(context.caller),
      tool: context.tool,
      ...(context.sessionId ? { sessionId: context.sessionId } : {}),
      ...(context.request ? { request: context.request.slice(0, REQUEST_MAX_CHARS) } : {}),
      ...(planned.rationale ? { rationale: planned.rationale } : {}),
      ...(planned.risk ? { risk: planned.risk } : {}),
      approval: context.approval,
      target: targetOf(planned.target),
      before: beforeState,
      dryRun: {
        accepted: planned.dryRun.accepted,
        ...(planned.dryRun.message ? { message: planned.dryRun.message } : {}),
        diff: redactDiff(kind, planned.dryRun.object ? diffObjects(before, planned.change.method === 'delete' ? null : planned.dryRun.object) : []),
      },
      change: { ...planned.change, ...(planned.change.body !== undefined ? { body: redactObject(kind, planned.change.body) } : {}) },
      ...(context.revertOf ? { revertOf: context.revertOf } : {}),
    };
    const runId = currentRun()?.runId;
    const intent = await this.appendIntent(context, {
      ...base,
      type: 'intent',
      ...(runId ? { runId } : {}),
      ...(context.requestId ? { requestId: context.requestId } : {}),
      ...(beforeUnknown ? { beforeUnread: true as const } : {}),
      outcome: { status: 'pending' },
      inverse: null,
    });
    let object: KubeObject | undefined;
    let error: unknown;
    try {
      object = await send();
    } catch (e) {
      error = e;
    }
    const applied = error === undefined;
    const after = applied ? (planned.change.method === 'delete' ? null : (object ?? null)) : undefined;
    const secretData = kind === 'Secret' && !!before && /"(data|stringData)"/.test(JSON.stringify(planned.change.body ?? {}));
    const record: ChangeRecord = {
      ...base,
      type: context.revertOf ? 'revert' : 'change',
      intentId: intent.id,
      ...(after !== undefined ? { after: objectState(after) } : {}),
      outcome: outcomeOf(error),
      ...(typeof object?.metadata?.resourceVersion === 'string' && planned.change.method !== 'delete'
        ? { resourceVersionAfter: object.metadata.resourceVersion }
        : {}),
      inverse: after === undefined || secretData || beforeUnknown ? null : inverseOf(targetOf(planned.target), beforeState, after),
    };
    return { object, error, ...(await this.append(context, record)) };
  }

  /** The intent, durable before the write goes out; a ledger that cannot take it stops the write. */
  private async appendIntent(context: WriteContext, record: ChangeRecord): Promise<ChangeEntry> {
    try {
      return await this.appendScrubbed(context, record);
    } catch (e) {
      const what = `${record.change.method} of ${record.target.kind}/${record.target.name}${record.target.namespace ? ` in ${record.target.namespace}` : ''}`;
      this.logger?.error('the intent of a write could not be recorded in the change ledger: the write was not sent', {
        target: what,
        error: (e as Error).message,
      });
      throw new LedgerIntentError(
        `The change ledger could not record the intent of the ${what}, so it was not sent to the cluster (svc sends no write the ledger cannot record): ${(e as Error).message}`,
        { target: record.target },
      );
    }
  }

  /** A record scrubbed, appended and made durable (throws what the ledger throws); the new head logged. */
  private async appendScrubbed(context: Pick<WriteContext, 'secrets'>, record: ChangeRecord): Promise<ChangeEntry> {
    // svc's own credentials, the caller's git token, and every Secret value this run read or wrote
    const entry = await this.ledger.append(scrubRecord(record, [...this.secrets, ...(context.secrets ?? []), ...scopeSecretValues()]));
    // the new head in the log: shipped logs keep a copy of the chain's end outside svc (docs/ledger.md, anchoring)
    this.logger?.info('change ledger entry appended', { ledgerId: entry.id, seq: entry.seq, hash: entry.hash, type: entry.type });
    return entry;
  }

  /** A later verdict's entry (verdictRecord), scrubbed like every record (its evidence is cluster text); throws what the ledger throws. */
  recordVerdict(record: ChangeRecord): Promise<ChangeEntry> {
    return this.appendScrubbed({}, record);
  }

  /** The outcome recovery observed for an open intent, scrubbed like every record; throws what the ledger throws (ConflictError: closed meanwhile). */
  recordRecovered(record: ChangeRecord): Promise<ChangeEntry> {
    return this.appendScrubbed({}, record);
  }

  /**
   * Appends a record made elsewhere (a git delivery's, see gitChangeRecord)
   * and adds its id to the run's ids. A ledger failure is logged and answered
   * as `ledgerError`, never thrown: the change happened whatever the ledger says.
   */
  async append(context: WriteContext, record: ChangeRecord): Promise<Pick<RecordedWrite, 'ledgerId' | 'ledgerError'>> {
    try {
      const entry = await this.appendScrubbed(context, record);
      context.ledgerIds?.push(entry.id);
      return { ledgerId: entry.id };
    } catch (e) {
      // the write happened (or was refused) whatever the ledger says: the answer must still tell it
      this.logger?.error('a change could not be recorded in the change ledger', {
        target: `${record.target.kind}/${record.target.name}`,
        error: (e as Error).message,
      });
      const open = record.intentId ? `; its intent ${record.intentId} is recorded, and recovery records the outcome it observes` : '';
      return { ledgerError: `the change ledger could not record this change: ${(e as Error).message}${open}` };
    }
  }
}
