import { expect } from 'chai';
import { IngestedPromptSource, rootSkillName } from '../../application/ingested-prompt-source.js';
import { IngestSource } from '../../application/ingest-source.js';
import { ValidationError } from '../../domain/errors.js';
import { renderPrompt } from '../../domain/prompts/prompt-renderer.js';
import { FakeIngestedSourceStore } from '../fakes/fake-ingested-source-store.js';
import { CapturingLogger } from '../support/capturing-logger.js';
import { manifestOf, type ClientFile } from '../support/upload-manifests.js';
import { rejection } from '../support/rejection.js';

const md = (text: string) => Buffer.from(text, 'utf8');
const TREE: ClientFile[] = [
  {
    path: 'skills/deploy/SKILL.md',
    bytes: md(
      '---\nname: deploy\ndescription: Deploy {{app}}\narguments:\n  - name: app\n    description: The app\n    required: true\n  - name: ns\n    description: Namespace\n    required: false\n---\nDeploy {{app}} into {{ns}} then run ./run.sh\n',
    ),
  },
  { path: 'skills/deploy/run.sh', bytes: md('#!/bin/sh\nkubectl apply -f .\n'), mode: '4755' },
  { path: 'skills/deploy/lib/helper.txt', bytes: md('helper'), mode: 'abc' },
  { path: 'triage.md', bytes: md('---\nname: triage\ndescription: Triage a pod\n---\nLook at {{pod}}\n') },
  { path: 'broken.md', bytes: md('---\nname: [unclosed\n---\nbody') },
];

describe('IngestedPromptSource', () => {
  let store: FakeIngestedSourceStore;
  let logger: CapturingLogger;
  let prompts: IngestedPromptSource;
  beforeEach(() => {
    store = new FakeIngestedSourceStore();
    logger = new CapturingLogger();
    prompts = new IngestedPromptSource(store, logger);
  });

  it('renders a skill of an uploaded source with full argument substitution and its folder files', async () => {
    const id = 'https://me:tok3n-abc@git.internal.example/team/skills.git';
    await new IngestSource(store).execute(manifestOf(id, TREE));
    const { library, source } = await prompts.resolve(id);
    expect(source).to.equal('https://***:***@git.internal.example/team/skills.git');
    expect(library.list().map((p) => p.name)).to.deep.equal(['deploy', 'triage']);
    const out = renderPrompt(library.get('deploy')!, { app: 'shop', ns: 'prod' });
    expect(out.description).to.equal('Deploy {{app}}');
    expect(out.messages).to.deep.equal([{ role: 'user', content: { type: 'text', text: 'Deploy shop into prod then run ./run.sh\n' } }]);
    expect(out.files).to.deep.equal([
      { path: 'lib/helper.txt', content: md('helper').toString('base64'), mode: '0644' },
      { path: 'run.sh', content: md('#!/bin/sh\nkubectl apply -f .\n').toString('base64'), mode: '0755' },
    ]);
    expect(logger.text()).to.include('broken.md').and.not.include('tok3n-abc');
  });

  it('a source that is not cached is a VALIDATION_ERROR asking for a re-upload, with no git or clone wording', async () => {
    const id = 'https://me:tok3n-abc@git.internal.example/team/skills.git';
    const err = await rejection(prompts.resolve(id));
    expect(err).to.be.instanceOf(ValidationError);
    expect(err.message).to.match(/^Ingested source not found: https:\/\/\*\*\*:\*\*\*@git\.internal\.example\/team\/skills\.git\. /);
    expect(err.message).to.include('upload it again with POST /api/v1/prompts/sources');
    expect(err.message).not.to.include('tok3n-abc');
    const instruction = err.message.replace('https://***:***@git.internal.example/team/skills.git', '');
    expect(instruction).not.to.match(/git|clone/i);
  });

  it('parses each cached entry once and again after a replacement', async () => {
    await new IngestSource(store).execute(manifestOf('local:a', TREE));
    const first = (await prompts.resolve('local:a')).library;
    expect((await prompts.resolve('local:a')).library).to.equal(first);
    await new IngestSource(store).execute(manifestOf('local:a', TREE.slice(3, 4)));
    const second = (await prompts.resolve('local:a')).library;
    expect(second).not.to.equal(first);
    expect(second.list().map((p) => p.name)).to.deep.equal(['triage']);
  });

  it('names a root-level skill after the label or the repository', async () => {
    expect(rootSkillName('local:alice-k8s')).to.equal('alice-k8s');
    expect(rootSkillName('https://git.example/org/k8s-skills.git')).to.equal('k8s-skills');
    expect(rootSkillName('git@git.example:org/ops.git')).to.equal('ops');
    expect(rootSkillName('https://git.example/')).to.equal('git.example');
    await new IngestSource(store).execute(manifestOf('local:solo', [{ path: 'SKILL.md', bytes: md('---\ndescription: Solo\n---\nHi') }]));
    expect((await prompts.resolve('local:solo')).library.list().map((p) => p.name)).to.deep.equal(['solo']);
  });
});
