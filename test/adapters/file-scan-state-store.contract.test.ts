import { expect } from 'chai';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DependencyError } from '../../domain/errors.js';
import { FileScanStateStore } from '../../infrastructure/scans/file-scan-state-store.js';
import { scanStateStoreContract } from '../contract/scan-state-store-contract.js';
import { FakeScanStateStore } from '../fakes/fake-scan-state-store.js';
import { FakeClock } from '../support/fake-clock.js';
import { rejection } from '../support/rejection.js';

scanStateStoreContract('file store', async (clock) => {
  const root = await mkdtemp(path.join(tmpdir(), 'svc-scans-'));
  const dir = path.join(root, 'scans');
  return {
    store: new FileScanStateStore({ dir, clock }),
    reopen: () => new FileScanStateStore({ dir, clock }),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
});

scanStateStoreContract('fake', async (clock) => {
  const store = new FakeScanStateStore(clock);
  return { store, reopen: () => store, cleanup: async () => undefined };
});

describe('FileScanStateStore', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'svc-scans-'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('writes 0600 files in a 0700 directory and leaves no temp file', async () => {
    const store = new FileScanStateStore({ dir: path.join(root, 'scans'), clock: new FakeClock() });
    await store.save({
      id: `scan_${'c'.repeat(32)}`,
      status: 'running',
      requested: 'all',
      total: 0,
      pending: [],
      completed: [],
      failures: [],
      inFlight: [],
      startedAt: 'x',
      updatedAt: 'x',
      resumed: 0,
    });
    await store.acquire('a', 1000);
    expect((await stat(path.join(root, 'scans'))).mode & 0o777).to.equal(0o700);
    for (const f of ['state.json', 'lease.json']) expect((await stat(path.join(root, 'scans', f))).mode & 0o777, f).to.equal(0o600);
    expect((await readdir(path.join(root, 'scans'))).sort()).to.deep.equal(['lease.json', 'state.json']);
  });

  it('sets a corrupt state file aside and reads it as no scan', async () => {
    const dir = path.join(root, 'scans');
    const store = new FileScanStateStore({ dir, clock: new FakeClock() });
    await store.acquire('a', 1);
    await writeFile(path.join(dir, 'state.json'), '{"id": "scan_');
    expect(await store.load()).to.equal(undefined);
    expect((await readdir(dir)).some((f) => f.startsWith('state.json.corrupt-'))).to.equal(true);
  });

  it('turns an I/O failure into DependencyError(scans)', async () => {
    const file = path.join(root, 'not-a-dir');
    await writeFile(file, 'x');
    const store = new FileScanStateStore({ dir: path.join(file, 'scans'), clock: new FakeClock() });
    const err = await rejection(store.acquire('a', 1000));
    expect(err).to.be.instanceOf(DependencyError);
    expect((err as DependencyError).dependency).to.equal('scans');
  });
});
