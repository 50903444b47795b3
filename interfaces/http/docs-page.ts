import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { NextFunction, Request, Response, Router } from 'express';
import express from 'express';

export const DOCS_PATH = '/docs';

/** The files the page needs from the swagger-ui-dist package, served by svc itself (no CDN: closed networks). */
const VENDOR_FILES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>svc API</title>
<link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
<link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/docs.js"></script>
</body>
</html>
`;

// Calls made from the page carry the bearer the user types in ("Authorize"); nothing is kept in the browser after the tab closes.
const INITIALIZER = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/api/v1/openapi',
    dom_id: '#swagger-ui',
    deepLinking: true,
    persistAuthorization: false,
    tryItOutEnabled: true,
    presets: [SwaggerUIBundle.presets.apis],
  });
});
`;

/** The page's own policy: everything from svc itself; swagger-ui sets inline styles. */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** true for the paths of the page and its assets (reachable without a bearer token, like the OpenAPI document). */
export function isDocsPath(p: string): boolean {
  return p === DOCS_PATH || p === `${DOCS_PATH}/` || p === `${DOCS_PATH}/docs.js` || Object.hasOwn(VENDOR_FILES, p.slice(DOCS_PATH.length + 1));
}

/**
 * GET /docs: an interactive page over the generated OpenAPI document
 * (Swagger UI from the swagger-ui-dist package). The page and its assets
 * load without a token; "Try it out" calls use the bearer the user enters.
 * Assets are read once, on first request, and kept in memory (a fixed set).
 */
export function docsRouter(): Router {
  // resolved on the first asset request, not at start-up
  let dir: string | undefined;
  const cache = new Map<string, Buffer>();
  const send = (res: Response, type: string, body: string | Buffer) => {
    res.setHeader('Content-Type', type);
    res.setHeader('Content-Security-Policy', CSP);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'no-cache');
    res.send(body);
  };
  const router = express.Router({ strict: false, caseSensitive: true });
  router.get('/', (_req, res) => send(res, 'text/html; charset=utf-8', PAGE));
  router.get('/docs.js', (_req, res) => send(res, 'text/javascript; charset=utf-8', INITIALIZER));
  router.get('/:file', (req: Request, res: Response, next: NextFunction) => {
    const file = String(req.params.file);
    const type = Object.hasOwn(VENDOR_FILES, file) ? VENDOR_FILES[file] : undefined;
    if (!type) return next();
    let body = cache.get(file);
    dir ??= (require('swagger-ui-dist') as { getAbsoluteFSPath(): string }).getAbsoluteFSPath();
    if (!body) cache.set(file, (body = readFileSync(path.join(dir, file))));
    send(res, type, body);
  });
  return router;
}
