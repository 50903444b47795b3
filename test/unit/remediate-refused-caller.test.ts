import { expect } from 'chai';
import { Remediate } from '../../application/remediation/remediate.js';
import { ForbiddenError, ValidationError } from '../../domain/errors.js';
import { readOnlyView } from '../../domain/ports/cluster-reader.js';
import type { ToolInput } from '../../domain/tools/tool-definitions.js';
import { FakeCluster } from '../fakes/fake-cluster.js';
import { FakeLlm, type FakeReply } from '../fakes/fake-llm.js';
import { FakeSessionStore } from '../fakes/fake-session-store.js';
import { openSafety } from '../fakes/null-safety.js';
import { FakeClock } from '../support/fake-clock.js';
import { RecordingTracer } from '../support/recording-tracer.js';
import { rejection } from '../support/rejection.js';
import { analysisAnswer, WEB, webDeployment } from '../support/remediation-fixtures.js';

const investigation: FakeReply[] = [{ toolCalls: [{ name: 'describe_resource', arguments: WEB }] }, 'The image nginx:9.9-missing does not exist.'];

function setup(llm: FakeLlm) {
  const clock = new FakeClock();
  const cluster = new FakeCluster().put(webDeployment('nginx:9.9-missing'));
  const sessions = new FakeSessionStore({ clock });
  const reader = readOnlyView(cluster);
  const remediate = new Remediate({
    llm,
    reader,
    writer: cluster,
    sessions,
    tracer: new RecordingTracer(),
    clock,
    limits: { timeoutMs: 5000, maxTokens: 1_000_000 },
    ...openSafety(cluster, { reader }),
  });
  const run = (input: ToolInput<'remediate'>) => remediate.execute(input);
  return { cluster, run };
}

describe('Executing a proposal the cluster refused to the caller (issue 31 item 8)', () => {
  it('a proposal the cluster refused to the caller (RBAC under impersonation) is 403 FORBIDDEN to execute; a refusal of the change itself stays 400', async () => {
    const { run, cluster } = setup(new FakeLlm([...investigation, analysisAnswer()]));
    cluster.dryRunPatch = async () => {
      throw new ForbiddenError('Kubernetes does not let svc:alice patch deployments.apps in namespace "default"', { reason: 'Forbidden', code: 403 });
    };
    const started = await run({ issue: 'web does not start' });
    expect(started.actions[0].dryRun).to.deep.include({ accepted: false, reason: 'Forbidden', byCaller: true });
    const refused = await rejection<ForbiddenError>(run({ sessionId: started.sessionId, executeChoice: 1 }));
    expect(refused).to.be.instanceOf(ForbiddenError);
    expect(refused.code).to.equal('FORBIDDEN');
    expect(refused.message).to.contain('cannot be executed').and.contain('Kubernetes does not let svc:alice patch deployments.apps');
    expect(cluster.writes).to.deep.equal([]);
    // the cluster refusing the change (quota), not the caller: 400 as before
    const again = setup(new FakeLlm([...investigation, analysisAnswer()]));
    again.cluster.rejectDryRun = () => ({ accepted: false, reason: 'Forbidden', message: 'exceeded quota: pods', causes: [] });
    const quota = await again.run({ issue: 'web does not start' });
    const invalid = await rejection<ValidationError>(again.run({ sessionId: quota.sessionId, executeChoice: 1 }));
    expect(invalid).to.be.instanceOf(ValidationError);
  });
});
