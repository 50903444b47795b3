/**
 * Domain errors carry a machine `code`; the interfaces layer maps codes to
 * transport statuses through one table (interfaces/http/error-status.ts).
 * Messages must be safe to show to a caller: never a credential, never a stack.
 */
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
    super('VALIDATION_ERROR', message, details);
  }
}

/** A named thing does not exist (404); `code` says which kind. */
export class NotFoundError extends DomainError {
  constructor(code: 'TOOL_NOT_FOUND' | 'PROMPT_NOT_FOUND' | 'NOT_FOUND', message: string) {
    super(code, message);
  }
}

/** A tool ran and failed (500 EXECUTION_ERROR); the message is shown to the caller. */
export class ExecutionError extends DomainError {
  constructor(message: string, details?: unknown) {
    super('EXECUTION_ERROR', message, details);
  }
}

/** A dependency the operation needs is not configured; the message says what to set. */
export class NotConfiguredError extends ExecutionError {
  constructor(what: string, howToConfigure: string) {
    super(`${what} is not configured: ${howToConfigure}`);
  }
}

/** Fetching a prompts repository failed (502 PROMPTS_SOURCE_ERROR). */
export class PromptsSourceError extends DomainError {
  constructor(message: string, details?: unknown) {
    super('PROMPTS_SOURCE_ERROR', message, details);
  }
}

/** A request body over a size limit (413 PAYLOAD_TOO_LARGE). */
export class PayloadTooLargeError extends DomainError {
  constructor(message: string) {
    super('PAYLOAD_TOO_LARGE', message);
  }
}

/** Missing or wrong bearer token (401 UNAUTHORIZED). */
export class UnauthorizedError extends DomainError {
  constructor(message = 'Missing or invalid bearer token') {
    super('UNAUTHORIZED', message);
  }
}

/** A dependency (vector DB, embeddings, cluster, LLM) failed or did not answer. */
export class DependencyError extends DomainError {
  constructor(readonly dependency: string, message: string) {
    super('DEPENDENCY_ERROR', message);
  }
}
