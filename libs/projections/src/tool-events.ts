import { errorInfoSchema, type ErrorInfo } from '@spindle/contracts';

/**
 * `tool.called` / `tool.returned` carry free-form records in the contract. The trace reads
 * `{ name | tool, arguments }` from the call and `{ result?, error?, durationMs? }` from the
 * return; anything else in them stays in the raw log only.
 */
type ToolData = Record<string, unknown>;

export function toolName(data: ToolData): string | undefined {
  const name = data.name ?? data.tool;
  return typeof name === 'string' ? name : undefined;
}

export function toolCallInput(data: ToolData): unknown {
  return data.arguments;
}

export function toolResult(data: ToolData): { output?: unknown; error?: ErrorInfo; durationMs?: number } {
  return {
    output: data.result,
    error: data.error === undefined || data.error === null ? undefined : toolError(data.error),
    durationMs: typeof data.durationMs === 'number' && data.durationMs >= 0 ? data.durationMs : undefined,
  };
}

function toolError(error: unknown): ErrorInfo {
  const parsed = errorInfoSchema.safeParse(error);
  if (parsed.success) return parsed.data;
  const message =
    typeof error === 'string'
      ? error
      : typeof (error as { message?: unknown }).message === 'string'
        ? (error as { message: string }).message
        : JSON.stringify(error);
  return { code: 'tool_failed', message };
}
