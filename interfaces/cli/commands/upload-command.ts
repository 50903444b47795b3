import type { Command } from 'commander';
import { MAX_UPLOAD_DECODED_BYTES, MAX_UPLOAD_FILES, MAX_UPLOAD_RAW_BYTES } from '../../../domain/uploads/upload-limits.js';
import type { CommandContext } from '../command-context.js';

/** The body (the server's checks, hashing, reading the folder) loads only when an upload runs. */
const uploadFolder = () => require('./upload-folder.js') as typeof import('./upload-folder.js');

export function registerUploadCommand(prompts: Command, context: CommandContext): void {
  prompts
    .command('upload')
    .description('Upload a local skill folder as an ingested source, for `svc prompts get --source`')
    .argument('<dir>', 'the folder to upload (files and folders starting with a dot are skipped)')
    .requiredOption('--source <id>', 'identifier to store it under: local:<label> (suggested local:<user>-<label>) or a git URL')
    .option('--dry-run', 'check the folder and print its contentHash without sending anything')
    .addHelpText(
      'after',
      `\nLimits, checked before sending: at most ${MAX_UPLOAD_FILES} files, ${MAX_UPLOAD_DECODED_BYTES / 1024} KiB in total, ` +
        `${MAX_UPLOAD_RAW_BYTES / 1024} KiB of request body. Symbolic links are skipped, never followed.\n` +
        'Identifiers are global on the server: anyone with the token can overwrite one.\n',
    )
    .action((dir: string, opts: { source: string; dryRun?: boolean }, cmd: Command) => uploadFolder().uploadFolder(context, dir, opts, cmd));
}
