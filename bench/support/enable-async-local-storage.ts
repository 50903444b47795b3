/**
 * Preloaded (`node -r`) by bench/tracing's `off+als` mode: switches on one
 * AsyncLocalStorage and nothing else, to show what context propagation alone
 * costs. On Node 20 an active AsyncLocalStorage runs a hook for every promise
 * created in the process; tracing needs one to nest spans across awaits.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

new AsyncLocalStorage<object>().enterWith({});
