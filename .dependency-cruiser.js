/** Layer rules: arrows point inward only (docs/design/hexagon-and-ports.md, "The hexagon"). */
const VENDOR = '^(express|@tsoa|tsoa|tsyringe|openai|@qdrant|@kubernetes|isomorphic-git|@opentelemetry|pino|@modelcontextprotocol|commander|prom-client)($|/)';

module.exports = {
  forbidden: [
    {
      name: 'core-imports-no-framework-or-vendor-sdk',
      comment: 'domain/ and application/ import no framework or vendor SDK',
      severity: 'error',
      from: { path: '^(domain|application)/' },
      to: { path: `node_modules/${VENDOR.slice(1)}` },
    },
    {
      name: 'core-imports-no-vendor-by-name',
      severity: 'error',
      from: { path: '^(domain|application)/' },
      to: { dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown', 'unknown'], path: VENDOR },
    },
    {
      name: 'core-imports-no-outer-layer',
      comment: 'domain/ and application/ never import infrastructure/ or interfaces/',
      severity: 'error',
      from: { path: '^(domain|application)/' },
      to: { path: '^(infrastructure|interfaces)/' },
    },
    {
      name: 'domain-imports-no-application',
      severity: 'error',
      from: { path: '^domain/' },
      to: { path: '^application/' },
    },
    {
      name: 'infrastructure-imports-no-interfaces',
      comment: 'adapters and the composition root never reach into the transports',
      severity: 'error',
      from: { path: '^infrastructure/' },
      to: { path: '^interfaces/' },
    },
    {
      name: 'product-imports-no-tests',
      comment: 'the product never imports test code',
      severity: 'error',
      from: { path: '^(domain|application|infrastructure|interfaces)/' },
      to: { path: '^test/' },
    },
    {
      name: 'interfaces-reach-infrastructure-through-the-root',
      comment:
        'interfaces/ uses infrastructure only through the composition root, its DI tokens, config types, the service version and the server logger (made before the root loads)',
      severity: 'error',
      from: { path: '^interfaces/' },
      to: {
        path: '^infrastructure/',
        pathNot: '^infrastructure/(composition-root|tokens|service-version|server-logger)[.]ts$|^infrastructure/config/',
      },
    },
    {
      name: 'product-imports-no-lab',
      comment:
        'lab/ (the sandbox and the evaluation harness) may use the composition root and anything in the product; nothing in the product imports lab/, not even a type or a literal dynamic import. The CLI loads lab/lab-main.js at run time from a computed path (interfaces/cli/lab-entry.ts), which declares the contract lab/lab-main.ts satisfies.',
      severity: 'error',
      from: { path: '^(domain|application|infrastructure|interfaces)/' },
      to: { path: '^lab/' },
    },
    {
      name: 'lab-imports-no-tests',
      severity: 'error',
      from: { path: '^lab/' },
      to: { path: '^(test|bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    exclude: { path: '^dist/' },
  },
};
