import { ValidationError } from '../../domain/errors.js';
import { isValidCombination, validCombinations } from '../../domain/orgdata/org-data-operations.js';
import type { ToolInput } from '../../domain/tools/tool-definitions.js';
import { reportProgress } from '../runs/run-scope.js';
import type { ToolContext, ToolHandler } from '../tool-handler.js';
import type { CollectionOperations, DocumentOperations } from './document-operations.js';
import { ClusterScans } from './cluster-scans.js';
import type { ScanCapabilities } from './scan-capabilities.js';

type Input = ToolInput<'manageOrgData'>;

/**
 * The `manageOrgData` tool: the input has been validated per combination by
 * the tool's schema (domain/orgdata/org-data-operations.ts); this dispatches
 * it to the collection's operations or to the scan.
 */
export class ManageOrgData implements ToolHandler<Input> {
  constructor(
    private readonly patterns: DocumentOperations,
    private readonly policies: DocumentOperations,
    private readonly capabilities: CollectionOperations,
    /** The one scan, or with several clusters each cluster's (the call's cluster picks it). */
    private readonly scans: ScanCapabilities | ClusterScans,
  ) {}

  async execute(input: Input, context?: ToolContext): Promise<unknown> {
    const { dataType, operation } = input;
    // the schema already refused these; kept so a caller that skips validation cannot reach a wrong branch
    if (!isValidCombination(dataType, operation))
      throw new ValidationError(`operation '${operation}' is not valid for dataType '${dataType}'. Valid combinations: ${validCombinations()}`);
    const ops = dataType === 'pattern' ? this.patterns : dataType === 'policy' ? this.policies : this.capabilities;
    switch (operation) {
      case 'create':
        return (ops as DocumentOperations).create(required(input.document, 'document'), creatorOf(context));
      case 'list':
        return ops.list(input.limit, input.cursor);
      case 'get':
        return ops.get(required(input.id, 'id'));
      case 'delete':
        return ops.delete(required(input.id, 'id'));
      case 'deleteAll':
        if (input.confirm !== true) throw new ValidationError('deleteAll needs confirm: true');
        return ops.deleteAll();
      case 'search':
        return ops.search(required(input.query, 'query'), input.limit);
      case 'scan':
        return this.startScan(input.resources, context);
      case 'progress':
        return this.scan().progress(input.id);
    }
  }

  /**
   * The scan answers at once with its progress and goes on in the background;
   * as a run of its own (Prefer: respond-async) the run is the scan: it
   * follows it to its end, each kind a `scanned` event, a cancel stopping it,
   * and answers the same with the progress it ended with.
   */
  private async startScan(resources: string[] | undefined, context: ToolContext | undefined): Promise<unknown> {
    const ownRun = context?.respondAsync === true && context.signal !== undefined;
    const scan = this.scan();
    const answer = await scan.start(resources, ownRun);
    if (!ownRun || !answer.started || answer.progress?.status !== 'running' || !answer.scanId) return answer;
    const progress = await scan.follow(answer.scanId, context!.signal!, (resource, p) =>
      reportProgress('scanned', { resource, ok: !p.failures.some((f) => f.resource === resource), done: p.done, total: p.total }),
    );
    return { ...answer, progress };
  }

  private scan(): ScanCapabilities {
    return this.scans instanceof ClusterScans ? this.scans.current() : this.scans;
  }
}

/** Who a document names as its creator when the caller names none: their person, else their username (anonymous outside a request). */
function creatorOf(context: ToolContext | undefined): string {
  return context?.caller.person ?? context?.caller.username ?? 'anonymous';
}

function required<T>(value: T | undefined, field: string): T {
  if (value === undefined) throw new ValidationError(`${field} is required for this operation`, [{ field, message: 'required' }]);
  return value;
}
