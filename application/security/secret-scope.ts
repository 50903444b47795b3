import { AsyncLocalStorage } from 'node:async_hooks';
import type { ResourceRef } from '../../domain/cluster/kube-types.js';
import { isJsonObject } from '../../domain/json-object.js';
import type { ClusterReader } from '../../domain/ports/cluster-reader.js';
import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import type { SessionStore } from '../../domain/ports/session-store.js';
import type { Session } from '../../domain/sessions/session.js';
import { scrubSecretValues, secretValuesOf, secretValuesWritten } from '../../domain/security/secret-values.js';

/**
 * The Secret values one tool run met, so that they are scrubbed by value
 * from everything the run hands out: its answer, the sessions it stores, its
 * ledger entries and the text it sends to a model.
 *
 * - `read`: every value of every Secret the cluster adapter read (a GET or a
 *   list answers them; svc's objects show them as `***`, but a value copied
 *   into another field, a log line or a model's words would not be).
 * - `written`: the values an action puts into a Secret (a model's new
 *   password). They are scrubbed everywhere but the stored session, which
 *   must keep the action to execute it.
 *
 * The scope travels with the async work of one tool call
 * (AsyncLocalStorage); outside one, nothing is collected or scrubbed.
 */
interface SecretScope {
  read: Set<string>;
  written: Set<string>;
  /** The Secrets read (names, never values): a later step re-reads them to scrub again. */
  refs: Map<string, ResourceRef>;
}

const storage = new AsyncLocalStorage<SecretScope>();

/** Runs one tool call inside its own scope (a nested call joins the caller's). */
export function withinSecretScope<T>(work: () => Promise<T>): Promise<T> {
  if (storage.getStore()) return work();
  return storage.run({ read: new Set(), written: new Set(), refs: new Map() }, work);
}

/** What the cluster adapter read (an object or a list), before it redacts Secret values: their values and names join the scope. */
export function noteObjectRead(raw: unknown): void {
  const scope = storage.getStore();
  if (!scope) return;
  for (const v of secretValuesOf(raw)) scope.read.add(v);
  const items = isJsonObject(raw) && Array.isArray(raw.items) ? raw.items : [raw];
  for (const o of items) {
    if (!isJsonObject(o) || o.kind !== 'Secret' || !isJsonObject(o.metadata) || typeof o.metadata.name !== 'string') continue;
    const namespace = typeof o.metadata.namespace === 'string' ? o.metadata.namespace : undefined;
    const ref = { apiVersion: 'v1', kind: 'Secret', name: o.metadata.name, ...(namespace ? { namespace } : {}) };
    scope.refs.set(`${namespace ?? ''}/${ref.name}`, ref);
  }
}

/** Values an action writes into a Secret (secretValuesWritten). */
export function noteValuesWritten(values: readonly string[]): void {
  const scope = storage.getStore();
  if (scope) for (const v of values) scope.written.add(v);
}

/** Every value of the scope, read and written: what answers, the ledger and a model never see. */
export function scopeSecretValues(): string[] {
  const scope = storage.getStore();
  return scope ? [...scope.read, ...scope.written] : [];
}

/** `value` with every value of the scope as `***` (scrubSecretValues). */
export function scrubInScope<T>(value: T): T {
  return scrubSecretValues(value, scopeSecretValues());
}

/** The model port with every message scrubbed of the scope's values before it is sent. */
export function scrubbingLlm(llm: LlmProvider): LlmProvider {
  return {
    status: () => llm.status(),
    chat: (messages, options) => llm.chat(scrubInScope(messages), options),
  };
}

/** What the actions held in a session's state write into Secrets: a Secret manifest's values, a patch's of a Secret target. */
function valuesWrittenIn(state: unknown, depth = 0): string[] {
  if (depth > 32) return [];
  if (Array.isArray(state)) return state.flatMap((x) => valuesWrittenIn(x, depth + 1));
  if (!isJsonObject(state)) return [];
  const t = state.target;
  const own =
    isJsonObject(t) && 'patch' in state ? secretValuesWritten({ apiVersion: String(t.apiVersion), kind: String(t.kind) }, state.patch) : secretValuesOf(state);
  return [...own, ...Object.values(state).flatMap((x) => valuesWrittenIn(x, depth + 1))];
}

/** A field the session store adds to a session's state: the Secrets its runs read (names only). */
export const SECRETS_READ = 'secretsRead';

/**
 * The session store as tools see it: a session is stored without the values
 * of the Secrets its run read (the values a run wrote stay: executing the
 * action needs them), and remembers which Secrets those were; reading a
 * session reads those Secrets again (their values join the scope) and
 * answers it scrubbed, so a later step (execute, refine, a viewer's look)
 * scrubs what the first one did.
 */
export function scrubbingSessionStore(store: SessionStore, reader: ClusterReader): SessionStore {
  const prepare = <S>(state: S): S => {
    const scope = storage.getStore();
    if (!scope || !isJsonObject(state)) return state;
    const known = Array.isArray(state[SECRETS_READ]) ? (state[SECRETS_READ] as ResourceRef[]) : [];
    const refs = new Map(known.map((r) => [`${r.namespace ?? ''}/${r.name}`, r]));
    for (const [k, r] of scope.refs) refs.set(k, r);
    const scrubbed = scrubSecretValues(state, [...scope.read]) as Record<string, unknown>;
    return (refs.size ? { ...scrubbed, [SECRETS_READ]: [...refs.values()].slice(0, 50) } : scrubbed) as S;
  };
  const reread = async (state: unknown): Promise<void> => {
    if (!storage.getStore() || !isJsonObject(state) || !Array.isArray(state[SECRETS_READ])) return;
    for (const ref of (state[SECRETS_READ] as ResourceRef[]).slice(0, 50)) {
      try {
        await reader.get(ref); // the adapter notes the values it read
      } catch {
        // a Secret svc may no longer read: its values were scrubbed when the session was stored
      }
    }
  };
  const answered = async <S>(session: Session<S> | undefined): Promise<Session<S> | undefined> => {
    if (!session) return session;
    await reread(session.state);
    // the values its actions write into Secrets: kept in the session, scrubbed from this call's answer and model text
    noteValuesWritten(valuesWrittenIn(session.state));
    return { ...session, state: scrubSecretValues(session.state, [...(storage.getStore()?.read ?? [])]) };
  };
  return {
    create: async (kind, state) => (await answered(await store.create(kind, prepare(state))))!,
    get: async (kind, id) => answered(await store.get(kind, id)),
    update: async (kind, id, revision, state) => {
      const r = await store.update(kind, id, revision, prepare(state));
      return r.conflict ? { conflict: true, current: await answered(r.current) } : { conflict: false, session: (await answered(r.session))! };
    },
    list: (query) => store.list(query),
  };
}
