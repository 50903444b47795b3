import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface TestTls {
  dir: string;
  caFile: string;
  caPem: string;
  key: string;
  cert: string;
}

let cached: TestTls | undefined;

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: 'pipe' });
}

/** A throwaway CA (made with the machine's openssl, once per test run) and a server certificate for 127.0.0.1 signed by it. */
export function testTls(): TestTls {
  if (cached) return cached;
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-kube-tls-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(
    [
      'req',
      '-x509',
      ...ec,
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
      '-days',
      '2',
      '-subj',
      '/CN=svc-test-ca',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
  openssl(['req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1'], dir);
  writeFileSync(path.join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  openssl(
    ['x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '2', '-extfile', 'server.ext'],
    dir,
  );
  const read = (f: string) => readFileSync(path.join(dir, f), 'utf8');
  cached = { dir, caFile: path.join(dir, 'ca.crt'), caPem: read('ca.crt'), key: read('server.key'), cert: read('server.crt') };
  return cached;
}

/** A second, unrelated CA: a kubeconfig trusting it must fail to verify the test server. */
export function otherCaFile(): string {
  const { dir } = testTls();
  const file = path.join(dir, 'other-ca.crt');
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      'other-ca.key',
      '-out',
      'other-ca.crt',
      '-days',
      '2',
      '-subj',
      '/CN=svc-other-ca',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
    ],
    dir,
  );
  return file;
}
