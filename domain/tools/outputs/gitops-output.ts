import { z } from 'zod';

/** An action's object managed by Argo CD or Flux (remediate and operate). */
export const gitopsMarkOutput = z
  .object({
    controller: z.enum(['argocd', 'flux']),
    owner: z.string().describe('the owning Application, Kustomization or HelmRelease'),
    source: z.object({ repoURL: z.string(), path: z.string(), revision: z.string().optional() }).optional().describe('where its desired state lives in git'),
    noGitDelivery: z.string().optional().describe('why svc cannot commit a change of this object to git (delivery "git" is then refused); absent when it can'),
  })
  .describe('a GitOps controller manages this object: a live change will be reverted');

/** A change delivered as a commit to the source repository instead of a live write. */
export const fixDeliveryOutput = z.object({
  repository: z.string(),
  branch: z.string(),
  baseBranch: z.string(),
  commit: z.string(),
  changed: z.boolean(),
  files: z.array(z.string()),
  pullRequest: z.object({ url: z.string(), number: z.number().int(), existing: z.boolean() }).optional(),
  note: z.string().optional(),
  ledgerId: z.string().optional().describe('the change ledger entry of this delivery: GET /api/v1/changes/{id}'),
  ledgerError: z.string().optional().describe('set when the delivery could not be recorded in the change ledger (it happened all the same)'),
});

/** `delivery` of remediate and operate with executeChoice 1. */
export const deliveryInput = z
  .enum(['git', 'live'])
  .describe(
    'With executeChoice 1 on objects Argo CD or Flux manage: git commits the change to their source repository (a pull request where the host is known), live changes the cluster anyway (the controller reverts it)',
  );
