/** SPEC.md "Limits" for uploaded skill sources. */

/** Raw request body of POST /api/v1/prompts/sources, checked while streaming, before JSON parsing. */
export const MAX_UPLOAD_RAW_BYTES = 524288;

/** Files per manifest. */
export const MAX_UPLOAD_FILES = 100;

/** Sum of the decoded file contents of one manifest (256 KiB). */
export const MAX_UPLOAD_DECODED_BYTES = 262144;

/** Longest accepted file path, in characters: far above any real tree, bounded so messages and keys stay small. */
export const MAX_UPLOAD_PATH_LENGTH = 1024;

/** Longest accepted source identifier, in characters: it is a cache key and is echoed in every answer. */
export const MAX_SOURCE_IDENTIFIER_LENGTH = 2048;

/** Mode given to a file whose mode is absent or unparseable. */
export const DEFAULT_FILE_MODE = 0o644;
