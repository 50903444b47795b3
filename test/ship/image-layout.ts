/**
 * What the runtime stage of the Dockerfile must copy for `node
 * dist/interfaces/main.js` to start: the Dockerfile test checks the image
 * copies exactly these, and the start test lays out the same set.
 */
export const RUNTIME_PATHS = ['node_modules', 'package.json', 'dist', 'infrastructure/prompts/builtin', 'scenarios'] as const;

/** Compiled folders the image drops: nothing at run time imports them. */
export const DIST_NOT_SHIPPED = ['dist/test', 'dist/bench'] as const;
