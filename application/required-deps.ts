/**
 * A use case built without one of its safety collaborators (the write
 * guard, the ledger's recorder, the approval rule, verify, policies, the
 * write scope) must not start: a missing one would silently skip what it
 * guards. Thrown at construction, so a wiring mistake stops the composition
 * root (and svc's start), never a write. Not a DomainError: it is svc's own
 * bug, not a request's.
 */
export class MissingDependencyError extends Error {
  constructor(
    readonly owner: string,
    readonly dependency: string,
  ) {
    super(
      `${owner} was built without its ${dependency}: svc refuses to start rather than write without it (pass the null object named for it, e.g. NO_POLICIES, only where that is meant)`,
    );
    this.name = 'MissingDependencyError';
  }
}

/** Throws MissingDependencyError for the first of `names` that `deps` lacks (undefined or null). */
export function requireDependencies<T extends object>(owner: string, deps: T, names: readonly (keyof T & string)[]): void {
  for (const name of names) if (deps[name] === undefined || deps[name] === null) throw new MissingDependencyError(owner, name);
}
