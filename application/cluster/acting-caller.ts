import { AsyncLocalStorage } from 'node:async_hooks';
import type { Caller } from '../../domain/auth/caller.js';

/*
 * The caller a piece of work is done for travels with its async work (as the
 * run scope does), so that every Kubernetes request a tool makes, however
 * deep in the shared parts (the model's functions, previews, rollout waits,
 * GitOps reads), is made as that caller without each use case passing it to
 * each cluster call. `null` is work done for no caller: svc's own identity.
 */
const storage = new AsyncLocalStorage<Caller | null>();

/** Runs `work` for `caller`: cluster requests inside it act as the caller (when impersonation is on). */
export function actingFor<T>(caller: Caller, work: () => Promise<T>): Promise<T> {
  return storage.run(caller, work);
}

/**
 * Runs `work` for no caller, with svc's own identity, even when started from
 * a caller's request: background work that outlives it (the capability scan).
 */
export function actingAsService<T>(work: () => Promise<T>): Promise<T> {
  return storage.run(null, work);
}

/** The caller the current work is done for; undefined for svc's own work. */
export function actingCaller(): Caller | undefined {
  return storage.getStore() ?? undefined;
}
