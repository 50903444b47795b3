import { BedrockRuntimeClient, BedrockRuntimeServiceException } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { awsCredentials, AwsCredentialsError } from './aws-credentials.js';
import type { ProviderFailure } from './llm-failure.js';
import type { AwsConfig } from '../config/aws-config.js';

type FinalizeArgs = { request: unknown; input: unknown };

export interface BedrockClientOptions {
  aws: AwsConfig;
  timeoutMs: number;
  maxRetries: number;
  /** SVC_LLM_HEADERS: added after signing (a gateway may add or drop them without breaking the signature). */
  headers?: Record<string, string>;
}

/**
 * One Bedrock runtime client (chat or embeddings): region, endpoint, the
 * default credential chain, standard retries (throttling and 5xx, with
 * backoff), per-attempt timeouts, and the extra headers.
 */
export function bedrockClient(o: BedrockClientOptions): { client: BedrockRuntimeClient; secrets: () => string[] } {
  const credentials = awsCredentials(o.aws);
  const client = new BedrockRuntimeClient({
    region: o.aws.region,
    ...(o.aws.bedrockEndpoint ? { endpoint: o.aws.bedrockEndpoint } : {}),
    credentials: credentials.provider,
    maxAttempts: o.maxRetries + 1,
    retryMode: 'standard',
    // HTTP/1.1: Converse needs no HTTP/2, and corporate proxies and gateways speak HTTP/1.1
    requestHandler: new NodeHttpHandler({ requestTimeout: o.timeoutMs, throwOnRequestTimeout: true, connectionTimeout: Math.min(o.timeoutMs, 10_000) }),
  });
  const headers = Object.entries(o.headers ?? {});
  if (headers.length) {
    client.middlewareStack.addRelativeTo(
      ((next: (args: FinalizeArgs) => Promise<unknown>) => async (args: FinalizeArgs) => {
        const request = args.request as { headers?: Record<string, string> };
        if (request.headers) for (const [name, value] of headers) request.headers[name] = value;
        return next(args);
      }) as unknown as Parameters<typeof client.middlewareStack.addRelativeTo>[0],
      { name: 'svcExtraHeaders', relation: 'after', toMiddleware: 'httpSigningMiddleware' },
    );
  }
  return { client, secrets: credentials.secrets };
}

/** A Bedrock failure, classified: its HTTP status and its own message, or a transport failure. */
export function bedrockFailure(e: unknown): ProviderFailure | { kind: 'credentials' } {
  const err = e as { name?: string; code?: string } | undefined;
  if (e instanceof AwsCredentialsError) return { kind: 'credentials' };
  if (e instanceof BedrockRuntimeServiceException) {
    return { kind: 'status', status: e.$metadata?.httpStatusCode, detail: `${e.name}: ${e.message}` };
  }
  if (err?.name === 'AbortError') return { kind: 'aborted' };
  if (err?.name === 'TimeoutError' || err?.code === 'ETIMEDOUT' || err?.name === 'RequestTimeout') return { kind: 'timeout' };
  return { kind: 'unreachable' };
}
