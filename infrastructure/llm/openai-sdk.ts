/**
 * The openai SDK, loaded by the first call that needs it (a model or
 * embedding request, or the reading of its error): with an OpenAI-compatible
 * provider configured, loading it at start was a good part of the start.
 */
export function openAiSdk(): typeof import('openai') {
  return require('openai') as typeof import('openai');
}
