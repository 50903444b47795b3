// typescript-eslint's recommended rules over the whole tree (no type information: fast in CI).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** SDKs loaded with a lazy `require` only when their adapter is configured (start-up time and memory). */
const LAZY_MODULES = [
  '^node:https?$',
  '^@kubernetes/client-node$',
  '^ioredis$',
  '^isomorphic-git$',
  '^swagger-ui-dist$',
  '^@modelcontextprotocol/sdk/',
  '^@opentelemetry/',
  '^@aws-sdk/credential-provider-(web-identity|http|node)$',
  '^openai$',
  '^@anthropic-ai/sdk$',
  '^@qdrant/js-client-rest$',
  '^\\./(kubernetes-cluster-client|openai-llm-provider|anthropic-llm-provider|bedrock-llm-provider|qdrant-vector-store|mcp-route|otel-tracer|oidc-authenticator)\\.js$',
  '^\\.\\./embeddings/(openai|bedrock)-embedder\\.js$',
  '^\\.\\./mcp-bridge\\.js$',
  // the CLI: a command's body and the libraries only some commands use load when that command runs
  '^yaml$',
  '^\\./(run-tool|upload-folder)\\.js$',
  '^\\.\\./evaluation/scenario-loader\\.js$',
  '^\\.\\./\\.\\./domain/write-guard/kind-risk\\.js$',
  // the tools' output schemas: read by the OpenAPI document, MCP and output checks, not by the start
  '^\\./outputs/[a-z-]+\\.js$',
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'interfaces/http/generated/**', 'test-artifacts/**', '.svc-data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // `_`-prefixed names are deliberately unused (interface-shaped parameters, destructuring to drop a key)
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-require-imports': ['error', { allow: LAZY_MODULES }],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    languageOptions: { globals: { ...globals.mocha } },
    rules: {
      // chai's property assertions (`expect(x).to.be.true`) are expressions by design
      '@typescript-eslint/no-unused-expressions': 'off',
      // tests and benches read arbitrary JSON bodies from the wire
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
