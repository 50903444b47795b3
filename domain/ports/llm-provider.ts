/** What the `version` tool reports about the AI provider. */
export interface LlmStatus {
  configured: boolean;
  provider: string;
  model?: string;
  /** How to configure it, when not configured. */
  hint?: string;
}

/** Chat, tool loop and usage accounting. Grows with the AI tools' issues. */
export interface LlmProvider {
  status(): LlmStatus;
}
