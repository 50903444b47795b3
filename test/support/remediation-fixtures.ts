import type { ClusterAction } from '../../domain/actions/cluster-action.js';
import type { KubeObject } from '../../domain/cluster/kube-types.js';
import type { KubeApiServer } from '../../lab/sandbox/kube/kube-api-server.js';
import type { OpenAiChatServer } from './openai-chat-server.js';

/** The Deployment most remediation tests are about. */
export const WEB = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'x' };

export function webDeployment(image: string, memory?: string, replicas = 1): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'x', labels: { app: 'web' } },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'app', image, ...(memory ? { resources: { limits: { memory } } } : {}) }] },
      },
    },
  };
}

/** The merge patch that sets the one container of `web` (arrays are replaced whole by a merge patch). */
export function containerPatch(image: string, risk: ClusterAction['risk'] = 'low', memory?: string): ClusterAction {
  return {
    type: 'patch',
    target: WEB,
    patch: { spec: { template: { spec: { containers: [{ name: 'app', image, ...(memory ? { resources: { limits: { memory } } } : {}) }] } } } },
    description: memory ? `Raise the memory limit of web to ${memory}` : `Set the image of web to ${image}`,
    risk,
    rationale: memory ? 'The container is OOMKilled at its current limit' : 'The current image tag does not exist',
  };
}

/** An analysis answer as the model would write it. */
export function analysisAnswer(over: Record<string, unknown> = {}): string {
  return JSON.stringify({
    rootCause: 'Deployment x/web uses the image nginx:9.9-missing, which does not exist, so its pod cannot pull it (ImagePullBackOff).',
    confidence: 0.92,
    evidence: ['Pod web-abc: ImagePullBackOff', 'Event Failed: Failed to pull image "nginx:9.9-missing": not found'],
    actions: [containerPatch('nginx:1.27')],
    ...over,
  });
}

export const verifiedAnswer = (resolved = true) =>
  JSON.stringify({ resolved, summary: resolved ? 'web runs nginx:1.27 and its pod is ready' : 'the pod still cannot pull its image' });

type Body = Record<string, any>;

/** A scripted chat reply calling one function. */
export const callFn = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, arguments: JSON.stringify(args) }] });

/** The content of the last function result the model was sent. */
export const lastResult = (body: Body): string => String(body.messages.filter((m: Body) => m.role === 'tool').at(-1)?.content ?? '');

/** The first pod name of `web` in a list_resources result (`Pod x/web-5d8f7-abcde: ...`). */
export const podName = (body: Body): string => /Pod x\/(web-[a-z0-9-]+)/.exec(lastResult(body))?.[1] ?? 'web-unknown';

/** The environment of an app whose AI provider is the scripted chat server (no retries) and whose cluster is the stand-in. */
export const scriptedEnv = (chat: OpenAiChatServer, kube: KubeApiServer): Record<string, string> => ({
  OPENAI_API_KEY: chat.apiKey,
  OPENAI_BASE_URL: chat.baseUrl,
  SVC_LLM_MODEL: 'gpt-test',
  SVC_LLM_MAX_RETRIES: '0',
  KUBECONFIG: kube.writeKubeconfig(),
});
