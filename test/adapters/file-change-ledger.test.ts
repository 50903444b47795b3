import { expect } from 'chai';
import { mkdtemp, readFile, rm, stat, writeFile, appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DependencyError } from '../../domain/errors.js';
import { verifyChain } from '../../domain/ledger/hash-chain.js';
import { FileChangeLedger, LEDGER_FILE } from '../../infrastructure/ledger/file-change-ledger.js';
import { HEAD_FILE } from '../../infrastructure/ledger/ledger-head-file.js';
import { CapturingLogger } from '../support/capturing-logger.js';
import { FakeClock } from '../support/fake-clock.js';
import { aChangeRecord } from '../support/ledger-records.js';
import { rejection } from '../support/rejection.js';

describe('FileChangeLedger', () => {
  let root: string;
  let dir: string;
  let file: string;
  const opened: FileChangeLedger[] = [];
  const open = (logger = new CapturingLogger()) => {
    const l = new FileChangeLedger({ dir, clock: new FakeClock(), logger });
    opened.push(l);
    return l;
  };
  const verify = async (l: FileChangeLedger) => {
    const { anchor, head, records } = await l.chain();
    return verifyChain(records, anchor, { head });
  };
  const lines = async () => (await readFile(file, 'utf8')).split('\n').filter(Boolean);
  const seed = async (n: number) => {
    const l = open();
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push((await l.append(aChangeRecord({ request: `change ${i}` }))).id);
    return { l, ids };
  };

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'svc-ledger-file-'));
    dir = path.join(root, 'ledger');
    file = path.join(dir, LEDGER_FILE);
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((l) => l.close()));
    await rm(root, { recursive: true, force: true });
  });

  it('writes one JSON line per entry to a 0600 file in a 0700 directory', async () => {
    await seed(3);
    expect((await stat(dir)).mode & 0o777).to.equal(0o700);
    expect((await stat(file)).mode & 0o777).to.equal(0o600);
    const ls = await lines();
    expect(ls).to.have.length(3);
    expect(ls.map((l) => JSON.parse(l).seq)).to.deep.equal([1, 2, 3]);
  });

  it('integrity finds an entry edited in the file', async () => {
    const { ids } = await seed(5);
    const ls = await lines();
    ls[2] = ls[2].replace('"change 2"', '"change two"');
    await writeFile(file, `${ls.join('\n')}\n`);
    expect(await verify(open())).to.deep.include({ ok: false, entries: 5, firstBrokenId: ids[2] });
  });

  it('integrity finds an entry removed from the file', async () => {
    const { ids } = await seed(5);
    const ls = await lines();
    ls.splice(1, 1);
    await writeFile(file, `${ls.join('\n')}\n`);
    expect(await verify(open())).to.deep.include({ ok: false, entries: 4, firstBrokenId: ids[2] });
  });

  it('integrity finds two entries swapped in the file', async () => {
    const { ids } = await seed(5);
    const ls = await lines();
    [ls[3], ls[4]] = [ls[4], ls[3]];
    await writeFile(file, `${ls.join('\n')}\n`);
    expect(await verify(open())).to.deep.include({ ok: false, entries: 5, firstBrokenId: ids[4] });
  });

  it('a last line cut short is reported, kept byte for byte, and the next entry follows the last whole one', async () => {
    const { l, ids } = await seed(3);
    await l.close();
    const cut = `{"approval":{"by":"alice","mode":"manual"},"at":"2026-01-01T00:00:00.000Z","caller":{"roles":["viewer"],"username":"alice"},"id":"chg_4_0123abcd","inverse":nu`;
    await appendFile(file, cut);
    const logger = new CapturingLogger();
    const reopened = open(logger);
    const report = await verify(reopened);
    expect(report).to.deep.include({ ok: false, entries: 3, firstBrokenId: 'chg_4_0123abcd' });
    expect(report.problem).to.match(/last line .* not a complete entry/);
    const next = await reopened.append(aChangeRecord({ request: 'after the crash' }));
    expect(logger.lines.some((e) => e.level === 'error' && /cut short/.test(e.msg))).to.equal(true);
    const third = JSON.parse((await lines())[2]);
    expect(next).to.include({ seq: 4, prevHash: third.hash });
    expect((await lines())[3]).to.equal(cut);
    const after = await verify(open());
    expect(after).to.deep.include({ ok: false, entries: 4, firstBrokenId: 'chg_4_0123abcd' });
    expect(await reopened.get(ids[0])).to.include({ seq: 1 });
  });

  it('keeps the head in a 0600 head file; a crash between an entry and its head write is repaired on opening, not reported', async () => {
    const { l } = await seed(3);
    await l.close();
    const headFile = path.join(dir, HEAD_FILE);
    expect((await stat(headFile)).mode & 0o777).to.equal(0o600);
    const third = JSON.parse((await lines())[2]);
    expect(JSON.parse(await readFile(headFile, 'utf8'))).to.deep.equal({ seq: 3, hash: third.hash });
    // the line of entry 3 reached the disk, its head write did not
    await writeFile(headFile, JSON.stringify({ seq: 2, hash: third.prevHash }));
    const reopened = open();
    expect(await verify(reopened)).to.deep.include({ ok: true, entries: 3 });
    expect(JSON.parse(await readFile(headFile, 'utf8'))).to.deep.equal({ seq: 3, hash: third.hash });
  });

  it('the last two lines cut from the file: reported after a restart, and the next entry links to the head, not to the cut chain', async () => {
    const { l, ids } = await seed(4);
    await l.close();
    const ls = await lines();
    await writeFile(file, `${ls.slice(0, 2).join('\n')}\n`);
    const logger = new CapturingLogger();
    const reopened = open(logger);
    const report = await verify(reopened);
    expect(report).to.deep.include({ ok: false, entries: 2, head: { seq: 4, hash: JSON.parse(ls[3]).hash } });
    expect(report.problem).to.match(/up to position 4: the newest 2 entries were removed/);
    expect(logger.lines.some((e) => e.level === 'error' && /does not end at the head/.test(e.msg))).to.equal(true);
    const next = await reopened.append(aChangeRecord());
    expect(next).to.include({ seq: 5, prevHash: JSON.parse(ls[3]).hash });
    expect(await verify(open())).to.deep.include({ ok: false, entries: 3, firstBrokenId: next.id });
    expect(ids).to.have.length(4);
  });

  it('a ledger without a head file (written before there was one, or the file removed): the head is the chain end, logged', async () => {
    const { l } = await seed(2);
    await l.close();
    await rm(path.join(dir, HEAD_FILE));
    const logger = new CapturingLogger();
    expect(await verify(open(logger))).to.deep.include({ ok: true, entries: 2 });
    expect(logger.lines.some((e) => e.level === 'error' && /head file is missing/.test(e.msg))).to.equal(true);
  });

  it('with SVC_LEDGER_KEY, a head file removed is reported, not taken from the chain silently; a ledger keyed only now is reported until its head is accepted', async () => {
    const key = 'k'.repeat(40);
    const keyed = (more: Record<string, unknown> = {}) => {
      const l = new FileChangeLedger({ dir, clock: new FakeClock(), key, ...more });
      opened.push(l);
      return l;
    };
    const walk = async (l: FileChangeLedger, keys: Record<string, unknown> = { key }) => {
      const { anchor, head, records } = await l.chain();
      return verifyChain(records, anchor, { head, ...keys });
    };
    // run without a key, then the key is set: the head svc wrote then has no seal
    const { l, ids } = await seed(2);
    await l.close();
    const logger = new CapturingLogger();
    const first = await walk(new FileChangeLedger({ dir, clock: new FakeClock(), key, logger }));
    expect(first).to.deep.include({ ok: false, entries: 2, unkeyed: 2 });
    expect(first.problem).to.match(/position 2 .* carrying no seal \(written without SVC_LEDGER_KEY: .* or before the key was set/);
    expect(logger.lines.some((e) => e.level === 'error' && /head is not sealed with SVC_LEDGER_KEY/.test(e.msg))).to.equal(true);
    const hash = JSON.parse((await lines())[1]).hash as string;
    const accept = { acceptHead: { seq: 2, hash } };
    expect(await walk(keyed(accept), { key, ...accept })).to.deep.include({ ok: true, entries: 2, unkeyed: 2 });
    await keyed(accept).append(aChangeRecord({ request: 'sealed from here' }));
    expect(await walk(keyed())).to.deep.include({ ok: true, entries: 3, unkeyed: 2 });
    // the head file removed (with the newest entry, say): taken from the chain, and reported
    await rm(path.join(dir, HEAD_FILE));
    const missing = await walk(keyed());
    expect(missing).to.deep.include({ ok: false, entries: 3 });
    expect(missing.problem).to.match(/svc found the head at position 3 on .* missing or unreadable/);
    expect(ids).to.have.length(2);
  });

  it('turns an I/O failure into DependencyError(ledger)', async () => {
    await writeFile(path.join(root, 'not-a-dir'), 'x');
    const l = new FileChangeLedger({ dir: path.join(root, 'not-a-dir', 'ledger'), clock: new FakeClock() });
    const err = await rejection(l.append(aChangeRecord()));
    expect(err).to.be.instanceOf(DependencyError);
    expect((err as DependencyError).dependency).to.equal('ledger');
  });
});
