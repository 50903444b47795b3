import { expect } from 'chai';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { isInFlight, isTempName, removeFile, removeFileDurably, writeFileDurably } from '../../infrastructure/fs/durable-file.js';

describe('the durable whole-file write (infrastructure/fs/durable-file.ts)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'svc-durable-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes text, buffers in order, or what a writer puts in the temp file; 0600; no temp file left', async () => {
    const file = path.join(dir, 'a.json');
    await writeFileDurably(file, '{"v":1}');
    expect(readFileSync(file, 'utf8')).to.equal('{"v":1}');
    await writeFileDurably(file, [Buffer.from('one '), Buffer.from('two')]);
    expect(readFileSync(file, 'utf8')).to.equal('one two');
    await writeFileDurably(file, async (h) => {
      await h.write('head\n');
      await h.write('tail\n');
    });
    expect(readFileSync(file, 'utf8')).to.equal('head\ntail\n');
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    expect(readdirSync(dir)).to.deep.equal(['a.json']);
  });

  it('leaves the old file whole and no temp file when the writer fails', async () => {
    const file = path.join(dir, 'a.json');
    writeFileSync(file, 'old');
    let seenTemp = '';
    const failing = writeFileDurably(file, async (h) => {
      await h.write('half of the new');
      seenTemp = readdirSync(dir).find(isTempName) ?? '';
      expect(isInFlight(path.join(dir, seenTemp))).to.equal(true);
      throw new Error('disk full');
    });
    await failing.then(
      () => expect.fail('the write should fail'),
      (e: Error) => expect(e.message).to.equal('disk full'),
    );
    expect(seenTemp).to.match(/^\.a\.json\.[0-9a-f]{16}\.tmp$/);
    expect(isInFlight(path.join(dir, seenTemp))).to.equal(false);
    expect(readFileSync(file, 'utf8')).to.equal('old');
    expect(readdirSync(dir)).to.deep.equal(['a.json']);
  });

  it('names temp files so no data file is taken for one', () => {
    expect(isTempName('.s_1.json.0011223344556677.tmp')).to.equal(true);
    expect(isTempName('s_1.json')).to.equal(false);
    expect(isTempName('backup.tmp')).to.equal(false);
  });

  it('removes a file once: true the first time, false when already gone', async () => {
    const file = path.join(dir, 'gone');
    writeFileSync(file, 'x');
    expect(await removeFile(file)).to.equal(true);
    expect(await removeFile(file)).to.equal(false);
    writeFileSync(file, 'x');
    await removeFileDurably(file);
    await removeFileDurably(file);
    expect(readdirSync(dir)).to.deep.equal([]);
  });
});
