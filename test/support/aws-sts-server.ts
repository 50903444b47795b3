import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { LoopbackServer } from './scripted-model.js';
import type { KnownKey } from './sigv4-verifier.js';

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * AWS STS's AssumeRoleWithWebIdentity (query protocol: a form-encoded POST,
 * an XML answer, XML errors such as InvalidIdentityToken). It accepts the web
 * identity tokens in `validTokens` for `roleArn`, issues temporary keys into
 * the shared `keys` map (which the Bedrock stand-in verifies signatures
 * against) and records every token it was shown.
 */
export class AwsStsServer {
  readonly roleArn = 'arn:aws:iam::123456789012:role/svc-bedrock';
  readonly validTokens = new Set<string>();
  /** The web identity tokens it was sent, in order. */
  readonly tokensSeen: string[] = [];
  /** Every session token it issued. */
  readonly issued: string[] = [];
  /** Lifetime of the credentials it issues; under the SDK's 5-minute refresh window, each call fetches new ones. */
  lifetimeMs = 3600_000;
  private readonly http = new LoopbackServer((req, body, res) => this.handle(req, body, res));
  url = '';

  constructor(private readonly keys: Map<string, KnownKey>) {}

  static async start(keys: Map<string, KnownKey>): Promise<AwsStsServer> {
    const s = new AwsStsServer(keys);
    await s.http.listen();
    s.url = `http://127.0.0.1:${s.http.port}`;
    return s;
  }

  /** A new web identity token (a stand-in for the projected ServiceAccount token), accepted from now on. */
  newToken(): string {
    const t = `eyJhbGciOiJSUzI1NiJ9.${randomBytes(24).toString('base64url')}.${randomBytes(16).toString('base64url')}`;
    this.validTokens.add(t);
    return t;
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private handle(req: http.IncomingMessage, body: Buffer, res: http.ServerResponse): void {
    const requestId = randomBytes(16).toString('hex');
    const error = (status: number, code: string, message: string) => {
      res.writeHead(status, { 'Content-Type': 'text/xml' });
      res.end(
        `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>${code}</Code><Message>${xml(message)}</Message></Error><RequestId>${requestId}</RequestId></ErrorResponse>`,
      );
    };
    const form = new URLSearchParams(body.toString('utf8'));
    if (req.method !== 'POST' || form.get('Action') !== 'AssumeRoleWithWebIdentity' || form.get('Version') !== '2011-06-15') {
      return error(400, 'InvalidAction', 'Could not find operation');
    }
    const token = form.get('WebIdentityToken') ?? '';
    this.tokensSeen.push(token);
    if (form.get('RoleArn') !== this.roleArn) return error(403, 'AccessDenied', 'Not authorized to perform sts:AssumeRoleWithWebIdentity');
    if (!this.validTokens.has(token))
      return error(
        400,
        'InvalidIdentityToken',
        'The web identity token that was passed could not be validated by AWS. Get a new identity token from the identity provider and then retry the request.',
      );
    const session = form.get('RoleSessionName') ?? '';
    if (!/^[\w+=,.@-]{2,64}$/.test(session)) return error(400, 'ValidationError', 'RoleSessionName is invalid');
    const accessKeyId = `ASIA${randomBytes(8).toString('hex').toUpperCase()}`;
    const secretAccessKey = randomBytes(30).toString('base64');
    const sessionToken = `IQoJb3JpZ2luX2Vj${randomBytes(48).toString('base64')}`;
    const expiresAt = Date.now() + this.lifetimeMs;
    this.keys.set(accessKeyId, { secretAccessKey, sessionToken, expiresAt });
    this.issued.push(sessionToken);
    res.writeHead(200, { 'Content-Type': 'text/xml' });
    res.end(`<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleWithWebIdentityResult>
    <SubjectFromWebIdentityToken>system:serviceaccount:svc:svc</SubjectFromWebIdentityToken>
    <Audience>sts.amazonaws.com</Audience>
    <AssumedRoleUser>
      <Arn>arn:aws:sts::123456789012:assumed-role/svc-bedrock/${xml(session)}</Arn>
      <AssumedRoleId>AROA${randomBytes(8).toString('hex').toUpperCase()}:${xml(session)}</AssumedRoleId>
    </AssumedRoleUser>
    <Credentials>
      <SessionToken>${xml(sessionToken)}</SessionToken>
      <SecretAccessKey>${xml(secretAccessKey)}</SecretAccessKey>
      <Expiration>${new Date(expiresAt).toISOString()}</Expiration>
      <AccessKeyId>${accessKeyId}</AccessKeyId>
    </Credentials>
    <Provider>arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-east-1.amazonaws.com/id/TEST</Provider>
  </AssumeRoleWithWebIdentityResult>
  <ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata>
</AssumeRoleWithWebIdentityResponse>`);
  }
}
