import { SpindleError } from '@spindle/contracts';
import type { ToolContext, ToolPort, ToolSpec } from '@spindle/engine';
import { callWithPolicy } from './call-policy';
import type { CompiledInput, CompiledOutput } from './input-schema';
import type { PluginToolDefinition } from './plugin-definition';

export interface LoadedTool {
  origin: string;
  definition: PluginToolDefinition;
  input: CompiledInput;
  /** The definition's `output`, when it has one: the result is checked against it. */
  output?: CompiledOutput;
  spec: ToolSpec;
}

/** The engine's `ToolPort` over plugin tools: validate, then run under timeout and retry. */
export class PluginToolPort implements ToolPort {
  constructor(
    private readonly tools: ReadonlyMap<string, LoadedTool>,
    /** The egress guard's `fetch`, handed to every call. */
    private readonly fetch: typeof globalThis.fetch,
  ) {}

  names(): string[] {
    return [...this.tools.keys()];
  }

  specs(names: readonly string[]): ToolSpec[] {
    // A name listed twice would be refused by model providers; one spec each.
    return [...new Set(names)].map((name) => this.find(name).spec);
  }

  async call(name: string, args: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
    const tool = this.find(name);
    const subject = `tool "${name}"`;
    const valid = tool.input.validate(args, subject);
    const { runId, nodeId, callId, emit, reportUsage } = ctx;
    const result = await callWithPolicy({
      signal: ctx.signal,
      timeoutMs: tool.definition.timeoutMs,
      retry: tool.definition.retry,
      timeoutError: (ms) => new SpindleError('tool_failed', `${subject} timed out after ${ms} ms`),
      onRetry: (failure) => ctx.attemptFailed(failure),
      run: (signal, attempt) =>
        tool.definition.run(valid, { runId, nodeId, callId, signal, attempt, fetch: this.fetch, emit, reportUsage }),
    });
    return tool.output ? tool.output.validate(result, subject) : result;
  }

  private find(name: string): LoadedTool {
    const tool = this.tools.get(name);
    if (!tool)
      throw new SpindleError(
        'tool_not_found',
        `no tool "${name}" is registered with this runner (registered: ${this.names().join(', ') || 'none'})`,
      );
    return tool;
  }
}
