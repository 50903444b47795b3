import { expect } from 'chai';
import { CheckModel } from '../../application/check-model.js';
import { DependencyError } from '../../domain/errors.js';
import type { LlmStatus } from '../../domain/ports/llm-provider.js';
import { FakeLlm } from '../fakes/fake-llm.js';
import { FakeClock } from '../support/fake-clock.js';

/** A provider with no settings: CheckModel must not call it. */
class UnconfiguredLlm extends FakeLlm {
  override status(): LlmStatus {
    return { configured: false, provider: 'none', hint: 'set SVC_LLM_PROVIDER' };
  }
}

describe('CheckModel: one small real call tells version whether the model answers', () => {
  it('does not call a provider that is not configured, and says what to set', async () => {
    const llm = new UnconfiguredLlm(['ok']);
    const check = await new CheckModel(llm, new FakeClock()).execute();
    expect(check).to.deep.include({ healthy: false, error: 'not configured: set SVC_LLM_PROVIDER' });
    expect(llm.calls).to.deep.equal([]);
  });

  it('a model that answers is healthy; the verdict is kept for cacheMs, then the model is asked again', async () => {
    const llm = new FakeLlm(['ok', new DependencyError('llm', 'HTTP 401: invalid api key')]);
    const clock = new FakeClock();
    const checker = new CheckModel(llm, clock, { cacheMs: 30_000 });
    expect(await checker.execute()).to.deep.equal({ healthy: true, checkedAt: new Date(clock.now()).toISOString() });
    expect(llm.calls).to.have.length(1);
    expect(llm.calls[0]!.options).to.deep.include({ maxOutputTokens: 16 });
    // an answer cancels the probe's timeout: nothing is left to fire
    expect(clock.pendingTimers).to.equal(0);
    clock.advance(29_999);
    expect((await checker.execute()).healthy).to.equal(true);
    expect(llm.calls).to.have.length(1);
    clock.advance(1);
    const after = await checker.execute();
    expect(after).to.deep.include({ healthy: false });
    expect(after.error).to.include('invalid api key');
    expect(llm.calls).to.have.length(2);
  });

  it('a model that does not answer within timeoutMs is unhealthy, saying so, and the probe is aborted', async () => {
    const clock = new FakeClock();
    const pending = new CheckModel(new FakeLlm(['hang']), clock, { timeoutMs: 10_000 }).execute();
    clock.advance(10_000);
    expect(await pending).to.deep.include({ healthy: false, error: 'no answer within 10 s' });
    expect(clock.pendingTimers).to.equal(0);
  });

  it('concurrent callers share one probe', async () => {
    const llm = new FakeLlm(['ok', 'ok']);
    const checker = new CheckModel(llm, new FakeClock());
    const [a, b] = await Promise.all([checker.execute(), checker.execute()]);
    expect(a).to.equal(b);
    expect(llm.calls).to.have.length(1);
  });
});
