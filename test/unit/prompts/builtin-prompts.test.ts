import { expect } from 'chai';
import { BuiltinPrompts } from '../../../application/prompts/builtin-prompts.js';
import { CapturingLogger } from '../../support/capturing-logger.js';
import { FakeDisk, FakeTreeReader } from '../../support/fake-prompt-git.js';
import { filesWith } from '../../support/prompts-harness.js';
import { promptFiles } from '../../support/prompt-files.js';

const names = async (builtin: BuiltinPrompts, reload = false) =>
  (await builtin.get(reload))
    .list()
    .map((p) => p.name)
    .sort();

describe('application/prompts/builtin-prompts: the prompts shipped with the service, read once and kept', () => {
  it('reads the folder once, answers the same library until a reload, and peeks it once read', async () => {
    const disk = new FakeDisk();
    disk.dirs.set('/builtin', filesWith('one'));
    const builtin = new BuiltinPrompts('/builtin', new FakeTreeReader(disk), new CapturingLogger());
    expect(builtin.peek()).to.equal(undefined);
    const first = await builtin.get();
    expect(builtin.peek()).to.equal(first);
    disk.dirs.set('/builtin', filesWith('one', 'two'));
    expect(await builtin.get()).to.equal(first);
    expect(await names(builtin, true)).to.deep.equal(['one', 'two']);
    expect(builtin.peek()).to.not.equal(first);
  });

  it('logs a missing folder as an error and a file it skips as a warning', async () => {
    const logger = new CapturingLogger();
    expect(await names(new BuiltinPrompts('/nowhere', new FakeTreeReader(new FakeDisk()), logger))).to.deep.equal([]);
    expect(logger.lines.map((l) => [l.level, l.msg])).to.deep.equal([['error', 'built-in prompts folder is missing']]);
    const disk = new FakeDisk();
    disk.dirs.set('/builtin', promptFiles({ 'bad.md': '---\n: not yaml [\n---\nbody' }));
    const warned = new CapturingLogger();
    await new BuiltinPrompts('/builtin', new FakeTreeReader(disk), warned).get();
    expect(warned.lines.map((l) => [l.level, l.msg, l.fields.file])).to.deep.equal([['warn', 'skipping prompt file', 'bad.md']]);
  });

  it('reads again after a failed read instead of keeping the failure', async () => {
    const disk = new FakeDisk();
    disk.dirs.set('/builtin', filesWith('one'));
    const reader = new FakeTreeReader(disk);
    let fail = true;
    const read = reader.read.bind(reader);
    reader.read = async (root, sub) => {
      if (fail) throw new Error('EIO');
      return read(root, sub);
    };
    const builtin = new BuiltinPrompts('/builtin', reader, new CapturingLogger());
    expect(await builtin.get().catch((e: Error) => e.message)).to.equal('EIO');
    fail = false;
    expect(await names(builtin)).to.deep.equal(['one']);
  });
});
