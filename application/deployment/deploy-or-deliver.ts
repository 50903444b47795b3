import { ValidationError } from '../../domain/errors.js';
import type { ToolInput } from '../../domain/tools/tool-definitions.js';
import type { ToolContext, ToolHandler } from '../tool-handler.js';
import type { CleanUpDeploy } from './clean-up-deploy.js';
import type { DeliverToGit } from './deliver-to-git.js';

/** deployManifests' three ways: with `gitops`, a push to a repository (the cluster untouched); with `cleanup`, the delete of what the last deploy created; otherwise the apply to the cluster. */
export class DeployOrDeliver implements ToolHandler<ToolInput<'deployManifests'>> {
  constructor(
    private readonly deploy: ToolHandler<ToolInput<'deployManifests'>>,
    private readonly deliver: DeliverToGit,
    private readonly cleanUp: CleanUpDeploy,
  ) {}

  execute(input: ToolInput<'deployManifests'>, context: ToolContext): Promise<unknown> {
    if (input.preview && (input.cleanup || input.gitops))
      throw new ValidationError('deployManifests takes preview alone: it previews the apply to the cluster (not a cleanup, nor a git delivery)');
    if (input.planDigest && (input.cleanup || input.gitops))
      throw new ValidationError("deployManifests takes planDigest with a deploy to the cluster only: it is the digest of that deploy's preview");
    if (input.onFailure !== undefined && (input.cleanup || input.gitops))
      throw new ValidationError('onFailure goes with a deploy to the cluster, not with cleanup or gitops (svc judges only what it applied)');
    if (input.cleanup) {
      if (input.gitops)
        throw new ValidationError('deployManifests takes cleanup or gitops, not both: a cleanup deletes from the cluster what a deploy created');
      return this.cleanUp.execute(input.solutionId, context);
    }
    return input.gitops ? this.deliver.execute(input.solutionId, input.gitops, context) : this.deploy.execute(input, context);
  }
}
