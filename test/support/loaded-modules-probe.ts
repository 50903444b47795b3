/**
 * Preloaded into a started svc (`node -r <this> main.js`) by the lean-start
 * tests: on SIGUSR2 it writes the files the process has loaded so far (the
 * keys of require.cache) to LOADED_MODULES_FILE, written whole and renamed,
 * so a reader never sees half a list.
 */
import { renameSync, writeFileSync } from 'node:fs';

const file = process.env.LOADED_MODULES_FILE;
if (file) {
  process.on('SIGUSR2', () => {
    writeFileSync(`${file}.part`, JSON.stringify(Object.keys(require.cache)));
    renameSync(`${file}.part`, file);
  });
}
