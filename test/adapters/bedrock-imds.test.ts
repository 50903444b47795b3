import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DependencyError } from '../../domain/errors.js';
import { parseLlmConfig } from '../../infrastructure/config/llm-config.js';
import { createLlmProvider } from '../../infrastructure/llm/create-llm-provider.js';
import { AwsImdsServer } from '../support/aws-imds-server.js';
import { BedrockConverseServer } from '../support/bedrock-converse-server.js';

/** Every variable the AWS SDK's default chain reads from the process, so no credential of the machine running the tests can answer first. */
const CHAIN_VARIABLES = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_PROFILE',
  'AWS_DEFAULT_PROFILE',
  'AWS_WEB_IDENTITY_TOKEN_FILE',
  'AWS_ROLE_ARN',
  'AWS_CONTAINER_CREDENTIALS_FULL_URI',
  'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
  'AWS_CONTAINER_AUTHORIZATION_TOKEN',
  'AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE',
  'AWS_SHARED_CREDENTIALS_FILE',
  'AWS_CONFIG_FILE',
  'AWS_EC2_METADATA_DISABLED',
  'AWS_EC2_METADATA_SERVICE_ENDPOINT',
  'AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE',
  'AWS_EC2_METADATA_V1_DISABLED',
];

/** Runs `act` with the process environment the SDK's chain reads set to `vars` (and the rest of the chain's variables unset), then restores it. */
async function withChainEnv<T>(vars: Record<string, string>, act: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(CHAIN_VARIABLES.map((k) => [k, process.env[k]]));
  for (const k of CHAIN_VARIABLES) delete process.env[k];
  Object.assign(process.env, vars);
  try {
    return await act();
  } finally {
    for (const k of CHAIN_VARIABLES) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  }
}

describe('Bedrock on the instance metadata path of the AWS chain (IMDSv2 stand-in)', () => {
  let bedrock: BedrockConverseServer;
  let imds: AwsImdsServer;
  let dir: string;
  beforeEach(async () => {
    bedrock = await BedrockConverseServer.start();
    imds = await AwsImdsServer.start(bedrock.keys);
    dir = mkdtempSync(path.join(tmpdir(), 'svc-imds-'));
  });
  afterEach(async () => {
    await bedrock.close();
    await imds.close();
    rmSync(dir, { recursive: true, force: true });
  });
  // no keys, no web identity, no container endpoint: svc hands the call to the SDK's default chain
  const llm = () =>
    createLlmProvider(
      parseLlmConfig({
        SVC_LLM_PROVIDER: 'bedrock',
        SVC_LLM_MODEL: 'anthropic.claude-test-v1:0',
        AWS_REGION: bedrock.region,
        AWS_ENDPOINT_URL_BEDROCK_RUNTIME: bedrock.url,
        SVC_LLM_MAX_RETRIES: '0',
      }),
    );
  // no shared profile files: the chain goes on to instance metadata
  const noProfiles = () => ({ AWS_SHARED_CREDENTIALS_FILE: path.join(dir, 'credentials'), AWS_CONFIG_FILE: path.join(dir, 'config') });

  it('takes a session token with a TTL, reads the role and its credentials with that token, and signs Converse with them', async () => {
    bedrock.script({ content: 'ok' });
    const result = await withChainEnv({ ...noProfiles(), AWS_EC2_METADATA_SERVICE_ENDPOINT: imds.url }, () => llm().chat([{ role: 'user', content: 'hi' }]));
    expect(result.text).to.equal('ok');
    // IMDSv2: PUT for the token first (with its TTL), then both GETs carrying it
    expect(imds.seen.map((s) => `${s.method} ${s.path}`)).to.deep.equal([
      'PUT /latest/api/token',
      'GET /latest/meta-data/iam/security-credentials/',
      `GET /latest/meta-data/iam/security-credentials/${imds.role}`,
    ]);
    expect(Number(imds.seen[0].ttl)).to.be.within(1, 21600);
    expect(imds.seen.slice(1).every((s) => s.tokenValid)).to.equal(true);
    // the Bedrock stand-in verified the SigV4 signature against the keys IMDS issued
    const signed = bedrock.raw.at(-1)!.headers;
    const accessKeyId = [...bedrock.keys.entries()].find(([, k]) => k.sessionToken === imds.issued[0])![0];
    expect(String(signed.authorization)).to.match(new RegExp(`^AWS4-HMAC-SHA256 Credential=${accessKeyId}/\\d{8}/us-east-1/bedrock/aws4_request`));
    expect(signed['x-amz-security-token']).to.equal(imds.issued[0]);
  });

  it('the stand-in refuses what IMDSv2 refuses: a GET without the session token, a token request without a TTL', async () => {
    const roles = await fetch(`${imds.url}/latest/meta-data/iam/security-credentials/`);
    expect(roles.status).to.equal(401);
    expect((await fetch(`${imds.url}/latest/api/token`, { method: 'PUT' })).status).to.equal(400);
    const token = await (await fetch(`${imds.url}/latest/api/token`, { method: 'PUT', headers: { 'x-aws-ec2-metadata-token-ttl-seconds': '60' } })).text();
    const role = await fetch(`${imds.url}/latest/meta-data/iam/security-credentials/`, { headers: { 'x-aws-ec2-metadata-token': token } });
    expect(await role.text()).to.equal(imds.role);
    expect(imds.issued).to.have.length(0);
  });

  it('with AWS_EC2_METADATA_DISABLED (as every other test runs) the chain never asks the metadata service and fails at once, naming what to set', async () => {
    const began = Date.now();
    const e = await withChainEnv({ ...noProfiles(), AWS_EC2_METADATA_SERVICE_ENDPOINT: imds.url, AWS_EC2_METADATA_DISABLED: 'true' }, () =>
      llm()
        .chat([{ role: 'user', content: 'hi' }])
        .then(
          () => expect.fail('expected no credentials'),
          (err: Error) => err,
        ),
    );
    expect(e).to.be.instanceOf(DependencyError);
    expect(e.message).to.contain('No usable AWS credentials').and.contain('an instance role');
    expect(imds.seen).to.deep.equal([]);
    expect(bedrock.raw).to.deep.equal([]);
    expect(Date.now() - began).to.be.below(2000);
  });

  it('the test process itself runs with instance metadata disabled, so no test waits on 169.254.169.254', () => {
    expect(process.env.AWS_EC2_METADATA_DISABLED).to.equal('true');
  });
});
