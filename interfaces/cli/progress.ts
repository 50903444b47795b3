/** Folders at or above this many files, or bytes, get a progress indication. */
export const PROGRESS_MIN_FILES = 20;
export const PROGRESS_MIN_BYTES = 64 * 1024;

export interface Progress {
  update(done: number, bytes: number): void;
  finish(message: string): void;
}

const WIDTH = 24;

/**
 * Progress on stderr, so stdout stays the command's result. On a terminal a
 * bar redrawn in place; otherwise (a pipe, a CI log) a line at each quarter.
 */
export function progressBar(label: string, total: number, stream: NodeJS.WriteStream = process.stderr): Progress {
  const tty = stream.isTTY === true;
  let lastQuarter = 0;
  return {
    update(done, bytes) {
      const ratio = total === 0 ? 1 : done / total;
      const kib = (bytes / 1024).toFixed(1);
      if (tty) {
        const filled = Math.round(ratio * WIDTH);
        stream.write(`\r${label} [${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${done}/${total} files, ${kib} KiB`);
        return;
      }
      const quarter = Math.floor(ratio * 4);
      if (quarter > lastQuarter) {
        lastQuarter = quarter;
        stream.write(`${label}: ${done}/${total} files (${quarter * 25}%), ${kib} KiB\n`);
      }
    },
    finish(message) {
      stream.write(tty ? `\r\x1b[K${message}\n` : `${message}\n`);
    },
  };
}

/** No output: for small folders. */
export const silentProgress: Progress = { update() {}, finish() {} };
