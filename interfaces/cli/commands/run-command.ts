import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';

/** The body of `svc run` (the tool definitions, zod and every output schema) loads only when a tool is run or its help shown. */
const runTool = () => require('./run-tool.js') as typeof import('./run-tool.js');

export function registerRunCommand(program: Command, context: CommandContext): void {
  program
    .command('run')
    .description("Run a tool; parameters are validated against the tool's schema before anything is sent")
    .argument('<tool>', 'tool name (see `svc tools`)')
    .argument('[params...]', 'tool parameters as --name value (repeat a flag for an array; JSON for an object)')
    .option('--json <file>', "read the tool's parameters from a JSON file ('-' for stdin); --name value flags override it")
    .allowUnknownOption()
    .allowExcessArguments()
    .addHelpText('after', (ctx) => runTool().paramsHelp(ctx.command))
    .action((tool: string, rawParams: string[], opts: { json?: string }, cmd: Command) => runTool().runTool(context, tool, rawParams, opts, cmd));
}
