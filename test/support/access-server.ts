import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DependencyContainer } from 'tsyringe';
import { appParts, buildContainer, type Overrides } from '../../infrastructure/composition-root.js';
import { loadConfig } from '../../infrastructure/config/config.js';
import { startServer, type RunningServer } from '../../interfaces/http/server.js';

export { TEST_TOKEN } from './test-app.js';
import { TEST_TOKEN } from './test-app.js';

export interface AccessServer extends RunningServer {
  dataDir: string;
  container: DependencyContainer;
  stop(): Promise<void>;
}

/**
 * The real app (REST, OpenAPI and MCP) listening on 127.0.0.1, port 0,
 * bearer-gated with TEST_TOKEN unless `env` says otherwise. The caller stops it.
 */
export async function startAccessServer(options: { env?: Record<string, string | undefined>; overrides?: Overrides } = {}): Promise<AccessServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-access-'));
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    SVC_DATA_DIR: dataDir,
    SVC_AUTH_TOKEN: TEST_TOKEN,
    SVC_VERIFY_WINDOW_MS: '30',
    SVC_ROLLOUT_POLL_MS: '50',
    ...options.env,
  });
  const container = buildContainer(config, options.overrides);
  const running = await startServer(appParts(container));
  return {
    ...running,
    dataDir,
    container,
    async stop() {
      await running.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
