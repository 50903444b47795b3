import type { ToolInput } from '../../domain/tools/tool-definitions.js';
import type { ToolContext, ToolHandler } from '../tool-handler.js';
import type { DeliverToGit } from './deliver-to-git.js';

/** deployManifests' two ways: with `gitops`, a push to a repository (the cluster untouched); without, the apply to the cluster. */
export class DeployOrDeliver implements ToolHandler<ToolInput<'deployManifests'>> {
  constructor(
    private readonly deploy: ToolHandler<ToolInput<'deployManifests'>>,
    private readonly deliver: DeliverToGit,
  ) {}

  execute(input: ToolInput<'deployManifests'>, context: ToolContext): Promise<unknown> {
    return input.gitops ? this.deliver.execute(input.solutionId, input.gitops, context) : this.deploy.execute(input, context);
  }
}
