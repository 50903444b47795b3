import type { Command } from 'commander';

export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('Start the svc server (the same as `npm start`); configured by the environment, see the README')
    .action(async () => {
      // Loaded only here: the other commands never pull in the server, its DI container or its adapters.
      const { serve } = await import('../../main.js');
      await serve();
    });
}
