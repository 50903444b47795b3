/** What every tool run knows about its caller. */
export interface ToolContext {
  requestId: string;
  /** Session id of a multi-step tool, when the input carries one. */
  sessionId?: string;
}

/** The use case behind one tool: takes input already validated against the tool's schema. */
export interface ToolHandler {
  execute(input: Record<string, unknown>, context: ToolContext): Promise<unknown>;
}

/** Tool name -> its use case. A tool without an entry is defined but not yet available. */
export type ToolHandlers = ReadonlyMap<string, ToolHandler>;
