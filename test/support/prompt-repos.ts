import type { RepoSpec } from './git-http-server.js';

const md = (frontmatter: string, body: string) => `---\n${frontmatter}\n---\n${body}`;

/** The repositories the prompt tests clone. */
export const PROMPT_REPOS: Record<string, RepoSpec> = {
  public: {
    files: {
      'README.md': '# Team prompts\n',
      'rollout-check.md': md(
        'name: rollout-check\ndescription: Check a rollout\narguments:\n  - name: deployment\n    description: Deployment name\n    required: true\n  - name: namespace\n    description: Namespace',
        'Check the rollout of {{deployment}} in {{namespace}}.',
      ),
      'broken.md': md('description: [unclosed', 'never loads'),
      'leak.md': { symlink: '/etc/passwd' },
      'skills/triage/SKILL.md': md('name: triage\ndescription: Triage an incident', 'Follow the runbook in scripts/.'),
      'skills/triage/scripts/collect.sh': { text: '#!/bin/sh\nkubectl get events\n', mode: 0o755 },
      'team/team-only.md': md('description: Only in the team folder', 'team body'),
    },
    branches: {
      dev: { 'dev-only.md': md('description: Only on dev', 'dev body') },
    },
  },
  private: {
    private: true,
    files: { 'private-runbook.md': md('description: A private runbook', 'secret steps') },
  },
  second: {
    files: { 'second-prompt.md': md('description: From the second repo', 'second body') },
  },
};
