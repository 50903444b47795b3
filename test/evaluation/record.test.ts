import { expect } from 'chai';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { replyText } from '../../domain/evaluation/transcript.js';
import { runEvaluation } from '../../lab/evaluation/eval-main.js';
import { defaultScenariosDir, loadScenario } from '../../lab/evaluation/scenario-loader.js';
import { OpenAiChatServer } from '../support/openai-chat-server.js';

/** `svc eval --record` against a live (stand-in) model: a transcript is kept only when its case passed, with the model and the date. */
describe('svc eval --record keeps transcripts with provenance', function () {
  this.timeout(60_000);
  const NAME = 'web-image-tag-typo';
  let chat: OpenAiChatServer;
  let root: string;
  const transcript = () => path.join(root, NAME, 'transcript.yaml');
  const env = () => ({ OPENAI_API_KEY: chat.apiKey, OPENAI_BASE_URL: chat.baseUrl, SVC_LLM_MODEL: 'gpt-test' });
  const good = () =>
    loadScenario(defaultScenariosDir(), NAME).transcript!.replies.map((r) => ({
      content: r.toolCalls ? null : replyText(r),
      ...(r.toolCalls ? { toolCalls: r.toolCalls.map((c) => ({ name: c.name, arguments: JSON.stringify(c.arguments) })) } : {}),
    }));
  const record = (force = false) =>
    runEvaluation({ scenarios: [NAME], tags: [], repeat: 1, replay: false, record: true, force, dir: root }, env(), () => undefined);

  beforeEach(async () => {
    chat = await OpenAiChatServer.start();
    root = mkdtempSync(path.join(tmpdir(), 'svc-record-'));
    cpSync(path.join(defaultScenariosDir(), NAME), path.join(root, NAME), { recursive: true });
    rmSync(transcript());
  });
  afterEach(async () => {
    await chat.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('a passing case is written as recorded, with the model and the date', async () => {
    chat.script(...good());
    const { report } = await record();
    expect(report.cases[0].score.passed, JSON.stringify(report.cases[0].score)).to.equal(true);
    const t = parse(readFileSync(transcript(), 'utf8')) as { source: string; model: string; recordedAt: string; failed?: boolean; replies: unknown[] };
    expect([t.source, t.model, t.failed]).to.deep.equal(['recorded', 'gpt-test', undefined]);
    expect(Date.parse(t.recordedAt)).to.be.closeTo(Date.now(), 60_000);
    expect(t.replies.length).to.equal(good().length);
  });

  it('a failing case is not written; --force writes it, marked failed', async () => {
    chat.fallback = { content: '{"rootCause":"web is broken","confidence":0.5,"evidence":[],"actions":[]}' };
    const { report } = await record();
    expect(report.cases[0].score.passed).to.equal(false);
    expect(existsSync(transcript())).to.equal(false);
    await record(true);
    const t = parse(readFileSync(transcript(), 'utf8')) as { failed?: boolean; model: string };
    expect([t.model, t.failed]).to.deep.equal(['gpt-test', true]);
  });
});
