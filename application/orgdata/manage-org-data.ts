import { ValidationError } from '../../domain/errors.js';
import { isValidCombination, validCombinations } from '../../domain/orgdata/org-data-operations.js';
import type { ToolInput } from '../../domain/tools/tool-definitions.js';
import type { ToolHandler } from '../tool-handler.js';
import type { CollectionOperations, DocumentOperations } from './document-operations.js';
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
    private readonly scan: ScanCapabilities,
  ) {}

  async execute(input: Input): Promise<unknown> {
    const { dataType, operation } = input;
    // the schema already refused these; kept so a caller that skips validation cannot reach a wrong branch
    if (!isValidCombination(dataType, operation))
      throw new ValidationError(`operation '${operation}' is not valid for dataType '${dataType}'. Valid combinations: ${validCombinations()}`);
    const ops = dataType === 'pattern' ? this.patterns : dataType === 'policy' ? this.policies : this.capabilities;
    switch (operation) {
      case 'create':
        return (ops as DocumentOperations).create(required(input.document, 'document'));
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
        return this.scan.start(input.resources);
      case 'progress':
        return this.scan.progress(input.id);
    }
  }
}

function required<T>(value: T | undefined, field: string): T {
  if (value === undefined) throw new ValidationError(`${field} is required for this operation`, [{ field, message: 'required' }]);
  return value;
}
