import { OpenAiChatServer } from './openai-chat-server.js';
import { QdrantServer } from './qdrant-server.js';
import { TraceReceiver } from './trace-receiver.js';

/**
 * An OpenAI-compatible model, Qdrant and an OTLP collector on loopback, and
 * the environment that points svc at them: the "everything configured" start
 * of bench:startup and of the lean-start test. The caller closes them.
 */
export async function startConfiguredStandIns(): Promise<{ env: Record<string, string>; close: () => Promise<void> }> {
  const [chat, qdrant, traces] = await Promise.all([OpenAiChatServer.start(), new QdrantServer().start(), TraceReceiver.start()]);
  return {
    env: {
      OPENAI_API_KEY: chat.apiKey,
      OPENAI_BASE_URL: chat.baseUrl,
      SVC_LLM_MODEL: 'gpt-test',
      QDRANT_URL: qdrant.url,
      OTEL_TRACING_ENABLED: 'true',
      OTEL_EXPORTER_TYPE: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: traces.url,
    },
    close: async () => {
      await Promise.all([chat.close(), qdrant.stop(), traces.close()]);
    },
  };
}
