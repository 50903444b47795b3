import { expect } from 'chai';
import { mkdtemp, readFile, rm, stat, writeFile, appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DependencyError } from '../../domain/errors.js';
import { verifyChain } from '../../domain/ledger/hash-chain.js';
import { FileChangeLedger, LEDGER_FILE } from '../../infrastructure/ledger/file-change-ledger.js';
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
    const { anchor, records } = await l.chain();
    return verifyChain(records, anchor);
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

  it('turns an I/O failure into DependencyError(ledger)', async () => {
    await writeFile(path.join(root, 'not-a-dir'), 'x');
    const l = new FileChangeLedger({ dir: path.join(root, 'not-a-dir', 'ledger'), clock: new FakeClock() });
    const err = await rejection(l.append(aChangeRecord()));
    expect(err).to.be.instanceOf(DependencyError);
    expect((err as DependencyError).dependency).to.equal('ledger');
  });
});
