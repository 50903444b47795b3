import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { writeErr } from '../output.js';

export function registerMcpCommand(program: Command, context: CommandContext): void {
  program
    .command('mcp')
    .description(
      'Speak MCP on stdin/stdout, forwarding to a running svc (--url; token from SVC_AUTH_TOKEN or --token): for agents that launch MCP servers as local commands. stdout carries MCP messages only; logs go to stderr',
    )
    .action(async (_opts: unknown, cmd: Command) => {
      const { target } = context(cmd);
      // the MCP SDK loads only for this command
      const { runMcpBridge } = require('../mcp-bridge.js') as typeof import('../mcp-bridge.js');
      await runMcpBridge(target, { stdin: process.stdin, stdout: process.stdout, log: writeErr });
    });
}
