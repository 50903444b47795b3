/**
 * Instructions added to a structured-answer request when the backend is not
 * given the JSON schema (SVC_LLM_STRUCTURED_OUTPUT json_object or none): the
 * schema itself and one literal example, so that a small local model knows
 * the shape. Both are svc's own constants, never user or cluster text.
 */
export function answerShapeInstructions(schema: Record<string, unknown>, example: unknown): string {
  return `Your answer must be one JSON object, with no other text, that fits this JSON Schema:
${JSON.stringify(schema)}

An example of an answer with that shape (its values only show the form; answer with what you found):
${JSON.stringify(example)}`;
}
