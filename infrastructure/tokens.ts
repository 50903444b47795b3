/** DI tokens: one symbol per port or use case registered at the composition root. */
export const TOKENS = {
  Config: Symbol('Config'),
  Logger: Symbol('Logger'),
  Clock: Symbol('Clock'),
  Tracer: Symbol('Tracer'),
  VectorStore: Symbol('VectorStore'),
  Embedder: Symbol('Embedder'),
  LlmProvider: Symbol('LlmProvider'),
  ClusterClient: Symbol('ClusterClient'),
  ToolRegistry: Symbol('ToolRegistry'),
  ToolHandlers: Symbol('ToolHandlers'),
  RuntimeInfo: Symbol('RuntimeInfo'),
  ExecuteTool: Symbol('ExecuteTool'),
  ListTools: Symbol('ListTools'),
  IngestedSourceStore: Symbol('IngestedSourceStore'),
  IngestSource: Symbol('IngestSource'),
  IngestedPromptSource: Symbol('IngestedPromptSource'),
} as const;
