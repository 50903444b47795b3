import { expect } from 'chai';
import { withinCluster } from '../../application/cluster/current-cluster.js';
import type { LlmProvider } from '../../domain/ports/llm-provider.js';
import type { ChatResult } from '../../domain/llm/llm-types.js';
import { RecordingLlm, ReplayLlm } from '../../lab/evaluation/transcript-llm.js';

const failureOf = (p: Promise<unknown>) =>
  p.then(
    () => 'no failure',
    (e: Error) => e.message,
  );
const ask = (llm: { chat: LlmProvider['chat'] }) => llm.chat([{ role: 'user', content: 'go' }]).then((r) => r.text);

describe('transcripts of a case on several clusters: each reply is kept and played with its cluster', () => {
  it('a replay plays the replies in order when they name no cluster, whichever cluster asks', async () => {
    const llm = new ReplayLlm([{ content: 'one' }, { content: 'two' }]);
    expect(await withinCluster('cluster-2', () => ask(llm))).to.equal('one');
    expect(await withinCluster('cluster-1', () => ask(llm))).to.equal('two');
    expect(llm.used).to.equal(2);
  });

  it('replies naming their cluster go to that cluster’s calls in their order, whichever cluster asks first', async () => {
    const llm = new ReplayLlm([
      { cluster: 'cluster-1', content: 'c1 first' },
      { cluster: 'cluster-1', content: 'c1 second' },
      { cluster: 'cluster-2', content: 'c2 first' },
    ]);
    // a fleet investigation asks its clusters at once: cluster-2 may ask before cluster-1 has its answers
    expect(await withinCluster('cluster-2', () => ask(llm))).to.equal('c2 first');
    expect(await withinCluster('cluster-1', () => ask(llm))).to.equal('c1 first');
    expect(await withinCluster('cluster-1', () => ask(llm))).to.equal('c1 second');
    expect(llm.used).to.equal(3);
  });

  it('a cluster whose replies are used up fails its call, naming the cluster, even though another cluster has replies left', async () => {
    const llm = new ReplayLlm([
      { cluster: 'cluster-1', content: 'c1' },
      { cluster: 'cluster-2', content: 'c2' },
    ]);
    expect(await withinCluster('cluster-1', () => ask(llm))).to.equal('c1');
    expect(await failureOf(withinCluster('cluster-1', () => ask(llm)))).to.contain('for cluster cluster-1');
    // outside any cluster's scope no keyed reply is played
    expect(await failureOf(ask(llm))).to.contain('transcript exhausted');
  });

  it('recording keeps the cluster each answer was for, and none outside any cluster’s scope (svc serving one cluster has none)', async () => {
    const inner: LlmProvider = {
      status: () => ({ configured: true, provider: 'stand-in', model: 'm' }),
      chat: async (): Promise<ChatResult> => ({
        text: 'ok',
        toolCalls: [],
        usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheCreationTokens: 0 },
        model: 'm',
        finishReason: 'stop',
      }),
    };
    const fleet = new RecordingLlm(inner);
    await withinCluster('cluster-2', () => ask(fleet));
    expect(fleet.replies[0].cluster).to.equal('cluster-2');
    const one = new RecordingLlm(inner);
    await ask(one);
    expect(one.replies[0]).to.not.have.property('cluster');
  });
});
