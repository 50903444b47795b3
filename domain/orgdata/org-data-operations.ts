import type { z } from 'zod';

export const ORG_DATA_TYPES = ['pattern', 'policy', 'capabilities'] as const;
export type OrgDataType = (typeof ORG_DATA_TYPES)[number];

export const ORG_DATA_OPERATIONS = ['create', 'list', 'get', 'delete', 'deleteAll', 'search', 'scan', 'progress'] as const;
export type OrgDataOperation = (typeof ORG_DATA_OPERATIONS)[number];

const DOCUMENT_OPERATIONS = ['create', 'list', 'get', 'delete', 'deleteAll', 'search'] as const;

/** The dataType x operation table: nothing outside it runs. */
export const VALID_OPERATIONS: Readonly<Record<OrgDataType, readonly OrgDataOperation[]>> = {
  pattern: DOCUMENT_OPERATIONS,
  policy: DOCUMENT_OPERATIONS,
  capabilities: ['scan', 'progress', 'list', 'get', 'delete', 'deleteAll', 'search'],
};

/** The optional parameters each operation takes, and which of them it requires. */
export const OPERATION_PARAMETERS: Readonly<Record<OrgDataOperation, { takes: readonly string[]; requires: readonly string[] }>> = {
  create: { takes: ['document'], requires: ['document'] },
  list: { takes: ['limit', 'cursor'], requires: [] },
  get: { takes: ['id'], requires: ['id'] },
  delete: { takes: ['id'], requires: ['id'] },
  deleteAll: { takes: ['confirm'], requires: ['confirm'] },
  search: { takes: ['query', 'limit'], requires: ['query'] },
  scan: { takes: ['resources'], requires: [] },
  progress: { takes: ['id'], requires: [] },
};

/** Every parameter besides dataType and operation. */
export const OPERATION_FIELDS = ['id', 'document', 'query', 'limit', 'cursor', 'confirm', 'resources'] as const;

/** "pattern: create, list, ...; policy: ...; capabilities: ..." for error messages and docs. */
export function validCombinations(): string {
  return ORG_DATA_TYPES.map((t) => `${t}: ${VALID_OPERATIONS[t].join(', ')}`).join('; ');
}

export function isValidCombination(dataType: OrgDataType, operation: OrgDataOperation): boolean {
  return VALID_OPERATIONS[dataType].includes(operation);
}

type Issue = { path: (string | number)[]; message: string };

/**
 * Per-combination rules of a manageOrgData input whose fields each passed
 * their own schema: the combination is in the table, the operation's
 * required parameters are there and no other parameter is, and a document
 * fits its dataType. Returns the problems (empty when valid).
 */
export function orgDataInputIssues(input: { dataType: OrgDataType; operation: OrgDataOperation } & Record<string, unknown>): Issue[] {
  const { dataType, operation } = input;
  if (!isValidCombination(dataType, operation)) {
    return [{ path: ['operation'], message: `operation '${operation}' is not valid for dataType '${dataType}'. Valid combinations: ${validCombinations()}` }];
  }
  const issues: Issue[] = [];
  const { takes, requires } = OPERATION_PARAMETERS[operation];
  for (const field of requires) {
    if (input[field] === undefined) issues.push({ path: [field], message: `is required for ${dataType} ${operation}` });
  }
  for (const field of OPERATION_FIELDS) {
    if (input[field] !== undefined && !takes.includes(field)) {
      issues.push({
        path: [field],
        message: `is not used by ${operation}${takes.length ? ` (it takes: ${takes.join(', ')})` : ' (it takes no other parameter)'}`,
      });
    }
  }
  const doc = input.document as { suggestedResources?: unknown; constraints?: unknown; clusters?: unknown } | undefined;
  if (operation === 'create' && doc) {
    if (dataType === 'pattern' && doc.suggestedResources === undefined)
      issues.push({ path: ['document', 'suggestedResources'], message: 'is required for a pattern' });
    if (dataType === 'pattern' && doc.constraints !== undefined)
      issues.push({ path: ['document', 'constraints'], message: 'only a policy carries constraints' });
    if (dataType === 'pattern' && doc.clusters !== undefined) issues.push({ path: ['document', 'clusters'], message: 'only a policy is limited to clusters' });
    if (dataType === 'policy' && doc.suggestedResources !== undefined)
      issues.push({ path: ['document', 'suggestedResources'], message: 'only a pattern suggests resources' });
  }
  return issues;
}

/** `orgDataInputIssues` as a zod superRefine, so the tool's schema rejects a bad combination with a 400. */
export function refineOrgDataInput(input: { dataType: OrgDataType; operation: OrgDataOperation } & Record<string, unknown>, ctx: z.RefinementCtx): void {
  for (const issue of orgDataInputIssues(input)) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
}
