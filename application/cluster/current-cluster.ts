import { AsyncLocalStorage } from 'node:async_hooks';

/*
 * The cluster a piece of work is for travels with its async work, as the
 * caller does (acting-caller.ts): the tool entry point, the session, ledger
 * and revert use cases choose the cluster before any I/O and run the work
 * inside its scope; every cluster request made inside it, however deep in
 * the shared parts, goes to that cluster's client (fleet-cluster.ts).
 */
const storage = new AsyncLocalStorage<string>();

/** Runs `work` for cluster `name`: every cluster request inside it goes to that cluster. */
export function withinCluster<T>(name: string, work: () => Promise<T>): Promise<T> {
  return storage.run(name, work);
}

/** The cluster the current work is for; undefined outside any cluster's scope. */
export function currentCluster(): string | undefined {
  return storage.getStore();
}
