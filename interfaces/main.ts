import type { Config } from '../infrastructure/config/config.js';
import { ConfigError } from '../infrastructure/config/env-parsers.js';
import { parseServerConfig } from '../infrastructure/config/server-config.js';
import { serverLogger, type ServerLogger } from '../infrastructure/server-logger.js';
import { openServer, type StartingServer } from './http/early-server.js';

/**
 * The heaviest libraries and modules of the composition and the app, loaded
 * one per turn of the event loop before them (paths relative to this file).
 * Loading a module blocks the loop; between two steps the listening server
 * answers /healthz, so a probe waits for one step, never for the whole start.
 * Whatever is not listed loads with the composition root, as before: the list
 * only orders the work (a test checks that every entry resolves).
 */
export const START_STEPS: readonly string[] = [
  'pino',
  '../infrastructure/logging/pino-logger.js',
  'reflect-metadata',
  'zod',
  'tsyringe',
  'yaml',
  'prom-client',
  'express',
  '@tsoa/runtime',
  '../domain/actions/cluster-action.js',
  '../domain/tools/tool-definitions.js',
  '../application/actions/verify-execution.js',
  '../application/sessions/get-session.js',
  '../domain/ledger/hash-chain.js',
  '../application/operations/operate.js',
  '../application/deployment/deploy-manifests.js',
  '../domain/prompts/prompt-library.js',
  '../infrastructure/composition-root.js',
  './http/generated/routes.js',
  './http/server.js',
];

/** Loads START_STEPS; false when `stopRequested` (a SIGTERM) said to stop before the last. */
async function loadInSteps(stopRequested: () => boolean): Promise<boolean> {
  for (const step of START_STEPS) {
    if (stopRequested()) return false;
    // a CommonJS require, as the modules' own imports will: import() would load the ESM twin of a dual package
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require(step);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return !stopRequested();
}

/** A configuration error ends the start: the message on stderr, exit code 2. */
function configOrExit<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`svc: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

/**
 * The whole configuration, read after listening: its parsers (the prompts',
 * the auth's, the scrubbing they share) are a good part of the start. Only the
 * server's part is read before listening; a bad value anywhere else still
 * stops the start with the same message and exit code 2, once listening.
 */
function loadWholeConfig(): Config {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { loadConfig } = require('../infrastructure/config/config.js') as typeof import('../infrastructure/config/config.js');
  return configOrExit(() => loadConfig());
}

/**
 * Starts svc from the environment; SIGTERM/SIGINT drain and exit 0. The
 * server listens first (answering /healthz, holding other requests), then
 * loads and builds the composition and the app, and hands them the requests.
 */
export async function serve(): Promise<void> {
  // before listening, only the server's part of the configuration (the bind, the timeouts, the log level)
  const server = configOrExit(() => parseServerConfig(process.env, process.cwd()));
  const logger = serverLogger(server);
  // the handlers first: a signal that came before them would end the process at once, resetting every connection
  let stopping = false;
  const onStop: Array<() => void> = [];
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('draining', { signal });
    for (const then of onStop) then();
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  const starting = await openServer({ server }, logger);
  const ready = attachWhenBuilt(logger, starting, () => stopping);
  // While loading: the loading stops, the requests held are answered 503 (Connection: close), the listener closes.
  // Once the app is built: it answers the requests held meanwhile, then drains (RunningServer.close).
  const drain = () =>
    void ready
      .then(async (built) => {
        if (!built) {
          await starting.stopStarting(server.shutdownGraceMs);
          logger.info('svc stopped');
          return;
        }
        await Promise.all([built.root.stopBackgroundWork(built.container), built.running.close()]);
      })
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  if (stopping) drain();
  else onStop.push(drain);
  const built = await ready;
  if (!built) return;
  const { root, container } = built;
  // after the app is attached: a resumed scan never delays start-up
  if (!stopping)
    root
      .resumeBackgroundWork(container)
      .catch((err) => logger.error('resuming background work failed', { err: err instanceof Error ? err.message : String(err) }));
}

/**
 * Loads and builds the composition and the app, then hands them the listening server's requests; undefined when a
 * SIGTERM came while loading (nothing built). On a failure, answers the held requests 500 and closes.
 */
async function attachWhenBuilt(logger: ServerLogger, starting: StartingServer, stopRequested: () => boolean) {
  try {
    await new Promise((resolve) => setImmediate(resolve));
    const config = loadWholeConfig();
    // loaded after listening, in steps: the adapters, the tools, express and the routes are most of the start
    if (!(await loadInSteps(stopRequested))) return undefined;
    const root = await import('../infrastructure/composition-root.js');
    const { attachApp } = await import('./http/server.js');
    const container = root.buildContainer(config, { logger: logger.full() });
    // nothing is served but /healthz before Redis's connection is up (bounded: a Redis that is down is a warning, not a failed start)
    await root.waitForSharedState(container);
    const running = attachApp(starting, root.appParts(container));
    logger.info('svc ready', { url: running.url });
    return { root, container, running };
  } catch (err) {
    await starting.abandon();
    throw err;
  }
}

if (require.main === module) {
  serve().catch((err) => {
    process.stderr.write(`svc: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
