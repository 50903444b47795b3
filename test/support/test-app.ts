import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Express } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { appParts, buildContainer, type Overrides } from '../../infrastructure/composition-root.js';
import { loadConfig, type Config } from '../../infrastructure/config/config.js';
import { createApp } from '../../interfaces/http/app.js';
import { CapturingLogger } from './capturing-logger.js';

// Adapters that persist (the embedded vector store) write here, never into the working tree.
export const TEST_DATA_DIR = mkdtempSync(path.join(tmpdir(), 'svc-test-data-'));
process.once('exit', () => rmSync(TEST_DATA_DIR, { recursive: true, force: true }));

export const TEST_TOKEN = 'test-bearer-token-0123456789abcdef';

export interface TestApp {
  app: Express;
  container: DependencyContainer;
  config: Config;
  logger: CapturingLogger;
}

/**
 * The real app, configured from an environment map (defaults: loopback, a
 * bearer token, quiet), with fakes in place of any adapter the test names.
 */
export function buildTestApp(env: Record<string, string | undefined> = {}, overrides: Overrides = {}): TestApp {
  // a tiny settle window (SVC_VERIFY_WINDOW_MS) and quick rollout reads (SVC_ROLLOUT_POLL_MS): the stand-in's controllers
  // move a step of its simulated clock on every read, so no test waits on a real 60 s window or a real rollout deadline
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    SVC_AUTH_TOKEN: TEST_TOKEN,
    LOG_LEVEL: 'silent',
    SVC_DATA_DIR: TEST_DATA_DIR,
    SVC_VERIFY_WINDOW_MS: '30',
    SVC_ROLLOUT_POLL_MS: '50',
    ...env,
  });
  const logger = (overrides.logger as CapturingLogger | undefined) ?? new CapturingLogger();
  // every tool answer in every HTTP test is held to its tool's output schema
  const container = buildContainer(config, { verifyToolOutputs: true, ...overrides, logger });
  return { app: createApp(appParts(container)), container, config, logger };
}

export const auth = { Authorization: `Bearer ${TEST_TOKEN}` };
