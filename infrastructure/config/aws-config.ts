import { ConfigError, httpUrl, str, type Env } from './env-parsers.js';

/**
 * Where AWS credentials come from, in the order of the AWS default chain:
 * static keys in the environment, web identity (IRSA), the container
 * credentials endpoint (EKS Pod Identity), else the SDK's own chain
 * (shared profiles, then instance metadata).
 */
export type AwsCredentialSource =
  | { kind: 'environment'; accessKeyId: string; secretAccessKey: string; sessionToken?: string }
  | { kind: 'web-identity'; identityFile: string; roleArn: string; roleSessionName?: string }
  | { kind: 'container'; fullUri: string; authorizationFile?: string }
  | { kind: 'default-chain' };

/** AWS settings read from the same environment the SDK reads, so svc and the SDK agree. */
export interface AwsConfig {
  /** AWS_REGION (or AWS_DEFAULT_REGION). */
  region: string;
  /** AWS_ENDPOINT_URL_BEDROCK_RUNTIME: a VPC endpoint or a stand-in. */
  bedrockEndpoint?: string;
  /** AWS_ENDPOINT_URL_STS: where web identity is exchanged for credentials. */
  stsEndpoint?: string;
  credentials: AwsCredentialSource;
}

const REGION = /^[a-z]{2}(-[a-z0-9]+){2,3}$/;

function credentialSource(env: Env): AwsCredentialSource {
  const accessKeyId = str(env, 'AWS_ACCESS_KEY_ID');
  const secretAccessKey = str(env, 'AWS_SECRET_ACCESS_KEY');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new ConfigError(accessKeyId === undefined ? 'AWS_ACCESS_KEY_ID' : 'AWS_SECRET_ACCESS_KEY', 'must be set together with its pair, or neither');
  }
  if (accessKeyId !== undefined && secretAccessKey !== undefined) {
    const sessionToken = str(env, 'AWS_SESSION_TOKEN');
    return { kind: 'environment', accessKeyId, secretAccessKey, ...(sessionToken !== undefined ? { sessionToken } : {}) };
  }
  const tokenFile = str(env, 'AWS_WEB_IDENTITY_TOKEN_FILE');
  const roleArn = str(env, 'AWS_ROLE_ARN');
  if ((tokenFile === undefined) !== (roleArn === undefined)) {
    throw new ConfigError(tokenFile === undefined ? 'AWS_WEB_IDENTITY_TOKEN_FILE' : 'AWS_ROLE_ARN', 'must be set together for web identity (IRSA), or neither');
  }
  if (tokenFile !== undefined && roleArn !== undefined) {
    if (!/^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/.test(roleArn)) throw new ConfigError('AWS_ROLE_ARN', 'must be an IAM role ARN');
    const roleSessionName = str(env, 'AWS_ROLE_SESSION_NAME');
    return { kind: 'web-identity', identityFile: tokenFile, roleArn, ...(roleSessionName !== undefined ? { roleSessionName } : {}) };
  }
  const fullUri = httpUrl(env, 'AWS_CONTAINER_CREDENTIALS_FULL_URI');
  if (fullUri !== undefined) {
    const authorizationTokenFile = str(env, 'AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE');
    return { kind: 'container', fullUri, ...(authorizationTokenFile !== undefined ? { authorizationFile: authorizationTokenFile } : {}) };
  }
  return { kind: 'default-chain' };
}

/** The AWS section, for the provider (`variable`) that needs it: a missing region stops start-up naming it. */
export function parseAwsConfig(env: Env, neededBy: string): AwsConfig {
  const region = str(env, 'AWS_REGION') ?? str(env, 'AWS_DEFAULT_REGION');
  if (region === undefined) throw new ConfigError('AWS_REGION', `must be set for ${neededBy} (for example us-east-1)`);
  if (!REGION.test(region)) throw new ConfigError('AWS_REGION', `must be an AWS region name such as us-east-1, got "${region.slice(0, 40)}"`);
  const bedrockEndpoint = httpUrl(env, 'AWS_ENDPOINT_URL_BEDROCK_RUNTIME');
  const stsEndpoint = httpUrl(env, 'AWS_ENDPOINT_URL_STS');
  return {
    region,
    ...(bedrockEndpoint !== undefined ? { bedrockEndpoint } : {}),
    ...(stsEndpoint !== undefined ? { stsEndpoint } : {}),
    credentials: credentialSource(env),
  };
}
