import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChatMessage, ChatOptions, ChatResult } from '../../domain/llm/llm-types.js';
import type { LlmProvider, LlmStatus } from '../../domain/ports/llm-provider.js';
import type { TranscriptReply } from '../../domain/evaluation/transcript.js';
import { appParts, buildContainer } from '../../infrastructure/composition-root.js';
import { loadConfig } from '../../infrastructure/config/config.js';
import { startServer } from '../../interfaces/http/server.js';
import { defaultScenariosDir, loadScenario, scenarioNames } from '../evaluation/scenario-loader.js';
import { ReplayLlm } from '../evaluation/transcript-llm.js';
import { ScenarioCluster } from './scenario-cluster.js';

/**
 * The model of `svc sandbox --try`: the scenario's recorded transcript,
 * answered in order. A conversation that starts the way an earlier one
 * started (the same opening message: another investigation of the issue)
 * replays from where that one began, so the tour can be run again; past the
 * end it starts over. Not a model: it answers the same whatever it is asked,
 * which is the point (no provider, no key).
 */
export class CyclingReplayLlm implements LlmProvider {
  private base = 0;
  private current: ReplayLlm;
  private readonly starts = new Map<string, number>();

  constructor(
    private readonly replies: readonly TranscriptReply[],
    private readonly model: string,
  ) {
    this.current = new ReplayLlm(replies, model);
  }

  status(): LlmStatus {
    return { configured: true, provider: 'replay', model: this.model };
  }

  chat(messages: ChatMessage[], options?: ChatOptions): Promise<ChatResult> {
    if (!messages.some((m) => m.role === 'assistant' || m.role === 'tool')) {
      const opening = String(messages[0]?.content ?? '').slice(0, 300);
      let at = this.base + this.current.used;
      if (at >= this.replies.length) at = 0;
      const seen = this.starts.get(opening);
      if (seen !== undefined) at = seen;
      else this.starts.set(opening, at);
      this.base = at;
      this.current = new ReplayLlm(this.replies.slice(at), this.model);
    }
    return this.current.chat(messages, options);
  }
}

/** `'it''s'` for sh. */
const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** The commands to print: svc's CLI and curl with the scenario's own input, kubectl on the sandbox. */
export function tryCommands(tool: string, input: Record<string, unknown>, svcUrl: string, kubeconfig: string, namespace: string): string[] {
  const flags = Object.entries(input)
    .map(([k, v]) => `--${k} ${quote(typeof v === 'string' ? v : JSON.stringify(v))}`)
    .join(' ');
  return [
    `export SVC_URL=${svcUrl} KUBECONFIG=${quote(kubeconfig)}`,
    `npx svc run ${tool} ${flags}`,
    `curl -sS -X POST "$SVC_URL/api/v1/tools/${tool}" -H 'Content-Type: application/json' -d ${quote(JSON.stringify(input))}`,
    `kubectl get pods -n ${namespace}`,
  ];
}

/**
 * `svc sandbox --scenario NAME --try`: the scenario's cluster (on the wall
 * clock), a model replaying its transcript, and svc on both (HTTP on
 * 127.0.0.1, an ephemeral port, open as svc is on loopback without a token);
 * prints where each is and the commands to run, then serves until `stopped`.
 * A kubeconfig is written to `kubeconfig` when given, else to a temporary
 * folder removed at the end.
 */
export async function trySandbox(
  name: string,
  kubeconfigFile: string | undefined,
  stopped: Promise<void>,
  print: (line: string) => void,
  dir = defaultScenariosDir(),
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  if (!scenarioNames(dir).includes(name)) throw new Error(`no scenario named ${name} in ${dir} (svc sandbox --list shows them)`);
  const loaded = loadScenario(dir, name);
  if (!loaded.transcript) throw new Error(`scenario ${name} has no transcript.yaml to replay: --try needs one (svc eval --record writes it)`);
  const work = mkdtempSync(path.join(tmpdir(), 'svc-try-'));
  const kubeconfig = kubeconfigFile ?? path.join(work, 'kubeconfig.yaml');
  const sandbox = await ScenarioCluster.start(loaded, { wallClock: true });
  let running: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    sandbox.writeKubeconfig(kubeconfig);
    const config = loadConfig({
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'silent',
      SVC_DATA_DIR: path.join(work, 'data'),
      KUBECONFIG: kubeconfig,
      OTEL_TRACING_ENABLED: 'false',
      // the sandbox rolls a fix out in seconds: svc's verdict need not watch for a minute
      SVC_VERIFY_WINDOW_MS: env.SVC_VERIFY_WINDOW_MS ?? '15000',
      ...(env.HOME ? { HOME: env.HOME } : {}),
    });
    const model = `transcript of ${name} (${loaded.transcript.source}${loaded.transcript.model ? `, ${loaded.transcript.model}` : ''})`;
    running = await startServer(appParts(buildContainer(config, { llm: new CyclingReplayLlm(loaded.transcript.replies, model) })));
    const { scenario } = loaded;
    print(`ready sandbox ${sandbox.server.url} scenario ${name} kubeconfig ${kubeconfig}`);
    print(`ready svc ${running.url} model ${model}: replayed answers, not a live model`);
    print(`try (in another terminal; Ctrl-C here stops all three):`);
    for (const line of tryCommands(
      scenario.tool,
      scenario.input as Record<string, unknown>,
      running.url,
      kubeconfig,
      scenario.cluster.namespaces[0] ?? 'default',
    ))
      print(`  ${line}`);
    await stopped;
  } finally {
    await running?.close();
    await sandbox.close();
    rmSync(work, { recursive: true, force: true });
  }
}
