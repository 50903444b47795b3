import { expect } from 'chai';
import { RunBudget } from '../../../application/ai/run-budget.js';
import { Investigate, STRUCTURED_CALLS } from '../../../application/remediation/investigate.js';
import { DependencyError, type DomainError } from '../../../domain/errors.js';
import { FakeCluster } from '../../fakes/fake-cluster.js';
import { FakeLlm, type FakeReply } from '../../fakes/fake-llm.js';
import { analysisAnswer, WEB, webDeployment } from '../../support/remediation-fixtures.js';
import { RecordingTracer } from '../../support/recording-tracer.js';
import { rejection } from '../../support/rejection.js';

const getWeb = { toolCalls: [{ name: 'get_resource', arguments: WEB }] };
const INPUT = { issue: 'web in x does not start' };

/** Investigate over a cluster holding web and a model answering `script` (then `fallback`), within `maxCalls` model calls. */
async function investigate(script: FakeReply[], maxCalls = 10, fallback?: FakeReply) {
  const cluster = new FakeCluster().put(webDeployment('nginx:9.9-missing'));
  const llm = new FakeLlm(script, fallback);
  const budget = new RunBudget({ maxCalls, maxTokens: 1_000_000, timeoutMs: 5000 });
  const result = await new Investigate(llm, cluster, new RecordingTracer()).execute(INPUT as never, budget);
  return { result, llm, cluster, lastPrompt: () => JSON.stringify(llm.calls.at(-1)!.messages) };
}

describe('Investigate: read-only functions, then the analysis checked against its schema; a limit or failure is a partial result', () => {
  it('answers the checked analysis with the run summary, what the model found and the namespaces it read; nothing is written', async () => {
    const { result, cluster, lastPrompt } = await investigate([getWeb, 'The image does not exist.', analysisAnswer()]);
    expect(result.analysis).to.deep.include({ confidence: 0.92 });
    expect(result.investigation).to.deep.include({ modelCalls: 3, functionCallCount: 1, stoppedBy: 'final-answer' });
    expect(result.investigation).to.have.property('findings');
    expect(result.namespacesRead).to.deep.equal(['x']);
    expect(lastPrompt()).to.include('web in x does not start').and.not.include('svc ended the investigation');
    expect(cluster.writes).to.deep.equal([]);
  });

  it('a provider failure during the investigation is a partial result: no analysis is asked for, the limit says why', async () => {
    const { result, llm } = await investigate([getWeb, new DependencyError('llm', 'HTTP 503 from the provider')]);
    expect(result.analysis).to.equal(undefined);
    expect(result.investigation).to.deep.include({ stoppedBy: 'provider-error' });
    expect(result.investigation.limit).to.include('the AI provider failed').and.include('HTTP 503');
    expect(llm.calls).to.have.length(2);
  });

  it('the call limit keeps calls back for the analysis, which is asked for with a note that svc ended the investigation', async () => {
    const maxCalls = 6;
    const { result, llm, lastPrompt } = await investigate(
      [...Array.from({ length: maxCalls - STRUCTURED_CALLS }, () => getWeb), analysisAnswer()],
      maxCalls,
      getWeb,
    );
    expect(result.analysis).not.to.equal(undefined);
    expect(llm.calls).to.have.length(maxCalls - STRUCTURED_CALLS + 1);
    expect(lastPrompt()).to.include('svc ended the investigation');
  });

  it('an analysis unusable after its one retry is an EXECUTION_ERROR quoting the start of the answer', async () => {
    const err = await rejection<DomainError>(investigate(['Found it.', '{"rootCause":1}', 'not json']));
    expect(err.code).to.equal('EXECUTION_ERROR');
    expect(err.message).to.include('remediation analysis was unusable after one retry').and.include('not json');
  });

  it('a provider failure while the analysis is asked for is a partial result too', async () => {
    const { result } = await investigate(['Found it.', new DependencyError('llm', 'connection reset')]);
    expect(result.analysis).to.equal(undefined);
    expect(result.investigation).to.deep.include({ stoppedBy: 'provider-error' });
    expect(result.investigation.limit).to.include('connection reset');
  });
});
