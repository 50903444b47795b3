import { z } from 'zod';

/** deployManifests' `gitops`: where to push the manifests. Checked again by the repository rules (domain/gitops/gitops-target.ts). */
export const gitopsInput = z.strictObject({
  repo: z.string().trim().min(1).max(2000).describe('http(s) URL of the git repository (the same rules as a per-request prompts repo)'),
  path: z.string().max(500).optional().describe('Folder inside the repository for the files (default: the solution name, e.g. web/)'),
  branch: z.string().max(255).optional().describe('Branch to push to, created from baseBranch when missing (default svc/<solutionId>); never the base branch'),
  baseBranch: z.string().max(255).optional().describe("Branch a new branch starts from and a pull request targets (default: the repository's default branch)"),
  commitMessage: z.string().trim().min(1).max(5000).optional().describe('Commit message (default names the intent and the solution id)'),
  pullRequest: z.boolean().optional().describe('true: also open a pull (merge) request from branch to baseBranch on GitHub or GitLab'),
});
