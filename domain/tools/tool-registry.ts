import { z } from 'zod';
import { ERROR_CODES, NotFoundError, ValidationError } from '../errors.js';
import type { ToolDefinition } from './tool-definition.js';

/** One field that failed validation. */
export interface FieldError {
  field: string;
  message: string;
}

/** The set of tools a deployment offers, looked up by name. */
export class ToolRegistry {
  private readonly byName = new Map<string, ToolDefinition>();

  constructor(definitions: readonly ToolDefinition[]) {
    for (const d of definitions) {
      if (this.byName.has(d.name)) throw new Error(`duplicate tool definition: ${d.name}`);
      this.byName.set(d.name, d);
    }
  }

  list(): ToolDefinition[] {
    return [...this.byName.values()];
  }

  /** Throws NotFoundError(TOOL_NOT_FOUND) for an unknown name. */
  get(name: string): ToolDefinition {
    const d = this.byName.get(name);
    if (!d) throw new NotFoundError(ERROR_CODES.TOOL_NOT_FOUND, `Tool not found: ${name}`);
    return d;
  }

  /** Validates `input` against the tool's schema; throws ValidationError naming each bad field. */
  validate(name: string, input: unknown): Record<string, unknown> {
    const d = this.get(name);
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      throw new ValidationError(`Invalid parameters for tool ${name}: the body must be a JSON object`, [
        { field: '(body)', message: 'expected a JSON object' },
      ]);
    }
    const parsed = d.inputSchema.safeParse(input);
    if (!parsed.success) {
      const fields = toFieldErrors(parsed.error);
      throw new ValidationError(`Invalid parameters for tool ${name}: ${fields.map((f) => `${f.field}: ${f.message}`).join('; ')}`, fields);
    }
    return parsed.data as Record<string, unknown>;
  }
}

function toFieldErrors(error: z.ZodError): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push({ field: [...issue.path, key].join('.'), message: 'unknown parameter' });
      continue;
    }
    out.push({ field: issue.path.length ? issue.path.join('.') : '(body)', message: issue.message });
  }
  return out;
}
