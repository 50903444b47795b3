import { expect } from 'chai';
import { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import { serveGuardKinds } from '../../lab/sandbox/kube/kube-guard-kinds.js';
import { OpenAiChatServer } from './openai-chat-server.js';

/**
 * For a describe block of write-guard attacks over HTTP: the Kubernetes
 * stand-in serving the guard's kinds (with `namespaces` in it) and a
 * scripted chat server, each started for a test and stopped after it.
 * `persisted` lists what reached the API server as a write (dry runs left out).
 */
export function guardStandIns(namespaces: readonly string[]) {
  const s = {} as { kube: KubeApiServer; chat: OpenAiChatServer };
  let unserve: () => void;
  before(() => (unserve = serveGuardKinds()));
  after(() => unserve());
  beforeEach(async () => {
    s.kube = await KubeApiServer.start();
    for (const name of namespaces) s.kube.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    s.chat = await OpenAiChatServer.start();
  });
  afterEach(async () => {
    await s.kube.close();
    await s.chat.close();
  });
  return { s, persisted: () => s.kube.requests.filter((r) => r.method !== 'GET' && r.query.get('dryRun') !== 'All') };
}

/** What an attack must come to: a refusal of its first action, or its first action high and not executed automatically. */
export interface HeldAs {
  refused?: { reason: string; message: RegExp };
  high?: RegExp;
  notExecuted?: RegExp;
}

/** Asserts a remediate answer in automatic mode held an attack as `held` says: awaiting approval, nothing executed. */
export function expectHeld(view: any, held: HeldAs): void {
  expect(view.status).to.equal('awaiting_approval');
  expect(view.automaticExecution.executed).to.equal(false);
  const first = view.actions[0];
  if (held.refused) {
    expect(first.dryRun).to.deep.include({ accepted: false, reason: held.refused.reason });
    expect(first.dryRun.message).to.match(held.refused.message);
    return;
  }
  expect(first.dryRun.accepted, JSON.stringify(first.dryRun)).to.equal(true);
  if (held.high) {
    expect(first.risk).to.equal('high');
    expect(first.riskReasons.join('; ')).to.match(held.high);
  }
  expect(view.automaticExecution.reason).to.match(held.notExecuted ?? /exceed maxRiskLevel|automatic mode never writes/);
}
