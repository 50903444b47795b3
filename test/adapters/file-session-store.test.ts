import { expect } from 'chai';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DependencyError, ExecutionError } from '../../domain/errors.js';
import { FileSessionStore, SWEEP_INTERVAL_MS, type FileSessionStoreOptions } from '../../infrastructure/sessions/file-session-store.js';
import { SWEEP_BATCH } from '../../infrastructure/sessions/session-sweep.js';
import { CapturingLogger } from '../support/capturing-logger.js';
import { FakeClock } from '../support/fake-clock.js';
import { rejection } from '../support/rejection.js';

const TTL = 60 * 60 * 1000;
const mode = async (p: string) => (await stat(p)).mode & 0o777;
const longAgo = new Date(Date.now() - 2 * 3_600_000);

describe('FileSessionStore (file specifics)', () => {
  let root: string;
  let dir: string;
  let clock: FakeClock;
  let logger: CapturingLogger;
  const stores: FileSessionStore[] = [];
  const open = (extra: Partial<FileSessionStoreOptions> = {}) => {
    const store = new FileSessionStore({ dir, ttlMs: TTL, clock, logger, ...extra });
    stores.push(store);
    return store;
  };

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'svc-sessions-'));
    dir = path.join(root, 'data', 'sessions');
    clock = new FakeClock();
    logger = new CapturingLogger();
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.idle()));
    await rm(root, { recursive: true, force: true });
  });

  it('keeps one JSON file per session at <dir>/<kind>/<id>.json, directories 0700 and files 0600', async () => {
    const s = await open().create('remediation', { step: 'investigate' });
    const file = path.join(dir, 'remediation', `${s.id}.json`);
    expect(JSON.parse(await readFile(file, 'utf8'))).to.deep.equal(s);
    expect(await mode(dir)).to.equal(0o700);
    expect(await mode(path.join(dir, 'remediation'))).to.equal(0o700);
    expect(await mode(file)).to.equal(0o600);
  });

  it('writes atomically: no temp file is left behind, and the file always parses', async () => {
    const store = open();
    const s = await store.create('operation', { n: 0 });
    const updates = Array.from({ length: 10 }, (_, i) => store.update('operation', s.id, i + 1, { n: i + 1 }));
    for (const r of await Promise.all(updates)) expect(r.conflict).to.equal(false);
    expect(await readdir(path.join(dir, 'operation'))).to.deep.equal([`${s.id}.json`]);
    expect(JSON.parse(await readFile(path.join(dir, 'operation', `${s.id}.json`), 'utf8')).revision).to.equal(11);
    expect(store.lockedIds).to.equal(0);
  });

  it('ignores a torn temp file and reads a corrupt session file as absent, logging it', async () => {
    const store = open();
    const s = await store.create('solution', { step: 'choose' });
    const kindDir = path.join(dir, 'solution');
    await writeFile(path.join(kindDir, `.${s.id}.json.deadbeef.tmp`), '{"id":"sol_', { mode: 0o600 });
    expect((await store.get('solution', s.id))?.state).to.deep.equal({ step: 'choose' });
    const corrupt = 'sol_' + 'c'.repeat(32);
    await writeFile(path.join(kindDir, `${corrupt}.json`), '{"id":"sol_cccc', { mode: 0o600 });
    expect(await store.get('solution', corrupt)).to.equal(undefined);
    expect(await store.update('solution', corrupt, 1, {})).to.deep.equal({ conflict: true, current: undefined });
    expect(logger.lines.some((l) => l.level === 'warn' && /corrupt/.test(l.msg) && l.fields.id === corrupt)).to.equal(true);
  });

  it('sweeps expired sessions, stray temp files and old corrupt files, and keeps live ones', async () => {
    const store = open();
    const old = await store.create('remediation', { old: true });
    clock.advance(TTL / 2);
    const live = await store.create('remediation', { live: true });
    await store.idle();
    const kindDir = path.join(dir, 'remediation');
    const stray = path.join(kindDir, `.${live.id}.json.0123.tmp`);
    const fresh = path.join(kindDir, `.${live.id}.json.4567.tmp`);
    const corrupt = path.join(kindDir, `rem_${'c'.repeat(32)}.json`);
    const foreign = path.join(kindDir, 'README');
    for (const f of [stray, fresh, corrupt, foreign]) await writeFile(f, 'x');
    await utimes(stray, longAgo, longAgo);
    await utimes(corrupt, longAgo, longAgo);
    clock.advance(TTL / 2 + 1);
    expect(await store.sweep()).to.equal(3);
    expect((await readdir(kindDir)).sort()).to.deep.equal([path.basename(fresh), 'README', `${live.id}.json`].sort());
    expect(await store.get('remediation', old.id)).to.equal(undefined);
    expect((await store.get('remediation', live.id))?.state).to.deep.equal({ live: true });
  });

  it('starts the sweep from create at most once a minute, and a failing sweep never fails the create', async () => {
    const store = open({ ttlMs: 10_000 });
    const files = async () => readdir(path.join(dir, 'solution'));
    const a = await store.create('solution', {});
    clock.advance(10_001);
    const b = await store.create('solution', {});
    await store.idle();
    expect(await files(), 'within the minute: no sweep').to.include(`${a.id}.json`);
    clock.advance(SWEEP_INTERVAL_MS);
    const c = await store.create('solution', {});
    await store.idle();
    expect(await files()).to.deep.equal([`${c.id}.json`]);
    expect(b.id).to.not.equal(c.id);
    clock.advance(SWEEP_INTERVAL_MS);
    await writeFile(path.join(dir, 'operation'), 'not a directory');
    const d = await store.create('solution', {});
    await store.idle();
    expect(await files()).to.deep.equal([`${d.id}.json`]);
    expect(logger.lines.some((l) => l.msg === 'session sweep failed' && l.fields.kind === 'operation')).to.equal(true);
  });

  it('bounds the work of one sweep and covers a large directory over several', async () => {
    const store = open();
    for (let i = 0; i < 5; i++) await Promise.all(Array.from({ length: 50 }, () => store.create('operation', {})));
    await store.idle();
    clock.advance(TTL + 1);
    expect(await store.sweep()).to.equal(SWEEP_BATCH);
    expect(await store.sweep()).to.equal(250 - SWEEP_BATCH);
    expect(await readdir(path.join(dir, 'operation'))).to.deep.equal([]);
  });

  it('never lets a malformed id reach the filesystem', async () => {
    const store = open();
    const outside = path.join(root, 'outside.json');
    await writeFile(outside, '{"keep":true}');
    for (const id of ['../../outside', '../../etc/passwd', 'rem_../x', 'rem_../../../outside', outside, '/etc/passwd', 'rem_\0']) {
      expect(await store.get('remediation', id)).to.equal(undefined);
      expect(await store.update('remediation', id, 1, { overwritten: true })).to.deep.equal({ conflict: true, current: undefined });
    }
    expect(await readFile(outside, 'utf8')).to.equal('{"keep":true}');
    expect(await readdir(root)).to.deep.equal(['outside.json']);
  });

  it('refuses a state larger than maxStateBytes with ExecutionError, on create and on update', async () => {
    const store = open({ maxStateBytes: 1000 });
    const e = await rejection(store.create('solution', { text: 'x'.repeat(1000) }));
    expect(e).to.be.instanceOf(ExecutionError);
    expect(e.message).to.match(/Session state is too large: 1011 bytes serialised, the limit is 1000/);
    const s = await store.create('solution', { text: 'x'.repeat(900) });
    expect(await rejection(store.update('solution', s.id, 1, { text: 'x'.repeat(2000) }))).to.be.instanceOf(ExecutionError);
    expect((await store.get('solution', s.id))?.revision).to.equal(1);
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect((await rejection(store.create('solution', circular))).message).to.match(/not JSON-serialisable/);
  });

  it('keeps what it acknowledged: a new instance on the same directory reads and updates earlier sessions', async () => {
    const first = open();
    const a = await first.create('operation', { step: 'analyse' });
    const b = await first.create('remediation', { step: 'investigate' });
    const updated = await first.update('operation', a.id, 1, { step: 'approve' });
    const reopened = open();
    expect(await reopened.get('operation', a.id)).to.deep.equal(updated.conflict ? undefined : updated.session);
    expect(await reopened.get('remediation', b.id)).to.deep.equal(b);
    expect((await reopened.update('operation', a.id, 2, { step: 'execute' })).conflict).to.equal(false);
  });

  it('lists what an earlier instance wrote (the index is built from the files), and what this one creates meanwhile', async () => {
    const first = open();
    const a = await first.create('operation', { step: 'analyse' });
    clock.advance(1);
    const b = await first.create('remediation', { step: 'investigate' });
    clock.advance(1);
    const reopened = open();
    const [listed, c] = await Promise.all([reopened.list({ limit: 10 }), reopened.create('solution', { step: 'choose' })]);
    expect(listed.sessions.map((s) => s.id)).to.include.members([b.id, a.id]);
    expect((await reopened.list({ limit: 10 })).sessions.map((s) => s.id)).to.deep.equal([c.id, b.id, a.id]);
    await rm(path.join(dir, 'remediation', `${b.id}.json`));
    expect((await reopened.list({ limit: 10 })).sessions.map((s) => s.id)).to.deep.equal([c.id, a.id]);
  });

  it('turns an I/O failure into DependencyError("sessions")', async () => {
    await mkdir(path.dirname(dir), { recursive: true });
    await writeFile(dir, 'a file where the directory should be');
    const store = open();
    const e = await rejection<DependencyError>(store.create('solution', {}));
    expect(e).to.be.instanceOf(DependencyError);
    expect(e.dependency).to.equal('sessions');
    expect(e.message).to.match(/^Session store could not create: /);
    const r = await rejection<DependencyError>(store.get('solution', 'sol_' + 'a'.repeat(32)));
    expect(r).to.be.instanceOf(DependencyError);
  });

  it('does not overwrite an existing session when the random source repeats', async () => {
    const store = open({ random: () => 'a'.repeat(32) });
    const s = await store.create('solution', { first: true });
    expect((await rejection(store.create('solution', { second: true }))).message).to.match(/random source repeats/);
    expect((await store.get('solution', s.id))?.state).to.deep.equal({ first: true });
  });
});
