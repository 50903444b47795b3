import { MAX_UPLOAD_DECODED_BYTES, MAX_UPLOAD_FILES, MAX_UPLOAD_RAW_BYTES } from '../../domain/uploads/upload-limits.js';
import { SOURCES_PATH } from './controllers/sources-controller.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: ref('ErrorEnvelope') } } });

/** Schemas of the upload route, which is a plain express route and so not in tsoa's generated spec. */
export const SOURCES_SCHEMAS: Json = {
  UploadManifest: {
    type: 'object',
    additionalProperties: false,
    required: ['source', 'files'],
    properties: {
      source: {
        type: 'string',
        maxLength: 2048,
        description: 'Identifier the upload is cached under, exactly as sent: a git URL or local:<label>. Global: any caller can overwrite it. Never cloned.',
        example: 'local:alice-k8s',
      },
      contentHash: {
        type: 'string',
        pattern: '^sha256:[0-9a-fA-F]{64}$',
        description:
          'Optional. SHA-256 over the files in UTF-8 path order, each as path NUL mode NUL size NUL bytes (see the README); verified, a mismatch is refused.',
      },
      files: {
        type: 'array',
        minItems: 1,
        maxItems: MAX_UPLOAD_FILES,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['path', 'content'],
          properties: {
            path: { type: 'string', description: 'Relative path; no .. segment, absolute or drive path, null byte or control character' },
            content: { type: 'string', format: 'byte', description: 'Strict base64 (padded, no line breaks)' },
            mode: {
              type: 'string',
              description: 'Octal; setuid, setgid and sticky dropped, masked to 0777; absent or unparseable means 0644',
              example: '0755',
            },
          },
        },
        description: `At most ${MAX_UPLOAD_FILES} files, at most ${MAX_UPLOAD_DECODED_BYTES} bytes decoded in total`,
      },
    },
  },
  UploadResult: {
    type: 'object',
    required: ['success', 'data', 'meta'],
    properties: {
      success: { type: 'boolean', enum: [true] },
      data: {
        type: 'object',
        required: ['source', 'fileCount', 'status'],
        properties: {
          source: { type: 'string', description: 'The identifier, credentials scrubbed' },
          contentHash: { type: 'string', description: 'Echoed when sent' },
          fileCount: { type: 'integer' },
          status: { type: 'string', enum: ['ingested', 'unchanged'] },
        },
      },
      meta: ref('Meta'),
    },
  },
};

/** The OpenAPI path item of POST /api/v1/prompts/sources. */
export const SOURCES_PATH_ITEM: Json = {
  [SOURCES_PATH]: {
    post: {
      operationId: 'UploadSkillSource',
      tags: ['Prompts'],
      summary: 'Upload a skill source to render prompts from with ?source=',
      description:
        'For trusted callers: identifiers are global server state. The upload is cached in memory (LRU by count and bytes), ' +
        'not kept across restarts; the same identifier and contentHash already cached answers unchanged without decoding.',
      requestBody: { required: true, content: { 'application/json': { schema: ref('UploadManifest') } } },
      responses: {
        '200': { description: 'Cached (ingested) or already cached (unchanged)', content: { 'application/json': { schema: ref('UploadResult') } } },
        '400': errorResponse('VALIDATION_ERROR: a manifest check failed; nothing was stored'),
        '401': errorResponse('UNAUTHORIZED: missing or invalid bearer token'),
        '413': errorResponse(`PAYLOAD_TOO_LARGE: raw body over ${MAX_UPLOAD_RAW_BYTES} bytes`),
      },
    },
  },
};
