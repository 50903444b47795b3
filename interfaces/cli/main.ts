#!/usr/bin/env node
import { CommanderError } from 'commander';
import { CheckFailed, EXIT, Interrupted, RequestFailed, UsageError } from './cli-errors.js';
import { buildProgram } from './program.js';
import { writeErr } from './output.js';

/** Field errors one per line, unless the message already names each of them. */
function detailsText(message: string, details: unknown): string {
  if (!Array.isArray(details)) return '';
  const lines = details
    .filter((d): d is { field: string; message: string } => typeof d === 'object' && d !== null && 'field' in d && 'message' in d)
    .map((d) => `${d.field}: ${d.message}`);
  if (lines.every((l) => message.includes(l))) return '';
  return `\n${lines.map((l) => `  ${l}`).join('\n')}`;
}

/** Runs one command line and returns the exit code: 0 success, 1 the server said no, 2 usage error, 3 a check found a problem. */
export async function runCli(argv: readonly string[]): Promise<number> {
  try {
    await buildProgram().parseAsync([...argv], { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end here with exit code 0; a parse error has already been printed.
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (err instanceof CheckFailed) return EXIT.checkFailed;
    if (err instanceof UsageError) {
      writeErr(`svc: ${err.message}${detailsText(err.message, err.details)}`);
      return EXIT.usage;
    }
    if (err instanceof Interrupted) return EXIT.interrupted;
    if (err instanceof RequestFailed) {
      writeErr(`svc: ${err.code}: ${err.message}${detailsText(err.message, err.details)}`);
      return EXIT.refused;
    }
    writeErr(`svc: unexpected error: ${err instanceof Error ? err.message : String(err)}`);
    return EXIT.refused;
  }
}

if (require.main === module) {
  // `svc ... | head`: the reader closed the pipe, so the rest of the output has nowhere to go; end quietly, as a pipeline expects
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    process.exit(process.exitCode ?? EXIT.ok);
  });
  // exitCode rather than exit(): pending output is flushed first, and `svc serve` keeps running on its server.
  void runCli(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
