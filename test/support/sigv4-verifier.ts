import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';

/** A key pair the verifier knows: its secret and, for temporary credentials, the session token that must come with it. */
export interface KnownKey {
  secretAccessKey: string;
  sessionToken?: string;
  /** ms since epoch; a request signed with it after this is refused (ExpiredTokenException). */
  expiresAt?: number;
}

export interface SigV4Failure {
  status: number;
  type: 'IncompleteSignatureException' | 'InvalidSignatureException' | 'UnrecognizedClientException' | 'ExpiredTokenException';
  message: string;
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();
/** RFC 3986 unreserved characters stay; everything else is percent-encoded (SigV4's UriEncode). */
const uriEncode = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const AUTH = /^AWS4-HMAC-SHA256 Credential=([^/\s]+)\/(\d{8})\/([^/\s]+)\/([^/\s]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;
/** How far a request's X-Amz-Date may be from the server's clock (AWS allows 15 minutes). */
const MAX_SKEW_MS = 15 * 60 * 1000;

function amzDateMs(v: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(v);
  return m ? Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) : NaN;
}

/**
 * Checks an AWS Signature Version 4 Authorization header the way AWS does
 * (the "Create a signed AWS API request" steps): the canonical request
 * (method, the path URI-encoded once more per segment as for every service
 * but S3, sorted query, the signed headers with trimmed values, the payload
 * hash), the string to sign over the credential scope, and the HMAC chain
 * AWS4+secret -> date -> region -> service -> aws4_request. Also the scope's
 * region and service, the date skew, the key and its session token.
 * Undefined when the request is signed right; else why not, as AWS answers.
 */
export function verifySigV4(
  req: http.IncomingMessage,
  body: Buffer,
  keys: ReadonlyMap<string, KnownKey>,
  expect: { region: string; service: string },
  now = Date.now(),
): SigV4Failure | undefined {
  const incomplete = (message: string): SigV4Failure => ({ status: 403, type: 'IncompleteSignatureException', message });
  const m = AUTH.exec(String(req.headers.authorization ?? ''));
  if (!m) return incomplete('Authorization header requires Credential, SignedHeaders and Signature (AWS4-HMAC-SHA256)');
  const [, keyId, date, region, service, signedList, signature] = m;
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  const signedAt = amzDateMs(amzDate);
  if (Number.isNaN(signedAt) || !amzDate.startsWith(date)) return incomplete('X-Amz-Date is missing or does not match the credential scope date');
  if (Math.abs(now - signedAt) > MAX_SKEW_MS)
    return { status: 403, type: 'InvalidSignatureException', message: 'Signature expired: the request time is too far from the server time' };
  if (region !== expect.region || service !== expect.service) {
    return { status: 403, type: 'InvalidSignatureException', message: `Credential should be scoped to a valid region and to the service ${expect.service}` };
  }
  const key = keys.get(keyId);
  if (!key) return { status: 403, type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  if (key.sessionToken !== undefined && req.headers['x-amz-security-token'] !== key.sessionToken) {
    return { status: 403, type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  }
  if (key.expiresAt !== undefined && now > key.expiresAt)
    return { status: 403, type: 'ExpiredTokenException', message: 'The security token included in the request is expired' };
  const signed = signedList.split(';');
  if (!signed.includes('host') || !signed.includes('x-amz-date')) return incomplete('SignedHeaders must include host and x-amz-date');
  if ([...signed].sort().join(';') !== signedList) return incomplete('SignedHeaders must be sorted');
  if (key.sessionToken !== undefined && !signed.includes('x-amz-security-token')) return incomplete('x-amz-security-token must be signed');
  const canonicalHeaders = signed.map((h) => {
    const v = req.headers[h];
    return `${h}:${(Array.isArray(v) ? v.join(',') : String(v ?? '')).trim().replace(/\s+/g, ' ')}\n`;
  });
  const url = new URL(req.url ?? '/', 'http://x');
  const rawPath = (req.url ?? '/').split('?')[0];
  const canonicalPath = rawPath
    .split('/')
    .map((segment) => uriEncode(segment))
    .join('/');
  const query = [...url.searchParams.entries()]
    .map(([k, v]) => [uriEncode(k), uriEncode(v)])
    .sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : 1) : a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const declared = req.headers['x-amz-content-sha256'];
  const payloadHash = typeof declared === 'string' && declared !== '' ? declared : sha256(body);
  if (payloadHash !== 'UNSIGNED-PAYLOAD' && payloadHash !== sha256(body))
    return { status: 400, type: 'InvalidSignatureException', message: 'The provided x-amz-content-sha256 header does not match what was computed.' };
  const canonicalRequest = [req.method, canonicalPath, query, canonicalHeaders.join(''), signedList, payloadHash].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${key.secretAccessKey}`, date), region), service), 'aws4_request');
  const expected = createHmac('sha256', signingKey).update(stringToSign, 'utf8').digest();
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) {
    return {
      status: 403,
      type: 'InvalidSignatureException',
      message: 'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.',
    };
  }
  return undefined;
}
