/**
 * Domain errors carry a machine `code`; the interfaces layer maps codes to
 * transport statuses through one table (interfaces/http/error-status.ts).
 * Messages must be safe to show to a caller: never a credential, never a stack.
 */
export const ERROR_CODES = {
  VALIDATION_ERROR: 'VALIDATION_ERROR',
  NOT_FOUND: 'NOT_FOUND',
  TOOL_NOT_FOUND: 'TOOL_NOT_FOUND',
  PROMPT_NOT_FOUND: 'PROMPT_NOT_FOUND',
  EXECUTION_ERROR: 'EXECUTION_ERROR',
  DEPENDENCY_ERROR: 'DEPENDENCY_ERROR',
  PROMPTS_SOURCE_ERROR: 'PROMPTS_SOURCE_ERROR',
  /** A change that the resource's state no longer allows (cancelling a finished run). */
  CONFLICT: 'CONFLICT',
  /** The caller has as many things going as a limit allows (runs per caller). */
  RATE_LIMITED: 'RATE_LIMITED',
  /** A run stopped because its caller cancelled it. */
  CANCELLED: 'CANCELLED',
  /** A run whose replica stopped before it ended. */
  INTERRUPTED: 'INTERRUPTED',
  FORBIDDEN: 'FORBIDDEN',
} as const;
/** The codes the domain raises; transport-only codes (401, 405, 413, 500) live in interfaces/http/http-errors.ts. */
export type DomainErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];

export class DomainError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Bad input from the caller (400 VALIDATION_ERROR). */
export class ValidationError extends DomainError {
  constructor(message: string, details?: unknown) {
    super(ERROR_CODES.VALIDATION_ERROR, message, details);
  }
}

/** A named thing does not exist (404); `code` says which kind. */
export class NotFoundError extends DomainError {
  constructor(code: typeof ERROR_CODES.TOOL_NOT_FOUND | typeof ERROR_CODES.PROMPT_NOT_FOUND | typeof ERROR_CODES.NOT_FOUND, message: string) {
    super(code, message);
  }
}

/** A tool ran and failed (500 EXECUTION_ERROR); the message is shown to the caller. */
export class ExecutionError extends DomainError {
  constructor(message: string, details?: unknown) {
    super(ERROR_CODES.EXECUTION_ERROR, message, details);
  }
}

/** A dependency the operation needs is not configured; the message says what to set. */
export class NotConfiguredError extends ExecutionError {
  constructor(what: string, howToConfigure: string, verb: 'is' | 'are' = 'is') {
    super(`${what} ${verb} not configured: ${howToConfigure}`);
  }

  /** One error naming every missing setting: "The AI provider and the Kubernetes cluster are not configured: set ...; set ...". */
  static all(missing: readonly { what: string; how: string }[]): NotConfiguredError {
    if (missing.length === 1) return new NotConfiguredError(missing[0].what, missing[0].how);
    const what = missing.map((m, i) => (i === 0 ? m.what : m.what.charAt(0).toLowerCase() + m.what.slice(1))).join(' and ');
    return new NotConfiguredError(what, missing.map((m) => m.how).join('; '), 'are');
  }
}

/** Fetching a prompts repository failed (502 PROMPTS_SOURCE_ERROR). */
export class PromptsSourceError extends DomainError {
  constructor(message: string, details?: unknown) {
    super(ERROR_CODES.PROMPTS_SOURCE_ERROR, message, details);
  }
}

/** A dependency (vector DB, embeddings, cluster, LLM) failed or did not answer. */
export class DependencyError extends DomainError {
  constructor(
    readonly dependency: string,
    message: string,
  ) {
    super(ERROR_CODES.DEPENDENCY_ERROR, message);
  }
}

/** The resource's state does not allow the change (409 CONFLICT); `details` carries the evidence (what changed). */
export class ConflictError extends DomainError {
  constructor(message: string, details?: unknown) {
    super(ERROR_CODES.CONFLICT, message, details);
  }
}

/** A per-caller limit is reached (429 RATE_LIMITED). */
export class LimitReachedError extends DomainError {
  constructor(message: string) {
    super(ERROR_CODES.RATE_LIMITED, message);
  }
}

/** The run was cancelled: nothing more may start (no model call, function call or cluster write). */
export class CancelledError extends DomainError {
  constructor(message = 'the run was cancelled') {
    super(ERROR_CODES.CANCELLED, message);
  }
}

/**
 * The caller is known but may not do this (403 FORBIDDEN): a role they do not
 * hold, another caller's session, a second approver needed, or the cluster's
 * own RBAC refusing the caller. The message names what was needed.
 */
export class ForbiddenError extends DomainError {
  constructor(message: string, details?: unknown) {
    super(ERROR_CODES.FORBIDDEN, message, details);
  }
}
