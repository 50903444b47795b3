import type { Command } from 'commander';
import { resolveTarget, type CliTarget } from './cli-config.js';
import { UsageError } from './cli-errors.js';
import type { OutputFormat } from './output.js';
import { SvcClient } from './svc-client.js';

export interface ResolvedContext {
  target: CliTarget;
  client: SvcClient;
  output: OutputFormat;
}

/** Resolves the global flags (--url, --token, --output) of the command being run. */
export type CommandContext = (cmd: Command) => ResolvedContext;

export const commandContext: CommandContext = (cmd) => {
  const flags = cmd.optsWithGlobals<{ url?: string; token?: string; output?: string }>();
  if (flags.output !== undefined && flags.output !== 'text' && flags.output !== 'json') {
    throw new UsageError(`--output must be text or json, got "${flags.output}"`);
  }
  const target = resolveTarget(flags);
  return { target, client: new SvcClient(target), output: (flags.output ?? 'text') as OutputFormat };
};
