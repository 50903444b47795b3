import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from './project-root.js';

/** The service version, from package.json (read once). */
export const SERVICE_VERSION: string = (JSON.parse(readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as { version: string }).version;
