import { Command, Option } from 'commander';
import { SERVICE_VERSION } from '../../infrastructure/service-version.js';
import { commandContext, type CommandContext } from './command-context.js';
import { registerChangesCommand } from './commands/changes-command.js';
import { registerMcpCommand } from './commands/mcp-command.js';
import { registerPromptsCommand } from './commands/prompts-command.js';
import { registerRunsCommand } from './commands/runs-command.js';
import { registerSandboxCommand } from './commands/sandbox-command.js';
import { registerEvalCommand } from './commands/eval-command.js';
import { registerRunCommand } from './commands/run-command.js';
import { registerServeCommand } from './commands/serve-command.js';
import { registerSessionsCommand } from './commands/sessions-command.js';
import { registerStatusCommand } from './commands/status-command.js';
import { registerToolsCommand } from './commands/tools-command.js';
import { DEFAULT_URL } from './cli-config.js';

const EXIT_CODES_HELP = `
Server and token: --url/--token, or SVC_URL/SVC_AUTH_TOKEN (default ${DEFAULT_URL}).
Exit codes: 0 success, 1 the server refused the request or could not be reached
(its message is printed), 2 usage error (nothing was sent), 3 "changes verify"
found the ledger's chain broken.`;

/** The `svc` command tree. Every command only maps flags to a REST call and the answer to text. */
export function buildProgram(context: CommandContext = commandContext): Command {
  const program = new Command('svc')
    .description('svc: AI-assisted Kubernetes tools and a shared prompt library, from the terminal')
    .version(SERVICE_VERSION, '-V, --version', 'print the CLI version')
    .option('--url <url>', `server base URL (env SVC_URL, default ${DEFAULT_URL})`)
    .option('--token <token>', 'bearer token (env SVC_AUTH_TOKEN; prefer the variable: flags show in the process list)')
    .addOption(new Option('-o, --output <format>', 'text for people, json for scripts').choices(['text', 'json']).default('text'))
    .addHelpText('after', EXIT_CODES_HELP)
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({ outputError: (str, write) => write(str) })
    .exitOverride();
  registerServeCommand(program);
  registerToolsCommand(program, context);
  registerRunCommand(program, context);
  registerRunsCommand(program, context);
  registerSessionsCommand(program, context);
  registerPromptsCommand(program, context);
  registerStatusCommand(program, context);
  registerChangesCommand(program, context);
  registerMcpCommand(program, context);
  registerSandboxCommand(program);
  registerEvalCommand(program);
  // Every command exits through main's error mapping rather than process.exit.
  const override = (cmd: Command) => {
    cmd.exitOverride();
    cmd.commands.forEach(override);
  };
  override(program);
  return program;
}
