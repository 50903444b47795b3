/** A decoded JSON object (a Kubernetes object, a patch, a model's answer): string keys, values not yet checked. */
export type JsonObject = Record<string, unknown>;

/** Whether a decoded JSON value is an object (not null, not an array). */
export const isJsonObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The value when it is an object, else an empty one: for reading optional nested fields. */
export const asJsonObject = (v: unknown): JsonObject => (isJsonObject(v) ? v : {});
