import { readFileSync } from 'node:fs';
import type { BedrockRuntimeClientConfig } from '@aws-sdk/client-bedrock-runtime';
import type { AwsConfig } from '../config/aws-config.js';

/**
 * The AWS default chain, from the settings svc parsed (the same variables the
 * SDK reads): static keys, web identity (IRSA: the token file is read again
 * each time the credentials are refreshed, so a rotated token is picked up),
 * the container credentials endpoint (EKS Pod Identity: its token file is
 * read on each request), else the SDK's own chain (shared profiles, then
 * instance metadata). The SDK's client caches the result and refreshes it
 * five minutes before it expires.
 */
export function awsCredentials(aws: AwsConfig): AwsCredentials {
  const provider = chainFor(aws);
  // the latest values handed out (and the web identity token read), so errors can be scrubbed of them; bounded
  const recent: string[] = [];
  const remember = (...values: (string | undefined)[]) => {
    for (const v of values) if (v && !recent.includes(v)) recent.push(v);
    recent.splice(0, Math.max(0, recent.length - 8));
  };
  if (aws.credentials.kind === 'environment') remember(aws.credentials.secretAccessKey, aws.credentials.sessionToken);
  const identityFile = aws.credentials.kind === 'web-identity' ? aws.credentials.identityFile : undefined;
  return {
    // failures are tagged so the adapter tells "no credentials" from a Bedrock failure without reading SDK texts
    provider: async (props?: Record<string, unknown>) => {
      try {
        const identity = await provider(props);
        remember(identity.secretAccessKey, identity.sessionToken);
        return identity;
      } catch (e) {
        throw new AwsCredentialsError(e);
      } finally {
        if (identityFile) remember(readToken(identityFile));
      }
    },
    secrets: () => [...recent],
  };
}

function readToken(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim().slice(0, 16384);
  } catch {
    return undefined;
  }
}

export interface AwsCredentials {
  provider: NonNullable<BedrockRuntimeClientConfig['credentials']>;
  /** Credential values seen lately (secret keys, session tokens, the web identity token): never to appear in a message. */
  secrets(): string[];
}

/** The credential chain could not give credentials (a missing file, STS refusing the token, no metadata service). */
export class AwsCredentialsError extends Error {
  constructor(cause: unknown) {
    super('AWS credentials could not be had', { cause });
    this.name = 'AwsCredentialsError';
  }
}

type Provider = (props?: Record<string, unknown>) => Promise<{ accessKeyId: string; secretAccessKey: string; sessionToken?: string; expiration?: Date }>;

function chainFor(aws: AwsConfig): Provider {
  const c = aws.credentials;
  switch (c.kind) {
    case 'environment': {
      const identity = { accessKeyId: c.accessKeyId, secretAccessKey: c.secretAccessKey, ...(c.sessionToken ? { sessionToken: c.sessionToken } : {}) };
      return async () => identity;
    }
    case 'web-identity': {
      const { fromTokenFile } = require('@aws-sdk/credential-provider-web-identity') as typeof import('@aws-sdk/credential-provider-web-identity');
      return fromTokenFile({
        webIdentityTokenFile: c.identityFile,
        roleArn: c.roleArn,
        roleSessionName: c.roleSessionName ?? `svc-${process.pid}`,
        clientConfig: { region: aws.region, ...(aws.stsEndpoint ? { endpoint: aws.stsEndpoint } : {}) },
      });
    }
    case 'container': {
      const { fromHttp } = require('@aws-sdk/credential-provider-http') as typeof import('@aws-sdk/credential-provider-http');
      return fromHttp({
        awsContainerCredentialsFullUri: c.fullUri,
        ...(c.authorizationFile ? { awsContainerAuthorizationTokenFile: c.authorizationFile } : {}),
      });
    }
    case 'default-chain': {
      const { defaultProvider } = require('@aws-sdk/credential-provider-node') as typeof import('@aws-sdk/credential-provider-node');
      return defaultProvider();
    }
  }
}

/** The credential settings to name when no credentials could be had. */
export function credentialSettings(aws: AwsConfig): string {
  switch (aws.credentials.kind) {
    case 'environment':
      return 'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY';
    case 'web-identity':
      return 'AWS_ROLE_ARN and AWS_WEB_IDENTITY_TOKEN_FILE (IRSA: the ServiceAccount annotation eks.amazonaws.com/role-arn)';
    case 'container':
      return 'AWS_CONTAINER_CREDENTIALS_FULL_URI (EKS Pod Identity association)';
    case 'default-chain':
      return 'the AWS credentials: IRSA, EKS Pod Identity, an instance role or AWS_ACCESS_KEY_ID';
  }
}
